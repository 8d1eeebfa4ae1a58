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

The statements, built once per shape and dialect and reused with bound
parameters, are in ``statements``; they are run on the session's Core
connection and their rows fetched at once, as plain tuples.
"""

from allocsvc.placement import inventories
from allocsvc.placement import names
from allocsvc.placement import reservations
from allocsvc.placement import topology
from allocsvc.placement.candidates import statements

# The trait of providers that share their inventory with the trees of
# their aggregates (``Snapshot.anchors``; the statements look for it).
SHARING_TRAIT = statements.SHARING_TRAIT


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
    ``usage`` {(rp id, rc id): used} of the requested classes (``load``
    only: the explanation reads it);
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
        self.usage = {}
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


def _name_params(class_names, trait_names, in_trees):
    """The first statement's parameters. Only plausible names are sent
    to the database (the others cannot exist)."""
    return {'classes': names.plausible(class_names),
            'traits': names.plausible(trait_names),
            'in_trees': sorted(in_trees)}


def load_names(context, class_names, trait_names, in_trees=()):
    """The Names of a request naming the classes ``class_names``, the
    traits ``trait_names`` and the in_tree providers ``in_trees``
    (uuids), with the version of the trees, in one query: ``load``'s
    first statement without the usage (for a caller that reads the
    usage of the few providers it looks at, ``sampling``)."""
    return _read_names(_rows(
        context, statements.capacity, False,
        **_name_params(class_names, trait_names, in_trees)))


def load_usage(context, class_names, trait_names, in_trees=()):
    """A Snapshot of what the explanation's steps read
    (``steps.Fleet``): the names of the request (``class_names``,
    ``trait_names``, the in_tree providers ``in_trees``), the usage of
    its classes (``usage``) and the copy of the trees; no inventory is
    read into it. One statement, whatever the number of providers."""
    snap = Snapshot()
    rows = _rows(context, statements.capacity,
                 **_name_params(class_names, trait_names, in_trees))
    snap.names = _read_names(rows)
    snap.usage = reservations.hold_back(
        {(row[1], row[2]): row[3] for row in rows if row[0] == 1},
        reservations.held_back(context, snap.names.classes.values()))
    snap.topology = topology.current(
        context, snap.names.stamp, inventories.stored_ratio(context))
    return snap


def load(context, min_amounts, trait_names, in_trees=(), any_sharing=False,
         member_aggs=None, most_of=None):
    """A Snapshot for a request asking at least the amounts
    ``min_amounts`` {class name: amount}, naming the traits
    ``trait_names`` and the in_tree providers ``in_trees`` (uuids), in
    one query; ``load_trees`` completes it once the caller has checked
    ``snap.names``. ``any_sharing``: serve resourceless groups, which any
    sharing provider may satisfy; ``member_aggs``: when every group with
    resources requires aggregates, the union of those, which a useful
    provider or its root must be in. ``most_of`` {class name: the most
    a candidate may take of it from one inventory}: what active
    reservations hold back is read exactly only where counting all they
    hold as used could change whether that fits
    (``reservations.Unsettled``), and the summaries show what is
    allocated; without it (group claims, which fit several consumers
    against the summaries), it is read exactly everywhere and the
    summaries show it as used. Runs in the caller's reader
    transaction."""
    snap = Snapshot()
    rows = _rows(context, statements.capacity,
                 **_name_params(min_amounts, trait_names, in_trees))
    snap.names = _read_names(rows)
    least_of = {rc_id: min_amounts[name]
                for name, rc_id in snap.names.classes.items()}
    snap.requested = frozenset(least_of)
    snap.member_aggs = member_aggs
    snap.topology = topology.current(
        context, snap.names.stamp, inventories.stored_ratio(context))
    allocated = {(row[1], row[2]): row[3] for row in rows if row[0] == 1}
    usage = snap.usage = _hold_back(context, snap, allocated, most_of)
    classes_of, shared_classes = _read_inventories(
        snap, usage, least_of,
        in_member_aggs(snap.topology, member_aggs),
        allocated=None if most_of is None else allocated)
    sharing = {}
    if snap.inventory and (any_sharing or shared_classes):
        # The anchors of sharing providers, read only when one can
        # matter: most requests have none among their inventories.
        sharing = _sharing(context, any_sharing, shared_classes)
        snap.sharing_anchors = {sharing_id: anchors for sharing_id, (
            _root, anchors) in sharing.items()}
    # Only the trees that can offer every requested class are read: a
    # tree missing one (a flat provider when an FPGA is asked for, a
    # full one) can give no candidate.
    snap.roots = sorted(_trees_to_load(
        classes_of, shared_classes, sharing, set(least_of)))
    return snap


def _hold_back(context, snap, allocated, most_of, rp_ids=None):
    """``allocated`` {(rp id, rc id): used} of the requested classes
    (of the providers ``rp_ids``, None: all) with what active
    reservations hold back there added, as ``load`` says for
    ``most_of`` (a new dict; ``allocated`` when they hold nothing
    back)."""
    held = reservations.held_back(context, snap.requested, rp_ids=rp_ids,
                                  exact=most_of is None)
    if not held:
        return allocated
    if isinstance(held, reservations.Unsettled):
        _settle_doubtful(context, snap, allocated, held, {
            rc_id: most_of[name]
            for name, rc_id in snap.names.classes.items()})
    return reservations.hold_back(dict(allocated), held)


def _settle_doubtful(context, snap, allocated, held, most_of):
    """Make exact, in ``held`` (an ``Unsettled``), what reservations
    hold back on the inventories where the bound could turn a fit into
    none: those left with less room than ``most_of`` {rc id: the most a
    candidate takes from one inventory} under it. Elsewhere every
    amount the search may try fits under the bound, so under the exact
    amount too: its answer is the one exact amounts give."""
    stocks = snap.topology.inventories
    doubtful = []
    for pair, bound in held.items():
        rp_id, rc_id = pair
        stock = stocks.get(rc_id, {}).get(rp_id)
        if stock is None:
            continue
        if stock.capacity - allocated.get(pair, 0) - bound < \
                most_of[rc_id]:
            doubtful.append(pair)
    held.settle(context, doubtful)


def in_member_aggs(topo, member_aggs):
    """The ids of the providers worth reading under the aggregate filter
    ``member_aggs`` (see ``load``), None without one."""
    return topo.in_aggregates(member_aggs) if member_aggs else None


def _read_inventories(snap, usage, least_of, eligible, among=None,
                      allocated=None):
    """Fill ``snap.read`` and ``snap.inventory`` from the copy of the
    trees ``snap.topology``: every inventory of the requested classes
    (of the providers ``eligible``, ``in_member_aggs`` of the aggregate
    filter; of the providers ``among`` alone when given) into the first,
    those with room for ``least_of`` {rc id: smallest amount asked} into
    the second. ``usage`` {(rp id, rc id): used}, what the search counts
    as used; ``allocated``, the same of what is allocated, which the
    summaries show (when it differs: reservations hold the rest).
    Returns {root id: set of class ids} the providers of each tree have
    room in, and {sharing rp id: set of class ids} the same of the
    sharing providers."""
    topo = snap.topology
    sharing_ids = snap.names.sharing
    inventory, read = snap.inventory, snap.read
    classes_of, shared_classes = {}, {}
    by_id = topo.by_id()
    if among is not None and eligible is not None:
        among = [rp_id for rp_id in among if rp_id in eligible]
    for rc_id, least in least_of.items():
        stocks = topo.inventories.get(rc_id, {})
        if among is not None:
            found = [(rp_id, stocks[rp_id]) for rp_id in among
                     if rp_id in stocks]
        elif eligible is None:
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
            shown = used if allocated is None else \
                allocated.get((rp_id, rc_id), 0)
            entries = read.get(rp_id)
            if entries is None:
                read[rp_id] = [(rc_id, capacity, shown)]
            else:
                entries.append((rc_id, capacity, shown))
            # Without room for the smallest amount asked of its class,
            # an inventory can serve no group.
            if stock.max_unit < least or used + least > capacity:
                continue
            inventory[(rp_id, rc_id)] = Inventory(
                capacity, used, stock.min_unit, stock.max_unit,
                stock.step_size)
            root_id = by_id[rp_id].root_id
            root_classes = classes_of.get(root_id)
            if root_classes is None:
                classes_of[root_id] = {rc_id}
            else:
                root_classes.add(rc_id)
            if rp_id in sharing_ids:
                shared_classes.setdefault(rp_id, set()).add(rc_id)
    return classes_of, shared_classes


def _sharing(context, any_sharing, shared_classes):
    """{sharing rp id: (its root id, set of root ids it serves)} of
    every sharing provider (``any_sharing``), or of those of
    ``shared_classes``."""
    if any_sharing:
        rows = _rows(context, statements.sharing_anchors, True)
    else:
        rows = _rows(context, statements.sharing_anchors, False,
                     sharing_ids=sorted(shared_classes))
    sharing = {}
    for sharing_id, own_root, anchor_id in rows:
        sharing.setdefault(sharing_id, (own_root, set()))[1].add(anchor_id)
    return sharing


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


def load_part(context, names, topo, least_of, found, anchors,
              member_aggs=None, any_sharing=False, most_of=None):
    """A Snapshot as ``load`` and ``load_trees`` make it, of the trees of
    ``anchors`` (a part of ``found.anchors``, ``found`` the request's
    ``prefix.Outline``) and of the sharing providers serving them, reading the
    usage of these providers alone. ``names`` as ``load_names`` read
    them; ``least_of`` {rc id: smallest amount asked}; ``member_aggs``,
    ``any_sharing`` and ``most_of`` as for ``load``."""
    snap = Snapshot()
    snap.names, snap.topology = names, topo
    snap.requested = frozenset(least_of)
    snap.member_aggs = member_aggs
    wanted = set(anchors)
    sharing = {}
    for sharing_id, (own_root, served) in found.sharing.items():
        if not served.isdisjoint(wanted):
            sharing[sharing_id] = (own_root, served & wanted)
    among = topo.providers(
        wanted.union(root for root, _served in sharing.values()))
    rp_ids = sorted(rp_id for rp_id in among
                    if not snap.requested.isdisjoint(
                        topo.classes.get(rp_id, ())))
    allocated = statements.usage(
        context.session.connection(), rp_ids, sorted(snap.requested))[1]
    usage = _hold_back(context, snap, allocated, most_of, rp_ids)
    classes_of, shared_classes = _read_inventories(
        snap, usage, least_of, found.eligible, among=rp_ids,
        allocated=None if most_of is None else allocated)
    if not snap.inventory:
        sharing = {}
    elif not any_sharing:
        sharing = {sharing_id: entry for sharing_id, entry in
                   sharing.items() if sharing_id in shared_classes}
    snap.sharing_anchors = {sharing_id: set(served) for sharing_id, (
        _root, served) in sharing.items()}
    snap.roots = sorted(_trees_to_load(
        classes_of, shared_classes, sharing, set(least_of)))
    load_trees(context, snap)
    return snap


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


def summary_inventories(context, root_ids, rc_ids=None):
    """{rp id: [(class name, capacity, used)]} for every provider of the
    trees ``root_ids``: of the classes ``rc_ids`` when given, else of
    every class."""
    root_ids = sorted(root_ids)
    if not root_ids:
        return {}
    params = {}
    if rc_ids is not None:
        params['rc_ids'] = sorted(rc_ids)
    ratio = _ratio(context)
    found = {}
    for chunk in _chunks(root_ids):
        rows = _rows(context, statements.summary, rc_ids is not None,
                     roots=chunk, **params)
        used_by = {(row[1], row[2]): row[4] for row in rows if row[0] == 1}
        for kind, rp_id, rc_id, name, total, reserved, allocation_ratio in (
                rows):
            if not kind:
                _add_summary_row(found, ratio, used_by, rp_id, rc_id, name,
                                 total, reserved, allocation_ratio)
    return found
