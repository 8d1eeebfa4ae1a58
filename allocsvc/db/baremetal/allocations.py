"""Bare-metal allocations: CRUD, the binding to a node, and take-over.

Plain SQLAlchemy Core; each public function is one transaction. The
statements of the hot paths (the API's reads, the conductors' writes)
are built once, with bound parameters, and reused: building and
hashing a statement anew cost more CPU than running it.

Ownership: ``conductor_affinity`` names the conductor handling an
allocation. Every conductor write (``update``, ``transition``, ``bind``)
is a compare-and-swap on it, so a conductor that lost the allocation to
a take-over gets AllocationAffinityLost and stops; ``take_over`` is the
compare-and-swap that moves it. Writes on behalf of the API (PATCH of
name/extra, DELETE) pass ``conductor_id=ANY``.

States change only through ``allocsvc.common.states``: ``transition``
and ``bind`` compute the new state from an event and write it on
condition that the state is still the one they computed it from.
"""

import collections
import datetime
import functools
import types

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import paging
from allocsvc.db import models

_ALLOC = models.baremetal_allocations
_NODE = models.nodes

# ``conductor_id`` value for a write that does not depend on ownership.
ANY = object()

# What binding writes, for the caller that mirrors it in the node's
# resource provider: the allocation bound, and the node's row as the
# bind found it.
Bound = collections.namedtuple('Bound', ('allocation', 'node'))
# What deleting an allocation leaves to mirror: its UUID (its claim, if
# any, goes) and its node's row as it is now (None without a node).
Destroyed = collections.namedtuple('Destroyed', ('uuid', 'node'))

_JSON_LISTS = ('traits', 'candidate_nodes')
_WRITABLE = frozenset(('name', 'extra', 'owner', 'last_error',
                       'resource_class', 'traits', 'candidate_nodes',
                       'node_id'))
# The columns of Ironic's allocation: ``group_id`` (the allocation
# group of a member, ``allocsvc.db.baremetal.allocation_groups``) is
# none of its business.
_COLUMNS = tuple(c for c in _ALLOC.c if c.key != 'group_id')
SORTABLE = frozenset(c.key for c in _COLUMNS
                     if c.key not in _JSON_LISTS + ('extra',))


class Allocation:
    """An allocation as read from the database, with the UUID of its node
    (None while it has none)."""

    __slots__ = tuple(c.key for c in _COLUMNS) + ('node_uuid',)

    def __init__(self, row):
        for column in _COLUMNS:
            setattr(self, column.key, getattr(row, column.key))
        for name in _JSON_LISTS:
            if getattr(self, name) is None:
                setattr(self, name, [])
        if self.extra is None:
            self.extra = {}
        self.node_uuid = row.node_uuid

    @classmethod
    def of_object(cls, obj):
        """The record of an ``objects.Allocation`` (as it crossed RPC)."""
        record = cls.__new__(cls)
        for name in cls.__slots__:
            setattr(record, name, getattr(obj, name))
        return record

    def replace(self, **changes):
        """A copy of this record with ``changes`` (column names or
        ``node_uuid``), for a write whose result is known without
        reading it back."""
        copy = Allocation.__new__(Allocation)
        for name in self.__slots__:
            setattr(copy, name, changes.get(name, getattr(self, name)))
        return copy


def _select():
    return sa.select(*_COLUMNS, _NODE.c.uuid.label('node_uuid')) \
        .select_from(_ALLOC.outerjoin(_NODE, _ALLOC.c.node_id == _NODE.c.id))


@functools.lru_cache(maxsize=None)
def _select_by(column):
    """The allocation whose ``column`` is ``:ident``."""
    return _select().where(_ALLOC.c[column] == sa.bindparam('ident'))


def _one(context, column, ident):
    row = context.session.execute(_select_by(column),
                                  {'ident': ident}).first()
    if row is None:
        raise exception.AllocationNotFound(ident)
    return Allocation(row)


def get_in_transaction(context, allocation_id):
    return _one(context, 'id', allocation_id)


@db_api.reader
def get_by_id(context, allocation_id):
    return _one(context, 'id', allocation_id)


@db_api.reader
def get_by_uuid(context, uuid):
    return _one(context, 'uuid', uuid)


