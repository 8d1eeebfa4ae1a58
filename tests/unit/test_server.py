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
