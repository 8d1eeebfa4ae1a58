"""oslo.middleware's request body size limit, for both pipelines.

``[oslo_middleware] max_request_body_size`` (oslo.middleware's option,
112 KiB by default) bounds every request body: one that says it is
larger (Content-Length) is refused before a byte of it is read; one
without a length (chunked) is read through oslo.middleware's
``LimitingReader``, which stops at the limit. Either way the refusal is
a 413 raised as webob's HTTP error, so that the pipeline's error layer
words it in its API's format: oslo.middleware's own ``__call__`` answers
it itself, as a plain webob page, and leaves ``%s`` unfilled in its
message.
"""

from oslo_middleware import sizelimit
import webob
import webob.exc

OPTS = sizelimit.OPTS


class RequestBodySizeLimiter(sizelimit.RequestBodySizeLimiter):
    """In: 413 for a body larger than the limit. Out: nothing."""

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        max_size = self._conf_get('max_request_body_size')
        length = req.content_length
        if length is not None and length > max_size:
            raise webob.exc.HTTPRequestEntityTooLarge(
                'Request is too large. Larger than max_request_body_size '
                '(%d).' % max_size)
        if length is None:
            req.body_file = sizelimit.LimitingReader(req.body_file, max_size)
        return self.application(environ, start_response)
