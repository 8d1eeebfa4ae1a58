"""Resource providers: nested trees, generations, filtered listing."""

import functools

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import node_guard
from allocsvc.placement import reservations
from allocsvc.placement import topology

_RP = models.resource_providers
_INV = models.inventories
_ALLOC = models.allocations
_RPA = models.resource_provider_aggregates
_AGG = models.placement_aggregates
_RPT = models.resource_provider_traits
_TRAIT = models.traits


class Provider:
    """A resource provider as read from the database."""

    __slots__ = ('id', 'uuid', 'name', 'generation', 'parent_provider_id',
                 'root_provider_id', 'parent_provider_uuid',
                 'root_provider_uuid', 'created_at', 'updated_at')

    def __init__(self, row):
        for field in self.__slots__:
            setattr(self, field, getattr(row, field))


@functools.cache
def _provider_select():
    """A provider with its parent's and root's UUIDs. Statements are
    immutable, so one is built and each caller adds its own WHERE:
    aliasing the table copies all of its columns, which cost about a
    millisecond of every request that reads a provider."""
    parent = _RP.alias('parent')
    root = _RP.alias('root')
    return sa.select(
        _RP.c.id, _RP.c.uuid, _RP.c.name, _RP.c.generation,
        _RP.c.parent_provider_id, _RP.c.root_provider_id,
        parent.c.uuid.label('parent_provider_uuid'),
        root.c.uuid.label('root_provider_uuid'),
        _RP.c.created_at, _RP.c.updated_at,
    ).select_from(
        _RP.outerjoin(parent, _RP.c.parent_provider_id == parent.c.id)
        .join(root, _RP.c.root_provider_id == root.c.id))


def _get(context, uuid):
    row = context.session.execute(
        _provider_select().where(_RP.c.uuid == uuid)).first()
    if row is None:
        raise exception.ProviderNotFound(uuid)
    return Provider(row)


@db_api.reader
def get_by_uuid(context, uuid):
    """The provider ``uuid``; NotFound if there is none."""
    return _get(context, uuid)


def get_in_transaction(context, uuid):
    """Inside a caller's transaction: the provider, or NotFound."""
    return _get(context, uuid)


def increment_generation(context, provider_id, expected_generation):
    """Compare-and-swap the provider generation inside the caller's
    transaction; ConcurrentUpdate if someone else changed it first.

    UPDATE resource_providers SET generation = :g + 1
    WHERE id = :id AND generation = :g
    """
    result = context.session.execute(
        _RP.update()
        .where(_RP.c.id == provider_id,
               _RP.c.generation == expected_generation)
        .values(generation=expected_generation + 1,
                updated_at=timeutils.utcnow()))
    if result.rowcount != 1:
        raise exception.ConcurrentUpdate(
            "Resource provider's generation already changed. Please update "
            "the generation and try again.")
    return expected_generation + 1


def _duplicate(exc, name, uuid):
    values = {'name': name, 'uuid': uuid}
    columns = [c for c in (exc.columns or ['name']) if c in values]
    dup = ', '.join('%s: %s' % (c, values[c]) for c in columns or ['name'])
    return exception.DuplicateName(
        'Conflicting resource provider %s already exists.' % dup)


def create(context, name, uuid=None, parent_provider_uuid=None):
    """Create a provider (a root, or a child of ``parent_provider_uuid``).
    The UUID is chosen before the transaction, which may run again (see
    ``_create``)."""
    return _create(context, name, uuid or uuidutils.generate_uuid(),
                   parent_provider_uuid)


