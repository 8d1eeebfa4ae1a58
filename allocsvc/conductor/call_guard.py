"""What keeps a dead conductor or a lost broker from stalling the API.

The API's client of the conductors (``rpcapi.ConductorAPI``) asks this
module two things before it waits on the broker or a conductor:

* ``Suspects``: who did not answer a moment ago. A conductor whose call
  was not answered within ``[api] conductor_answer_timeout``, and the
  broker when a message could not be sent, are suspected at once: the
  process's next requests pass them over instead of waiting on them
  again. Suspicion is lifted by any answer, and lapses after ``[api]
  conductor_suspect_time`` seconds; meanwhile one request in every
  ``[api] conductor_probe_interval`` seconds may still try a suspect
  when nothing else is left (the broker, or the only conductor that may
  serve a node), so that a peer that came back is found by the first
  request that needs it, not only once the suspicion lapses.
* ``Waiting``: how many of the process's requests wait for calls to
  the conductors at once. Past ``[api] conductor_waiting_calls`` (by
  default half the threads seen serving the process's requests, at
  least one) a request waits at most ``[api] conductor_slot_wait``
  seconds for another to finish, then is answered 503: a stalled peer
  can hold only part of the process's threads, and the others go on
  serving reads (which never wait on the broker).

Both are per API process and in memory: each worker learns on its own,
from its own requests, which costs each worker at most one bounded wait
per suspect.
"""

import threading
import time

from allocsvc.common import exception

# The key under which the broker is suspected (host names of conductors
# are the others).
BROKER = object()

# The most thread identities ``Waiting`` remembers: a WSGI server that
# starts a thread per request has no fixed number of threads, and needs
# no bound that protects them.
MAX_THREADS_SEEN = 1024


class Suspects:
    """Peers (conductor host names, ``BROKER``) that did not answer."""

    def __init__(self, conf, clock=time.monotonic):
        self._conf = conf
        self._clock = clock
        self._lock = threading.Lock()
        # key -> [suspected since, last probe]
        self._since = {}

    def suspect(self, key):
        now = self._clock()
        with self._lock:
            self._since[key] = [now, now]

    def clear(self, key):
        with self._lock:
            self._since.pop(key, None)

    def _entry(self, key, now):
        """The live entry of ``key`` (dropped once it lapsed); with the
        lock held."""
        entry = self._since.get(key)
        if entry is not None and \
                now - entry[0] >= self._conf.api.conductor_suspect_time:
            del self._since[key]
            return None
        return entry

    def suspected(self, key):
        """Whether ``key`` did not answer within the suspect time."""
        with self._lock:
            return self._entry(key, self._clock()) is not None

    def passed_over(self, key):
        """Whether a request passes ``key`` over: it is suspected, and it
        is not this request's turn to probe it (one request in every
        ``conductor_probe_interval`` seconds gets that turn)."""
        now = self._clock()
        with self._lock:
            entry = self._entry(key, now)
            if entry is None:
                return False
            if now - entry[1] >= self._conf.api.conductor_probe_interval:
                entry[1] = now
                return False
            return True

    def seconds_left(self, key):
        """Seconds until ``key``'s suspicion lapses (0: not suspected)."""
        now = self._clock()
        with self._lock:
            entry = self._entry(key, now)
            if entry is None:
                return 0.0
            return entry[0] + self._conf.api.conductor_suspect_time - now


class Waiting:
    """The requests of this process that wait on the broker or a
    conductor (``held``), at most ``limit()`` at once."""

    def __init__(self, conf, clock=time.monotonic):
        self._conf = conf
        self._clock = clock
        self._cond = threading.Condition()
        self._count = 0
        self._threads = set()

    def saw_thread(self):
        """Note the thread serving a request (the automatic limit is
        half of those seen)."""
        threads = self._threads
        if len(threads) < MAX_THREADS_SEEN:
            threads.add(threading.get_ident())

    def limit(self):
        """The bound: ``[api] conductor_waiting_calls``, or half the
        threads seen (at least 1); None (no bound) while no request was
        seen, for a client used outside the API's WSGI pipeline."""
        configured = self._conf.api.conductor_waiting_calls
        if configured:
            return configured
        if not self._threads:
            return None
        return max(1, len(self._threads) // 2)

    @property
    def count(self):
        return self._count

    def acquire(self):
        """Take a place among the waiting requests, waiting at most
        ``[api] conductor_slot_wait`` seconds for one; NoConductorAvailable
        (503) if none came free."""
        patience = self._conf.api.conductor_slot_wait
        deadline = self._clock() + patience
        with self._cond:
            while self._count >= (self.limit() or self._count + 1):
                left = deadline - self._clock()
                if left <= 0:
                    raise exception.NoConductorAvailable(
                        '%d requests of this API process are already '
                        'waiting on the message broker or a conductor'
                        % self._count, retry_after=1)
                self._cond.wait(left)
            self._count += 1

    def release(self):
        with self._cond:
            self._count -= 1
            self._cond.notify()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc_info):
        self.release()
