"""The embedded WSGI server passes requests on as uwsgi and gunicorn do."""

import http.client
import threading

import pytest

from allocsvc.cmd import server


def _environ_of(headers, body=None):
    """The environ our server builds for one request with ``headers``."""
    seen = {}

    def app(environ, start_response):
        seen.update(environ)
        start_response('204 No Content', [])
        return []

    httpd = server.make_server('127.0.0.1', 0, app)
    thread = threading.Thread(target=httpd.handle_request)
    thread.start()
    try:
        conn = http.client.HTTPConnection('127.0.0.1', httpd.server_port,
                                          timeout=10)
        conn.request('POST', '/', body=body, headers=headers)
        assert conn.getresponse().status == 204
        conn.close()
    finally:
        thread.join(10)
        httpd.server_close()
    return seen


def test_no_content_type_header_is_no_content_type():
    # wsgiref alone would say text/plain, which Placement refuses (415)
    # differently from a body without any type (400).
    environ = _environ_of({}, body=b'a body')
    assert 'CONTENT_TYPE' not in environ
    assert environ['CONTENT_LENGTH'] == '6'


@pytest.mark.parametrize('content_type', ['text/plain', 'application/json'])
def test_a_content_type_header_is_kept(content_type):
    environ = _environ_of({'Content-Type': content_type}, body=b'{}')
    assert environ['CONTENT_TYPE'] == content_type


def test_a_stop_waits_for_the_requests_in_flight():
    entered, release = threading.Event(), threading.Event()

    def app(environ, start_response):
        entered.set()
        release.wait(30)
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'done']

    httpd = server.make_server('127.0.0.1', 0, app)
    port = httpd.server_port
    serving = threading.Thread(target=httpd.serve_forever,
                               kwargs={'poll_interval': 0.05})
    serving.start()
    answers = []

    def ask():
        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
        conn.request('GET', '/')
        resp = conn.getresponse()
        answers.append((resp.status, resp.read()))
        conn.close()

    client = threading.Thread(target=ask)
    client.start()
    try:
        assert entered.wait(30)
        httpd.shutdown()
        httpd.server_close()
        # The listener is closed: no new connection; the accepted
        # request is still in flight.
        with pytest.raises(ConnectionRefusedError):
            http.client.HTTPConnection('127.0.0.1', port,
                                       timeout=5).connect()
        assert httpd.wait_idle(0.05) == 1
    finally:
        release.set()
    assert httpd.wait_idle(30) == 0
    client.join(30)
    serving.join(30)
    assert answers == [(200, b'done')]


def test_the_stopper_bounds_the_wait():
    stopper = server.Stopper(0)
    stopper.start()
    assert stopper.remaining() is None
    stopper = server.Stopper(3600)
    stopper.start()
    try:
        assert 0 < stopper.remaining() <= 3600
    finally:
        stopper.cancel()
