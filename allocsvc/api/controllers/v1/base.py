"""What every ``/v1`` controller uses: rendering, errors, version, links.

``@expose()`` turns a controller method into a Pecan endpoint that answers
JSON and maps exceptions to Ironic's fault document: an
``AllocsvcException`` or a webob HTTP error is a ``Client`` fault with
its status and message; anything else is logged and a 500 ``Server``
fault (a bug). ``ParsableErrors`` then wraps it in ``error_message``.
"""

import functools
import json

from oslo_log import log as logging
import pecan
import webob.exc

from allocsvc.api.controllers.v1 import versions
from allocsvc.api.middleware import errors
from allocsvc.api.middleware import version as version_mw
from allocsvc.common import exception

LOG = logging.getLogger(__name__)


def api_version():
    """The negotiated ``versions.APIVersion`` of the current request."""
    return pecan.request.environ.get(version_mw.ENV_VERSION,
                                     versions.MIN_VERSION)


def public_url():
    """The URL the API is reached at (it follows a mount point)."""
    return pecan.request.application_url


def make_link(rel, resource, args='', bookmark=False, **extra):
    """An Ironic link: ``/v1/<resource><args>``, or without ``/v1`` for a
    bookmark (Ironic serves both)."""
    template = '%s/%s%s' if bookmark else '%s/v1/%s%s'
    link = {'href': template % (public_url(), resource, args), 'rel': rel}
    link.update(extra)
    return link


def resource_links(resource, args=''):
    """The self and bookmark links of a resource, as Ironic lists them."""
    return [make_link('self', resource, args),
            make_link('bookmark', resource, args, bookmark=True)]


def fault_response(status, message, headers=None):
    """A response carrying Ironic's fault document (before wrapping)."""
    resp = pecan.Response(status=status, content_type='application/json',
                          charset='UTF-8')
    # Not as a constructor argument: webob refuses headers=None.
    resp.headers.update(headers or {})
    resp.text = json.dumps(errors.fault_body(status, message))
    return resp


def _fault_for(exc):
    if isinstance(exc, exception.AllocsvcException):
        return fault_response(exc.status, exc.message)
    if isinstance(exc, webob.exc.HTTPException):
        allow = exc.headers.get('Allow')
        return fault_response(exc.code, exc.detail or exc.explanation,
                              headers={'Allow': allow} if allow else None)
    LOG.error('Unexpected error handling %s %s', pecan.request.method,
              pecan.request.path, exc_info=exc)
    return fault_response(500, 'An unexpected error occurred; it has been '
                               'logged.')


def expose(status_code=200):
    """Expose a controller method that returns a JSON-able value (or None
    for an empty body)."""

    def decorate(func):
        @functools.wraps(func)
        def endpoint(*args, **kwargs):
            try:
                result = func(*args, **kwargs)
            except Exception as exc:
                return _fault_for(exc)
            resp = pecan.response
            resp.status = status_code
            if result is None:
                resp.content_type = None
                resp.body = b''
            else:
                resp.content_type = 'application/json'
                resp.charset = 'UTF-8'
                resp.text = json.dumps(result)
            return resp
        return pecan.expose(content_type='application/json')(endpoint)
    return decorate
