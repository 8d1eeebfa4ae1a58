"""Bare-metal nodes as resource providers of the engine.

Every node has a resource provider of the shape nova's ironic driver
reports, written in the transaction of each node write, so that the
bare-metal half and Placement's clients see one truth:

* uuid and name: the node's UUID; a root provider;
* inventory: one unit (total, min_unit, max_unit 1) of the node's
  resource class normalised as nova does (``CUSTOM_`` + upper case,
  other characters ``_``); none without a resource class;
* ``reserved`` 1 while the node cannot take a new allocation (not
  ``available``, in maintenance, no power state, or bound to a
  bare-metal allocation) and no consumer holds its unit -- like nova's
  driver, which reserves an unusable node but not one an instance uses,
  so that usage never exceeds capacity;
* traits: the node's traits.

Bare-metal allocations of the placement back end are claims on that
unit (``claim``): consumer = the allocation's UUID, of type
``CONSUMER_TYPE``.

Lock order: the node's row, then its provider's. A transaction that
must read the provider's usage fresh (binding a node) bumps the
provider's generation (``lock``), as every Placement write does, right
after locking the node and before reading anything; the other node
writes touch the provider last.
"""

import functools

import os_resource_classes
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import allocations as engine_allocations
from allocsvc.placement import reservations
from allocsvc.placement import topology

_RP = models.resource_providers
_INV = models.inventories
_RC = models.resource_classes
_TRAIT = models.traits
_RPT = models.resource_provider_traits
_RPA = models.resource_provider_aggregates
_ALLOC = models.allocations
_CONSUMER = models.consumers
_NODE = models.nodes

# The consumer type of the claims of bare-metal allocations.
CONSUMER_TYPE = 'BAREMETAL_ALLOCATION'

# The one unit of a node.
_UNIT = {'total': 1, 'min_unit': 1, 'max_unit': 1, 'step_size': 1,
         'allocation_ratio': 1.0}


def resource_class(node_resource_class):
    """The Placement class of a node's resource class, as nova names it
    (None for none)."""
    if not node_resource_class:
        return None
    return os_resource_classes.normalize_name(node_resource_class)


def is_free(node):
    """Whether ``node`` can take a new allocation."""
    return (node.provision_state == states.AVAILABLE and
            not node.maintenance and node.power_state is not None and
            node.instance_uuid is None and node.allocation_id is None)


# -- statements built once ----------------------------------------------------

# UPDATE resource_providers SET generation = generation + 1, updated_at = :now
# WHERE uuid = :uuid
_LOCK = (_RP.update().where(_RP.c.uuid == sa.bindparam('node_uuid'))
         .values(generation=_RP.c.generation + 1,
                 updated_at=sa.bindparam('now')))

# The provider of a node with its inventories and how many allocations
# it has, one row per inventory (one row of NULLs without any):
#
# SELECT rp.id AS rp_id, rp.generation, (SELECT count(*) FROM allocations
#          WHERE resource_provider_id = rp.id) AS used,
#        inv.id, inv.resource_class_id, rc.name, inv.total, inv.reserved,
#        inv.min_unit, inv.max_unit, inv.step_size, inv.allocation_ratio,
#        (SELECT SUM(used) FROM allocations
#         WHERE resource_provider_id = rp.id
#           AND resource_class_id = inv.resource_class_id) AS class_used
# FROM resource_providers rp
# LEFT JOIN inventories inv ON inv.resource_provider_id = rp.id
# LEFT JOIN resource_classes rc ON rc.id = inv.resource_class_id
# WHERE rp.uuid = :node_uuid
#
# ``_state_with_node(columns)``: the same, from the node's row (whose
# ``columns`` it reads too) LEFT JOIN its provider, so that a node
# without a provider still gives a row, of NULL provider columns:
#
# SELECT nodes.<columns>, rp.id, ... FROM nodes
# LEFT JOIN resource_providers rp ON rp.uuid = nodes.uuid
# LEFT JOIN inventories inv ... WHERE nodes.uuid = :node_uuid
_STATE_COLUMNS = (
    _RP.c.id.label('rp_id'), _RP.c.generation,
    sa.select(sa.func.count()).where(_ALLOC.c.resource_provider_id ==
                                     _RP.c.id)
    .scalar_subquery().label('used'),
    _INV.c.id.label('inv_id'), _INV.c.resource_class_id,
    _RC.c.name.label('rc_name'), _INV.c.total,
    _INV.c.reserved, _INV.c.min_unit, _INV.c.max_unit, _INV.c.step_size,
    _INV.c.allocation_ratio,
    sa.select(sa.func.sum(_ALLOC.c.used)).where(
        _ALLOC.c.resource_provider_id == _RP.c.id,
        _ALLOC.c.resource_class_id == _INV.c.resource_class_id)
    .scalar_subquery().label('class_used'),
)


