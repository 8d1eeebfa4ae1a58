"""Load what the candidate search needs, in a few set-based queries.

One ``Snapshot`` holds, for the providers that can matter to a request:
the inventories of the requested classes with their usage (only the
providers with room for the smallest requested amount of some class, and,
when every group with resources names aggregates, only those in -- or
whose root is in -- one of them), the providers, traits and aggregate
memberships of the trees that can offer every requested class (their
own or shared with them), and which roots each sharing provider can
serve. A request usually takes one round trip: ``load`` reads the names
of the request, the usage of its classes and the version of the trees,
and takes the inventories from the process' copy of the trees
(``topology``), which reads them again only where they changed;
``load_trees`` takes the trees worth reading from the same copy. The
number of queries does not depend on the number of providers.

The statements are built once per shape and dialect and reused with
bound parameters (lists are arrays on PostgreSQL, "expanding" IN lists
elsewhere): SQLAlchemy then compiles each once and keeps it in its
compiled cache, where building and compiling them on every request cost
as much as running them. They are run on the session's Core connection
and their rows fetched at once, as plain tuples.
"""

import functools

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from allocsvc.db import models
from allocsvc.db import unions
from allocsvc.placement import inventories
from allocsvc.placement import names
from allocsvc.placement import topology

_RP = models.resource_providers
_INV = models.inventories
_ALLOC = models.allocations
_RPT = models.resource_provider_traits
_TRAIT = models.traits
_RPA = models.resource_provider_aggregates
_AGG = models.placement_aggregates
_RC = models.resource_classes
_TOPO = models.placement_topology

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'


class Inventory:
    """Room left in one (provider, class) inventory."""

    __slots__ = ('capacity', 'used', 'min_unit', 'max_unit', 'step_size')

    def __init__(self, capacity, used, min_unit, max_unit, step_size):
        self.capacity = capacity
        self.used = used
        self.min_unit = min_unit
        self.max_unit = max_unit
        self.step_size = step_size

    def fits(self, amount):
        """Whether one group's ``amount`` is a valid allocation alone."""
        return (self.min_unit <= amount <= self.max_unit and
                amount % self.step_size == 0 and
                self.used + amount <= self.capacity)

    def room(self):
        """The most all groups together may take (max_unit caps the sum
        of one consumer's allocations of the class)."""
        return max(0, min(int(self.capacity - self.used), self.max_unit))


Provider = topology.Provider


class Snapshot:
    """What the search reads. ``inventory`` {(rp id, rc id): Inventory};
    ``providers`` {id: Provider} of the trees read; ``traits`` {rp id:
    set of names} and ``aggregates`` {rp id: set of aggregate uuids} of
    those and maybe other providers;
    ``sharing_anchors`` {sharing rp id: set of root ids it serves}.

    What the first statement found: ``names`` (Names); the copy of the
    trees it used, ``topology``; ``roots``, the sorted ids of the roots
    of the trees worth reading.

    For the summaries: ``read`` {rp id: [(rc id, capacity, used)]}, every
    inventory of the ``requested`` classes (ids) read, room or not;
    ``member_aggs`` the aggregate filter they were read with (None);
    ``others`` {rp id: [(class name, capacity, used)]} the inventories of
    the other classes of every provider read, when known without reading
    them (none), else None."""

    def __init__(self):
        self.names = None
        self.topology = None
        self.roots = []
        self.others = None
        self.inventory = {}
        self.providers = {}
        self.traits = {}
        self.aggregates = {}
        self.sharing_anchors = {}
        self.read = {}
        self.requested = frozenset()
        self.member_aggs = None
        self._anchors = {}

    def fully_read(self, rp_id):
        """Whether every inventory of the requested classes of provider
        ``rp_id`` was read (the aggregate filter may have left out those
        of providers outside the aggregates)."""
        if not self.member_aggs:
            return True
        aggregates = self.aggregates
        if not aggregates.get(rp_id, frozenset()).isdisjoint(
                self.member_aggs):
            return True
        root = self.providers[rp_id].root_id
        return not aggregates.get(root, frozenset()).isdisjoint(
            self.member_aggs)

    def anchors(self, rp_id):
        """The roots whose requests ``rp_id`` may serve: its own, and
        those it shares with when it is a sharing provider (a tuple,
        worked out once per provider)."""
        found = self._anchors.get(rp_id)
        if found is None:
            root = self.providers[rp_id].root_id
            found = (root,)
            if SHARING_TRAIT in self.traits.get(rp_id, ()):
                found += tuple(sorted(
                    self.sharing_anchors.get(rp_id, set()) - {root}))
            self._anchors[rp_id] = found
        return found


