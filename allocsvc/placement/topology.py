"""The shape of the provider trees, versioned, and a per-process copy.

Every allocation candidates request needs the providers of the trees
that can serve it, with their parents, roots, traits, aggregates and
inventories; reading them took most of a request's time, for data that
changes rarely (a provider created, moved or deleted, its traits,
aggregates or inventories changed) compared with how often it is read.
What changes with every claim, the usage, is still read per request.

Writers: whatever changes the shape of a tree calls ``changed`` in its
transaction. When that transaction commits, the one row of
placement_topology gets the next version, and placement_topology_changes
the roots of the trees changed under it. Taking that row's lock is the
last thing the transaction does (a ``before_commit`` hook), so it cannot
be part of a deadlock, and the versions are committed in their order:
whoever reads version V also reads every change up to V.

Readers: ``current(context, stamp)`` gives the ``Topology`` of the
database at least as new as ``stamp`` (epoch, version, floor), as read
by the caller's first statement. The copy kept by the process is used as
it is when new enough, else brought up to date in one statement that
reads only the trees changed since (or everything, for a first read, a
new database or a copy older than the pruned history). Copies are never
changed in place: a request keeps the one it started with.
"""

import functools
import threading

from oslo_log import log as logging
from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from allocsvc.db import models
from allocsvc.db import unions

LOG = logging.getLogger(__name__)

_TOPO = models.placement_topology
_CHANGES = models.placement_topology_changes
_RP = models.resource_providers
_RPT = models.resource_provider_traits
_TRAIT = models.traits
_RPA = models.resource_provider_aggregates
_AGG = models.placement_aggregates
_INV = models.inventories

# Versions of history kept: a copy that many versions behind is read
# again whole. Pruned every _PRUNE_EVERY versions.
_KEEP = 5000
_PRUNE_EVERY = 500

# The session.info key of the changes a transaction has made.
_INFO_KEY = 'allocsvc.topology'
# Derived answers a copy of the trees keeps (``Topology.memo``).
_MEMO_SIZE = 64


# -- writers ----------------------------------------------------------------

def changed(context, provider_ids=(), root_ids=()):
    """Record, in the caller's writer transaction, that the trees of the
    providers ``provider_ids`` (their roots as of the commit) and the
    trees ``root_ids`` changed shape. A provider that leaves a tree
    (moved or deleted) must name that tree in ``root_ids``."""
    pending = context.session.info.setdefault(_INFO_KEY, (set(), set()))
    pending[0].update(provider_ids)
    pending[1].update(root_ids)


@sa.event.listens_for(orm.Session, 'before_commit')
def _bump(session):
    pending = session.info.pop(_INFO_KEY, None)
    if pending is None:
        return
    provider_ids, roots = pending
    if provider_ids:
        roots |= set(session.execute(
            sa.select(_RP.c.root_provider_id)
            .where(_RP.c.id.in_(sorted(provider_ids)))).scalars())
    roots.discard(None)
    version = _next_version(session)
    if version is None:
        # The row is made by the migrations: only a database emptied
        # by hand lacks it. A new epoch tells every copy to reload.
        version = 1
        session.execute(_TOPO.insert().values(
            id=1, epoch=uuidutils.generate_uuid(), version=version, floor=0))
    if roots:
        session.execute(_CHANGES.insert(), [
            {'version': version, 'root_provider_id': root}
            for root in sorted(roots)])
    if version % _PRUNE_EVERY == 0 and version > _KEEP:
        floor = version - _KEEP
        session.execute(_CHANGES.delete().where(_CHANGES.c.version <= floor))
        session.execute(_TOPO.update().where(_TOPO.c.id == 1)
                        .values(floor=floor))


def _next_version(session):
    """Add one to the version of the topology row and return the new
    version (None without the row), in one statement: RETURNING where
    the database has it (PostgreSQL, SQLite), else MySQL's
    ``LAST_INSERT_ID(expr)``, whose value comes back with the UPDATE's
    answer as the statement's last row id."""
    update = _TOPO.update().where(_TOPO.c.id == 1)
    if session.get_bind().dialect.update_returning:
        return session.execute(
            update.values(version=_TOPO.c.version + 1)
            .returning(_TOPO.c.version)).scalar()
    result = session.execute(update.values(
        version=sa.func.last_insert_id(_TOPO.c.version + 1)))
    return result.lastrowid if result.rowcount == 1 else None


