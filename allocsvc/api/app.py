"""The WSGI application factory.

``setup_app(conf)`` builds the one application this service serves: the
Placement API under ``/placement`` and everything else (the service root
and the bare-metal ``/v1`` API) through ``baremetal_app``, a Pecan
application. ``placement_app(conf)`` is the Placement API alone, for a
listener that serves it at its root.
"""

from microversion_parse import middleware as mp_middleware
from oslo_middleware import cors
from oslo_middleware import request_id
import pecan
from pecan import core as pecan_core
from pecan import rest as pecan_rest
from pecan import routing as pecan_routing
from pecan import util as pecan_util

from allocsvc.api.controllers.placement import auth
from allocsvc.api.controllers.placement import errors
from allocsvc.api.controllers.placement import handler
from allocsvc.api.controllers.placement import microversion
from allocsvc.api.controllers import root
from allocsvc.api.middleware import auth as baremetal_auth
from allocsvc.api.middleware import errors as baremetal_errors
from allocsvc.api.middleware import version as baremetal_version
from allocsvc.common import policy
from allocsvc.db import api as db_api
from allocsvc.placement import sync

PLACEMENT_PREFIX = '/placement'


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
    # In: picks the error format: JSON, or HTML for a client that asks for
    # it. Out: any escaped exception becomes an error document.
    app = errors.JSONErrors(app)
    # In: keeps a valid global request id, makes a local one. Out: adds
    # x-openstack-request-id to every response, errors included.
    app = request_id.RequestId(app)
    return app


def _remember_pecan_signatures():
    """Make Pecan look up each controller method's signature once.

    Pecan's router inspects the signature of every candidate method on
    every request, and its getargspec builds a new namedtuple class each
    time: that was half the CPU time of a small /v1 request. A method's
    signature never changes, so the answer is kept per function.
    """
    if getattr(pecan_util.getargspec, 'remembers', False):
        return
    inspect = pecan_util.getargspec
    known = {}

    def getargspec(method):
        key = getattr(method, '__func__', method)
        try:
            return known[key]
        except KeyError:
            spec = known[key] = inspect(method)
            return spec
        except TypeError:   # not hashable: do not remember it
            return inspect(method)

    getargspec.remembers = True
    for module in (pecan_util, pecan_core, pecan_rest, pecan_routing):
        module.getargspec = getargspec


def _skip_known_controllers():
    """Make Pecan look for custom path segments once per controller class.

    On every step of every route, Pecan's ``_detect_custom_path_segments``
    lists the attributes of the controller (``dir``), and then uses them
    only if it has not seen the class before. The classes do not change
    while the application runs: a class seen once is skipped.
    """
    detect = pecan_routing._detect_custom_path_segments
    if getattr(detect, 'skips_known', False):
        return
    observed = getattr(pecan_routing, '__observed_controllers__')

    def detect_once(obj):
        if obj.__class__ not in observed:
            detect(obj)

    detect_once.skips_known = True
    pecan_routing._detect_custom_path_segments = detect_once


def baremetal_app(conf, enforcer=None, rpcapi=None):
    """The bare-metal API pipeline (``/`` and ``/v1``), inside out.

    ``rpcapi`` is the client through which the API hands work to the
    conductors (``allocsvc.conductor.rpcapi.ConductorAPI``).
    """
    enforcer = enforcer or policy.get_enforcer(conf)
    _remember_pecan_signatures()
    _skip_known_controllers()
    # Routes the request through the controllers: the root document, /v1
    # and the resources under it (allocsvc.api.controllers).
    app = pecan.make_app(root.RootController(), force_canonical=False,
                         guess_content_type_from_ext=False)
    # In: negotiates the microversion (406 when it cannot). Out: adds the
    # Ironic version headers, the standard one and Vary to /v1 responses.
    app = baremetal_version.Microversion(app)
    # Out: wraps every error in Ironic's {"error_message": "..."}; an
    # escaped exception is logged and becomes a 500 Server fault.
    app = baremetal_errors.ParsableErrors(app)
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
    # x-openstack-request-id to every response, errors included.
    app = request_id.RequestId(app)
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


def prepare_database(conf):
    """Configure the database layer and load the standard classes/traits."""
    db_api.configure(conf)
    if conf.placement.sync_on_startup:
        sync.ensure_standard()


def setup_app(conf, prepare_db=True, rpcapi=None):
    """The whole WSGI application for ``conf``; ``rpcapi`` as for
    ``baremetal_app``."""
    if prepare_db:
        prepare_database(conf)
    enforcer = policy.get_enforcer(conf)
    return PrefixDispatcher(placement_app(conf, enforcer),
                            baremetal_app(conf, enforcer, rpcapi))
