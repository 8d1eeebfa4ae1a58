"""Node locks: the compare-and-swap statements on ``nodes.reservation``.

A conductor holds a node's exclusive lock while ``nodes.reservation`` is
its hostname. Conductors are the only holders: the bare-metal API asks
a conductor for every change of a node. Taking a lock is one UPDATE
that only matches a free node; giving it back is one UPDATE that only
matches the holder. No row lock is held between the two, so this works
the same on Galera, PostgreSQL and SQLite.

A holder that dies keeps its locks: a conductor releases its own when it
starts (``release_all``), and the others release a dead conductor's in
their periodic check (see ``allocsvc.conductor.service``). Holding a
lock for the duration of a block, and waiting for one, is the
conductor's (``allocsvc.conductor.locking``).

The API processes of the previous release took node locks themselves,
as ``api@<host>:<pid>`` (``API_HOLDER_PREFIX``); a conductor releases
any such lock left behind when it starts (``release_api_locks``).
"""

import functools

from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import nodes
from allocsvc.db import models

_NODE = models.nodes

# What the node locks of API processes start with: they took locks
# until the conductors made every change of a node.
API_HOLDER_PREFIX = 'api@'

# How many times ``reserve_in_transaction`` tries a lock it finds freed
# between taking and reading it.
_RESERVE_ATTEMPTS = 3


# Taking and giving back a lock are the conductors' most frequent
# statements: each is built once, with bound parameters.
_HOLDER = {
    column: sa.select(_NODE.c.uuid, _NODE.c.reservation).where(
        _NODE.c[column] == sa.bindparam('where_ident'))
    for column in ('id', 'uuid')}
_RELEASE = _NODE.update().where(
    _NODE.c.id == sa.bindparam('where_id'),
    _NODE.c.reservation == sa.bindparam('where_holder'))


@functools.lru_cache(maxsize=None)
def _reserve_statement(only_free, column='id'):
    where = [_NODE.c[column] == sa.bindparam('where_ident'),
             _NODE.c.reservation.is_(None)]
    if only_free:
        where += [_NODE.c.provision_state == states.AVAILABLE,
                  _NODE.c.maintenance == sa.false(),
                  _NODE.c.instance_uuid.is_(None),
                  _NODE.c.allocation_id.is_(None)]
    return _NODE.update().where(*where)


def _holder(context, ident, column='id'):
    row = context.session.execute(_HOLDER[column],
                                  {'where_ident': ident}).first()
    if row is None:
        raise exception.NodeNotFound(ident)
    return row


@db_api.writer
def reserve(context, node_id, host, read=True, only_free=False):
    """Take the lock of node ``node_id`` for ``host``; return the node as
    it is under the lock (None without ``read``: for a caller that reads
    it in its next transaction). NodeLocked if anyone (``host`` included)
    holds it; NodeNotFound if there is no such node.

    With ``only_free``, the lock is only taken if the node can still be
    allocated -- available, not in maintenance, with no instance or
    allocation -- and NodeNotAvailable says it cannot.
    """
    reserve_in_transaction(context, node_id, host, only_free=only_free)
    return nodes.get_in_transaction(context, node_id) if read else None


def reserve_in_transaction(context, ident, host, only_free=False,
                           column='id'):
    """``reserve`` inside the caller's transaction, of the node whose
    ``column`` ('id' or 'uuid') is ``ident``, without reading it: the
    lock is everybody's to see once that transaction commits, and gone
    with it if it rolls back. A caller that gives the lock back in the
    same transaction (the allocation algorithm binding a node) holds
    the node's row lock meanwhile: a concurrent ``reserve`` waits for
    its commit rather than failing.

    UPDATE nodes SET reservation = :host WHERE <column> = :ident
    AND reservation IS NULL
    [AND provision_state = 'available' AND NOT maintenance
     AND instance_uuid IS NULL AND allocation_id IS NULL]

    The holder may give the lock back between the UPDATE that found it
    held and the read of who holds it: the read then finds no holder.
    That is a lock taken and freed, not a node taken, so the UPDATE is
    tried again (``_RESERVE_ATTEMPTS`` times in all, twice with
    ``only_free``); with ``only_free``, a node the UPDATE still does not
    match although nobody holds it is no longer free: NodeNotAvailable.
    """
    for _attempt in range(2 if only_free else _RESERVE_ATTEMPTS):
        result = context.session.execute(
            _reserve_statement(only_free, column),
            {'reservation': host, 'where_ident': ident})
        if result.rowcount == 1:
            return
        row = _holder(context, ident, column)
        if row.reservation is not None:
            raise exception.NodeLocked(row.uuid, row.reservation)
    if only_free:
        raise exception.NodeNotAvailable(row.uuid, 'it was taken')
    # Locked, then free again, at every look: busy all the same.
    raise exception.NodeLocked(row.uuid, 'another holder')


@db_api.writer
def release(context, node_id, host):
    """Give back ``host``'s lock of node ``node_id``. NodeNotLocked if
    ``host`` does not hold it (someone broke it, or it was never taken)
    -- unless this is a re-run after a lost connection that finds the
    lock free: the earlier attempt gave it back.
    """
    try:
        release_in_transaction(context, node_id, host)
    except exception.NodeNotLocked:
        if not db_api.reconnected() or \
                _holder(context, node_id).reservation is not None:
            raise


def release_in_transaction(context, node_id, host):
    """``release`` inside the caller's transaction: the lock is free
    once that transaction commits.

    UPDATE nodes SET reservation = NULL WHERE id = :id
    AND reservation = :host
    """
    result = context.session.execute(
        _RELEASE, {'reservation': None, 'where_id': node_id,
                   'where_holder': host})
    if result.rowcount != 1:
        row = _holder(context, node_id)
        raise exception.NodeNotLocked(row.uuid, host)


@db_api.writer
def release_all(context, host):
    """Drop every lock ``host`` holds, as a conductor does when it starts
    (its previous life may have died holding some); return how many."""
    result = context.session.execute(
        _NODE.update().where(_NODE.c.reservation == host)
        .values(reservation=None, updated_at=timeutils.utcnow()))
    return result.rowcount


@db_api.writer
def release_api_locks(context):
    """Drop every node lock an API process holds (``API_HOLDER_PREFIX``);
    return how many. For the upgrade from the release whose API took
    locks itself: one that died in the middle of a request left its lock
    behind, and nothing else releases it. A conductor does it once, when
    it starts. An API process of that release still running loses at
    most the request it is making, whose writes are conditional on
    holding the lock.

    UPDATE nodes SET reservation = NULL WHERE reservation LIKE 'api@%'
    """
    result = context.session.execute(
        _NODE.update().where(_NODE.c.reservation.startswith(
            API_HOLDER_PREFIX, autoescape=True))
        .values(reservation=None, updated_at=timeutils.utcnow()))
    return result.rowcount