@sa.event.listens_for(orm.Session, 'after_rollback')
def _forget(session):
    session.info.pop(_INFO_KEY, None)


# -- readers ----------------------------------------------------------------

def stamp_select():
    """SELECT epoch, version, floor of the one topology row: the caller
    adds it to its first statement and passes what it read to
    ``current``."""
    return sa.select(_TOPO.c.epoch, _TOPO.c.version, _TOPO.c.floor).where(
        _TOPO.c.id == 1)


class Provider:
    __slots__ = ('id', 'uuid', 'parent_id', 'root_id')

    def __init__(self, id, uuid, parent_id, root_id):
        self.id = id
        self.uuid = uuid
        self.parent_id = parent_id
        self.root_id = root_id


class Stock:
    """One inventory as the candidates search reads it: ``capacity``
    ((total - reserved) * allocation_ratio) and the unit rules."""

    __slots__ = ('capacity', 'min_unit', 'max_unit', 'step_size')

    def __init__(self, capacity, min_unit, max_unit, step_size):
        self.capacity = capacity
        self.min_unit = min_unit
        self.max_unit = max_unit
        self.step_size = step_size


class Topology:
    """The providers' trees at one version of one database.

    ``trees`` {root id: (Provider, ...)}; ``traits`` {rp id: frozenset of
    trait names}; ``trait_ids`` {trait name: trait id} of those names (the
    order Placement lists a provider's traits in); ``aggregates`` {rp id:
    frozenset of aggregate uuids};
    ``members`` {aggregate uuid: frozenset of rp ids};
    ``inventories`` {rc id: {rp id: Stock}}; ``classes`` {rp id:
    frozenset of the class ids it has inventory of}. Providers without
    traits, aggregates or inventory are absent from those. Never changed
    once built."""

    __slots__ = ('epoch', 'version', 'trees', 'traits', 'trait_ids',
                 'aggregates', 'members', 'inventories', 'classes',
                 '_providers', '_by_uuid', '_shown', '_memo')

    def __init__(self, epoch, version, trees, traits, aggregates,
                 inventories, trait_ids=None):
        self.epoch = epoch
        self.version = version
        self.trees = trees
        self.traits = traits
        self.trait_ids = trait_ids or {}
        self.aggregates = aggregates
        self.inventories = inventories
        members, classes = {}, {}
        for rp_id, uuids in aggregates.items():
            for uuid in uuids:
                members.setdefault(uuid, set()).add(rp_id)
        for rc_id, stocks in inventories.items():
            for rp_id in stocks:
                classes.setdefault(rp_id, set()).add(rc_id)
        self.members = {u: frozenset(ids) for u, ids in members.items()}
        self.classes = {rp: frozenset(ids) for rp, ids in classes.items()}
        self._providers = None
        self._by_uuid = None
        self._shown = {}
        self._memo = {}

    def memo(self, key, build):
        """``build()``, worked out once per copy of the trees for each
        ``key`` (a hashable description of what it depends on besides
        the trees): what a request derives from the trees alone need
        not be derived again until they change. Keeps the last
        ``_MEMO_SIZE`` keys."""
        found = self._memo.get(key)
        if found is None:
            found = build()
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            self._memo[key] = found
        return found

    def ids_by_uuid(self):
        """{uuid: id} of every provider."""
        found = self._by_uuid
        if found is None:
            found = self._by_uuid = {
                provider.uuid: provider.id
                for tree in self.trees.values() for provider in tree}
        return found

    def by_id(self):
        """{rp id: Provider} of every provider."""
        found = self._providers
        if found is None:
            found = self._providers = {
                provider.id: provider
                for tree in self.trees.values() for provider in tree}
        return found

    def provider(self, rp_id):
        """The Provider ``rp_id`` (KeyError if there is none)."""
        return self.by_id()[rp_id]

    def shown(self, rp_id):
        """(uuid, trait names, parent uuid, root uuid) of the provider
        ``rp_id``, as provider summaries show them: the traits in trait
        id order, the order Placement lists them in (by name when an id
        is missing). Worked out once per copy of the trees, not once per
        request: an answer can summarise thousands of providers."""
        found = self._shown.get(rp_id)
        if found is None:
            provider = self.provider(rp_id)
            names = self.traits.get(rp_id, ())
            try:
                names = sorted(names, key=self.trait_ids.__getitem__)
            except KeyError:
                names = sorted(names)
            parent = provider.parent_id
            found = self._shown[rp_id] = (
                provider.uuid, tuple(names),
                None if parent is None else self.provider(parent).uuid,
                self.provider(provider.root_id).uuid)
        return found

    def providers(self, roots):
        """{rp id: Provider} of the trees ``roots``."""
        trees = self.trees
        return {provider.id: provider
                for root in roots for provider in trees.get(root, ())}

    def in_aggregates(self, uuids):
        """The ids of the providers in one of the aggregates ``uuids`` or
        whose root is."""
        members = self.members
        direct = set()
        for uuid in uuids:
            direct |= members.get(uuid, frozenset())
        found = set(direct)
        trees = self.trees
        for rp_id in direct:
            for provider in trees.get(rp_id, ()):
                found.add(provider.id)
        return found


