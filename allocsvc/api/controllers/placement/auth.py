"""Authentication and request context for the Placement API."""

from keystonemiddleware import auth_token
import webob
import webob.dec
import webob.exc

from allocsvc.api.controllers.placement import errors
from allocsvc.common import context


class NoAuth:
    """Placement's ``noauth2`` rules, for deployments without keystone.

    In: ``GET /`` passes untouched. Any other request needs an
    ``x-auth-token`` of the form ``user_id[:project_id]`` (401 without
    one); it becomes the user and project headers keystonemiddleware would
    have set, except that an ``x-project-id`` the client sent is kept (in
    Placement the token's project only fills in for a missing one). User
    ``admin`` has the admin role; other roles come from ``x-roles``. Out:
    nothing.
    """

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, req):
        if req.path_info in ('', '/'):
            return self.application
        token = req.headers.get('X-Auth-Token')
        if not token:
            raise errors.to_http_error(req, webob.exc.HTTPUnauthorized(
                'The request you have made requires authentication.'))
        user_id, _sep, project_id = token.partition(':')
        roles = [r.strip() for r in req.headers.get('X-Roles', '').split(',')
                 if r.strip()]
        if user_id == 'admin' and 'admin' not in roles:
            roles.append('admin')
        req.headers['X-User-Id'] = user_id
        if not req.headers.get('X-Project-Id'):
            req.headers['X-Project-Id'] = project_id or user_id
        req.headers['X-Roles'] = ','.join(roles)
        return self.application


class KeystoneAuth(auth_token.AuthProtocol):
    """keystonemiddleware, except for the unauthenticated version root."""

    def __init__(self, application, conf):
        super().__init__(application, {'oslo_config_config': conf})
        self._unauthenticated_app = application

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '') in ('', '/'):
            return self._unauthenticated_app(environ, start_response)
        return super().__call__(environ, start_response)


class ContextMiddleware:
    """In: puts a RequestContext built from the identity headers, the
    policy enforcer and the configuration into the environ for the
    handlers. Out: nothing."""

    def __init__(self, application, enforcer, conf):
        self.application = application
        self.enforcer = enforcer
        self.conf = conf

    def __call__(self, environ, start_response):
        environ['allocsvc.context'] = context.RequestContext.from_environ(
            environ)
        environ['allocsvc.policy_enforcer'] = self.enforcer
        environ['allocsvc.conf'] = self.conf
        return self.application(environ, start_response)