@db_api.writer
def _create(context, name, uuid, parent_provider_uuid):
    if db_api.reconnected():
        # The attempt whose connection died waiting for the answer to
        # its COMMIT may have created it.
        row = context.session.execute(
            _provider_select().where(_RP.c.uuid == uuid,
                                     _RP.c.name == name)).first()
        if row is not None:
            return Provider(row)
    root_id = parent_id = None
    if parent_provider_uuid is not None:
        refused = ('Unable to create resource provider "%s", %s: Object '
                   'action create failed because: ' % (name, uuid))
        if parent_provider_uuid == uuid:
            raise exception.BadRequest(
                refused + 'parent provider UUID cannot be same as UUID. '
                'Please set parent provider UUID to None if there is no '
                'parent.')
        parent = context.session.execute(
            sa.select(_RP.c.id, _RP.c.root_provider_id)
            .where(_RP.c.uuid == parent_provider_uuid)).first()
        if parent is None:
            raise exception.BadRequest(
                refused + 'parent provider UUID does not exist.')
        parent_id, root_id = parent.id, parent.root_provider_id
    try:
        result = context.session.execute(_RP.insert().values(
            uuid=uuid, name=name, generation=0, parent_provider_id=parent_id,
            root_provider_id=root_id, created_at=timeutils.utcnow()))
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, name, uuid)
    except db_exc.DBReferenceError:
        # The parent was deleted after we read it.
        raise exception.ConcurrentUpdate(
            'Unable to create resource provider "%s": its parent was '
            'deleted concurrently.' % name)
    new_id = result.inserted_primary_key[0]
    if root_id is None:
        context.session.execute(_RP.update().where(_RP.c.id == new_id)
                                .values(root_provider_id=new_id))
    topology.changed(context, provider_ids=[new_id])
    return _get(context, uuid)


def _tree(context, root_id):
    """{id: parent_id} of every provider in the tree rooted at root_id."""
    rows = context.session.execute(
        sa.select(_RP.c.id, _RP.c.parent_provider_id)
        .where(_RP.c.root_provider_id == root_id))
    return {row.id: row.parent_provider_id for row in rows}


def _subtree_ids(tree, top_id):
    children = {}
    for node, parent in tree.items():
        children.setdefault(parent, []).append(node)
    found, todo = [], [top_id]
    while todo:
        node = todo.pop()
        found.append(node)
        todo.extend(children.get(node, ()))
    return found


def _reparent(context, rp, new_parent_uuid, allow_move):
    """Move ``rp`` (and its subtree) under ``new_parent_uuid`` or make it
    a root (None). Before microversion 1.37 only a root may get a parent.
    """
    if new_parent_uuid == rp.parent_provider_uuid:
        return
    if rp.parent_provider_uuid is not None and not allow_move:
        what = 'un-parenting' if new_parent_uuid is None else 're-parenting'
        raise exception.BadRequest(
            'Unable to save resource provider %s: Object action update '
            'failed because: %s a provider is not currently allowed.'
            % (rp.uuid, what))
    parent_id = None
    new_root_id = rp.id
    if new_parent_uuid is not None:
        parent = context.session.execute(
            sa.select(_RP.c.id, _RP.c.root_provider_id)
            .where(_RP.c.uuid == new_parent_uuid)).first()
        if parent is None:
            raise exception.BadRequest(
                'Unable to save resource provider %s: Object action update '
                'failed because: parent provider UUID does not exist.'
                % rp.uuid)
        parent_id, new_root_id = parent.id, parent.root_provider_id
    subtree = _subtree_ids(_tree(context, rp.root_provider_id), rp.id)
    if parent_id in subtree:
        raise exception.BadRequest(
            'Unable to save resource provider %s: creating loop in the '
            'provider tree is not allowed.' % rp.uuid)
    now = timeutils.utcnow()
    context.session.execute(
        _RP.update().where(_RP.c.id == rp.id)
        .values(parent_provider_id=parent_id, updated_at=now))
    if new_root_id != rp.root_provider_id:
        context.session.execute(
            _RP.update().where(_RP.c.id.in_(subtree))
            .values(root_provider_id=new_root_id, updated_at=now))
    topology.changed(context, provider_ids=[rp.id],
                     root_ids=[rp.root_provider_id])


_UNSET = object()


