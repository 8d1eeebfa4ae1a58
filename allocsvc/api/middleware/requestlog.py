"""One log line per request, once its response is known.

Both pipelines (Placement's and the bare-metal one) log each request at
INFO, as Placement's deployment does: who asked, the method and URI, the
status, the length of the body and the microversion the request was
served at. The line is written inside the context middleware, so it
carries the request's id.
"""

from oslo_log import log as logging
import webob.dec

LOG = logging.getLogger(__name__)


class RequestLog:
    """Out: logs the request and its response. ``version_key`` is the
    environ key where the microversion of the pipeline is found."""

    def __init__(self, application, version_key):
        self.application = application
        self.version_key = version_key

    @webob.dec.wsgify
    def __call__(self, req):
        resp = req.get_response(self.application)
        # As received: a path that is not UTF-8 is logged, not decoded.
        environ = req.environ
        uri = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
        if environ.get('QUERY_STRING'):
            uri += '?' + environ['QUERY_STRING']
        LOG.info('%(remote)s "%(method)s %(uri)s" status: %(status)d '
                 'len: %(length)s microversion: %(version)s',
                 {'remote': req.remote_addr or '-', 'method': req.method,
                  'uri': uri, 'status': resp.status_int,
                  'length': resp.content_length or 0,
                  'version': req.environ.get(self.version_key, '-')})
        return resp
