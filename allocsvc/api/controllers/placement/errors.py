"""Placement's JSON error body, for every error a request can meet.

``{"errors": [{"status", "title", "detail", "code", "request_id"}]}``;
``code`` only from microversion 1.23, ``min_version``/``max_version`` on
a 406 caused by an unsupported microversion. A client that prefers HTML
to JSON (``Accept: text/html``, a browser) gets webob's HTML error page
instead, as from Placement.
"""

from oslo_log import log as logging
from oslo_middleware import request_id
import webob
import webob.acceptparse
import webob.dec
import webob.exc

from allocsvc.api.controllers.placement import microversion
from allocsvc.api import request_checks
from allocsvc.common import exception

LOG = logging.getLogger(__name__)

ENV_ERROR_CODE = 'placement.error_code'


def json_error_formatter(body, status, title, environ):
    """Format a webob HTTP error as a Placement JSON error document."""
    body = webob.exc.strip_tags(body)
    status_code = int(status.split(None, 1)[0])
    error = {'status': status_code, 'title': title, 'detail': body}
    want = environ.get(microversion.MICROVERSION_ENVIRON)
    if want is not None and want >= (1, 23):
        error['code'] = environ.get(ENV_ERROR_CODE, exception.DEFAULT)
    req_id = environ.get(request_id.ENV_REQUEST_ID)
    if req_id:
        error['request_id'] = req_id
    if status_code == 406 and want is None:
        # Raised by the microversion middleware: say what is supported.
        error['min_version'] = microversion.MIN_VERSION
        error['max_version'] = microversion.MAX_VERSION
    return {'errors': [error]}


ENV_ORIGINAL_ACCEPT = 'placement.original_accept'


def _error_class(req, exc):
    """webob's error class of ``exc``'s status; an internal error (500)
    for a status that is not an HTTP error's. A server error is logged:
    it is ours, not the client's."""
    error_class = webob.exc.status_map.get(exc.status)
    if error_class is None or exc.status < 400:
        LOG.error('%s %s: %s has no HTTP error status (%r)', req.method,
                  req.path, type(exc).__name__, exc.status)
        return webob.exc.HTTPInternalServerError
    if exc.status >= 500:
        LOG.error('%s %s: %s: %s', req.method, req.path,
                  type(exc).__name__, exc.message)
    return error_class


def to_http_error(req, exc):
    """The webob HTTP error, JSON-formatted, that answers ``exc``: an
    allocsvc exception with exactly its status."""
    if isinstance(exc, exception.AllocsvcException):
        req.environ[ENV_ERROR_CODE] = exc.error_code
        http_error = _error_class(req, exc)(exc.message)
    elif isinstance(exc, webob.exc.HTTPException):
        http_error = exc
    else:
        LOG.error('Unexpected error handling %s %s', req.method, req.path,
                  exc_info=exc)
        http_error = webob.exc.HTTPInternalServerError(
            'An unexpected error occurred; it has been logged.')
    http_error.json_formatter = json_error_formatter
    return http_error


def error_media_type(accept):
    """The media type of the error bodies for an Accept header value.

    HTML only when the client ranks it above JSON (``text/html``, or a
    browser's ``text/html,...,*/*;q=0.8``); JSON on a tie (no header,
    ``*/*``) and when the client accepts neither (webob would fall back
    to plain text, which no Placement client reads).
    """
    header = webob.acceptparse.create_accept_header(accept)
    offers = header.acceptable_offers(['application/json', 'text/html'])
    if offers and offers[0][0] == 'text/html':
        return 'text/html'
    return 'application/json'


class JSONErrors:
    """Make every error a Placement error document.

    In: remembers the client's Accept header (for handlers that check it)
    and leaves in its place the one format webob is to render errors in:
    JSON, or HTML for a client that prefers it (``error_media_type``).
    Refuses (400) a path or query string that is not UTF-8.
    Out: any exception that escapes the layers below becomes an error
    document (a 500 if it was not an HTTP error: always a bug).
    """

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, req):
        accept = req.environ.get('HTTP_ACCEPT')
        req.environ[ENV_ORIGINAL_ACCEPT] = accept
        req.environ['HTTP_ACCEPT'] = error_media_type(accept)
        if not request_checks.readable_target(req.environ):
            # webob (and so every layer below) cannot decode it.
            return to_http_error(req, webob.exc.HTTPBadRequest(
                'The request path or query string is not valid UTF-8.'))
        try:
            return req.get_response(self.application)
        except Exception as exc:
            return to_http_error(req, exc)