@db_api.reader
def get_by_name(context, name):
    return _one(context, 'name', name)


@db_api.reader
def get(context, ident):
    """The allocation whose UUID (if ``ident`` looks like one) or name is
    ``ident``."""
    return _one(context, 'uuid' if uuidutils.is_uuid_like(ident) else 'name',
                ident)


@db_api.reader
def list_allocations(context, filters=None, limit=None, marker=None,
                     sort_key='id', sort_dir='asc'):
    """Allocations matching ``filters``, a page of them.

    Filters (ANDed; columns are qualified, so ``node_uuid`` combines with
    the others, unlike upstream): ``state``, ``resource_class``,
    ``owner``, ``node_id``, ``node_uuid``, ``conductor_affinity``.
    ``marker`` is an allocation UUID (AllocationNotFound if unknown).
    """
    paging.check_limit(limit)
    paging.check_sort(sort_key, sort_dir, SORTABLE)
    query = _select()
    for key, value in (filters or {}).items():
        if key in ('state', 'resource_class', 'owner', 'node_id',
                   'conductor_affinity'):
            query = query.where(_ALLOC.c[key] == value)
        elif key == 'node_uuid':
            query = query.where(_NODE.c.uuid == value)
        else:
            raise exception.InvalidParameterValue(
                'Unknown allocation filter: %s' % key)
    marker_row = None
    if marker is not None:
        marker_row = context.session.execute(
            sa.select(_ALLOC).where(_ALLOC.c.uuid == marker)).first()
        if marker_row is None:
            raise exception.AllocationNotFound(marker)
    query = paging.paginate(query, _ALLOC.c.id, _ALLOC.c[sort_key],
                            sort_dir, marker_row, limit)
    return [Allocation(row) for row in context.session.execute(query)]


_INSERT = _ALLOC.insert()


def _duplicate(exc, values):
    if any('name' in c for c in exc.columns or []):
        return exception.AllocationDuplicateName(values.get('name'))
    return exception.AllocationAlreadyExists(values.get('uuid'))


@db_api.writer
def create_allocation(context, values):
    """Insert an allocation in the machine's initial state (allocating)
    from ``values`` (column names; a UUID is generated if missing) and
    return it. AllocationAlreadyExists / AllocationDuplicateName on a
    unique clash -- except with the row an earlier attempt of this very
    insert wrote, when its connection was lost before the answer to its
    COMMIT came: that row is returned."""
    if values.get('uuid') and db_api.reconnected():
        written = _written_before(context, values)
        if written is not None:
            return written
    return _insert(context, values)


def _written_before(context, values):
    """The allocation with ``values``'s UUID if it is the one ``values``
    describe (as a lost attempt wrote it), else None. Its state is not
    compared: the conductor's periodic check may have run it between
    the lost COMMIT and this re-run."""
    try:
        row = _one(context, 'uuid', values['uuid'])
    except exception.AllocationNotFound:
        return None
    same = all(getattr(row, name) == values.get(name) for name in
               ('name', 'resource_class', 'conductor_affinity', 'owner'))
    return row if same else None


def _insert(context, values):
    if 'state' in values:
        raise exception.InvalidParameterValue(
            'An allocation starts in the initial state.')
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    values['state'] = states.ALLOCATION_INITIAL
    values['created_at'] = timeutils.utcnow()
    try:
        # The columns are those of the parameters.
        result = context.session.execute(_INSERT, values)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)
    except db_exc.DBReferenceError:
        # The conductor it was given has no row any more (deleted since
        # the caller read the list of live conductors).
        raise exception.ConductorNotFound(values.get('conductor_affinity'))
    allocation_id = result.inserted_primary_key[0]
    if values.get('node_id') is not None:
        return get_in_transaction(context, allocation_id)
    # The database fills in nothing but the id: the record is what was
    # written (timestamps are kept to the microsecond).
    written = dict.fromkeys(Allocation.__slots__)
    written.update(values, id=allocation_id)
    return Allocation(types.SimpleNamespace(**written))


def _owned(allocation_id, conductor_id):
    where = [_ALLOC.c.id == allocation_id]
    if conductor_id is not ANY:
        where.append(_ALLOC.c.conductor_affinity == conductor_id)
    return where


