"""The steps of one request group, for the explanation (``explain``).

Each filter the planner (``planning``) applies to a group, one at a
time, in the order it applies them, on the copy of the trees the
search reads and the usage of the requested classes: how many
providers, and at how many anchors (trees), the group can still be
served after each; and, at the first
step that left no tree, which providers (or trees) it dropped and why.
The unsuffixed group takes each class from a provider of the tree or
one sharing with it, so its resource steps count per class and its
required traits are a rule on trees.
"""

from allocsvc.placement.candidates import loader

# How many dropped providers (or trees) a blocking step shows.
EXAMPLES = 5
# How many indexes of one copy of the trees the explanation keeps.
_INDEXES = 256


def _words(names):
    return ', '.join(sorted(names))


class Step:
    """One filter and what it left: ``filter`` (the query parameter or
    rule), ``value`` (its value as the query gave it, or None),
    ``description`` (what a provider left after it has, in words),
    ``providers``, ``trees``."""

    __slots__ = ('filter', 'value', 'description', 'providers', 'trees')

    def __init__(self, filter, value, description, providers, trees):
        self.filter = filter
        self.value = value
        self.description = description
        self.providers = providers
        self.trees = trees

    def document(self):
        found = {'filter': self.filter, 'value': self.value,
                 'description': self.description, 'trees': self.trees}
        if self.providers is not None:
            found['providers'] = self.providers
        return found


class Blocked:
    """The first step that left nothing: its index in its list,
    ``message`` in plain words, ``dropped`` how many it dropped, and
    ``examples`` [(rp or root id, reason)] of some of them."""

    __slots__ = ('index', 'message', 'dropped', 'examples')

    def __init__(self, index, message, dropped, examples):
        self.index = index
        self.message = message
        self.dropped = dropped
        self.examples = examples


