"""Bare-metal allocation groups (an allocsvc extension): persistence.

A group asks for ``count`` nodes at once. Creating it writes the group
and its ``count`` member allocations (ordinary rows of
``baremetal_allocations`` naming the group in ``group_id``), all
``allocating`` and owned by one conductor, in one transaction. The
conductor's job (``allocsvc.conductor.allocation_groups``) binds every
member and moves the group to ``active`` in one transaction, or moves
the group and its members to ``error``.

Every conductor write is a compare-and-swap on the state and the owner,
as for allocations (``allocsvc.db.baremetal.allocations``). States
change through the allocation machine of ``allocsvc.common.states``.
"""

import datetime

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import paging
from allocsvc.db import models

_GROUP = models.baremetal_allocation_groups
_ALLOC = models.baremetal_allocations
_NODE = models.nodes

ANY = db_allocations.ANY


class Member:
    """A member allocation as a group shows it."""

    __slots__ = ('id', 'uuid', 'name', 'state', 'node_id', 'node_uuid')

    def __init__(self, row):
        for name in self.__slots__:
            setattr(self, name, getattr(row, name))


class Group:
    """A group as read from the database, with its members (by id)."""

    __slots__ = tuple(c.key for c in _GROUP.c) + ('members',)

    def __init__(self, row, members=()):
        for column in _GROUP.c:
            setattr(self, column.key, getattr(row, column.key))
        for name in ('traits', 'candidate_nodes'):
            if getattr(self, name) is None:
                setattr(self, name, [])
        self.members = list(members)


_MEMBERS = sa.select(
    _ALLOC.c.id, _ALLOC.c.uuid, _ALLOC.c.name, _ALLOC.c.state,
    _ALLOC.c.node_id, _ALLOC.c.group_id, _NODE.c.uuid.label('node_uuid'),
).select_from(_ALLOC.outerjoin(_NODE, _ALLOC.c.node_id == _NODE.c.id))


def _with_members(context, rows):
    rows = list(rows)
    if not rows:
        return []
    by_group = {row.id: [] for row in rows}
    query = _MEMBERS.where(_ALLOC.c.group_id.in_(sorted(by_group))) \
        .order_by(_ALLOC.c.id)
    for row in context.session.execute(query):
        by_group[row.group_id].append(Member(row))
    return [Group(row, by_group[row.id]) for row in rows]


def get_in_transaction(context, column, ident):
    row = context.session.execute(
        sa.select(_GROUP).where(_GROUP.c[column] == ident)).first()
    if row is None:
        raise exception.AllocationGroupNotFound(ident)
    return _with_members(context, [row])[0]


@db_api.reader
def get_by_id(context, group_id):
    return get_in_transaction(context, 'id', group_id)


@db_api.reader
def get(context, ident):
    """The group whose UUID (if ``ident`` looks like one) or name is
    ``ident``; a group named like a UUID is found by name too."""
    if uuidutils.is_uuid_like(ident):
        try:
            return get_in_transaction(context, 'uuid', ident)
        except exception.AllocationGroupNotFound:
            pass
    return get_in_transaction(context, 'name', ident)


@db_api.reader
def list_groups(context, owner=None, limit=None, marker=None):
    """Groups (of ``owner`` if given) by id, a page of them; ``marker``
    is a group UUID."""
    paging.check_limit(limit)
    query = sa.select(_GROUP).order_by(_GROUP.c.id)
    if owner is not None:
        query = query.where(_GROUP.c.owner == owner)
    if marker is not None:
        marker_id = context.session.execute(
            sa.select(_GROUP.c.id).where(_GROUP.c.uuid == marker)).scalar()
        if marker_id is None:
            raise exception.AllocationGroupNotFound(marker)
        query = query.where(_GROUP.c.id > marker_id)
    if limit:
        query = query.limit(limit)
    return _with_members(context, context.session.execute(query))


@db_api.writer
def create_group(context, values, member_names=()):
    """Insert the group from ``values`` (columns; ``count`` members) and
    its ``count`` member allocations, every row ``allocating`` and owned
    by ``values['conductor_affinity']``, in one transaction; return the
    group. A member takes the resource class, traits, candidate nodes
    and owner of the group, and the name ``member_names[i]`` if given.
    AllocationGroupDuplicate on a clash of the group's UUID or name;
    AllocationDuplicateName when a member's name is taken."""
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    now = timeutils.utcnow()
    values.update(state=states.ALLOCATION_INITIAL, created_at=now)
    try:
        group_id = context.session.execute(
            _GROUP.insert(), values).inserted_primary_key[0]
    except db_exc.DBDuplicateEntry as exc:
        name = any('name' in c for c in exc.columns or [])
        raise exception.AllocationGroupDuplicate(
            'name %s' % values.get('name') if name
            else 'UUID %s' % values['uuid'])
    except db_exc.DBReferenceError:
        raise exception.ConductorNotFound(values.get('conductor_affinity'))
    names = list(member_names or ())
    for index in range(values['count']):
        db_allocations._insert(context, {
            'uuid': uuidutils.generate_uuid(),
            'name': names[index] if index < len(names) else None,
            'resource_class': values['resource_class'],
            'traits': list(values.get('traits') or []),
            'candidate_nodes': list(values.get('candidate_nodes') or []),
            'owner': values.get('owner'),
            'extra': {},
            'conductor_affinity': values.get('conductor_affinity'),
            'group_id': group_id,
        })
    return get_in_transaction(context, 'id', group_id)


