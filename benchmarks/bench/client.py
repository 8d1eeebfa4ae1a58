"""A minimal Placement HTTP client (stdlib only) and a parallel runner.

Every request opens its own connection: gunicorn's sync and threaded
workers treat keep-alive differently, and a fresh connection per request
keeps the cost identical for every server under test (on 127.0.0.1 the
handshake is a few tens of microseconds).
"""

import concurrent.futures
import http.client
import json
import time
import urllib.parse

MICROVERSION = '1.39'


class Response:
    __slots__ = ('status', 'body', 'elapsed')

    def __init__(self, status, body, elapsed):
        self.status = status
        self.body = body
        self.elapsed = elapsed

    def __repr__(self):
        return '<Response %s %.3fs %r>' % (self.status, self.elapsed,
                                           str(self.body)[:300])


class Client:
    """Talks to one Placement endpoint, e.g. http://127.0.0.1:8778/placement.

    Connection failures and timeouts do not raise: they come back as a
    Response with status 0 so that a benchmark counts them as failures.
    """

    def __init__(self, url, token='admin', timeout=600.0):
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme != 'http':
            raise ValueError('only http:// endpoints are supported: %s' % url)
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.prefix = parsed.path.rstrip('/')
        self.token = token
        self.timeout = timeout

    def request(self, method, path, body=None, version=MICROVERSION,
                timeout=None):
        headers = {'X-Auth-Token': self.token,
                   'OpenStack-API-Version': 'placement %s' % version,
                   'Accept': 'application/json',
                   'Connection': 'close'}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers['Content-Type'] = 'application/json'
        start = time.perf_counter()
        conn = http.client.HTTPConnection(self.host, self.port,
                                          timeout=timeout or self.timeout)
        try:
            conn.request(method, self.prefix + path, body=data,
                         headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            status = resp.status
        except TimeoutError:
            return Response(0, 'timeout', time.perf_counter() - start)
        except (OSError, http.client.HTTPException) as exc:
            return Response(0, '%s: %s' % (type(exc).__name__, exc),
                            time.perf_counter() - start)
        finally:
            conn.close()
        elapsed = time.perf_counter() - start
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors='replace')
        return Response(status, parsed, elapsed)

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def put(self, path, body, **kw):
        return self.request('PUT', path, body, **kw)

    def post(self, path, body, **kw):
        return self.request('POST', path, body, **kw)

    def check(self, method, path, body=None, expect=(200, 201, 204)):
        """A setup request that must succeed: raises with the body if not."""
        resp = self.request(method, path, body)
        if resp.status not in expect:
            raise SetupError('%s %s -> %s %s' % (method, path, resp.status,
                                                 str(resp.body)[:500]))
        return resp


class SetupError(Exception):
    """A request needed to build a scenario failed."""


def parallel(func, items, threads):
    """Call ``func(item)`` for every item on ``threads`` threads; return the
    results in order. The first exception is re-raised."""
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(func, items))


def quote(value):
    return urllib.parse.quote(value, safe=',:!_')