class Fleet:
    """What the steps read: the copy of the trees, the usage of the
    requested classes and the anchors of the sharing providers
    (``snap``, ``loader.load_usage``), with indexes worked out once per
    copy of the trees (``Topology.memo``) so that most steps are set
    operations."""

    def __init__(self, snap, class_names):
        topo = snap.topology
        self.snap = snap
        self.topo = topo
        # The explanation's indexes of this copy of the trees, in one
        # entry of its memo: however many an explanation adds, the
        # engine's own entries stay.
        self._cache = topo.memo(('explanation indexes',), dict)
        self.class_names = class_names
        self.by_id = topo.by_id()
        self.usage = snap.usage
        self.root_of = self.memo(('roots',), lambda: {
            rp_id: p.root_id for rp_id, p in self.by_id.items()})
        self.sharing = self.memo(('sharing',), self._sharing)
        self.sharing_ids = frozenset(self.sharing)
        self.shared_anchors = self.memo(('shared anchors',), lambda: {
            rp_id: frozenset(self.anchors(rp_id))
            for rp_id in self.sharing_ids})
        self.with_trait = self.memo(('traits',), self._trait_index)
        self.everyone = self.memo(('all',), lambda: frozenset(self.by_id))

    def memo(self, key, build):
        """``build()``, kept for this copy of the trees under ``key``."""
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) >= _INDEXES:
                self._cache.clear()
            found = self._cache[key] = build()
            if type(found) is frozenset:
                # A set kept here: ``trees_of`` may keep its roots too.
                self._cache[('kept', id(found))] = found
        return found

    def _sharing(self):
        """{rp id: set of root ids} of the sharing providers that serve
        other trees than their own: the roots of every provider in one
        of their aggregates (``statements.sharing_anchors``, from the
        copy of the trees). Only these have more than one anchor."""
        topo, root_of = self.topo, self.root_of
        found = {}
        for rp_id, names in topo.traits.items():
            if loader.SHARING_TRAIT not in names or rp_id not in root_of:
                continue
            anchors = set()
            for uuid in topo.aggregates.get(rp_id, ()):
                anchors.update(root_of[member]
                               for member in topo.members.get(uuid, ()))
            if anchors - {root_of[rp_id]}:
                found[rp_id] = anchors
        return found

    def _trait_index(self):
        found = {}
        for rp_id, names in self.topo.traits.items():
            for name in names:
                found.setdefault(name, set()).add(rp_id)
        return {name: frozenset(ids) for name, ids in found.items()}

    def having(self, names):
        """The providers with one of the traits ``names`` at least."""
        if len(names) == 1:
            return self.with_trait.get(next(iter(names)), frozenset())
        found = set()
        for name in names:
            found |= self.with_trait.get(name, frozenset())
        return found

    def members(self, uuids):
        """The providers in one of the aggregates ``uuids`` themselves."""
        found = set()
        for uuid in uuids:
            found |= self.topo.members.get(uuid, frozenset())
        return found

    def in_or_under(self, uuids):
        """The providers in one of the aggregates ``uuids`` or whose
        root is."""
        return self.memo(('in-aggs', frozenset(uuids)),
                         lambda: frozenset(self.topo.in_aggregates(uuids)))

    def in_trees(self, roots):
        """The providers of the trees ``roots``."""
        return self.memo(('trees', frozenset(roots)),
                         lambda: frozenset(self.topo.providers(roots)))

    def inventory_of(self, rc_id):
        """The providers with an inventory of ``rc_id``."""
        return self.memo(('inventory', rc_id), lambda: frozenset(
            self.topo.inventories.get(rc_id, {})))

    def trees_of(self, providers):
        """The roots of ``providers`` (none of them sharing with other
        trees), counted once for a set the fleet keeps."""
        key = ('roots of', id(providers))
        if self._cache.get(('kept', id(providers))) is providers:
            return self.memo(key, lambda: frozenset(
                map(self.root_of.__getitem__, providers)))
        return set(map(self.root_of.__getitem__, providers))

    def fitting(self, rc_id, amount):
        """The providers with an inventory of ``rc_id`` whose capacity,
        min_unit, max_unit and step_size admit ``amount``, usage aside."""
        def build():
            return frozenset(
                rp_id for rp_id, stock in self.topo.inventories.get(
                    rc_id, {}).items()
                if stock.min_unit <= amount <= stock.max_unit and
                not amount % stock.step_size and amount <= stock.capacity)
        return self.memo(('fit', rc_id, amount), build)

    def full(self, rc_id, amount):
        """The providers whose usage of ``rc_id`` leaves less than
        ``amount``."""
        stocks = self.topo.inventories.get(rc_id, {})
        found = set()
        for (rp_id, class_id), used in self.usage.items():
            if class_id == rc_id and used:
                stock = stocks.get(rp_id)
                if stock is not None and used + amount > stock.capacity:
                    found.add(rp_id)
        return found

    def anchors(self, rp_id):
        """The roots ``rp_id`` may serve: its own, and those it shares
        with when it is a sharing provider (as ``Snapshot.anchors``)."""
        root = self.root_of[rp_id]
        served = self.sharing.get(rp_id)
        if not served:
            return (root,)
        return (root,) + tuple(sorted(served - {root}))

    def uuid(self, rp_id):
        return self.by_id[rp_id].uuid

    def room(self, rp_id, rc_id, amount):
        """None when ``amount`` of ``rc_id`` fits provider ``rp_id``
        alone, else why not (``loader.Inventory.fits``'s conditions)."""
        stock = self.topo.inventories.get(rc_id, {}).get(rp_id)
        name = self.class_names[rc_id]
        if stock is None:
            return 'has no inventory of %s' % name
        if amount < stock.min_unit:
            return '%s: %d requested, below its min_unit %d' % (
                name, amount, stock.min_unit)
        if amount > stock.max_unit:
            return '%s: %d requested, above its max_unit %d' % (
                name, amount, stock.max_unit)
        if amount % stock.step_size:
            return '%s: %d requested, not a multiple of its step_size %d' % (
                name, amount, stock.step_size)
        used = self.usage.get((rp_id, rc_id), 0)
        if used + amount > stock.capacity:
            return '%s: %d requested, %d free (capacity %d, used %d)' % (
                name, amount, max(0, stock.capacity - used),
                stock.capacity, used)
        return None