# -- statements, built once per shape ----------------------------------

def _in(dialect, column, name):
    """``column IN (:name)``, the list bound as parameter ``name``.

    PostgreSQL receives the list as one array (``column = ANY(:name)``):
    the statement's text then never changes, where an "expanding" IN is
    rendered again at every execution with one placeholder per value (a
    visible share of a request's time with a hundred roots). The other
    drivers have no array parameter."""
    if dialect == 'postgresql':
        return column == sa.any_(
            sa.bindparam(name, type_=postgresql.ARRAY(column.type)))
    return column.in_(sa.bindparam(name, expanding=True))


def _not_in(dialect, column, name):
    """``column NOT IN (:name)``, bound as ``_in`` binds it."""
    if dialect == 'postgresql':
        return column != sa.all_(
            sa.bindparam(name, type_=postgresql.ARRAY(column.type)))
    return column.not_in(sa.bindparam(name, expanding=True))


@functools.lru_cache(maxsize=8)
def _capacity_statement(dialect, usage=True):
    """Everything a request needs from the database before the search,
    in one round trip (the inventories themselves come from the
    process' copy of the trees, ``topology``):

    kind 1 (unless not ``usage``): what is allocated of the classes
      named ``:classes``, per provider.
    kind 2, 3: the ids of the classes ``:classes`` and the traits among
      ``:traits`` that exist (the name last).
    kind 4: every sharing provider.
    kind 5: the roots of the providers ``:in_trees`` (the uuid last).
    kind 6: the version of the trees: version, floor, epoch last.

    SELECT 1, resource_provider_id, resource_class_id, SUM(used), NULL...
    FROM allocations WHERE resource_class_id IN (
        SELECT id FROM resource_classes WHERE name IN (:classes))
    GROUP BY resource_provider_id, resource_class_id
    UNION ALL
    SELECT 2, id, NULL..., name FROM resource_classes
    WHERE name IN (:classes)
    UNION ALL
    SELECT 3, id, NULL..., name FROM traits WHERE name IN (:traits)
    UNION ALL
    SELECT 4, rpt.resource_provider_id, NULL...
    FROM resource_provider_traits AS rpt
    JOIN traits AS t ON t.id = rpt.trait_id
    WHERE t.name = 'MISC_SHARES_VIA_AGGREGATE'
    UNION ALL
    SELECT 5, root_provider_id, NULL..., uuid FROM resource_providers
    WHERE uuid IN (:in_trees)
    UNION ALL
    SELECT 6, version, floor, NULL..., epoch FROM placement_topology
    WHERE id = 1
    """
    holes = unions.holes
    classes = sa.select(_RC.c.id).where(_in(dialect, _RC.c.name, 'classes'))
    used = (sa.select(_ALLOC.c.resource_provider_id,
                      _ALLOC.c.resource_class_id, _sum_used())
            .where(_ALLOC.c.resource_class_id.in_(classes))
            .group_by(_ALLOC.c.resource_provider_id,
                      _ALLOC.c.resource_class_id))
    class_ids = (sa.select(_RC.c.id, *holes(3), _RC.c.name)
                 .where(_in(dialect, _RC.c.name, 'classes')))
    trait_ids = (sa.select(_TRAIT.c.id, *holes(3), _TRAIT.c.name)
                 .where(_in(dialect, _TRAIT.c.name, 'traits')))
    sharing = (sa.select(_RPT.c.resource_provider_id)
               .select_from(_RPT.join(_TRAIT,
                                      _TRAIT.c.id == _RPT.c.trait_id))
               .where(_TRAIT.c.name == SHARING_TRAIT))
    tree_roots = (sa.select(_RP.c.root_provider_id, *holes(3), _RP.c.uuid)
                  .where(_in(dialect, _RP.c.uuid, 'in_trees')))
    stamp = (sa.select(_TOPO.c.version, _TOPO.c.floor, *holes(2),
                       _TOPO.c.epoch)
             .where(_TOPO.c.id == 1))
    parts = {2: class_ids, 3: trait_ids, 4: sharing, 5: tree_roots,
             6: stamp}
    if usage:
        parts[1] = used
    return unions.tagged(dialect, parts)


