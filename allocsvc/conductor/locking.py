"""Holding a node's lock for the duration of a change.

The lock itself is a compare-and-swap on ``nodes.reservation``
(``allocsvc.db.baremetal.node_locks``); this module is the conductor's
use of it: ``node_lock`` holds it around a block, waiting for it
(tenacity) as patiently as its caller asks, and ``Locker`` is who takes
it (a conductor's host name) and how patiently, for the rules of
``provisioning``, ``port_rules``, ``vifs``, ``verbs`` and
``management``.
"""

import contextlib
import threading

from oslo_log import log as logging
import tenacity

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes

LOG = logging.getLogger(__name__)

# The node locks ``node_lock`` holds in this process: (node id, host).
_held = set()
_held_lock = threading.Lock()


class Locker:
    """Who takes node locks for a change (``host``, a conductor's name,
    written into ``nodes.reservation``), and how patiently: ``retries``
    more attempts ``interval`` seconds apart before NodeLocked."""

    def __init__(self, host, retries=5, interval=0.2):
        self.host = host
        self.retries = retries
        self.interval = interval

    def hold(self, context, node_id):
        """``node_lock`` for this holder; see there."""
        return node_lock(context, node_id, self.host, retries=self.retries,
                         interval=self.interval)


def _own_lost_answer(node_id, host, exc):
    """Whether ``exc`` (NodeLocked, naming the holder) is about the lock
    this very ``take`` took in an attempt whose COMMIT lost its answer
    with its connection: the holder is ``host``, the transaction is a
    re-run after a lost connection (``db_api.reconnected``), and no
    ``node_lock`` of this process holds that lock (a host is one
    process)."""
    if exc.host != host or not db_api.reconnected():
        return False
    with _held_lock:
        return (node_id, host) not in _held


@db_api.writer
def take(context, node_id, host):
    """Take the lock once, in one transaction, and read the node under
    it; NodeLocked if anyone holds it (see ``node_lock``)."""
    try:
        node_locks.reserve_in_transaction(context, node_id, host)
    except exception.NodeLocked as exc:
        if not _own_lost_answer(node_id, host, exc):
            raise
        LOG.warning('Node %s: the lock %s took before its database '
                    'connection was lost had been taken; keeping it',
                    node_id, host)
    return nodes.get_in_transaction(context, node_id)


def _patient(retries, interval):
    """``take`` with ``retries`` more attempts ``interval`` seconds
    apart while the node is locked; the last NodeLocked reaches the
    caller."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(exception.NodeLocked),
        stop=tenacity.stop_after_attempt(retries + 1),
        wait=tenacity.wait_fixed(interval), reraise=True)


@contextlib.contextmanager
def node_lock(context, node_id, host, retries=0, interval=1.0):
    """Hold the exclusive lock of a node for the duration of a block.

    Usage::

        with locking.node_lock(context, node.id, CONF.host) as node:
            # ``node`` was read after the lock was taken: re-check here
            # whatever the decision to lock it relied on.
            ...

    Semantics:

    * Taking the lock is ``UPDATE nodes SET reservation = :host WHERE
      id = :id AND reservation IS NULL``; it either matches the row (we
      hold the lock) or not (NodeLocked, naming the holder). The lock is
      not re-entrant: a host that already holds it gets NodeLocked too.
    * ``retries`` more attempts are made ``interval`` seconds apart
      before NodeLocked reaches the caller (default: fail at once, as the
      allocation algorithm wants, moving on to the next node). Pass
      configuration values in; nothing is read from CONF here.
    * The lock is released when the block ends, normally or by an
      exception (which then propagates). Release is conditional on
      ``host`` still holding it; if someone broke the lock meanwhile,
      NodeNotLocked is raised -- unless the block itself raised, whose
      exception wins.
    * Call it outside any transaction: taking and releasing are their
      own transactions, so other conductors see the lock at once. Do the
      work inside the block in transactions of its own, and never keep a
      lock across an RPC call or a wait on another node's lock.
    * A lost database connection is retried (``allocsvc.db.api``); a
      re-run that finds the lock already taken by ``host`` because the
      lost attempt had committed keeps it (``_own_lost_answer``), and one
      that finds it already given back is content
      (``node_locks.release``).
    * A conductor that dies holding locks leaves them behind;
      ``node_locks.release_all(context, host)`` at its next start, or the
      periodic check of another conductor, clears them.
    """
    node = _patient(retries, interval)(take, context, node_id, host)
    with _held_lock:
        _held.add((node_id, host))
    try:
        yield node
    except BaseException:
        try:
            _release_held(context, node_id, host)
        except (exception.NodeNotLocked, exception.NodeNotFound):
            pass  # the block's own exception is the one to report
        raise
    _release_held(context, node_id, host)


def _release_held(context, node_id, host):
    try:
        node_locks.release(context, node_id, host)
    finally:
        with _held_lock:
            _held.discard((node_id, host))