class _Served:
    """Which providers may serve a group (or one class of the unsuffixed
    group), and where: ``providers`` a set of ids. A provider serves
    its root; a sharing provider (``fleet.sharing``) also the trees it
    shares with, ``shared`` {rp id: set of anchors} as rules narrowed
    them."""

    def __init__(self, fleet):
        self.fleet = fleet
        self.providers = fleet.everyone
        self.shared = dict(fleet.shared_anchors)
        # (providers, trees) of the last ``trees``: a step that changes
        # neither asks again.
        self._trees = (None, None)

    def narrow(self, rule, plain):
        """Keep the providers that may serve at one anchor at least:
        the others where their root is allowed (``plain``, the set of
        providers ``rule`` allows at their root), the sharing ones
        where ``rule(rp id, anchor)`` holds."""
        shared = self.shared
        for rp_id, anchors in list(shared.items()):
            if rp_id not in self.providers:
                del shared[rp_id]
                continue
            anchors = {a for a in anchors if rule(rp_id, a)}
            if anchors:
                shared[rp_id] = anchors
            else:
                del shared[rp_id]
        self.providers = (self.providers & plain) | (
            self.providers & shared.keys())

    def trees(self):
        if self._trees[0] is self.providers:
            return self._trees[1]
        found = self._count_trees()
        self._trees = (self.providers, found)
        return found

    def _count_trees(self):
        shared, providers = self.shared, self.providers
        if shared and not shared.keys() <= providers:
            # Sharing providers a step dropped serve nowhere.
            shared = self.shared = {rp_id: anchors for rp_id, anchors in
                                    shared.items() if rp_id in providers}
        if not shared:
            return self.fleet.trees_of(providers)
        return self.trees_of(providers)

    def trees_of(self, providers):
        """The anchors the providers ``providers`` (some of
        ``self.providers``) serve."""
        root_of = self.fleet.root_of
        plain = providers - self.fleet.sharing_ids \
            if self.shared else providers
        found = set(map(root_of.__getitem__, plain))
        for rp_id, anchors in self.shared.items():
            if rp_id in providers:
                found |= anchors
        return found

    def served_at(self, rp_id):
        anchors = self.shared.get(rp_id)
        if anchors is None:
            return (self.fleet.root_of[rp_id],)
        return anchors