def _sum_used():
    # An integer on every backend (MySQL's SUM() gives a DECIMAL, which
    # would also turn the union's column into one).
    return sa.cast(sa.func.sum(_ALLOC.c.used), sa.BigInteger)


@functools.lru_cache(maxsize=8)
def _anchor_statement(dialect, every_sharing):
    """(sharing provider, its root, root it serves) triples: the roots of
    every provider in an aggregate of the sharing provider (itself
    included), for every sharing provider or only ``:sharing_ids``.

    SELECT DISTINCT spt.resource_provider_id AS sharing_id,
                    srp.root_provider_id AS sharing_root_id,
                    other.root_provider_id AS anchor_id
    FROM resource_provider_traits AS spt
    JOIN traits AS t ON t.id = spt.trait_id
    JOIN resource_providers AS srp ON srp.id = spt.resource_provider_id
    JOIN resource_provider_aggregates AS shr
      ON shr.resource_provider_id = spt.resource_provider_id
    JOIN resource_provider_aggregates AS oth
      ON oth.aggregate_id = shr.aggregate_id
    JOIN resource_providers AS other ON other.id = oth.resource_provider_id
    WHERE t.name = 'MISC_SHARES_VIA_AGGREGATE'
     [AND spt.resource_provider_id IN (:sharing_ids)]
    """
    srp = _RP.alias('srp')
    shr = _RPA.alias('shr')
    oth = _RPA.alias('oth')
    other = _RP.alias('other')
    query = (
        sa.select(_RPT.c.resource_provider_id.label('sharing_id'),
                  srp.c.root_provider_id.label('sharing_root_id'),
                  other.c.root_provider_id.label('anchor_id'))
        .select_from(
            _RPT.join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id)
            .join(srp, srp.c.id == _RPT.c.resource_provider_id)
            .join(shr, shr.c.resource_provider_id ==
                  _RPT.c.resource_provider_id)
            .join(oth, oth.c.aggregate_id == shr.c.aggregate_id)
            .join(other, other.c.id == oth.c.resource_provider_id))
        .where(_TRAIT.c.name == SHARING_TRAIT)
        .distinct())
    if not every_sharing:
        query = query.where(
            _in(dialect, _RPT.c.resource_provider_id, 'sharing_ids'))
    return query


