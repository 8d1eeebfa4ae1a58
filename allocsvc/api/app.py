"""The WSGI application factory.

``setup_app(conf)`` builds the one application this service serves: the
Placement API under ``/placement`` and everything else (the service root
and the bare-metal ``/v1`` API) through ``baremetal_app``, a Pecan
application. ``placement_app(conf)`` is the Placement API alone, for a
listener that serves it at its root.
"""

from microversion_parse import middleware as mp_middleware
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
import pecan

from allocsvc.api.controllers.placement import auth
from allocsvc.api.controllers.placement import errors
from allocsvc.api.controllers.placement import handler
from allocsvc.api.controllers.placement import microversion
from allocsvc.api.controllers import root
from allocsvc.api.controllers.v1 import hooks
from allocsvc.api.middleware import auth as baremetal_auth
from allocsvc.api.middleware import errors as baremetal_errors
from allocsvc.api.middleware import requestlog
from allocsvc.api.middleware import sizelimit
from allocsvc.api.middleware import version as baremetal_version
from allocsvc import objects
from allocsvc.common import policy
from allocsvc.placement import sync

PLACEMENT_PREFIX = '/placement'
# Where microversion_parse leaves the Placement request's version.
PLACEMENT_VERSION_KEY = microversion.SERVICE_TYPE + '.microversion'


def placement_app(conf, enforcer=None):
    """The Placement API pipeline, listed from the inside out."""
    enforcer = enforcer or policy.get_enforcer(conf)
    # Routes the request through the route table to one handler.
    app = handler.PlacementHandler()
    # In: parses OpenStack-API-Version (400 if malformed, 406 if out of
    # range). Out: adds openstack-api-version and vary headers.
    app = mp_middleware.MicroversionMiddleware(
        app, microversion.SERVICE_TYPE, microversion.VERSIONS,
        json_error_formatter=errors.json_error_formatter)
    # Out: logs the request and its response (status, length,
    # microversion), with the request's id.
    app = requestlog.RequestLog(app, PLACEMENT_VERSION_KEY)
    # In: builds the RequestContext from the identity headers.
    app = auth.ContextMiddleware(app, enforcer, conf)
    # In: authenticates (noauth2 token rules or keystone); 401 if not.
    if conf.api.auth_strategy == 'keystone':
        app = auth.KeystoneAuth(app, conf)
    else:
        app = auth.NoAuth(app)
    # In/out: answers CORS pre-flight requests and adds CORS headers.
    # Only when origins are configured, as in Placement: the middleware
    # answers every OPTIONS request 200, which without CORS must be the
    # route table's 405.
    if conf.cors.allowed_origin:
        app = cors.CORS(app, conf)
    # In: 413 for a body larger than [oslo_middleware]
    # max_request_body_size (oslo.middleware's limit), worded below.
    app = sizelimit.RequestBodySizeLimiter(app, conf)
    # In: picks the error format: JSON, or HTML for a client that asks for
    # it. Out: any escaped exception becomes an error document.
    app = errors.JSONErrors(app)
    # In: keeps a valid global request id, makes a local one. Out: adds
    # x-openstack-request-id to every response, errors included.
    app = request_id.RequestId(app)
    # In: behind a TLS-terminating proxy, takes the scheme and host the
    # client used from its headers ([oslo_middleware]
    # enable_proxy_headers_parsing), so links and Location headers point
    # where the client can follow them.
    app = http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    return app


class BaremetalRequestId(request_id.RequestId):
    """The request id in both headers Ironic answers with."""

    compat_headers = ['openstack-request-id']


def baremetal_app(conf, enforcer=None, rpcapi=None):
    """The bare-metal API pipeline (``/`` and ``/v1``), inside out.

    ``rpcapi`` is the client through which the API hands work to the
    conductors (``allocsvc.conductor.rpcapi.ConductorAPI``).
    """
    enforcer = enforcer or policy.get_enforcer(conf)
    objects.register_all()
    # Routes the request through the route table of / and /v1
    # (allocsvc.api.controllers.v1.routes) to its handler, once the hook
    # has checked the body.
    app = pecan.make_app(
        root.make_root(), force_canonical=False,
        guess_content_type_from_ext=False,
        hooks=[hooks.RequestChecksHook()])
    # In: negotiates the microversion (406 when it cannot). Out: adds the
    # Ironic version headers, the standard one and Vary to every
    # response (the root document's too, as Ironic).
    app = baremetal_version.Microversion(app)
    # In: 413 for a body larger than [oslo_middleware]
    # max_request_body_size (oslo.middleware's limit), worded below.
    app = sizelimit.RequestBodySizeLimiter(app, conf)
    # Out: wraps every error in Ironic's {"error_message": "..."}; an
    # escaped exception is logged and becomes a 500 Server fault.
    app = baremetal_errors.ParsableErrors(app)
    # Out: logs the request and its response (status, length,
    # microversion), with the request's id.
    app = requestlog.RequestLog(app, baremetal_version.ENV_VERSION)
    # In: builds the RequestContext from the identity headers and marks
    # the public routes.
    app = baremetal_auth.ContextMiddleware(app, conf, enforcer, rpcapi)
    # In: with keystone, validates the token (401 if not valid), except
    # on the public routes / and /v1. noauth lets every request through.
    if conf.api.auth_strategy == 'keystone':
        app = baremetal_auth.KeystoneAuth(app, conf)
    # In/out: answers CORS pre-flight requests and adds CORS headers.
    app = cors.CORS(app, conf)
    # In: keeps a valid global request id, makes a local one. Out: adds
    # x-openstack-request-id, and Ironic's older openstack-request-id, to
    # every response, errors included.
    app = BaremetalRequestId(app)
    # In: the scheme and host the client used, behind a proxy (see
    # placement_app).
    app = http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    return app


class PrefixDispatcher:
    """Send ``/placement...`` to the Placement pipeline, the rest to Pecan.

    The prefix moves from PATH_INFO to SCRIPT_NAME, so links and Location
    headers built from SCRIPT_NAME follow the mount point.
    """

    def __init__(self, placement, default):
        self.placement = placement
        self.default = default

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if path == PLACEMENT_PREFIX or path.startswith(PLACEMENT_PREFIX + '/'):
            environ['SCRIPT_NAME'] = (environ.get('SCRIPT_NAME', '') +
                                      PLACEMENT_PREFIX)
            environ['PATH_INFO'] = path[len(PLACEMENT_PREFIX):]
            return self.placement(environ, start_response)
        return self.default(environ, start_response)


def setup_app(conf, prepare_db=True, rpcapi=None):
    """The whole WSGI application for ``conf``; ``rpcapi`` as for
    ``baremetal_app``."""
    if prepare_db:
        sync.prepare_database(conf)
    enforcer = policy.get_enforcer(conf)
    return PrefixDispatcher(placement_app(conf, enforcer),
                            baremetal_app(conf, enforcer, rpcapi))