def _with_inventories(providers):
    return (providers.outerjoin(_INV, _INV.c.resource_provider_id == _RP.c.id)
            .outerjoin(_RC, _RC.c.id == _INV.c.resource_class_id))


_STATE = sa.select(*_STATE_COLUMNS).select_from(
    _with_inventories(_RP)).where(_RP.c.uuid == sa.bindparam('node_uuid'))


@functools.lru_cache(maxsize=None)
def _state_with_node(columns):
    return sa.select(*(_NODE.c[name] for name in columns),
                     *_STATE_COLUMNS).select_from(
        _with_inventories(_NODE.outerjoin(_RP, _RP.c.uuid == _NODE.c.uuid))
    ).where(_NODE.c.uuid == sa.bindparam('node_uuid'))


_BUMP = (_RP.update().where(_RP.c.id == sa.bindparam('rp_id'))
         .values(generation=_RP.c.generation + 1,
                 updated_at=sa.bindparam('now')))


class _State:
    """The provider of a node as ``_STATE`` reads it: ``id``,
    ``generation``, ``used`` (allocations against it) and
    ``inventories`` {class name: row}, each row with the ``class_used``
    of its class."""

    __slots__ = ('id', 'generation', 'used', 'inventories')

    def __init__(self, rows):
        first = rows[0]
        self.id = first.rp_id
        self.generation = first.generation
        self.used = int(first.used or 0)
        self.inventories = {row.rc_name: row for row in rows
                            if row.inv_id is not None}


def _read(context, node_uuid):
    rows = context.session.execute(_STATE, {'node_uuid': node_uuid}).all()
    return _State(rows) if rows else None


# -- names --------------------------------------------------------------------

def _ensure_names(context, table, names):
    """{name: id} of ``names`` in ``table`` (resource classes or traits),
    inserting the missing ones in the caller's transaction. A concurrent
    insert of the same name runs the whole transaction again (its caller
    is retried on deadlock): the name is then found."""
    if not names:
        return {}
    names = sorted(set(names))
    found = dict(context.session.execute(
        sa.select(table.c.name, table.c.id)
        .where(table.c.name.in_(names))).all())
    missing = [name for name in names if name not in found]
    if missing:
        now = timeutils.utcnow()
        try:
            context.session.execute(table.insert(), [
                {'name': name, 'created_at': now} for name in missing])
        except db_exc.DBDuplicateEntry as exc:
            raise db_exc.RetryRequest(exc)
        found.update(context.session.execute(
            sa.select(table.c.name, table.c.id)
            .where(table.c.name.in_(missing))).all())
    return found


# -- the mirror ---------------------------------------------------------------

def lock(context, node_uuid, node_columns):
    """For a transaction that binds the node, before it reads anything:
    bump its provider's generation, taking the provider's row lock
    (waiting for a Placement write of it in flight), so that what this
    transaction reads next of the provider's usage is the latest
    committed (InnoDB takes its snapshot at the first plain read; the
    node's lock, taken before, is a write). Then read the provider and
    the node's ``node_columns`` (a tuple of ``nodes`` column names) in
    one statement.

    Returns ``(provider, node)``: the provider as it is now (its
    ``used``: how many allocations it has), for ``sync``, or None if the
    node has none; the node's row, or None if there is no such node."""
    lock_only(context, node_uuid)
    return read_locked(context, node_uuid, node_columns)


def lock_only(context, node_uuid):
    """The first half of ``lock``: take the provider's row lock (its
    generation bumped), reading nothing. For a transaction that binds
    several nodes (an allocation group): it takes every lock before its
    first plain read, so that InnoDB's snapshot, taken at that read, is
    later than every lock and what it reads of each provider is the
    latest committed."""
    context.session.execute(
        _LOCK, {'node_uuid': node_uuid, 'now': timeutils.utcnow()})


def read_locked(context, node_uuid, node_columns):
    """The second half of ``lock``: ``(provider, node)`` as ``lock``
    returns them, once ``lock_only`` took the provider's lock."""
    rows = context.session.execute(_state_with_node(tuple(node_columns)),
                                   {'node_uuid': node_uuid}).all()
    if not rows:
        return None, None
    return (_State(rows) if rows[0].rp_id is not None else None), rows[0]