def _missed(context, allocation_id, conductor_id):
    """The error for a conditional write that matched no row."""
    current = get_in_transaction(context, allocation_id)  # or NotFound
    if conductor_id is not ANY and \
            current.conductor_affinity != conductor_id:
        return exception.AllocationAffinityLost(current.uuid, conductor_id)
    return states.InvalidTransition('allocation %s' % current.uuid,
                                    current.state, 'update')


@db_api.writer
def update_allocation(context, allocation_id, values, conductor_id=ANY):
    """Write ``values`` (name, extra, owner, last_error, resource_class,
    traits, candidate_nodes, node_id) to the allocation, on condition
    that ``conductor_id`` still owns it (unless ANY); return it.
    States are not written here: see ``transition``."""
    bad = set(values) - _WRITABLE
    if bad:
        raise exception.InvalidParameterValue(
            'Cannot update %s of an allocation.' % ', '.join(sorted(bad)))
    values = dict(values, updated_at=timeutils.utcnow())
    try:
        result = context.session.execute(
            _ALLOC.update().where(*_owned(allocation_id, conductor_id))
            .values(**values))
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)
    if result.rowcount != 1:
        raise _missed(context, allocation_id, conductor_id)
    return get_in_transaction(context, allocation_id)


@functools.lru_cache(maxsize=None)
def _transition_statement(owned):
    # UPDATE baremetal_allocations SET state = :state, <values>
    # WHERE id = :where_id AND state = :where_state
    #   [AND conductor_affinity = :where_owner]
    # (the SET clause is made of the parameters named like columns)
    where = [_ALLOC.c.id == sa.bindparam('where_id'),
             _ALLOC.c.state == sa.bindparam('where_state')]
    if owned:
        where.append(_ALLOC.c.conductor_affinity ==
                     sa.bindparam('where_owner'))
    return _ALLOC.update().where(*where)


def _transition(context, allocation_id, event, conductor_id, values,
                from_state=None):
    """Apply machine ``event`` to the allocation's state, read here, or
    ``from_state`` when the caller knows which state the write must
    find (the write is conditional on it either way). Returns the
    columns written."""
    if from_state is None:
        from_state = get_in_transaction(context, allocation_id).state
    written = dict(values, state=states.allocation_next_state(from_state,
                                                              event),
                   updated_at=timeutils.utcnow())
    owned = conductor_id is not ANY
    params = dict(written, where_id=allocation_id, where_state=from_state)
    if owned:
        params['where_owner'] = conductor_id
    result = context.session.execute(_transition_statement(owned), params)
    if result.rowcount != 1:
        raise _missed(context, allocation_id, conductor_id)
    return written


@db_api.writer
def fail_allocation(context, allocation_id, conductor_id, last_error,
                    allocation=None):
    """Move the allocation to ``error`` with ``last_error`` and no node,
    as conductor ``conductor_id`` (ANY: unconditionally); return it.
    AllocationAffinityLost if another conductor owns it now;
    InvalidTransition if it is not ``allocating`` any more.

    ``allocation``, the ``allocating`` record the caller worked from,
    spares reading it before and after: the write is conditional on the
    allocation still being ``allocating``, and the record returned is
    ``allocation`` as it changed it."""
    return _transition_record(context, allocation_id, states.FAIL,
                              conductor_id,
                              {'last_error': last_error, 'node_id': None},
                              allocation, node_uuid=None)


def _transition_record(context, allocation_id, event, conductor_id, values,
                       allocation, node_uuid):
    """``_transition``, then the allocation as written: ``allocation``,
    the caller's ``allocating`` record (the write is conditional on that
    state), as the write changed it, with ``node_uuid``; or, when the
    caller has none (None), the row read back."""
    if allocation is None:
        _transition(context, allocation_id, event, conductor_id, values)
        return get_in_transaction(context, allocation_id)
    written = _transition(context, allocation_id, event, conductor_id,
                          values, from_state=states.ALLOCATING)
    return allocation.replace(node_uuid=node_uuid, **written)


