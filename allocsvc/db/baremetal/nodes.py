"""Bare-metal nodes: create, read, list, update, destroy, and traits.

Plain SQLAlchemy Core; each public function is one transaction, except
the ``*_in_transaction`` ones, which run inside their caller's. Node
records carry the node's traits, the UUID of its allocation, the host
name of its conductor (``conductor_affinity``) and the UUID of its
chassis. Writes name the chassis by ``chassis_uuid``, looked up in the
write's transaction; the foreign key on ``chassis_id`` refuses a chassis
deleted meanwhile (both are Ironic's 400 "not found"). The
provision state of a new node is the state machine's initial state;
later state changes are computed by ``allocsvc.common.states`` and
passed in by the caller.
"""

import functools

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import chassis as db_chassis
from allocsvc.db.baremetal import paging
from allocsvc.db import models

_NODE = models.nodes
_TRAIT = models.node_traits
_ALLOC = models.baremetal_allocations
_COND = models.conductors
_CHASSIS = models.chassis

MAX_TRAITS_PER_NODE = 50

# Columns a caller may not write through update_node.
_READ_ONLY = frozenset(('id', 'uuid', 'created_at', 'updated_at',
                        'allocation_uuid', 'traits', 'conductor',
                        'chassis_id'))
_JSON_COLUMNS = ('driver_info', 'properties', 'extra', 'instance_info',
                 'driver_internal_info', 'clean_step', 'deploy_step',
                 'service_step', 'raid_config', 'target_raid_config',
                 'network_data')
SORTABLE = frozenset(c.key for c in _NODE.c
                     if c.key not in _JSON_COLUMNS)


class Node:
    """A node as read from the database, with its traits (sorted), the
    UUID of its allocation, the host name of its conductor and the UUID
    of its chassis (None without one)."""

    __slots__ = tuple(c.key for c in _NODE.c) + ('allocation_uuid',
                                                 'conductor', 'chassis_uuid',
                                                 'traits')

    def __init__(self, row, traits=()):
        for column in _NODE.c:
            setattr(self, column.key, getattr(row, column.key))
        for name in _JSON_COLUMNS:
            if getattr(self, name) is None:
                setattr(self, name, {})
        self.allocation_uuid = row.allocation_uuid
        self.conductor = row.conductor
        self.chassis_uuid = row.chassis_uuid
        self.traits = sorted(traits)


def _select():
    return sa.select(*_NODE.c, _ALLOC.c.uuid.label('allocation_uuid'),
                     _COND.c.hostname.label('conductor'),
                     _CHASSIS.c.uuid.label('chassis_uuid')) \
        .select_from(_NODE
                     .outerjoin(_ALLOC, _NODE.c.allocation_id == _ALLOC.c.id)
                     .outerjoin(_COND,
                                _NODE.c.conductor_affinity == _COND.c.id)
                     .outerjoin(_CHASSIS,
                                _NODE.c.chassis_id == _CHASSIS.c.id))


# The statements of single-node reads are built once and reused (see
# ``allocsvc.db.baremetal.allocations``).
_TRAITS_OF = sa.select(_TRAIT.c.node_id, _TRAIT.c.trait).where(
    _TRAIT.c.node_id.in_(sa.bindparam('node_ids', expanding=True)))


@functools.lru_cache(maxsize=None)
def _select_by(column):
    """The node whose ``column`` is ``:ident``."""
    return _select().where(_NODE.c[column] == sa.bindparam('ident'))


def _traits_of(context, node_ids):
    traits = {node_id: [] for node_id in node_ids}
    if node_ids:
        rows = context.session.execute(_TRAITS_OF,
                                       {'node_ids': list(node_ids)})
        for node_id, trait in rows:
            traits[node_id].append(trait)
    return traits


def _one(context, column, ident, with_traits=True):
    row = context.session.execute(_select_by(column),
                                  {'ident': ident}).first()
    if row is None:
        raise exception.NodeNotFound(ident)
    if not with_traits:
        return Node(row)
    return Node(row, _traits_of(context, [row.id])[row.id])


def _with_traits(context, node):
    node.traits = sorted(_traits_of(context, [node.id])[node.id])
    return node