@db_api.writer
def update(context, uuid, name, parent_provider_uuid=_UNSET,
           allow_move=False):
    """Rename a provider and, if given, change its parent."""
    rp = _get(context, uuid)
    if parent_provider_uuid is not _UNSET:
        _reparent(context, rp, parent_provider_uuid, allow_move)
    if name != rp.name:
        try:
            context.session.execute(
                _RP.update().where(_RP.c.id == rp.id)
                .values(name=name, updated_at=timeutils.utcnow()))
        except db_exc.DBDuplicateEntry as exc:
            raise _duplicate(exc, name, uuid)
    return _get(context, uuid)


@db_api.writer
def delete(context, uuid):
    """Delete a provider with its inventory, traits and aggregate links.

    Refused while it has children or allocations, or is the provider of
    a bound bare-metal node.
    """
    session = context.session
    try:
        rp = _get(context, uuid)
    except exception.NotFound:
        raise exception.NotFound(
            'No resource provider with uuid %s found for delete' % uuid)
    node_guard.refuse(context, uuid, 'delete resource provider')
    if session.execute(sa.select(_RP.c.id).where(
            _RP.c.parent_provider_id == rp.id).limit(1)).first():
        raise exception.CannotDeleteParent(
            'Unable to delete parent resource provider %s: It has child '
            'resource providers.' % uuid)
    if session.execute(sa.select(_ALLOC.c.id).where(
            _ALLOC.c.resource_provider_id == rp.id).limit(1)).first():
        raise exception.ProviderInUse(
            'Unable to delete resource provider %s: Resource provider has '
            'allocations.' % uuid)
    for table in (_INV, _RPT, _RPA):
        session.execute(table.delete().where(
            table.c.resource_provider_id == rp.id))
    reservations.forget_provider(context, rp.id)
    topology.changed(context, root_ids=[rp.root_provider_id])
    try:
        # Clear the self-reference first: some databases check it per row.
        session.execute(_RP.update().where(_RP.c.id == rp.id)
                        .values(root_provider_id=None))
        result = session.execute(_RP.delete().where(
            _RP.c.id == rp.id, _RP.c.generation == rp.generation))
    except db_exc.DBReferenceError:
        raise exception.Conflict(
            'Unable to delete resource provider %s: a child provider or '
            'an allocation was added concurrently.' % uuid)
    if result.rowcount != 1:
        raise exception.ConcurrentUpdate(
            'Unable to delete resource provider %s: it was changed '
            'concurrently.' % uuid)


class ListFilters:
    """What GET /resource_providers can filter on (all ANDed).

    ``member_of``: list of aggregate uuid sets, the provider must be in at
    least one aggregate of each; ``forbidden_aggs``: in none of these.
    ``required``: list of trait name sets, at least one trait of each;
    ``forbidden_traits``: none of these. ``resources``: {class id: amount}
    the provider must have capacity for.
    """

    __slots__ = ('name', 'uuid', 'in_tree', 'member_of', 'forbidden_aggs',
                 'required', 'forbidden_traits', 'resources')

    def __init__(self, **kwargs):
        for field in self.__slots__:
            setattr(self, field, kwargs.get(field))


def capacity_filter(rc_id, amount):
    """Provider ids with room for ``amount`` of class ``rc_id``:

    SELECT inv.resource_provider_id FROM inventories AS inv
    LEFT JOIN (SELECT resource_provider_id, SUM(used) AS used
               FROM allocations WHERE resource_class_id = :rc
               GROUP BY resource_provider_id) AS usage
      ON usage.resource_provider_id = inv.resource_provider_id
    WHERE inv.resource_class_id = :rc
      AND (inv.total - inv.reserved) * inv.allocation_ratio
          >= COALESCE(usage.used, 0) + :amount
      AND inv.min_unit <= :amount AND inv.max_unit >= :amount
      AND MOD(:amount, inv.step_size) = 0
    """
    usage = (sa.select(_ALLOC.c.resource_provider_id,
                       sa.func.sum(_ALLOC.c.used).label('used'))
             .where(_ALLOC.c.resource_class_id == rc_id)
             .group_by(_ALLOC.c.resource_provider_id).subquery('usage'))
    return (
        sa.select(_INV.c.resource_provider_id)
        .select_from(_INV.outerjoin(
            usage,
            usage.c.resource_provider_id == _INV.c.resource_provider_id))
        .where(_INV.c.resource_class_id == rc_id,
               (_INV.c.total - _INV.c.reserved) * _INV.c.allocation_ratio >=
               sa.func.coalesce(usage.c.used, 0) + amount,
               _INV.c.min_unit <= amount,
               _INV.c.max_unit >= amount,
               sa.literal(amount) % _INV.c.step_size == 0))