@functools.lru_cache(maxsize=16)
def _summary_statement(dialect, classes):
    """Every inventory of the providers of the trees ``:roots`` (kind 0),
    and what is allocated from them (kind 1): of every class
    (``classes`` None), only of the classes ``:rc_ids`` ('in'), or of all
    but those ('not in').

    SELECT 0, inv.resource_provider_id, inv.resource_class_id, rc.name,
           inv.total, inv.reserved, inv.allocation_ratio
    FROM inventories AS inv
    JOIN resource_classes AS rc ON rc.id = inv.resource_class_id
    JOIN resource_providers AS rp ON rp.id = inv.resource_provider_id
    WHERE rp.root_provider_id IN (:roots)
     [AND inv.resource_class_id [NOT] IN (:rc_ids)]
    UNION ALL
    SELECT 1, a.resource_provider_id, a.resource_class_id, NULL,
           SUM(a.used), NULL, NULL
    FROM allocations AS a
    JOIN resource_providers AS rp ON rp.id = a.resource_provider_id
    WHERE rp.root_provider_id IN (:roots)
     [AND a.resource_class_id [NOT] IN (:rc_ids)]
    GROUP BY a.resource_provider_id, a.resource_class_id
    """
    inventory = (
        sa.select(_INV.c.resource_provider_id, _INV.c.resource_class_id,
                  _RC.c.name, _INV.c.total, _INV.c.reserved,
                  _INV.c.allocation_ratio)
        .select_from(
            _INV.join(_RC, _RC.c.id == _INV.c.resource_class_id)
            .join(_RP, _RP.c.id == _INV.c.resource_provider_id))
        .where(_in(dialect, _RP.c.root_provider_id, 'roots')))
    usage = (
        sa.select(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id,
                  sa.null().label('name'), _sum_used())
        .select_from(_ALLOC.join(
            _RP, _RP.c.id == _ALLOC.c.resource_provider_id))
        .where(_in(dialect, _RP.c.root_provider_id, 'roots'))
        .group_by(_ALLOC.c.resource_provider_id,
                  _ALLOC.c.resource_class_id))
    if classes == 'in':
        inventory = inventory.where(
            _in(dialect, _INV.c.resource_class_id, 'rc_ids'))
        usage = usage.where(
            _in(dialect, _ALLOC.c.resource_class_id, 'rc_ids'))
    elif classes == 'not in':
        inventory = inventory.where(
            _not_in(dialect, _INV.c.resource_class_id, 'rc_ids'))
        usage = usage.where(
            _not_in(dialect, _ALLOC.c.resource_class_id, 'rc_ids'))
    return unions.tagged(dialect, {0: inventory, 1: usage})


# -- loading ------------------------------------------------------------

class Names:
    """What the first statement found: ``classes`` {name: id} of the
    classes that exist, ``traits`` the trait names that exist,
    ``sharing`` the ids of every sharing provider, ``roots`` {provider
    uuid: root id} of the in_tree providers that exist, ``stamp`` (epoch,
    version, floor) of the trees (``topology``), (None, 0, 0) when the
    database has no version row."""

    __slots__ = ('classes', 'traits', 'sharing', 'roots', 'stamp')

    def __init__(self):
        self.classes = {}
        self.traits = set()
        self.sharing = set()
        self.roots = {}
        self.stamp = (None, 0, 0)


def _rows(context, build, *shape, **params):
    """All the rows, as tuples, of the statement ``build(dialect,
    *shape)`` on the session's Core connection (the ORM layer adds
    nothing for these)."""
    connection = context.session.connection()
    statement = build(connection.dialect.name, *shape)
    return connection.execute(statement, params).all()


def _ratio(context):
    """``inventories.stored_ratio`` remembered per value: a request
    reads few distinct ratios, and MySQL's conversion is not cheap (the
    other databases give the value back as it was written)."""
    convert = inventories.stored_ratio(context)
    if convert is float:
        return float
    seen = {}

    def ratio(value):
        found = seen.get(value)
        if found is None:
            found = seen[value] = convert(value)
        return found
    return ratio


