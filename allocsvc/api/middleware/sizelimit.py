"""oslo.middleware's request body size limit, for both pipelines, and
the reading of the body it bounds.

``[oslo_middleware] max_request_body_size`` (oslo.middleware's option,
1 MiB by default here: a config drive fits) bounds every request body:
one that says it is larger (Content-Length) is refused before a byte of
it is read; one without a length (chunked, where the server ends the
input) is read through oslo.middleware's ``LimitingReader``, which
stops at the limit. Either way the refusal is a 413 raised as webob's
HTTP error, so that the pipeline's error layer words it in its API's
format:
oslo.middleware's own ``__call__`` answers it itself, as a plain webob
page, and leaves ``%s`` unfilled in its message. An invalid
Content-Length is left to the handlers (Placement's 400).

The body is then read here, once, whole: a client that closes the
connection (or resets it) before sending all of it is the client's
fault, not a server error deep in whichever layer read it first. It is
logged in one INFO line and answered 400 (for a client that only
half-closed, the answer still arrives).
"""

from oslo_log import log as logging
from oslo_middleware import sizelimit
import webob
import webob.exc

LOG = logging.getLogger(__name__)

OPTS = sizelimit.OPTS


class RequestBodySizeLimiter(sizelimit.RequestBodySizeLimiter):
    """In: 413 for a body larger than the limit, 400 for one the client
    did not finish sending. Out: nothing."""

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        max_size = self._conf_get('max_request_body_size')
        length = req.content_length
        if length is not None and length > max_size:
            raise webob.exc.HTTPRequestEntityTooLarge(
                'Request is too large. Larger than max_request_body_size '
                '(%d).' % max_size)
        if not environ.get('CONTENT_LENGTH') and \
                environ.get('wsgi.input_terminated'):
            # A body without a length (chunked) that the server ends.
            # Only then: oslo.middleware wraps every input without a
            # length, which marks it readable to its end, and a server
            # such as wsgiref does not end the input of a GET.
            req.body_file = sizelimit.LimitingReader(req.body_file, max_size)
        if req.is_body_readable:
            try:
                req.make_body_seekable()
            except OSError as exc:
                # webob's DisconnectionError (fewer bytes than announced)
                # and a reset or timed-out socket alike.
                LOG.info('%s %s: the client did not send the whole '
                         'request body: %s', req.method,
                         environ.get('SCRIPT_NAME', '') +
                         environ.get('PATH_INFO', ''), exc)
                raise webob.exc.HTTPBadRequest(
                    'The request body is incomplete: the client stopped '
                    'sending it.')
        return self.application(environ, start_response)