def _of_trees(column, incremental):
    """``column`` (a provider id) belongs to a tree changed after
    ``:since`` (``incremental``), or any tree."""
    if not incremental:
        return sa.true()
    member = _RP.alias('member')
    return column.in_(
        sa.select(member.c.id).where(member.c.root_provider_id.in_(
            sa.select(_CHANGES.c.root_provider_id)
            .where(_CHANGES.c.version > sa.bindparam('since')))))


@functools.lru_cache(maxsize=8)
def _refresh_statement(dialect, incremental):
    """One round trip (``unions.tagged``), of the trees changed since
    ``:since`` (incremental) or of every tree:

    kind 0: the stamp: version, epoch, floor.
    kind 1: the roots changed since ``:since`` (incremental only).
    kind 2: the providers: id, uuid, parent id, root id.
    kind 3: their traits: provider id, name, trait id.
    kind 4: their aggregates: provider id, aggregate uuid.
    kind 5: their inventories: provider id, NULL, class id, total,
      reserved, allocation_ratio, min_unit, max_unit, step_size.
    """
    holes = unions.holes
    parts = {
        0: sa.select(_TOPO.c.version, _TOPO.c.epoch, _TOPO.c.floor)
        .where(_TOPO.c.id == 1),
        2: sa.select(_RP.c.id, _RP.c.uuid, _RP.c.parent_provider_id,
                     _RP.c.root_provider_id)
        .where(_of_trees(_RP.c.id, incremental)),
        3: sa.select(_RPT.c.resource_provider_id, _TRAIT.c.name,
                     _RPT.c.trait_id)
        .select_from(_RPT.join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id))
        .where(_of_trees(_RPT.c.resource_provider_id, incremental)),
        4: sa.select(_RPA.c.resource_provider_id, _AGG.c.uuid)
        .select_from(_RPA.join(_AGG, _AGG.c.id == _RPA.c.aggregate_id))
        .where(_of_trees(_RPA.c.resource_provider_id, incremental)),
        5: sa.select(_INV.c.resource_provider_id, *holes(1),
                     _INV.c.resource_class_id, _INV.c.total,
                     _INV.c.reserved, _INV.c.allocation_ratio,
                     _INV.c.min_unit, _INV.c.max_unit, _INV.c.step_size)
        .where(_of_trees(_INV.c.resource_provider_id, incremental)),
    }
    if incremental:
        parts[1] = (sa.select(_CHANGES.c.root_provider_id)
                    .where(_CHANGES.c.version > sa.bindparam('since'))
                    .distinct())
    return unions.tagged(dialect, parts)