def get_in_transaction(context, node_id, with_traits=True):
    """Inside a caller's transaction: the node ``node_id``, or
    NodeNotFound. Without ``with_traits`` its ``traits`` are left empty
    and not read (one statement less)."""
    return _one(context, 'id', node_id, with_traits)


class Bindable:
    """What binding a node to an allocation reads of it (``BINDABLE``'s
    columns, and its ``traits``)."""

    __slots__ = ('id', 'uuid', 'instance_uuid', 'instance_info',
                 'resource_class', 'provision_state', 'maintenance',
                 'power_state', 'allocation_id', 'reservation', 'owner',
                 'lessee', 'traits')

    def __init__(self, row, traits=()):
        for name in self.__slots__[:-1]:
            setattr(self, name, getattr(row, name))
        self.traits = traits


# The columns of ``nodes`` a Bindable has.
BINDABLE = Bindable.__slots__[:-1]


def bindable(context, row, with_traits=True):
    """The Bindable of ``row`` (which has the ``BINDABLE`` columns), read
    in the caller's transaction; its traits are read only
    ``with_traits``. The other columns, the JSON documents above all,
    cost more to read than the rest of a bind."""
    return Bindable(row, _traits_of(context, [row.id])[row.id]
                    if with_traits else ())


@db_api.reader
def get_by_id(context, node_id):
    return _one(context, 'id', node_id)


@db_api.reader
def get_by_uuid(context, uuid):
    return _one(context, 'uuid', uuid)


@db_api.reader
def get_by_name(context, name):
    return _one(context, 'name', name)


@db_api.reader
def get_by_instance_uuid(context, instance_uuid):
    return _one(context, 'instance_uuid', instance_uuid)


@db_api.reader
def get(context, ident):
    """The node whose UUID (if ``ident`` looks like one) or name is
    ``ident``."""
    return _one(context, 'uuid' if uuidutils.is_uuid_like(ident) else 'name',
                ident)


def _filter(query, filters):
    """Apply the list filters; see ``list_nodes``."""
    simple = ('resource_class', 'provision_state', 'driver', 'owner',
              'lessee', 'instance_uuid', 'conductor_group', 'reservation',
              'power_state', 'fault', 'parent_node', 'instance_name',
              'chassis_id')
    for key, value in filters.items():
        if key in simple:
            query = query.where(_NODE.c[key] == value)
        elif key == 'provision_state_in':
            query = query.where(_NODE.c.provision_state.in_(value))
        elif key == 'uuid_in':
            query = query.where(_NODE.c.uuid.in_(value))
        elif key in ('maintenance', 'retired'):
            query = query.where(_NODE.c[key] == bool(value))
        elif key == 'shard_in':
            query = query.where(_NODE.c.shard.in_(value))
        elif key == 'sharded':
            column = _NODE.c.shard
            query = query.where(column.is_not(None) if value
                                else column.is_(None))
        elif key == 'include_children':
            if not value:
                query = query.where(_NODE.c.parent_node.is_(None))
        elif key == 'associated':
            column = _NODE.c.instance_uuid
            query = query.where(column.is_not(None) if value
                                else column.is_(None))
        elif key == 'reserved':
            column = _NODE.c.reservation
            query = query.where(column.is_not(None) if value
                                else column.is_(None))
        elif key == 'project':
            query = query.where(sa.or_(_NODE.c.owner == value,
                                       _NODE.c.lessee == value))
        elif key == 'conductor':
            query = query.where(_COND.c.hostname == value)
        elif key == 'conductor_candidate':
            query = query.where(_conductor_candidate(**value))
        elif key == 'description_contains':
            # A substring, not a pattern: LIKE's wildcards are escaped.
            query = query.where(_NODE.c.description.contains(
                value, autoescape=True))
        else:
            raise exception.InvalidParameterValue(
                'Unknown node filter: %s' % key)
    return query


