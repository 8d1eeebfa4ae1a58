"""The shape of the provider trees, versioned, and a per-process copy.

Every allocation candidates request needs the providers of the trees
that can serve it, with their parents, roots, traits and aggregates;
reading them took a third of a request's time, for data that changes
rarely (a provider created, moved or deleted, its traits, aggregates or
set of inventory classes changed) compared with how often it is read.

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

import threading

from oslo_log import log as logging
from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from allocsvc.db import models

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
    result = session.execute(
        _TOPO.update().where(_TOPO.c.id == 1)
        .values(version=_TOPO.c.version + 1))
    if result.rowcount != 1:
        # The row is made by the migrations: only a database emptied
        # by hand lacks it. A new epoch tells every copy to reload.
        session.execute(_TOPO.insert().values(
            id=1, epoch=uuidutils.generate_uuid(), version=1, floor=0))
    version = session.execute(
        sa.select(_TOPO.c.version).where(_TOPO.c.id == 1)).scalar_one()
    if roots:
        session.execute(_CHANGES.insert(), [
            {'version': version, 'root_provider_id': root}
            for root in sorted(roots)])
    if version % _PRUNE_EVERY == 0 and version > _KEEP:
        floor = version - _KEEP
        session.execute(_CHANGES.delete().where(_CHANGES.c.version <= floor))
        session.execute(_TOPO.update().where(_TOPO.c.id == 1)
                        .values(floor=floor))


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


class Topology:
    """The providers' trees at one version of one database.

    ``trees`` {root id: (Provider, ...)}; ``traits`` {rp id: frozenset of
    trait names}; ``aggregates`` {rp id: frozenset of aggregate uuids};
    ``classes`` {rp id: frozenset of the class ids it has inventory of}.
    Providers without traits, aggregates or inventory are absent from
    those. Never changed once built."""

    __slots__ = ('epoch', 'version', 'trees', 'traits', 'aggregates',
                 'classes')

    def __init__(self, epoch, version, trees, traits, aggregates, classes):
        self.epoch = epoch
        self.version = version
        self.trees = trees
        self.traits = traits
        self.aggregates = aggregates
        self.classes = classes

    def providers(self, roots):
        """{rp id: Provider} of the trees ``roots``."""
        trees = self.trees
        return {provider.id: provider
                for root in roots for provider in trees.get(root, ())}


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


_STATEMENTS = {}


def _refresh_statement(incremental):
    """One round trip: kind 0 the stamp (version, epoch, floor); kind 1
    the roots changed since ``:since`` (incremental only); kind 2 the
    providers (id, uuid, parent, root), kind 3 their traits (id, name),
    kind 4 their aggregates (id, uuid), kind 5 their inventory classes
    (id, NULL, class id), of the trees changed since ``:since``
    (incremental) or of every tree."""
    found = _STATEMENTS.get(incremental)
    if found is not None:
        return found
    null_int = sa.cast(sa.null(), sa.Integer)
    null_text = sa.cast(sa.null(), sa.String(255))
    parts = [
        sa.select(sa.literal_column('0'),
                  sa.cast(_TOPO.c.version, sa.BigInteger),
                  sa.cast(_TOPO.c.epoch, sa.String(255)),
                  sa.cast(_TOPO.c.floor, sa.BigInteger), null_int)
        .where(_TOPO.c.id == 1),
        sa.select(sa.literal_column('2'), sa.cast(_RP.c.id, sa.BigInteger),
                  sa.cast(_RP.c.uuid, sa.String(255)),
                  sa.cast(_RP.c.parent_provider_id, sa.BigInteger),
                  _RP.c.root_provider_id)
        .where(_of_trees(_RP.c.id, incremental)),
        sa.select(sa.literal_column('3'),
                  sa.cast(_RPT.c.resource_provider_id, sa.BigInteger),
                  sa.cast(_TRAIT.c.name, sa.String(255)), null_int, null_int)
        .select_from(_RPT.join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id))
        .where(_of_trees(_RPT.c.resource_provider_id, incremental)),
        sa.select(sa.literal_column('4'),
                  sa.cast(_RPA.c.resource_provider_id, sa.BigInteger),
                  sa.cast(_AGG.c.uuid, sa.String(255)), null_int, null_int)
        .select_from(_RPA.join(_AGG, _AGG.c.id == _RPA.c.aggregate_id))
        .where(_of_trees(_RPA.c.resource_provider_id, incremental)),
        sa.select(sa.literal_column('5'),
                  sa.cast(_INV.c.resource_provider_id, sa.BigInteger),
                  null_text, sa.cast(_INV.c.resource_class_id, sa.BigInteger),
                  null_int)
        .where(_of_trees(_INV.c.resource_provider_id, incremental)),
    ]
    if incremental:
        parts.append(
            sa.select(sa.literal_column('1'),
                      sa.cast(_CHANGES.c.root_provider_id, sa.BigInteger),
                      null_text, null_int, null_int)
            .where(_CHANGES.c.version > sa.bindparam('since')).distinct())
    found = _STATEMENTS[incremental] = sa.union_all(*parts)
    return found


def _read(connection, base):
    """The Topology of the database ``connection`` reads, from ``base``
    (a Topology of the same epoch, None to read everything)."""
    incremental = base is not None
    params = {'since': base.version} if incremental else {}
    rows = connection.execute(_refresh_statement(incremental),
                              params).all()
    stamp = next((row for row in rows if row[0] == 0), None)
    if stamp is None:
        epoch, version, floor = None, 0, 0
    else:
        _kind, version, epoch, floor, _ = stamp
    if incremental and (epoch != base.epoch or base.version < floor):
        return _read(connection, None)
    if incremental:
        gone = {row[1] for row in rows if row[0] == 1}
        trees = dict(base.trees)
        traits = dict(base.traits)
        aggregates = dict(base.aggregates)
        classes = dict(base.classes)
        for root in gone:
            for provider in trees.pop(root, ()):
                traits.pop(provider.id, None)
                aggregates.pop(provider.id, None)
                classes.pop(provider.id, None)
    else:
        trees, traits, aggregates, classes = {}, {}, {}, {}
    members = {}
    for kind, a, b, c, d in rows:
        if kind == 2:
            members.setdefault(d, []).append(Provider(a, b, c, d))
        elif kind == 3:
            traits.setdefault(a, set()).add(b)
        elif kind == 4:
            aggregates.setdefault(a, set()).add(b)
        elif kind == 5:
            classes.setdefault(a, set()).add(c)
    for root, providers in members.items():
        trees[root] = tuple(sorted(providers, key=lambda p: p.id))
    for found in (traits, aggregates, classes):
        for rp_id, value in found.items():
            if isinstance(value, set):
                found[rp_id] = frozenset(value)
    return Topology(epoch, version, trees, traits, aggregates, classes)


_copies = {}
_lock = threading.Lock()
# Databases whose copies a process keeps (tests use several).
_MAX_COPIES = 4


def current(context, stamp):
    """The Topology of the database of the caller's transaction, at
    least as new as ``stamp`` (epoch, version, floor) when that was read
    in the same transaction. Without a stamp (no topology row), the
    trees are read for this caller alone."""
    epoch, version = stamp[0], stamp[1]
    connection = context.session.connection()
    if epoch is None:
        return _read(connection, None)
    copy = _copies.get(epoch)
    if copy is not None and copy.version >= version:
        return copy
    with _lock:
        copy = _copies.get(epoch)
        if copy is not None and copy.version >= version:
            return copy
        fresh = _read(connection, copy)
        if fresh.epoch is not None:
            _copies.pop(fresh.epoch, None)
            while len(_copies) >= _MAX_COPIES:
                _copies.pop(next(iter(_copies)))
            _copies[fresh.epoch] = fresh
        if copy is None:
            LOG.debug('Read the provider trees at version %s', version)
        return fresh