def _create(context, node_uuid):
    now = timeutils.utcnow()
    try:
        rp_id = context.session.execute(_RP.insert().values(
            uuid=node_uuid, name=node_uuid, generation=0,
            created_at=now)).inserted_primary_key[0]
    except db_exc.DBDuplicateEntry:
        raise exception.Conflict(
            'Cannot create the resource provider of node %s: another '
            'resource provider is named %s.' % (node_uuid, node_uuid))
    context.session.execute(_RP.update().where(_RP.c.id == rp_id)
                            .values(root_provider_id=rp_id))
    topology.changed(context, root_ids=[rp_id])
    return _read(context, node_uuid)


def sync(context, node, traits=None, free=None, locked=None):
    """Make the provider of ``node`` (a record with the columns of
    ``nodes``) what the node says, in the caller's transaction, after
    the node's own write: create it if missing, set its inventory and,
    when ``traits`` is given, its traits. ``free`` overrides
    ``is_free(node)`` for a caller whose record predates its write. The
    generation is bumped when anything changes, unless ``locked`` (what
    ``lock`` returned: this transaction bumped it, and read it since)
    is given. Returns the number of allocations against the provider."""
    state = locked or _read(context, node.uuid)
    # A provider this transaction bumped, or creates, needs no bump.
    bump = state is not None and locked is None
    if state is None:
        state = _create(context, node.uuid)
    if free is None:
        free = is_free(node)
    changed = _sync_inventory(context, node, state, free)
    if traits is not None:
        changed = _sync_traits(context, state.id, traits) or changed
    if changed:
        topology.changed(context, root_ids=[state.id])
        if bump:
            context.session.execute(
                _BUMP, {'rp_id': state.id, 'now': timeutils.utcnow()})
    return state.used


def _sync_inventory(context, node, state, free):
    name = resource_class(node.resource_class)
    reserved = 0 if free or state.used else 1
    now = timeutils.utcnow()
    changed = False
    for other, row in state.inventories.items():
        if other == name:
            continue
        # A class the node no longer has. One a consumer still uses
        # (the node changed class under a Placement claim) stays.
        in_use = context.session.execute(
            sa.select(_ALLOC.c.id).join(
                _RC, _RC.c.id == _ALLOC.c.resource_class_id)
            .where(_ALLOC.c.resource_provider_id == state.id,
                   _RC.c.name == other).limit(1)).first()
        if in_use is None:
            context.session.execute(
                _INV.delete().where(_INV.c.id == row.inv_id))
            changed = True
    if name is None:
        return changed
    row = state.inventories.get(name)
    if row is None:
        rc_id = _ensure_names(context, _RC, [name])[name]
        context.session.execute(_INV.insert().values(
            resource_provider_id=state.id, resource_class_id=rc_id,
            reserved=reserved, created_at=now, **_UNIT))
        return True
    if row.reserved != reserved or any(
            getattr(row, key) != value for key, value in _UNIT.items()):
        context.session.execute(
            _INV.update().where(_INV.c.id == row.inv_id)
            .values(reserved=reserved, updated_at=now, **_UNIT))
        return True
    return changed


def _sync_traits(context, rp_id, traits):
    wanted = _ensure_names(context, _TRAIT, traits)
    current = dict(context.session.execute(
        sa.select(_TRAIT.c.name, _RPT.c.trait_id)
        .join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id)
        .where(_RPT.c.resource_provider_id == rp_id)).all())
    removed = sorted(current[name] for name in set(current) - set(wanted))
    added = sorted(wanted[name] for name in set(wanted) - set(current))
    if removed:
        context.session.execute(_RPT.delete().where(
            _RPT.c.resource_provider_id == rp_id,
            _RPT.c.trait_id.in_(removed)))
    if added:
        now = timeutils.utcnow()
        context.session.execute(_RPT.insert(), [
            {'resource_provider_id': rp_id, 'trait_id': trait_id,
             'created_at': now} for trait_id in added])
    return bool(removed or added)


def delete(context, node_uuid, allocation_uuids=()):
    """Delete the provider of the node ``node_uuid`` with its inventory,
    traits and aggregate links, in the caller's transaction, after
    removing the claims of the node's bare-metal allocations
    ``allocation_uuids``. Conflict while another consumer holds it or
    it has child providers: the node is not deleted either."""
    for uuid in allocation_uuids:
        release(context, uuid)
    state = _read(context, node_uuid)
    if state is None:
        return
    if state.used:
        consumers = sorted(set(context.session.execute(
            sa.select(_ALLOC.c.consumer_id)
            .where(_ALLOC.c.resource_provider_id == state.id)).scalars()))
        raise exception.ProviderInUse(
            'Cannot delete node %s: its resource provider has allocations '
            'of consumer(s) %s.' % (node_uuid, ', '.join(consumers)))
    if context.session.execute(sa.select(_RP.c.id).where(
            _RP.c.parent_provider_id == state.id).limit(1)).first():
        raise exception.CannotDeleteParent(
            'Cannot delete node %s: its resource provider has child '
            'resource providers.' % node_uuid)
    for table in (_INV, _RPT, _RPA):
        context.session.execute(table.delete().where(
            table.c.resource_provider_id == state.id))
    reservations.forget_provider(context, state.id)
    topology.changed(context, root_ids=[state.id])
    context.session.execute(_RP.update().where(_RP.c.id == state.id)
                            .values(root_provider_id=None))
    context.session.execute(_RP.delete().where(_RP.c.id == state.id))