def _conductor_candidate(conductor_id, alive_ids, conductor_group,
                         drivers):
    """The nodes conductor ``conductor_id`` may be the conductor of
    (``allocsvc.conductor.hash_ring``): those it owns, and the nodes
    without a live owner (none of ``alive_ids``) in its conductor group
    with one of its ``drivers``; the hash ring picks among the second.

    ``nodes.conductor_affinity = :id OR ((conductor_affinity IS NULL OR
    conductor_affinity NOT IN (:alive_ids)) AND conductor_group = :group
    AND driver IN (:drivers))``"""
    affinity = _NODE.c.conductor_affinity
    orphan = sa.or_(affinity.is_(None), affinity.not_in(list(alive_ids)))
    return sa.or_(affinity == conductor_id,
                  sa.and_(orphan,
                          _NODE.c.conductor_group == (conductor_group or ''),
                          _NODE.c.driver.in_(list(drivers))))


@db_api.reader
def list_nodes(context, filters=None, limit=None, marker=None,
               sort_key='id', sort_dir='asc'):
    """Nodes matching ``filters``, a page of them.

    Filters (all ANDed): equality on ``resource_class``,
    ``provision_state``, ``driver``, ``owner``, ``lessee``,
    ``instance_uuid``, ``conductor_group``, ``reservation``,
    ``power_state``, ``fault``, ``parent_node``, ``instance_name``,
    ``chassis_id``;
    ``provision_state_in``, ``uuid_in`` and ``shard_in`` (lists);
    ``maintenance``, ``retired``, ``associated`` (has an instance),
    ``reserved`` (is locked), ``sharded`` (has a shard) as booleans;
    ``include_children`` False leaves out nodes with a parent;
    ``project`` (owner or lessee); ``conductor`` (host name of the
    node's owner); ``conductor_candidate`` (the nodes a conductor may
    serve, see ``_conductor_candidate``); ``description_contains`` (a
    substring of the description).

    ``marker`` is a node UUID (NodeNotFound if unknown); the page starts
    after it in the ``sort_key``/``sort_dir`` order, ties broken by id.
    """
    paging.check_limit(limit)
    paging.check_sort(sort_key, sort_dir, SORTABLE)
    marker_row = None
    if marker is not None:
        marker_row = context.session.execute(
            sa.select(_NODE).where(_NODE.c.uuid == marker)).first()
        if marker_row is None:
            raise exception.NodeNotFound(marker)
    query = _filter(_select(), filters or {})
    query = paging.paginate(query, _NODE.c.id, _NODE.c[sort_key], sort_dir,
                            marker_row, limit)
    rows = context.session.execute(query).all()
    traits = _traits_of(context, [row.id for row in rows])
    return [Node(row, traits[row.id]) for row in rows]


@db_api.reader
def shard_counts(context):
    """``[(shard, number of nodes)]``, the most populated first (ties by
    name); the nodes without a shard count under None."""
    # SELECT shard, count(id) FROM nodes GROUP BY shard
    rows = context.session.execute(
        sa.select(_NODE.c.shard, sa.func.count(_NODE.c.id))
        .group_by(_NODE.c.shard)).all()
    return sorted(((shard, int(count)) for shard, count in rows),
                  key=lambda row: (-row[1], row[0] is not None,
                                   row[0] or ''))


def _duplicate(exc, values, uuid=None):
    columns = exc.columns or []
    if any('instance_uuid' in c for c in columns):
        return exception.InstanceAssociated(values.get('instance_uuid'),
                                            uuid or values.get('uuid'))
    if any('name' in c for c in columns):
        return exception.DuplicateNodeName(values.get('name'))
    return exception.NodeAlreadyExists(uuid or values.get('uuid'))


def _chassis_column(context, values):
    """``values`` with the chassis named by ``chassis_uuid`` (if given)
    as ``chassis_id``, read in the write's transaction."""
    if 'chassis_uuid' not in values:
        return values
    values = dict(values)
    values['chassis_id'] = db_chassis.id_for_node(
        context, values.pop('chassis_uuid'))
    return values


def _written(context, statement, values, uuid=None):
    """Run the INSERT or UPDATE ``statement`` of a node (its column
    ``values``): a unique clash is Ironic's 409, and a chassis deleted
    since the write looked it up (the foreign key) its 400."""
    try:
        return context.session.execute(statement)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values, uuid=uuid)
    except db_exc.DBReferenceError:
        if values.get('chassis_id') is None:
            raise
        raise exception.InvalidParameterValue(
            exception.ChassisNotFound(values['chassis_uuid']).message)


