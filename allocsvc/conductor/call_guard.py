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
* ``Waiting``: the process's requests that wait for a conductor's
  answer. While ``[api] conductor_waiting_calls`` of them (by default
  half the threads seen serving the process's requests, at least one)
  have waited longer than ``[api] conductor_slow_call`` seconds, a new
  call is answered 503 at once: a stalled peer can hold only part of
  the process's threads (until it is suspected). And calls never take
  the last ``[api] conductor_spare_threads`` threads: those serve reads,
  which never wait on the broker, so a read does not queue behind calls
  to a stalled peer (a call that would take one waits, while no call is
  slow, for another to end). Calls answered in the usual time are never
  held back.

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
    """The calls of this process's requests that wait for a conductor's
    answer (``with waiting:``), bounded two ways:

    * while ``limit()`` of them have waited longer than ``[api]
      conductor_slow_call`` seconds, a peer is stalling: a new call is
      refused at once (503) instead of joining them;
    * they never take the last ``[api] conductor_spare_threads`` of the
      threads seen serving the process's requests, which are kept for
      requests that do not wait on a conductor (reads). A call that
      would take one waits for another call to end, for at most as long
      as none of them is slow; then it is refused (503).

    Calls answered in the usual time are never refused, however many
    there are."""

    def __init__(self, conf, clock=time.monotonic):
        self._conf = conf
        self._clock = clock
        self._lock = threading.Condition()
        self._started = {}      # token -> when its call started
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

    def room(self):
        """How many calls may wait at once: the threads seen but ``[api]
        conductor_spare_threads``; None (no bound) while no more threads
        than that were seen -- a process serving one request at a time
        (or none yet) has no thread to keep free."""
        spare = self._conf.api.conductor_spare_threads
        seen = len(self._threads)
        if not spare or seen <= spare:
            return None
        return seen - spare

    def _slow(self, now):
        usual = self._conf.api.conductor_slow_call
        return sum(1 for started in self._started.values()
                   if now - started >= usual)

    def slow(self, now=None):
        """How many calls have waited longer than the usual time."""
        now = self._clock() if now is None else now
        with self._lock:
            return self._slow(now)

    def enter(self):
        """Join the waiting calls (a token for ``leave``), or
        NoConductorAvailable (503) while ``limit()`` of them are slow,
        or while they fill ``room()`` and one of them is slow."""
        limit = self.limit()
        with self._lock:
            now = self._clock()
            slow = self._slow(now)
            if limit is not None and slow >= limit:
                raise exception.NoConductorAvailable(
                    '%d requests of this API process are waiting on '
                    'conductors that are slow to answer' % slow,
                    retry_after=1)
            room = self.room()
            while room is not None and len(self._started) >= room:
                if slow:
                    raise exception.NoConductorAvailable(
                        'all the threads of this API process that may '
                        'wait on conductors do, and %d of them waited '
                        'longer than usual' % slow, retry_after=1)
                # Until a call ends, or the oldest one turns slow.
                oldest = min(self._started.values())
                self._lock.wait(max(
                    0.001, oldest + self._conf.api.conductor_slow_call -
                    now))
                now = self._clock()
                slow = self._slow(now)
                room = self.room()
            token = object()
            self._started[token] = now
        return token

    def leave(self, token):
        with self._lock:
            self._started.pop(token, None)
            self._lock.notify_all()