def _trees_to_load(classes_of, shared_classes, sharing, needed):
    """The roots of the trees worth reading: those that can offer every
    class of ``needed`` from their own tree or from sharing providers,
    and those of the sharing providers serving them. ``classes_of``
    {root: set of class ids} of their own providers; ``shared_classes``
    {sharing rp id: set of class ids}; ``sharing`` {sharing rp id:
    (its root, set of roots it serves)}."""
    offered = {root: set(classes) for root, classes in classes_of.items()}
    for sharing_id, (_root, anchors) in sharing.items():
        shared = shared_classes.get(sharing_id, ())
        for anchor in anchors:
            offered.setdefault(anchor, set()).update(shared)
    viable = {root for root, classes in offered.items() if needed <= classes}
    roots = set(viable)
    for own_root, anchors in sharing.values():
        if not anchors.isdisjoint(viable):
            roots.add(own_root)
    return roots


def _read_names(rows):
    """The Names of the first statement's ``rows`` (kinds 2 to 5)."""
    found = Names()
    for row in rows:
        kind = row[0]
        if kind == 2:
            found.classes[row[-1]] = row[1]
        elif kind == 3:
            found.traits.add(row[-1])
        elif kind == 4:
            found.sharing.add(row[1])
        elif kind == 5:
            found.roots[row[-1]] = row[1]
        elif kind == 6:
            found.stamp = (row[-1], row[1], row[2])
    return found


def load_names(context, class_names, trait_names, in_trees=()):
    """The Names of a request naming the classes ``class_names``, the
    traits ``trait_names`` and the in_tree providers ``in_trees``
    (uuids), with the version of the trees, in one query: ``load``'s
    first statement without the usage (for a caller that reads the
    usage of the few providers it looks at, ``sampling``)."""
    return _read_names(_rows(
        context, _capacity_statement, False,
        classes=names.plausible(class_names),
        traits=names.plausible(trait_names), in_trees=sorted(in_trees)))


def load(context, min_amounts, trait_names, in_trees=(), any_sharing=False,
         member_aggs=None):
    """A Snapshot for a request asking at least the amounts
    ``min_amounts`` {class name: amount}, naming the traits
    ``trait_names`` and the in_tree providers ``in_trees`` (uuids), in
    one query; ``load_trees`` completes it once the caller has checked
    ``snap.names``. ``any_sharing``: serve resourceless groups, which any
    sharing provider may satisfy; ``member_aggs``: when every group with
    resources requires aggregates, the union of those, which a useful
    provider or its root must be in. Only plausible names are sent to
    the database (the others cannot exist). Runs in the caller's reader
    transaction."""
    snap = Snapshot()
    params = {'classes': names.plausible(min_amounts),
              'traits': names.plausible(trait_names),
              'in_trees': sorted(in_trees)}
    rows = _rows(context, _capacity_statement, **params)
    snap.names = _read_names(rows)
    least_of = {rc_id: min_amounts[name]
                for name, rc_id in snap.names.classes.items()}
    sharing_ids = snap.names.sharing
    usage = {(row[1], row[2]): row[3] for row in rows if row[0] == 1}
    topo = snap.topology = topology.current(
        context, snap.names.stamp, inventories.stored_ratio(context))
    eligible = topo.in_aggregates(member_aggs) if member_aggs else None
    inventory, read = snap.inventory, snap.read
    snap.requested = frozenset(least_of)
    snap.member_aggs = member_aggs
    classes_of, shared_classes = {}, {}
    provider = topo.provider
    for rc_id, least in least_of.items():
        stocks = topo.inventories.get(rc_id, {})
        if eligible is None:
            found = stocks.items()
        elif len(eligible) < len(stocks):
            found = [(rp_id, stocks[rp_id]) for rp_id in eligible
                     if rp_id in stocks]
        else:
            found = [(rp_id, stock) for rp_id, stock in stocks.items()
                     if rp_id in eligible]
        for rp_id, stock in found:
            capacity = stock.capacity
            used = usage.get((rp_id, rc_id), 0)
            entries = read.get(rp_id)
            if entries is None:
                read[rp_id] = [(rc_id, capacity, used)]
            else:
                entries.append((rc_id, capacity, used))
            # Without room for the smallest amount asked of its class,
            # an inventory can serve no group.
            if stock.max_unit < least or used + least > capacity:
                continue
            inventory[(rp_id, rc_id)] = Inventory(
                capacity, used, stock.min_unit, stock.max_unit,
                stock.step_size)
            root_id = provider(rp_id).root_id
            root_classes = classes_of.get(root_id)
            if root_classes is None:
                classes_of[root_id] = {rc_id}
            else:
                root_classes.add(rc_id)
            if rp_id in sharing_ids:
                shared_classes.setdefault(rp_id, set()).add(rc_id)
    sharing = {}
    if inventory and (any_sharing or shared_classes):
        # The anchors of sharing providers, read only when one can
        # matter: most requests have none among their inventories.
        if any_sharing:
            anchor_rows = _rows(context, _anchor_statement, True)
        else:
            anchor_rows = _rows(context, _anchor_statement, False,
                                sharing_ids=sorted(shared_classes))
        for sharing_id, own_root, anchor_id in anchor_rows:
            sharing.setdefault(sharing_id, (own_root, set()))[1].add(
                anchor_id)
        snap.sharing_anchors = {sharing_id: anchors for sharing_id, (
            _root, anchors) in sharing.items()}
    # Only the trees that can offer every requested class are read: a
    # tree missing one (a flat provider when an FPGA is asked for, a
    # full one) can give no candidate.
    snap.roots = sorted(_trees_to_load(
        classes_of, shared_classes, sharing, set(least_of)))
    return snap