def _read(connection, base, ratio=float):
    """The Topology of the database ``connection`` reads, from ``base``
    (a Topology of the same epoch, None to read everything);
    ``ratio`` converts an allocation_ratio as the database gives it."""
    incremental = base is not None
    params = {'since': base.version} if incremental else {}
    rows = connection.execute(
        _refresh_statement(connection.dialect.name, incremental),
        params).all()
    stamp = next((row for row in rows if row[0] == 0), None)
    if stamp is None:
        epoch, version, floor = None, 0, 0
    else:
        version, epoch, floor = stamp[1], stamp[2], stamp[3]
    if incremental and (epoch != base.epoch or base.version < floor):
        return _read(connection, None, ratio)
    if incremental:
        trees = dict(base.trees)
        traits = dict(base.traits)
        # A name keeps its id until the trait is deleted, which no
        # provider may have then: a name re-created later comes back
        # with the providers that have it, which are read again.
        trait_ids = dict(base.trait_ids)
        aggregates = dict(base.aggregates)
        inventories = dict(base.inventories)
        left = set()
        for row in rows:
            if row[0] == 1:
                for provider in trees.pop(row[1], ()):
                    traits.pop(provider.id, None)
                    aggregates.pop(provider.id, None)
                    left.add(provider.id)
        for rc_id, stocks in inventories.items():
            if not left.isdisjoint(stocks):
                inventories[rc_id] = {rp_id: stock
                                      for rp_id, stock in stocks.items()
                                      if rp_id not in left}
    else:
        trees, traits, aggregates, inventories = {}, {}, {}, {}
        trait_ids = {}
    grown, copied = {}, set()
    for row in rows:
        kind = row[0]
        if kind == 2:
            grown.setdefault(row[4], []).append(
                Provider(row[1], row[2], row[3], row[4]))
        elif kind == 3:
            traits.setdefault(row[1], set()).add(row[2])
            trait_ids[row[2]] = row[3]
        elif kind == 4:
            aggregates.setdefault(row[1], set()).add(row[2])
        elif kind == 5:
            (_kind, rp_id, _hole, rc_id, total, reserved, allocation_ratio,
             min_unit, max_unit, step_size) = row
            stocks = inventories.get(rc_id)
            if stocks is None:
                stocks = inventories[rc_id] = {}
                copied.add(rc_id)
            elif rc_id not in copied:
                stocks = inventories[rc_id] = dict(stocks)
                copied.add(rc_id)
            stocks[rp_id] = Stock((total - reserved) * ratio(allocation_ratio),
                                  min_unit, max_unit, step_size)
    for root, providers in grown.items():
        trees[root] = tuple(sorted(providers, key=lambda p: p.id))
    for found in (traits, aggregates):
        for rp_id, value in found.items():
            if isinstance(value, set):
                found[rp_id] = frozenset(value)
    return Topology(epoch, version, trees, traits, aggregates, inventories,
                    trait_ids)


_copies = {}
_lock = threading.Lock()
# Databases whose copies a process keeps (tests use several).
_MAX_COPIES = 4


def current(context, stamp, ratio=float):
    """The Topology of the database of the caller's transaction, at
    least as new as ``stamp`` (epoch, version, floor) when that was read
    in the same transaction. Without a stamp (no topology row), the
    trees are read for this caller alone. ``ratio`` converts an
    allocation_ratio as the database gives it (the same function for
    one database)."""
    epoch, version = stamp[0], stamp[1]
    connection = context.session.connection()
    if epoch is None:
        return _read(connection, None, ratio)
    copy = _copies.get(epoch)
    if copy is not None and copy.version >= version:
        return copy
    with _lock:
        copy = _copies.get(epoch)
        if copy is not None and copy.version >= version:
            return copy
        fresh = _read(connection, copy, ratio)
        if fresh.epoch is not None:
            _copies.pop(fresh.epoch, None)
            while len(_copies) >= _MAX_COPIES:
                _copies.pop(next(iter(_copies)))
            _copies[fresh.epoch] = fresh
        if copy is None:
            LOG.debug('Read the provider trees at version %s', version)
        return fresh