@db_api.writer
def bind(context, allocation_id, node_id, conductor_id, locked_by=None,
         backfill=False):
    """Give the node to the allocation, in one transaction: the node gets
    ``instance_uuid`` = the allocation's UUID, ``allocation_id`` and
    ``instance_info['traits']`` = the requested traits; the allocation
    gets ``node_id`` and moves to ``active`` (machine event SUCCESS).
    Returns ``Bound``: the allocation and the node's row as the bind
    found it (for the caller's mirror of it in its resource provider,
    ``allocsvc.conductor.mirror``).

    Each half is a compare-and-swap, and any miss rolls back both:

    * the node must still be free: no instance (backfill: none or this
      allocation's UUID), no allocation, not in maintenance,
      ``available`` (backfill: ``active``), and locked by ``locked_by``
      if given -- NodeNotAvailable / NodeAssociated otherwise;
    * the allocation must still be ``allocating`` and owned by
      ``conductor_id`` -- AllocationAffinityLost / InvalidTransition.

    Nodes are written before allocations here as everywhere, so two
    transactions never wait on each other in opposite orders.
    """
    return _bind(context, allocation_id, node_id, conductor_id, locked_by,
                 backfill)


def bind_locked(context, allocation, node, conductor_id, host):
    """``bind`` inside the caller's transaction, for the allocation
    algorithm: ``allocation`` is the ``allocating`` record it started
    from and ``node`` the node it read, in this transaction, under
    ``host``'s lock. The lock is given back in the same write, so the
    node is free (and bound) when the transaction commits. Neither is
    read again, before or after: the writes are conditional on what they
    relied on (the allocation still ``allocating`` and owned by
    ``conductor_id``; the node free and locked by ``host``), and the
    allocation returned (in ``Bound``) is ``allocation`` as they
    changed it."""
    return _bind(context, allocation.id, node.id, conductor_id, host,
                 backfill=False, allocation=allocation, node=node,
                 release=True)


@functools.lru_cache(maxsize=None)
def _bind_node_statement(backfill, locked):
    # UPDATE nodes SET instance_uuid = :instance_uuid, allocation_id = ...,
    #   instance_info = ..., updated_at = ... [, reservation = NULL]
    # WHERE id = :where_id AND allocation_id IS NULL AND NOT maintenance
    #   AND provision_state = 'available' (backfill: 'active')
    #   AND instance_uuid IS NULL
    #       (backfill: OR instance_uuid = :where_instance)
    #   [AND reservation = :where_holder]
    where = [_NODE.c.id == sa.bindparam('where_id'),
             _NODE.c.allocation_id.is_(None),
             _NODE.c.maintenance == sa.false(),
             _NODE.c.provision_state == (states.ACTIVE if backfill
                                         else states.AVAILABLE)]
    free = _NODE.c.instance_uuid.is_(None)
    if backfill:
        free = sa.or_(free, _NODE.c.instance_uuid ==
                      sa.bindparam('where_instance'))
    where.append(free)
    if locked:
        where.append(_NODE.c.reservation == sa.bindparam('where_holder'))
    return _NODE.update().where(*where)


def _bind(context, allocation_id, node_id, conductor_id, locked_by,
          backfill, allocation=None, node=None, release=False):
    given = allocation
    if allocation is None:
        allocation = get_in_transaction(context, allocation_id)
    if node is None:
        node = context.session.execute(
            _select_node, {'node_id': node_id}).first()
    if node is None:
        raise exception.NodeNotFound(node_id)
    if node.instance_uuid not in (None, allocation.uuid) or (
            node.instance_uuid is not None and not backfill):
        raise exception.NodeAssociated(node.uuid, node.instance_uuid)
    instance_info = dict(node.instance_info or {},
                         traits=list(allocation.traits))
    params = {'instance_uuid': allocation.uuid,
              'allocation_id': allocation_id, 'instance_info': instance_info,
              'updated_at': timeutils.utcnow(), 'where_id': node_id}
    if backfill:
        params['where_instance'] = allocation.uuid
    if locked_by is not None:
        params['where_holder'] = locked_by
    if release:
        params['reservation'] = None
    try:
        result = context.session.execute(
            _bind_node_statement(backfill, locked_by is not None), params)
    except db_exc.DBDuplicateEntry:
        raise exception.InstanceAssociated(allocation.uuid, node.uuid)
    if result.rowcount != 1:
        raise exception.NodeNotAvailable(
            node.uuid, 'it changed since it was chosen')
    bound = _transition_record(context, allocation_id, states.SUCCESS,
                               conductor_id,
                               {'node_id': node_id, 'last_error': None},
                               given, node_uuid=node.uuid)
    return Bound(bound, node)