def load_trees(context, snap):
    """Complete ``snap`` with the providers of the trees ``snap.roots``,
    their traits and aggregates, from the copy of the trees ``load``
    used. When none of
    these providers has inventory of another class than those requested,
    ``snap.others`` is set empty: the summaries need not read any."""
    topo = snap.topology
    providers = snap.providers = topo.providers(snap.roots)
    snap.traits = topo.traits
    snap.aggregates = topo.aggregates
    requested, classes = snap.requested, topo.classes
    if all(classes.get(rp_id, requested) <= requested
           for rp_id in providers):
        snap.others = {}


def _add_summary_row(found, ratio, used_by, rp_id, rc_id, name, total,
                     reserved, allocation_ratio):
    """Append (class name, capacity, used) to ``found[rp_id]``; ``used_by``
    {(rp id, rc id): used}, ``ratio`` as ``_ratio`` gives it."""
    entry = (name, int((total - reserved) * ratio(allocation_ratio)),
             used_by.get((rp_id, rc_id), 0))
    rows_of = found.get(rp_id)
    if rows_of is None:
        found[rp_id] = [entry]
    else:
        rows_of.append(entry)


# Ids per IN list: well within every backend's bound-parameter limit.
_CHUNK = 5000


def _chunks(ids):
    for start in range(0, len(ids), _CHUNK):
        yield ids[start:start + _CHUNK]


def summary_inventories(context, root_ids, rc_ids=None, but=None):
    """{rp id: [(class name, capacity, used)]} for every provider of the
    trees ``root_ids``: of the classes ``rc_ids`` when given, else of
    every class but those of ``but`` (None: every class)."""
    root_ids = sorted(root_ids)
    if not root_ids:
        return {}
    params = {}
    if rc_ids is not None:
        classes, params['rc_ids'] = 'in', sorted(rc_ids)
    elif but:
        classes, params['rc_ids'] = 'not in', sorted(but)
    else:
        classes = None
    ratio = _ratio(context)
    found = {}
    for chunk in _chunks(root_ids):
        rows = _rows(context, _summary_statement, classes, roots=chunk,
                     **params)
        used_by = {(row[1], row[2]): row[4] for row in rows if row[0] == 1}
        for kind, rp_id, rc_id, name, total, reserved, allocation_ratio in (
                rows):
            if not kind:
                _add_summary_row(found, ratio, used_by, rp_id, rc_id, name,
                                 total, reserved, allocation_ratio)
    return found