@db_api.writer
def create_node(context, values):
    """Insert a node from ``values`` (column names; ``traits`` a list;
    ``chassis_uuid`` its chassis) and return it. Defaults: a new UUID,
    the initial provision state, out of maintenance, no power state.
    NodeAlreadyExists / DuplicateNodeName / InstanceAssociated on a
    unique clash; 400 for a chassis that does not exist."""
    chassis_uuid = values.get('chassis_uuid')
    values = dict(_chassis_column(context, values))
    traits = values.pop('traits', None) or []
    if len(set(traits)) > MAX_TRAITS_PER_NODE:
        raise exception.TooManyTraits(values.get('uuid'),
                                      MAX_TRAITS_PER_NODE)
    values.setdefault('uuid', uuidutils.generate_uuid())
    values.setdefault('provision_state', states.NODE_INITIAL)
    values.setdefault('maintenance', False)
    for flag in ('console_enabled', 'protected', 'retired',
                 'disable_power_off'):
        values.setdefault(flag, False)
    values.setdefault('conductor_group', '')
    values['created_at'] = timeutils.utcnow()
    # As Ironic's: a new node has not changed provision state yet.
    values['provision_updated_at'] = None
    result = _written(context, _NODE.insert().values(**values),
                      dict(values, chassis_uuid=chassis_uuid))
    node_id = result.inserted_primary_key[0]
    _insert_traits(context, node_id, set(traits))
    return get_in_transaction(context, node_id)


@db_api.writer
def update_node(context, node_id, values):
    """Write ``values`` (column names) to node ``node_id``; return the
    node. See ``update_in_transaction``."""
    return update_in_transaction(context, node_id, values)


def update_in_transaction(context, node_id, values, locked_by=None,
                          expect=None):
    """Inside a caller's transaction: write ``values`` (column names;
    the chassis as ``chassis_uuid``, 400 if it does not exist) to node
    ``node_id`` and return the node. Setting ``instance_uuid`` on a
    node that already has another one is NodeAssociated (the write is
    conditional on it, so two racing writers cannot both succeed). The
    write is also conditional on ``locked_by`` (if given) holding the
    node's lock -- NodeNotLocked otherwise -- and on each column of
    ``expect`` (if given) still having its value -- NodeChanged
    otherwise. A provision state change stamps ``provision_updated_at``.
    """
    bad = _READ_ONLY.intersection(values)
    if bad:
        raise exception.InvalidParameterValue(
            'Cannot overwrite %s of an existing node.'
            % ', '.join(sorted(bad)))
    uuid = _node_uuid(context, node_id)
    chassis_uuid = values.get('chassis_uuid')
    values = dict(_chassis_column(context, values))
    now = timeutils.utcnow()
    values['updated_at'] = now
    if 'provision_state' in values:
        values['provision_updated_at'] = now
    where = [_NODE.c.id == node_id]
    if values.get('instance_uuid') is not None:
        where.append(sa.or_(_NODE.c.instance_uuid.is_(None),
                            _NODE.c.instance_uuid == values['instance_uuid']))
    if locked_by is not None:
        where.append(_NODE.c.reservation == locked_by)
    expect = expect or {}
    for column, value in expect.items():
        where.append(_NODE.c[column].is_(None) if value is None
                     else _NODE.c[column] == value)
    result = _written(context, _NODE.update().where(*where).values(**values),
                      dict(values, chassis_uuid=chassis_uuid), uuid=uuid)
    if result.rowcount != 1:
        node = get_in_transaction(context, node_id)
        if locked_by is not None and node.reservation != locked_by:
            raise exception.NodeNotLocked(uuid, locked_by)
        for column, value in expect.items():
            if getattr(node, column) != value:
                raise exception.NodeChanged(uuid, column)
        raise exception.NodeAssociated(uuid, node.instance_uuid)
    return get_in_transaction(context, node_id)


@db_api.writer
def destroy_node(context, node_id):
    """Delete node ``node_id`` with its traits, allocations, ports and
    port groups (NodeNotFound if there is none); return
    ``(node uuid, [UUIDs of the allocations deleted])``."""
    return destroy_in_transaction(context, node_id)