@db_api.reader
def allocating_members(context, group_id):
    """The group's members that are ``allocating``, as allocation
    records (``db_allocations.Allocation``), by id."""
    query = db_allocations._select().where(
        _ALLOC.c.group_id == group_id,
        _ALLOC.c.state == states.ALLOCATING).order_by(_ALLOC.c.id)
    return [db_allocations.Allocation(row)
            for row in context.session.execute(query)]


def finish_in_transaction(context, group_id, event, conductor_id,
                          last_error=None):
    """Move the ``allocating`` group to the state machine event
    ``event`` leads to, on condition that ``conductor_id`` owns it; False
    if it no longer matches (deleted, finished, taken over)."""
    state = states.allocation_next_state(states.ALLOCATING, event)
    result = context.session.execute(
        _GROUP.update().where(
            _GROUP.c.id == group_id,
            _GROUP.c.state == states.ALLOCATING,
            _GROUP.c.conductor_affinity == conductor_id)
        .values(state=state, last_error=last_error,
                updated_at=timeutils.utcnow()))
    return result.rowcount == 1


@db_api.writer
def fail_group(context, group_id, conductor_id, last_error):
    """The group and its ``allocating`` members go to ``error`` with
    ``last_error`` and no node, in one transaction; False (nothing
    written) if the group is not this conductor's ``allocating`` group
    any more."""
    if not finish_in_transaction(context, group_id, states.FAIL,
                                 conductor_id, last_error):
        return False
    for member in allocating_members(context, group_id):
        db_allocations.fail_allocation(context, member.id, conductor_id,
                                       last_error, allocation=member)
    return True


@db_api.writer
def delete_group_row(context, group_id):
    """Delete the group's row once it has no members left; False if some
    member is still there (it was created meanwhile: never)."""
    left = context.session.execute(
        sa.select(sa.func.count()).select_from(_ALLOC)
        .where(_ALLOC.c.group_id == group_id)).scalar()
    if left:
        return False
    context.session.execute(_GROUP.delete().where(_GROUP.c.id == group_id))
    return True


@db_api.reader
def list_allocating_of(context, conductor_id):
    """The ids of the ``allocating`` groups conductor ``conductor_id``
    owns, oldest first."""
    return list(context.session.execute(
        sa.select(_GROUP.c.id).where(
            _GROUP.c.state == states.ALLOCATING,
            _GROUP.c.conductor_affinity == conductor_id)
        .order_by(_GROUP.c.id)).scalars())


@db_api.writer
def withdraw_group(context, group_id):
    """Delete the group and its members, unless a node has taken one of
    them (then nothing is deleted): for undoing a hand-over that failed.
    Returns whether it was deleted."""
    bound = context.session.execute(
        sa.select(sa.func.count()).select_from(_ALLOC).where(
            _ALLOC.c.group_id == group_id, _ALLOC.c.node_id.is_not(None))
    ).scalar()
    if bound:
        return False
    context.session.execute(_ALLOC.delete().where(
        _ALLOC.c.group_id == group_id))
    context.session.execute(_GROUP.delete().where(_GROUP.c.id == group_id))
    return True


@db_api.reader
def list_orphaned(context, heartbeat_timeout):
    """``(group id, owner)`` of the ``allocating`` groups whose owner is
    dead -- offline, or silent for more than ``heartbeat_timeout``
    seconds -- oldest first, liveness judged in the same query (as
    ``allocations.list_orphaned``).

    SELECT g.id, g.conductor_affinity FROM baremetal_allocation_groups g
    JOIN conductors c ON c.id = g.conductor_affinity
    WHERE g.state = 'allocating'
      AND (NOT c.online OR c.heartbeat_at IS NULL
           OR c.heartbeat_at < :cutoff)
    """
    cutoff = timeutils.utcnow() - datetime.timedelta(
        seconds=heartbeat_timeout)
    cond = models.conductors
    query = (sa.select(_GROUP.c.id, _GROUP.c.conductor_affinity)
             .join_from(_GROUP, cond,
                        cond.c.id == _GROUP.c.conductor_affinity)
             .where(_GROUP.c.state == states.ALLOCATING,
                    sa.or_(cond.c.online == sa.false(),
                           cond.c.heartbeat_at.is_(None),
                           cond.c.heartbeat_at < cutoff))
             .order_by(_GROUP.c.id))
    return [tuple(row) for row in context.session.execute(query)]


@db_api.writer
def take_over(context, group_id, old_conductor_id, new_conductor_id):
    """Move the ``allocating`` group and its ``allocating`` members from
    ``old_conductor_id`` to ``new_conductor_id``, in one transaction;
    True if this call won. A group's job binds all its members in one
    transaction, so a group whose owner died has none of them bound:
    the new owner runs it from the start.

    UPDATE baremetal_allocation_groups SET conductor_affinity = :new
    WHERE id = :id AND conductor_affinity = :old AND state = 'allocating'
    -- then, if that won:
    UPDATE baremetal_allocations SET conductor_affinity = :new
    WHERE group_id = :id AND state = 'allocating'
    """
    now = timeutils.utcnow()
    result = context.session.execute(
        _GROUP.update()
        .where(_GROUP.c.id == group_id,
               _GROUP.c.conductor_affinity == old_conductor_id,
               _GROUP.c.state == states.ALLOCATING)
        .values(conductor_affinity=new_conductor_id, updated_at=now))
    if result.rowcount != 1:
        return False
    context.session.execute(
        _ALLOC.update()
        .where(_ALLOC.c.group_id == group_id,
               _ALLOC.c.state == states.ALLOCATING)
        .values(conductor_affinity=new_conductor_id, updated_at=now))
    return True