# The columns of a node its binding and its resource provider need.
_select_node = sa.select(
    _NODE.c.id, _NODE.c.uuid, _NODE.c.instance_uuid, _NODE.c.instance_info,
    _NODE.c.resource_class, _NODE.c.provision_state, _NODE.c.maintenance,
    _NODE.c.power_state, _NODE.c.allocation_id,
).where(_NODE.c.id == sa.bindparam('node_id'))


@db_api.writer
def backfill(context, values, node_id, conductor_id, locked_by=None):
    """Record an allocation for a node that is already deployed: insert
    it from ``values`` (as ``create_allocation``), owned by
    ``conductor_id``, and bind it to node ``node_id`` (as ``bind`` with
    ``backfill=True``), in one transaction; return it. Either both
    happen or, whatever fails, no row is left behind. Returns
    ``Bound``."""
    allocation = _insert(context, dict(values,
                                       conductor_affinity=conductor_id))
    return _bind(context, allocation.id, node_id, conductor_id, locked_by,
                 backfill=True)


@db_api.writer
def destroy_allocation(context, allocation_id, conductor_id=ANY):
    """Delete the allocation and free its node in one transaction: the
    node loses ``instance_uuid`` and ``allocation_id``. Returns
    ``Destroyed``: the allocation's UUID and its node's row as it is now
    (None without a node), for the caller's mirror of them in the
    engine; None on a re-run after a lost connection whose first attempt
    deleted it. AllocationNotFound if it is gone
    (AllocationAffinityLost if ``conductor_id`` no longer owns it)."""
    # Write the allocation row first: this waits for a bind of it that is
    # committing, so the node update below sees the node that bind took.
    # (Otherwise PostgreSQL, whose UPDATE skips rows that do not match
    # its snapshot, would leave that node with the deleted allocation's
    # instance_uuid.) A bind that comes later finds no allocation.
    context.session.execute(
        _ALLOC.update().where(_ALLOC.c.id == allocation_id)
        .values(updated_at=timeutils.utcnow()))
    try:
        allocation = get_in_transaction(context, allocation_id)
    except exception.AllocationNotFound:
        if db_api.reconnected():
            # An attempt whose connection died waiting for the answer
            # to its COMMIT deleted it.
            return None
        raise
    context.session.execute(
        _NODE.update().where(_NODE.c.allocation_id == allocation_id)
        .values(allocation_id=None, instance_uuid=None,
                updated_at=timeutils.utcnow()))
    result = context.session.execute(
        _ALLOC.delete().where(*_owned(allocation_id, conductor_id)))
    if result.rowcount != 1:
        if conductor_id is ANY:
            raise exception.AllocationNotFound(allocation.uuid)
        raise exception.AllocationAffinityLost(allocation.uuid,
                                               conductor_id)
    node = None
    if allocation.node_id is not None:
        node = context.session.execute(
            _select_node, {'node_id': allocation.node_id}).first()
    return Destroyed(allocation.uuid, node)


@db_api.writer
def withdraw_allocation(context, allocation_id):
    """Delete the allocation unless a node has taken it; return whether
    it was deleted (False also when it is gone). For undoing a hand-over
    that failed: an allocation no conductor bound frees no node.

    DELETE FROM baremetal_allocations WHERE id = :id AND node_id IS NULL
    (a bind committing meanwhile is waited for, and then the row no
    longer matches)."""
    result = context.session.execute(
        _ALLOC.delete().where(_ALLOC.c.id == allocation_id,
                              _ALLOC.c.node_id.is_(None)))
    return result.rowcount == 1


def drop_in_transaction(context, node_id, allocation_id):
    """Inside the caller's transaction: delete allocation
    ``allocation_id`` of node ``node_id``, unlinking the node first (it
    refers to the allocation); return the allocation's UUID, or None if
    there is no such allocation."""
    uuid = context.session.execute(
        sa.select(_ALLOC.c.uuid).where(_ALLOC.c.id == allocation_id)
    ).scalar()
    context.session.execute(
        _NODE.update().where(_NODE.c.id == node_id)
        .values(allocation_id=None))
    context.session.execute(
        _ALLOC.delete().where(_ALLOC.c.id == allocation_id))
    return uuid


