"""A small threaded WSGI server for the embedded, all-in-one mode.

Production deployments run ``allocsvc.api.wsgi`` under uwsgi or gunicorn.
"""

import signal
import socketserver
import threading
from wsgiref import simple_server

from oslo_log import log as logging

from allocsvc.common import startup

LOG = logging.getLogger(__name__)


class _ThreadingServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 makes the kernel reset
    # connections when a few dozen clients connect at once.
    request_queue_size = 1024


class _QuietHandler(simple_server.WSGIRequestHandler):

    def log_message(self, fmt, *args):
        LOG.info('%s %s', self.address_string(), fmt % args)

    def get_environ(self):
        # wsgiref says text/plain for a request without a Content-Type
        # header (the MIME default); uwsgi and gunicorn leave CONTENT_TYPE
        # out. Do as they do, so that "no content type" can be told from
        # a text/plain body (Placement answers them differently).
        environ = super().get_environ()
        if self.headers.get('Content-Type') is None:
            environ.pop('CONTENT_TYPE', None)
        return environ


def make_server(host, port, app):
    httpd = simple_server.make_server(host, port, app,
                                      server_class=_ThreadingServer,
                                      handler_class=_QuietHandler)
    LOG.info('Serving on http://%s:%s/', host, port)
    return httpd


def serve_forever(servers):
    """Serve every server until SIGINT or SIGTERM; returns an exit code."""
    startup.freeze_startup_objects()
    stop = threading.Event()
    threads = [threading.Thread(target=s.serve_forever, daemon=True)
               for s in servers]
    for thread in threads:
        thread.start()

    def _stop(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    stop.wait()
    for s in servers:
        s.shutdown()
        s.server_close()
    return 0