def destroy_in_transaction(context, node_id):
    """``destroy_node`` inside a caller's transaction."""
    node_uuid = _node_uuid(context, node_id)
    allocation_uuids = context.session.execute(
        sa.select(_ALLOC.c.uuid).where(_ALLOC.c.node_id == node_id)
    ).scalars().all()
    # The node points at its allocation and the allocation at the node:
    # unlink first, then delete the allocation rows, then the node.
    context.session.execute(
        _NODE.update().where(_NODE.c.id == node_id)
        .values(allocation_id=None))
    context.session.execute(_ALLOC.delete().where(_ALLOC.c.node_id == node_id))
    context.session.execute(_TRAIT.delete().where(_TRAIT.c.node_id == node_id))
    # Its ports and port groups go with it (they refer to the node).
    context.session.execute(
        models.ports.delete().where(models.ports.c.node_id == node_id))
    context.session.execute(
        models.portgroups.delete().where(
            models.portgroups.c.node_id == node_id))
    context.session.execute(_NODE.delete().where(_NODE.c.id == node_id))
    return node_uuid, allocation_uuids


# -- traits ------------------------------------------------------------------

def _insert_traits(context, node_id, traits):
    if traits:
        now = timeutils.utcnow()
        context.session.execute(_TRAIT.insert(), [
            {'node_id': node_id, 'trait': trait, 'created_at': now}
            for trait in sorted(traits)])


def uuid_in_transaction(context, ident):
    """The UUID of the node ``ident`` (a UUID or a name) names, or None,
    in the caller's transaction."""
    column = _NODE.c.uuid if uuidutils.is_uuid_like(ident) else _NODE.c.name
    return context.session.execute(
        sa.select(_NODE.c.uuid).where(column == ident)).scalar()


def _node_uuid(context, node_id):
    uuid = context.session.execute(
        sa.select(_NODE.c.uuid).where(_NODE.c.id == node_id)).scalar()
    if uuid is None:
        raise exception.NodeNotFound(node_id)
    return uuid


@db_api.reader
def get_traits(context, node_id):
    """The sorted traits of node ``node_id``."""
    _node_uuid(context, node_id)
    return _traits_of(context, [node_id])[node_id]


@db_api.writer
def set_traits(context, node_id, traits):
    """Replace the traits of node ``node_id`` with ``traits``; return
    them sorted."""
    uuid = _node_uuid(context, node_id)
    traits = set(traits)
    if len(traits) > MAX_TRAITS_PER_NODE:
        raise exception.TooManyTraits(uuid, MAX_TRAITS_PER_NODE)
    context.session.execute(_TRAIT.delete().where(_TRAIT.c.node_id == node_id))
    _insert_traits(context, node_id, traits)
    return sorted(traits)


@db_api.writer
def add_trait(context, node_id, trait):
    """Give node ``node_id`` the trait (no-op if it has it already);
    return whether it changed."""
    uuid = _node_uuid(context, node_id)
    current = _traits_of(context, [node_id])[node_id]
    if trait in current:
        return False
    if len(current) >= MAX_TRAITS_PER_NODE:
        raise exception.TooManyTraits(uuid, MAX_TRAITS_PER_NODE)
    try:
        _insert_traits(context, node_id, [trait])
    except db_exc.DBDuplicateEntry as exc:
        # A concurrent writer added the same trait: run the transaction
        # again, and it finds the trait there. (Not a savepoint: on
        # MariaDB a deadlock rolls the savepoint back with the whole
        # transaction, and must reach the retry as the deadlock it is.)
        raise db_exc.RetryRequest(exc)
    return True


@db_api.writer
def remove_trait(context, node_id, trait):
    """Take the trait from node ``node_id``; NodeTraitNotFound if it
    does not have it."""
    uuid = _node_uuid(context, node_id)
    result = context.session.execute(
        _TRAIT.delete().where(_TRAIT.c.node_id == node_id,
                              _TRAIT.c.trait == trait))
    if result.rowcount != 1:
        raise exception.NodeTraitNotFound(uuid, trait)


@db_api.writer
def remove_all_traits(context, node_id):
    _node_uuid(context, node_id)
    context.session.execute(_TRAIT.delete().where(_TRAIT.c.node_id == node_id))
