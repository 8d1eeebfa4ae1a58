"""Waiting for a condition (or a server) without sleeping blindly."""

import json
import time
import urllib.error
import urllib.request

# Generous bounds for waits (never asserted as performance).
WAIT = 60


def get_json(url, headers=None, timeout=5):
    """``(status, parsed JSON body)`` of a GET of ``url``."""
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.status, json.loads(resp.read())


def _answer(url):
    try:
        return get_json(url)
    except (urllib.error.URLError, ConnectionError):
        return None


def _check_process(process):
    """AssertionError, with what it wrote, if ``process`` has exited.
    ``process``: a ``subprocess.Popen`` whose stdout is a pipe, or
    anything with a ``check_running()`` (a ``ProcessGroup``)."""
    if hasattr(process, 'check_running'):
        process.check_running()
    elif process.poll() is not None:
        out = process.stdout.read().decode(errors='replace')
        raise AssertionError('server exited early (%s):\n%s'
                             % (process.returncode, out))


def wait_for(condition, timeout=WAIT, interval=0.01, max_interval=0.2,
             process=None, fail=True):
    """Poll ``condition`` (backing off, as a polite client does) until
    it gives something true; return that.

    ``condition``: a callable, or a URL, which is met once a GET of it
    answers (the value is then ``(status, parsed JSON body)``).
    ``process``: the server that should answer; if it exits, fail at
    once with its output. When ``timeout`` seconds pass: AssertionError,
    or with ``fail=False`` the last (false) value.
    """
    if isinstance(condition, str):
        url = condition

        def predicate():
            return _answer(url)
        what = 'no answer from %s' % url
    else:
        predicate = condition
        what = 'condition not met'
    deadline = time.time() + timeout
    while True:
        if process is not None:
            _check_process(process)
        value = predicate()
        if value:
            return value
        if time.time() > deadline:
            if not fail:
                return value
            raise AssertionError('%s in %ss' % (what, timeout))
        time.sleep(interval)
        interval = min(interval * 1.5, max_interval)
