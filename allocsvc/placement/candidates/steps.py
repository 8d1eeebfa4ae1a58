"""The steps of one request group, for the explanation (``explain``).

Each filter the planner (``planning``) applies to a group, one at a
time, in the order it applies them, on the copy of the trees and the
usage the search read: how many providers, and at how many anchors
(trees), the group can still be served after each; and, at the first
step that left no tree, which providers (or trees) it dropped and why.
The unsuffixed group takes each class from a provider of the tree or
one sharing with it, so its resource steps count per class and its
required traits are a rule on trees.
"""

from allocsvc.placement.candidates import loader

# How many dropped providers (or trees) a blocking step shows.
EXAMPLES = 5


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
    """What the steps read: the copy of the trees with the usage of the
    requested classes, and indexes built once per copy of the trees."""

    def __init__(self, snap, class_names):
        topo = snap.topology
        self.snap = snap
        self.topo = topo
        self.class_names = class_names
        self.by_id = topo.by_id()
        self.usage = snap.usage
        self.sharing = snap.sharing_anchors
        self.root_of = topo.memo(('explain-roots',), lambda: {
            rp_id: p.root_id for rp_id, p in self.by_id.items()})
        self.with_trait = topo.memo(('explain-traits',), self._trait_index)
        self.everyone = topo.memo(('explain-all',),
                                  lambda: frozenset(self.by_id))

    def _trait_index(self):
        found = {}
        for rp_id, names in self.topo.traits.items():
            for name in names:
                found.setdefault(name, set()).add(rp_id)
        return {name: frozenset(ids) for name, ids in found.items()}

    def having(self, names):
        """The providers with one of the traits ``names`` at least."""
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

    def anchors(self, rp_id):
        """The roots ``rp_id`` may serve: its own, and those it shares
        with when it is a sharing provider (as ``Snapshot.anchors``)."""
        root = self.root_of[rp_id]
        served = self.sharing.get(rp_id)
        if not served or loader.SHARING_TRAIT not in self.topo.traits.get(
                rp_id, ()):
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
    group) and at which anchors: ``providers`` a set of ids; the anchors
    of each are ``fleet.anchors`` narrowed by ``allowed`` (a predicate
    on (rp id, anchor), None: all)."""

    def __init__(self, fleet, providers):
        self.fleet = fleet
        self.providers = providers
        self.rules = []

    def narrow(self, rule):
        """Keep only the (provider, anchor) pairs ``rule`` allows; drop
        the providers left with no anchor."""
        self.rules.append(rule)
        self.providers = {rp_id for rp_id in self.providers
                          if self.served_at(rp_id)}

    def served_at(self, rp_id):
        anchors = self.fleet.anchors(rp_id)
        for rule in self.rules:
            anchors = [a for a in anchors if rule(rp_id, a)]
            if not anchors:
                break
        return anchors

    def trees(self):
        if not self.rules and not self.fleet.sharing:
            root_of = self.fleet.root_of
            return {root_of[rp_id] for rp_id in self.providers}
        found = set()
        for rp_id in self.providers:
            found.update(self.served_at(rp_id))
        return found


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
        before = served.providers
        stocks = fleet.topo.inventories.get(rc_id, {})
        served.providers = {rp_id for rp_id in before if rp_id in stocks}
        self._record('resources', value, 'has an inventory of %s' % name,
                     before, served.providers, trees_of(),
                     lambda rp_id: 'has no inventory of %s' % name)
        before = served.providers
        served.providers = {rp_id for rp_id in before
                            if fleet.room(rp_id, rc_id, amount) is None}
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
                    served.providers &= having
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
                served.providers -= bad
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

        before = self._union(serveds)
        for served in serveds:
            served.narrow(allowed)
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
        root_of = self.fleet.root_of
        served.providers = {rp_id for rp_id in before
                            if root_of[rp_id] == self.group.in_tree}
        self._record(filter, value, description, before, served.providers,
                     served.trees(), why)

    def _in_tree_words(self):
        uuid = self.query_group.in_tree
        return uuid, 'is in the tree of %s' % uuid

    def _granular(self):
        group, fleet = self.group, self.fleet
        served = _Served(fleet, set(fleet.everyone))
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
            served = _Served(fleet, set(fleet.everyone))
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
            for served in serveds:
                served.narrow(member)
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
            for served in serveds:
                served.narrow(clear)
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
            for served in serveds:
                served.narrow(inside_tree)
            uuid, words = self._in_tree_words()
            self._record('in_tree', uuid, words, before,
                         self._union(serveds), trees_of(),
                         self._not_in_tree)
        self._root_steps(serveds, trees_of)
        trees = trees_of()
        traits_at = self._traits_at(serveds, trees) if group.required \
            else {}
        for any_of in group.required:
            before = trees
            trees = {anchor for anchor in trees
                     if traits_at.get(anchor, frozenset()) & any_of}
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

    def _traits_at(self, serveds, trees):
        """{anchor: the traits of the providers serving the group there},
        for the anchors ``trees``."""
        traits = self.fleet.topo.traits
        found = {}
        for served in serveds:
            for rp_id in served.providers:
                have = traits.get(rp_id)
                if not have:
                    continue
                for anchor in served.served_at(rp_id):
                    if anchor in trees:
                        found.setdefault(anchor, set()).update(have)
        return found


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
