"""A small threaded WSGI server for the embedded, all-in-one mode.

Production deployments run ``allocsvc.api.wsgi`` under uwsgi or gunicorn.

Stopping follows oslo.service: the first SIGTERM (or SIGINT) stops the
listeners at once (new connections are refused) and lets the requests
in flight finish; ``graceful_shutdown_timeout`` bounds the whole stop,
these requests and whatever the command stops after them, and when it
runs out the process exits at once with status 1. A second signal
during the stop also exits at once.
"""

import logging as std_logging
import os
import signal
import socketserver
import threading
import time
from wsgiref import simple_server

from oslo_log import log as logging

from allocsvc.common import startup

LOG = logging.getLogger(__name__)


# How long a stopping server takes the connections already queued.
DRAIN_SECONDS = 0.5


class _ThreadingServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 makes the kernel reset
    # connections when a few dozen clients connect at once.
    request_queue_size = 1024

    def __init__(self, *args, **kwargs):
        self._in_flight = 0
        self._idle = threading.Condition()
        super().__init__(*args, **kwargs)

    def process_request(self, request, client_address):
        # Counted here, in the accepting thread, so that every request
        # accepted before ``shutdown`` returns is waited for.
        with self._idle:
            self._in_flight += 1
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._done()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._done()

    def _done(self):
        with self._idle:
            self._in_flight -= 1
            self._idle.notify_all()

    def close_listener(self):
        """Take the connections the kernel has already queued (their
        clients sent their requests before the stop: they are answered),
        then close the listening socket, so that new ones are refused.
        Call once ``shutdown`` has returned.

        The queue is taken for at most ``DRAIN_SECONDS`` and at most as
        many connections as it can hold: clients that go on connecting
        meanwhile would otherwise keep the listener open for as long as
        they connect faster than a loaded server takes them."""
        self.socket.setblocking(False)
        deadline = time.monotonic() + DRAIN_SECONDS
        for _ in range(self.request_queue_size):
            if time.monotonic() > deadline:
                break
            try:
                request, client_address = self.get_request()
            except OSError:
                break
            request.setblocking(True)
            self.process_request(request, client_address)
        self.server_close()

    def wait_idle(self, timeout=None):
        """Wait until no request is in flight (at most ``timeout``
        seconds, None: no limit); returns how many still are."""
        with self._idle:
            self._idle.wait_for(lambda: self._in_flight <= 0, timeout)
            return self._in_flight


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


def _exit_now(code, message, *args):
    """Log, flush the logs and end the process without waiting for any
    thread, as oslo.service's launcher does when a stop runs late."""
    LOG.warning(message, *args)
    std_logging.shutdown()
    os._exit(code)


class Stopper:
    """Bounds a graceful stop: ``start()`` arms a timer that ends the
    process with status 1 once ``timeout`` seconds (0: never) have
    passed."""

    def __init__(self, timeout):
        self.timeout = timeout
        self.deadline = None
        self._timer = None

    def start(self):
        if self.timeout:
            self.deadline = time.monotonic() + self.timeout
            self._timer = threading.Timer(
                self.timeout, _exit_now,
                (1, 'Graceful shutdown timeout (%s s) exceeded, exiting '
                 'at once', self.timeout))
            self._timer.daemon = True
            self._timer.start()

    def remaining(self):
        """Seconds left before the deadline (None: no deadline)."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def cancel(self):
        if self._timer is not None:
            self._timer.cancel()


def finish(code):
    """End the process after a complete stop with ``code``, without
    waiting for idle library threads (futurist's workers notice only
    once a second that they were stopped), as oslo.service's launcher
    does: the logs are flushed, and nothing else is left to do."""
    std_logging.shutdown()
    os._exit(code)


# How often an idle listener looks whether it was asked to stop: the
# listeners stop within this time of a signal.
POLL_INTERVAL = 0.1


def serve_forever(servers, stopper=None):
    """Serve every server until SIGINT or SIGTERM, then stop them and
    wait for the requests in flight (until ``stopper``'s deadline, which
    this arms); returns an exit code."""
    startup.freeze_startup_objects()
    stopper = stopper or Stopper(0)
    stop = threading.Event()
    threads = [threading.Thread(target=s.serve_forever,
                                kwargs={'poll_interval': POLL_INTERVAL},
                                daemon=True)
               for s in servers]
    for thread in threads:
        thread.start()

    def _stop(signum, frame):
        if stop.is_set():
            _exit_now(1, 'Signal %s during the graceful shutdown, exiting '
                      'at once', signum)
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    # Python runs a signal's handler in the main thread, but the kernel
    # may deliver the signal to any thread: one that lands on a request
    # or conductor thread does not interrupt a wait here without a
    # timeout, and the stop would wait for the next wake-up of this
    # thread. Waking up every POLL_INTERVAL bounds that.
    while not stop.wait(POLL_INTERVAL):
        pass
    stopper.start()
    LOG.info('Graceful shutdown: no new requests, waiting for the ones '
             'in flight')
    for s in servers:
        s.shutdown()
        s.close_listener()
    left = 0
    for s in servers:
        left += s.wait_idle(stopper.remaining())
    if left:
        LOG.warning('%d requests still in flight at the graceful shutdown '
                    'timeout', left)
        return 1
    return 0
