"""Authentication and request context for the bare-metal API.

As Ironic: with ``[api] auth_strategy = noauth`` every request passes and
carries no identity; with ``keystone``, keystonemiddleware validates the
token of every request except the public routes (the version documents
``/`` and ``/v1``), which stay readable without one.
"""

import re

from keystonemiddleware import auth_token

from allocsvc.common import context

# The routes anybody may read (Ironic's acl_public_routes, minus the
# ramdisk agent's lookup and heartbeat, which allocsvc does not serve).
PUBLIC_ROUTES = (
    re.compile(r'^/?$'),
    re.compile(r'^/v1/?$'),
)

# Set in the environ for a public route, as Ironic does.
ENV_PUBLIC = 'is_public_api'
ENV_CONTEXT = 'allocsvc.context'
ENV_CONF = 'allocsvc.conf'
ENV_ENFORCER = 'allocsvc.policy_enforcer'
# The conductor RPC client (allocsvc.conductor.rpcapi.ConductorAPI).
ENV_RPCAPI = 'allocsvc.rpcapi'


def is_public(path):
    return any(route.match(path) for route in PUBLIC_ROUTES)


class KeystoneAuth(auth_token.AuthProtocol):
    """In: keystonemiddleware (401 without a valid token), except on the
    public routes, which go straight through. Out: nothing."""

    def __init__(self, application, conf):
        super().__init__(application, {'oslo_config_config': conf})
        self._unauthenticated_app = application

    def __call__(self, environ, start_response):
        if is_public(environ.get('PATH_INFO', '')):
            return self._unauthenticated_app(environ, start_response)
        return super().__call__(environ, start_response)


class ContextMiddleware:
    """In: puts a RequestContext built from the identity headers (none with
    noauth), whether the route is public, the configuration, the policy
    enforcer and the conductor RPC client into the environ, and shows the
    client the thread serving the request. Out: nothing."""

    def __init__(self, application, conf, enforcer, rpcapi=None):
        self.application = application
        self.conf = conf
        self.enforcer = enforcer
        self.rpcapi = rpcapi

    def __call__(self, environ, start_response):
        environ[ENV_PUBLIC] = is_public(environ.get('PATH_INFO', ''))
        ctx = context.RequestContext.from_environ(environ)
        if self.conf.api.auth_strategy != 'keystone':
            # No token travels on with noauth (Ironic drops it too).
            ctx.auth_token = None
        environ[ENV_CONTEXT] = ctx
        environ[ENV_CONF] = self.conf
        environ[ENV_ENFORCER] = self.enforcer
        environ[ENV_RPCAPI] = self.rpcapi
        waiting = getattr(self.rpcapi, 'waiting', None)
        if waiting is not None:
            # The threads serving requests bound how many may wait on
            # the conductors (allocsvc.conductor.call_guard).
            waiting.saw_thread()
        return self.application(environ, start_response)