def owner_in_transaction(context, allocation_id):
    """The owner of allocation ``allocation_id`` (None: none, or no such
    allocation), in the caller's transaction."""
    return context.session.execute(
        sa.select(_ALLOC.c.owner).where(_ALLOC.c.id == allocation_id)
    ).scalar()


# -- ownership and take-over -------------------------------------------------

@db_api.writer
def take_over(context, allocation_id, old_conductor_id, new_conductor_id):
    """Move the allocation from ``old_conductor_id`` (None: from no
    owner) to ``new_conductor_id``; True if this call won, False if the
    allocation has another owner by now or is gone.

    UPDATE baremetal_allocations SET conductor_affinity = :new
    WHERE id = :id AND conductor_affinity = :old AND state = 'allocating'
    """
    old = (_ALLOC.c.conductor_affinity.is_(None) if old_conductor_id is None
           else _ALLOC.c.conductor_affinity == old_conductor_id)
    result = context.session.execute(
        _ALLOC.update()
        .where(_ALLOC.c.id == allocation_id, old,
               _ALLOC.c.state == states.ALLOCATING)
        .values(conductor_affinity=new_conductor_id,
                updated_at=timeutils.utcnow()))
    return result.rowcount == 1


def _allocating():
    # A group's members are bound by the group's job, all together, never
    # one by one: resuming or taking over one alone would break the
    # group's all or nothing.
    return _select().where(_ALLOC.c.state == states.ALLOCATING,
                           _ALLOC.c.group_id.is_(None)) \
        .order_by(_ALLOC.c.id)


@db_api.reader
def list_allocating_of(context, conductor_id):
    """The ``allocating`` allocations conductor ``conductor_id`` owns
    (None: those nobody owns), oldest first."""
    column = _ALLOC.c.conductor_affinity
    where = column.is_(None) if conductor_id is None \
        else column == conductor_id
    return [Allocation(row) for row in
            context.session.execute(_allocating().where(where))]


@db_api.reader
def list_orphaned(context, heartbeat_timeout):
    """The ``allocating`` allocations whose owner is dead -- offline, or
    silent for more than ``heartbeat_timeout`` seconds -- plus those
    nobody has owned for that long (the API wrote the row but no
    conductor claimed it), oldest first. Liveness is judged in the same
    query, so a conductor that registered a moment ago is never taken
    for dead.

    SELECT ... FROM baremetal_allocations a
    LEFT JOIN conductors c ON c.id = a.conductor_affinity
    WHERE a.state = 'allocating' AND (
      (a.conductor_affinity IS NULL AND a.created_at < :cutoff)
      OR NOT c.online OR c.heartbeat_at IS NULL OR c.heartbeat_at < :cutoff)
    """
    cutoff = timeutils.utcnow() - datetime.timedelta(
        seconds=heartbeat_timeout)
    cond = models.conductors
    owner_dead = sa.and_(
        _ALLOC.c.conductor_affinity.is_not(None),
        sa.or_(cond.c.online == sa.false(), cond.c.heartbeat_at.is_(None),
               cond.c.heartbeat_at < cutoff))
    unowned = sa.and_(_ALLOC.c.conductor_affinity.is_(None),
                      _ALLOC.c.created_at < cutoff)
    query = _allocating().join_from(
        _ALLOC, cond, cond.c.id == _ALLOC.c.conductor_affinity,
        isouter=True).where(sa.or_(owner_dead, unowned))
    return [Allocation(row) for row in context.session.execute(query)]


@db_api.reader
def list_stuck(context, older_than, conductor_id=ANY):
    """``allocating`` allocations not written for ``older_than`` seconds
    (of conductor ``conductor_id`` unless ANY), oldest first: those a
    live conductor accepted but never finished."""
    cutoff = timeutils.utcnow() - datetime.timedelta(
        seconds=older_than)
    touched = sa.func.coalesce(_ALLOC.c.updated_at, _ALLOC.c.created_at)
    query = _allocating().where(touched < cutoff)
    if conductor_id is not ANY:
        query = query.where(_ALLOC.c.conductor_affinity == conductor_id)
    return [Allocation(row) for row in context.session.execute(query)]