# SELECT count(*) FROM nodes
# LEFT JOIN resource_providers rp ON rp.uuid = nodes.uuid
# WHERE rp.id IS NULL
# (and the same, for the first ``limit`` nodes by uuid: uuid, name)
_WITHOUT_PROVIDER = _NODE.outerjoin(_RP, _RP.c.uuid == _NODE.c.uuid)


@db_api.reader
def nodes_without_provider(context, limit):
    """``(count, [(uuid, name), ...])``: how many nodes have no resource
    provider (a Placement client deleted it; the node's next write makes
    it again), and the first ``limit`` of them by uuid."""
    count = context.session.execute(
        sa.select(sa.func.count()).select_from(_WITHOUT_PROVIDER)
        .where(_RP.c.id.is_(None))).scalar()
    first = context.session.execute(
        sa.select(_NODE.c.uuid, _NODE.c.name).select_from(_WITHOUT_PROVIDER)
        .where(_RP.c.id.is_(None)).order_by(_NODE.c.uuid)
        .limit(limit)).all()
    return count, [tuple(row) for row in first]


# -- claims of the placement back end -----------------------------------------

def claim(context, allocation_uuid, node, ids, project_id, user_id,
          provider=None):
    """Claim the node's unit for the bare-metal allocation
    ``allocation_uuid`` through the engine's allocation write, in the
    caller's transaction (which ``lock``-ed the provider first:
    ``provider`` is what that returned): consumer = the allocation, of
    ``CONSUMER_TYPE``, for ``project_id``/``user_id`` (interned in
    ``ids``, an ``InternedIds``). The unit is unreserved first (a held
    unit is not reserved; a backfilled node's was). The engine's checks
    apply (capacity, a new consumer): Conflict if they fail.

    The write's plan is made from the provider as read under its row
    lock, not resolved again: the consumer is new, the provider and its
    one class are known, and so are its inventory and usage (the
    capacity check needs no query of its own)."""
    state = provider or _read(context, node.uuid) or _create(context,
                                                             node.uuid)
    if _sync_inventory(context, node, state, free=True):
        topology.changed(context, root_ids=[state.id])
        state = _read(context, node.uuid)
    name = resource_class(node.resource_class)
    row = state.inventories.get(name)
    if row is None:
        raise exception.Conflict(
            'Unable to claim node %s: its resource provider has no '
            'inventory of %s.' % (node.uuid, name))
    request = engine_allocations.ConsumerAllocations(
        allocation_uuid, project_id, user_id, {node.uuid: {name: 1}},
        consumer_type=CONSUMER_TYPE)
    plan = engine_allocations.Plan(
        [request], {node.uuid: (state.id, state.generation)},
        {name: row.resource_class_id}, consumers={}, old={},
        capacity={(state.id, row.resource_class_id): _Capacity(row)})
    engine_allocations.write(context, plan, ids)


class _Capacity:
    """An inventory row of ``_STATE`` as the engine's capacity check
    reads one (``used``: what is allocated of its class)."""

    __slots__ = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
                 'allocation_ratio', 'used')

    def __init__(self, row):
        for name in self.__slots__[:-1]:
            setattr(self, name, getattr(row, name))
        self.used = row.class_used


_HELD = sa.select(_ALLOC.c.resource_provider_id).where(
    _ALLOC.c.consumer_id == sa.bindparam('consumer'))


def release(context, allocation_uuid):
    """Remove the claim of the bare-metal allocation ``allocation_uuid``
    (none under the database back end: nothing happens), in the
    caller's transaction. The providers it held are bumped, so that a
    Placement client's view of them moves on."""
    held = sorted(set(context.session.execute(
        _HELD, {'consumer': allocation_uuid}).scalars()))
    if not held:
        return
    context.session.execute(
        _ALLOC.delete().where(_ALLOC.c.consumer_id == allocation_uuid))
    context.session.execute(
        _CONSUMER.delete().where(_CONSUMER.c.uuid == allocation_uuid))
    now = timeutils.utcnow()
    for rp_id in held:
        context.session.execute(_BUMP, {'rp_id': rp_id, 'now': now})