def _aggregate_rows(keys):
    return (sa.select(_RPA.c.resource_provider_id, _AGG.c.uuid)
            .join(_AGG, _AGG.c.id == _RPA.c.aggregate_id)
            .where(_AGG.c.uuid.in_(keys)))


def _trait_rows(keys):
    return (sa.select(_RPT.c.resource_provider_id, _TRAIT.c.name)
            .join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id)
            .where(_TRAIT.c.name.in_(keys)))


# Names per IN list: well within every backend's bound-parameter limit.
_CHUNK = 500


def _holders(context, rows_of, names):
    """{provider id: the names of ``names`` it holds}, from the pairs
    (provider id, name) ``rows_of(names)`` reads (aggregate uuids or
    trait names), a few hundred names a statement: a long list never
    meets a backend's limit on bound parameters."""
    names = sorted(names)
    held = {}
    for start in range(0, len(names), _CHUNK):
        rows = context.session.execute(
            rows_of(names[start:start + _CHUNK]))
        for rp_id, name in rows:
            held.setdefault(rp_id, set()).add(name)
    return held


def _meeting(context, rows_of, any_of_sets):
    """The ids of the providers that hold, for each set of
    ``any_of_sets``, one of its names at least (``_holders``).

    One condition per set in SQL (a subquery each, ANDed) made the
    database's planning grow much faster than the number of sets:
    PostgreSQL took seconds for a hundred and minutes for a few
    hundred, and SQLite refused deep enough expression trees. Here the
    work is one pass over the rows read, then over the sets for the
    providers still eligible, cheapest set first.
    """
    held = _holders(context, rows_of, set().union(*any_of_sets))
    eligible = set(held)
    for any_of in sorted(any_of_sets, key=len):
        eligible = {rp_id for rp_id in eligible
                    if not held[rp_id].isdisjoint(any_of)}
        if not eligible:
            break
    return eligible


@db_api.reader
def list_providers(context, filters):
    """Providers matching ``filters`` (a ListFilters), in creation order."""
    query = _provider_select()
    if filters.name is not None:
        query = query.where(_RP.c.name == filters.name)
    if filters.uuid is not None:
        query = query.where(_RP.c.uuid == filters.uuid)
    if filters.in_tree is not None:
        root_id = context.session.execute(
            sa.select(_RP.c.root_provider_id)
            .where(_RP.c.uuid == filters.in_tree)).scalar()
        if root_id is None:
            return []
        query = query.where(_RP.c.root_provider_id == root_id)
    # Providers outside these sets (or in ``drop``) are left out once
    # the rows are read.
    keep = []
    if filters.member_of:
        keep.append(_meeting(context, _aggregate_rows, filters.member_of))
    if filters.required:
        keep.append(_meeting(context, _trait_rows, filters.required))
    if any(not ids for ids in keep):
        return []
    if keep:
        # The smallest set is also told to the database, when short,
        # so that it reads no more providers than needed.
        fewest = min(keep, key=len)
        if len(fewest) <= _CHUNK:
            query = query.where(_RP.c.id.in_(sorted(fewest)))
    drop = set()
    if filters.forbidden_aggs:
        drop.update(_holders(context, _aggregate_rows,
                             filters.forbidden_aggs))
    if filters.forbidden_traits:
        drop.update(_holders(context, _trait_rows, filters.forbidden_traits))
    for rc_id, amount in sorted((filters.resources or {}).items()):
        query = query.where(_RP.c.id.in_(capacity_filter(rc_id, amount)))
    rows = context.session.execute(query.order_by(_RP.c.id))
    return [Provider(row) for row in rows if row.id not in drop and
            all(row.id in ids for ids in keep)]