class GroupSteps:
    """The steps of one request group: ``steps`` [Step], ``blocked``
    (Blocked or None), and ``trees`` the anchors where it can be
    served after every step."""

    def __init__(self, fleet, group, wide, query_group):
        self.fleet = fleet
        self.group = group
        self.wide = wide
        self.query_group = query_group
        self.steps = []
        self.blocked = None
        self.trees = set()

    # -- recording -------------------------------------------------------

    def _record(self, filter, value, description, before, after,
                trees, why, noun='provider'):
        """Append a step; the first one to leave no tree blocks the
        group, with examples of what it dropped (``why(id)`` the reason
        for each of ``before - after``)."""
        providers = None if after is None else len(after)
        self.steps.append(Step(filter, value, description, providers,
                               len(trees)))
        if self.blocked is None and not trees:
            if after is None or noun == 'tree':
                dropped = sorted(before)
            else:
                dropped = sorted(set(before) - set(after))
            self.blocked = Blocked(
                len(self.steps) - 1, self._message(description, noun),
                len(dropped),
                [(rp_id, why(rp_id)) for rp_id in dropped[:EXAMPLES]])

    def _message(self, description, noun):
        if len(self.steps) < 2:
            return 'no %s %s' % (noun, description)
        previous = _attributive(self.steps[-2].description)
        if self.steps[-2].filter == 'resources' and \
                self.steps[-1].filter != 'resources':
            # After the resources, what passed has all of them.
            previous = 'with %s free' % ' and '.join(
                '%d %s' % (amount, self.fleet.class_names[rc_id])
                for rc_id, amount in sorted(self.group.resources.items()))
        return 'no %s %s also %s' % (noun, previous, description)

    # -- the steps ---------------------------------------------------------

    def run(self):
        if self.group.suffix:
            self._granular()
        else:
            self._unsuffixed()
        return self

    def _resource_steps(self, served, rc_id, amount, trees_of):
        """Two steps for ``amount`` of ``rc_id``: an inventory of the
        class, then room for the amount."""
        fleet = self.fleet
        name = fleet.class_names[rc_id]
        value = '%s:%d' % (name, amount)
        # Where a step starts from a set the fleet keeps (every
        # provider; those with an inventory of the class), its result is
        # another it keeps, trees counted once per copy of the trees.
        before = served.providers
        having = fleet.inventory_of(rc_id)
        served.providers = having if before is fleet.everyone \
            else before & having
        self._record('resources', value, 'has an inventory of %s' % name,
                     before, served.providers, trees_of(),
                     lambda rp_id: 'has no inventory of %s' % name)
        before = served.providers
        fitting = fleet.fitting(rc_id, amount)
        served.providers = fitting if before is having \
            else before & fitting
        full = fleet.full(rc_id, amount)
        if full:
            served.providers = served.providers - full
        self._record('resources', value, 'has %d %s free' % (amount, name),
                     before, served.providers, trees_of(),
                     lambda rp_id: fleet.room(rp_id, rc_id, amount))

    def _trait_steps(self, serveds, trees_of, required=True):
        """A step per required any-of set (when ``required``), and one
        for the forbidden traits, on each of ``serveds``."""
        group, fleet = self.group, self.fleet
        if required:
            for any_of in self.group.required:
                having = fleet.having(any_of)
                before = self._union(serveds)
                for served in serveds:
                    served.providers = served.providers & having
                if len(any_of) == 1:
                    what = 'trait %s' % next(iter(any_of))
                    why = 'lacks trait %s' % next(iter(any_of))
                else:
                    what = 'one of the traits %s' % _words(any_of)
                    why = 'has none of the traits %s' % _words(any_of)
                self._record('required', _value(any_of),
                             'has %s' % what, before,
                             self._union(serveds), trees_of(),
                             lambda rp_id, why=why: why)
        if group.forbidden:
            bad = fleet.having(group.forbidden)
            before = self._union(serveds)
            for served in serveds:
                served.providers = served.providers - bad
            traits = fleet.topo.traits
            self._record(
                'required', ','.join('!' + t for t in sorted(
                    group.forbidden)),
                'has none of the forbidden traits %s' % _words(
                    group.forbidden),
                before, self._union(serveds), trees_of(),
                lambda rp_id: 'has the forbidden trait %s' % _words(
                    group.forbidden & traits.get(rp_id, frozenset())))

    @staticmethod
    def _union(serveds):
        found = set()
        for served in serveds:
            found |= served.providers
        return found

    def _root_steps(self, serveds, trees_of):
        """root_required: a rule on the anchors."""
        wide, fleet = self.wide, self.fleet
        if not (wide.root_required or wide.root_forbidden):
            return
        traits = fleet.topo.traits
        required, forbidden = wide.root_required, wide.root_forbidden

        def allowed(rp_id, anchor):
            have = traits.get(anchor, frozenset())
            return required <= have and not have & forbidden

        def build():
            roots = [root for root in fleet.topo.trees
                     if allowed(None, root)]
            return fleet.in_trees(roots)
        plain = fleet.memo(('root-ok', frozenset(required),
                            frozenset(forbidden)), build)
        before = self._union(serveds)
        for served in serveds:
            served.narrow(allowed, plain)
        value = ','.join(sorted(required) + ['!' + t for t in sorted(
            forbidden)])

        def why(rp_id):
            root = fleet.root_of[rp_id]
            have = traits.get(root, frozenset())
            missing, extra = required - have, have & forbidden
            if missing:
                return 'its root %s lacks the trait %s' % (
                    fleet.uuid(root), _words(missing))
            return 'its root %s has the forbidden trait %s' % (
                fleet.uuid(root), _words(extra))
        self._record('root_required', value,
                     'is in a tree whose root meets root_required %s' % value,
                     before, self._union(serveds), trees_of(), why)

    def _tree_step(self, served, filter, value, description, why):
        """in_tree for a granular group: the provider's own tree."""
        before = served.providers
        served.providers = before & self.fleet.in_trees([self.group.in_tree])
        self._record(filter, value, description, before, served.providers,
                     served.trees(), why)

    def _in_tree_words(self):
        uuid = self.query_group.in_tree
        return uuid, 'is in the tree of %s' % uuid

    def _granular(self):
        group, fleet = self.group, self.fleet
        served = _Served(fleet)
        for rc_id, amount in sorted(group.resources.items()):
            self._resource_steps(served, rc_id, amount, served.trees)
        self._trait_steps([served], served.trees)
        for any_of in group.member_of:
            before = served.providers
            served.providers = served.providers & fleet.members(any_of)
            self._record('member_of', _value(any_of, 'in:'),
                         'is in %s' % _aggregates(any_of), before,
                         served.providers, served.trees(),
                         lambda rp_id, a=any_of: 'is in none of the '
                         'aggregates %s' % _words(a))
        if group.forbidden_aggs:
            before = served.providers
            served.providers = served.providers - fleet.members(
                group.forbidden_aggs)
            aggs = fleet.topo.aggregates
            self._record(
                'member_of', '!in:' + ','.join(sorted(group.forbidden_aggs)),
                'is in none of the forbidden aggregates %s' % _words(
                    group.forbidden_aggs),
                before, served.providers, served.trees(),
                lambda rp_id: 'is in the forbidden aggregate %s' % _words(
                    group.forbidden_aggs & aggs.get(rp_id, frozenset())))
        if group.in_tree is not None:
            uuid, words = self._in_tree_words()
            self._tree_step(served, 'in_tree', uuid, words,
                            self._not_in_tree)
        self._root_steps([served], served.trees)
        self.trees = served.trees()

    def _not_in_tree(self, rp_id):
        root = self.fleet.root_of[rp_id]
        return 'its tree is that of %s' % self.fleet.uuid(root)

    def _unsuffixed(self):
        """The unsuffixed group: each class from a provider of the tree
        or one sharing with it; the forbidden traits and aggregates of
        each provider (and of the anchor); member_of met by the provider
        or by its root; required traits met by the chosen providers
        between them (a rule on trees)."""
        group, fleet = self.group, self.fleet
        serveds = []

        def trees_of():
            found = None
            for served in serveds:
                trees = served.trees()
                found = trees if found is None else found & trees
            return found or set()

        for rc_id, amount in sorted(group.resources.items()):
            served = _Served(fleet)
            serveds.append(served)
            self._resource_steps(served, rc_id, amount, trees_of)
        self._trait_steps(serveds, trees_of, required=False)
        aggs = fleet.topo.aggregates
        root_of = fleet.root_of
        for any_of in group.member_of:
            inside = fleet.members(any_of)

            def member(rp_id, anchor, inside=inside):
                return rp_id in inside or (
                    anchor == root_of[rp_id] and anchor in inside)
            before = self._union(serveds)
            plain = fleet.in_or_under(any_of)
            for served in serveds:
                served.narrow(member, plain)
            self._record(
                'member_of', _value(any_of, 'in:'),
                'is (or has its root) in %s' % _aggregates(any_of),
                before, self._union(serveds), trees_of(),
                lambda rp_id, a=any_of: 'neither it nor its root is in '
                'the aggregates %s' % _words(a))
        if group.forbidden_aggs:
            bad = group.forbidden_aggs

            def clear(rp_id, anchor):
                return not (aggs.get(rp_id, frozenset()) & bad or
                            aggs.get(anchor, frozenset()) & bad)
            before = self._union(serveds)
            plain = fleet.everyone - fleet.in_or_under(bad)
            for served in serveds:
                served.narrow(clear, plain)
            self._record(
                'member_of', '!in:' + ','.join(sorted(bad)),
                'is (with its root) in none of the forbidden aggregates %s'
                % _words(bad), before, self._union(serveds), trees_of(),
                lambda rp_id: 'it or its root is in the forbidden '
                'aggregate %s' % _words(bad & (
                    aggs.get(rp_id, frozenset()) |
                    aggs.get(root_of[rp_id], frozenset()))))
        if group.in_tree is not None:
            in_tree = group.in_tree

            def inside_tree(rp_id, anchor):
                return anchor == in_tree and root_of[rp_id] == in_tree
            before = self._union(serveds)
            plain = fleet.in_trees([in_tree])
            for served in serveds:
                served.narrow(inside_tree, plain)
            uuid, words = self._in_tree_words()
            self._record('in_tree', uuid, words, before,
                         self._union(serveds), trees_of(),
                         self._not_in_tree)
        self._root_steps(serveds, trees_of)
        trees = trees_of()
        for any_of in group.required:
            before = trees
            having = fleet.having(any_of)
            met = set()
            for served in serveds:
                met |= served.trees_of(served.providers & having)
            trees = trees & met
            what = (next(iter(any_of)) if len(any_of) == 1 else
                    'one of %s' % _words(any_of))
            self._record(
                'required', _value(any_of),
                'has trait %s among the providers serving the group'
                % what, before, None, trees,
                lambda root, what=what: 'no provider serving the group in '
                'its tree has trait %s' % what,
                noun='tree')
        self.trees = trees


def _attributive(description):
    """"has 4 VCPU free" -> "with 4 VCPU free", "is in ..." -> "in ...":
    a step's description as it qualifies what passed it."""
    if description.startswith('has '):
        return 'with ' + description[4:]
    if description.startswith('is '):
        return description[3:]
    return 'that ' + description


def _value(names, prefix='in:'):
    names = sorted(names)
    return names[0] if len(names) == 1 else prefix + ','.join(names)


def _aggregates(uuids):
    if len(uuids) == 1:
        return 'aggregate %s' % next(iter(uuids))
    return 'one of the aggregates %s' % _words(uuids)
