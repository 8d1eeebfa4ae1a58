"""The lazy, depth-first search for allocation candidates.

Every request group becomes one or more *slots*: a granular group is one
slot (one provider for all its resources); the unsuffixed group is one
slot per resource class (each class from one provider of the tree or a
provider sharing with it). Candidates are searched per *anchor* (the root
of the tree a candidate belongs to; sharing providers serve several
anchors): slots are filled one at a time from the providers that can
serve them, and a partial assignment is abandoned as soon as it breaks a
rule -- capacity (remaining room is tracked as slots consume it),
group_policy=isolate, same_subtree, the unsuffixed group's traits, or
(before microversion 1.29) two providers of one tree -- or as soon as a
cheap bound shows the remaining slots cannot all be filled. An anchor
with only a few combinations of choices (a flat provider has one, a small
tree a few) skips that machinery: each combination is checked whole
against the same rules, in the same order. Anchors are visited
round-robin, so a limit spreads candidates over roots, and the
caller stops the generators once it has enough: the work grows with the
number of candidates returned, not with the product of every group's
choices.
"""

import collections
import itertools
import random


class Candidate:
    """One allocation request, shaped as the API shows it:
    ``allocations`` {rp uuid: {'resources': {class name: amount}}};
    ``mappings`` {suffix: [rp uuid, ...]}."""

    __slots__ = ('allocations', 'mappings')

    def __init__(self, allocations, mappings):
        self.allocations = allocations
        self.mappings = mappings

    def key(self):
        return (frozenset((rp, rc, amount)
                          for rp, entry in self.allocations.items()
                          for rc, amount in entry['resources'].items()),
                frozenset((suffix, frozenset(rps))
                          for suffix, rps in self.mappings.items()))


class Group:
    """A request group with names resolved: ``resources`` {rc id: amount};
    ``in_tree`` a root id, or None. Traits are names, aggregates uuids."""

    __slots__ = ('suffix', 'resources', 'required', 'forbidden',
                 'member_of', 'forbidden_aggs', 'in_tree')

    def __init__(self, suffix, resources, required, forbidden, member_of,
                 forbidden_aggs, in_tree):
        self.suffix = suffix
        self.resources = resources
        self.required = required
        self.forbidden = forbidden
        self.member_of = member_of
        self.forbidden_aggs = forbidden_aggs
        self.in_tree = in_tree


class _SlotSpec:
    """One slot of the request: its group's ``suffix``, ``amounts`` {rc
    id: amount},
    ``named`` [(class name, amount)] as a candidate shows them,
    ``granular`` (one provider for the whole group), and ``by_anchor``
    {anchor: [rp id]} the providers that may fill it."""

    __slots__ = ('suffix', 'amounts', 'named', 'granular', 'by_anchor')

    def __init__(self, suffix, amounts, named, granular, by_anchor):
        self.suffix = suffix
        self.amounts = amounts
        self.named = named
        self.granular = granular
        self.by_anchor = by_anchor


class _Slot:
    """One slot within one anchor: its spec's fields and ``choices``, the
    providers of that anchor that may fill it."""

    __slots__ = ('suffix', 'amounts', 'named', 'choices', 'granular')

    def __init__(self, spec, choices):
        self.suffix = spec.suffix
        self.amounts = spec.amounts
        self.named = spec.named
        self.granular = spec.granular
        self.choices = choices


# Up to this many combinations of an anchor's choices, they are simply
# tried one by one, each checked whole (flat providers have one, small
# trees a few); beyond, the depth-first search with its pruning bounds
# pays for its set-up.
_ENUMERATE_UP_TO = 16


def has_traits(traits, required, forbidden):
    """``traits`` meet every any-of set of ``required`` and miss every
    name of ``forbidden``."""
    return (all(traits & any_of for any_of in required) and
            not traits & forbidden)


class Search:
    """The candidates of one request over one loader.Snapshot.

    ``groups``: search.Group list; ``isolate``: group_policy=isolate;
    ``same_subtrees``: list of suffix sets; ``root_required`` /
    ``root_forbidden``: trait names the anchor must have / lack;
    ``nested_aware``: microversion 1.29 or later; ``class_names`` {rc id:
    name}; ``spread``: a request for the first few candidates of single
    providers gets those with the most room first (see
    ``_lone_candidates``).
    """

    def __init__(self, snap, groups, class_names, isolate=False,
                 same_subtrees=(), root_required=frozenset(),
                 root_forbidden=frozenset(), nested_aware=True,
                 randomize=False, spread=False):
        self.snap = snap
        self.class_names = class_names
        self.uuids = {rp_id: p.uuid for rp_id, p in snap.providers.items()}
        self.groups = groups
        self.isolate = isolate
        self.same_subtrees = [frozenset(s) for s in same_subtrees]
        self.root_required = [frozenset([t]) for t in root_required]
        self.root_forbidden = set(root_forbidden)
        self.nested_aware = nested_aware
        self.randomize = randomize
        self.spread = spread
        self._by_class = collections.defaultdict(list)
        for rp_id, rc_id in snap.inventory:
            if rp_id in snap.providers:
                self._by_class[rc_id].append(rp_id)
        for rps in self._by_class.values():
            rps.sort()
        plain = next((g for g in groups if not g.suffix), None)
        self._plain_required = plain.required if plain else ()
        self._anchor_ok = {}
        self._plain_anchors = {}
        self._ancestors = {}
        # A candidate can come from two anchors only through sharing
        # providers; without any, no duplicate needs looking for.
        self._dedup = bool(snap.sharing_anchors)

    # -- which providers may fill which slot, per anchor ------------------

    def _traits(self, rp_id):
        return self.snap.traits.get(rp_id, frozenset())

    def _aggs(self, rp_id):
        return self.snap.aggregates.get(rp_id, frozenset())

    def _anchor_allowed(self, root_id):
        ok = self._anchor_ok.get(root_id)
        if ok is None:
            ok = has_traits(self._traits(root_id), self.root_required,
                            self.root_forbidden)
            self._anchor_ok[root_id] = ok
        return ok

    def _member(self, rp_id, member_of):
        aggs = self._aggs(rp_id)
        return all(aggs & any_of for any_of in member_of)

    def _granular_choices(self, group):
        """{anchor: [rp id]} of the providers that alone satisfy a
        suffixed group: resources, traits, aggregates (directly) and
        in_tree."""
        snap = self.snap
        if group.resources:
            first = min(group.resources)
            pool = self._by_class.get(first, ())
        else:
            pool = sorted(snap.providers)
        by_anchor = collections.defaultdict(list)
        for rp_id in pool:
            if not all((rp_id, rc) in snap.inventory and
                       snap.inventory[(rp_id, rc)].fits(amount)
                       for rc, amount in group.resources.items()):
                continue
            if not has_traits(self._traits(rp_id), group.required,
                              group.forbidden):
                continue
            if not self._member(rp_id, group.member_of):
                continue
            if self._aggs(rp_id) & group.forbidden_aggs:
                continue
            root = snap.providers[rp_id].root_id
            if group.in_tree is not None and root != group.in_tree:
                continue
            for anchor in snap.anchors(rp_id):
                if self._anchor_allowed(anchor):
                    by_anchor[anchor].append(rp_id)
        return by_anchor

    def _class_choices(self, group, rc_id, amount):
        """{anchor: [rp id]} of the providers that may serve ``amount``
        of ``rc_id`` for the unsuffixed group: a provider of the anchor's
        tree whose aggregates (or its root's) match, or a sharing provider
        itself in the aggregates. None may have a forbidden trait.
        (Called once per class of every request: the lookups are local,
        and what does not depend on the anchor is worked out once per
        provider.)"""
        inventory = self.snap.inventory
        served = self._plain_anchors.get(id(group))
        if served is None:
            served = self._plain_anchors[id(group)] = {}
        by_anchor = collections.defaultdict(list)
        for rp_id in self._by_class.get(rc_id, ()):
            if not inventory[(rp_id, rc_id)].fits(amount):
                continue
            anchors = served.get(rp_id)
            if anchors is None:
                anchors = served[rp_id] = self._plain_served(group, rp_id)
            for anchor in anchors:
                by_anchor[anchor].append(rp_id)
        return by_anchor

    def _plain_served(self, group, rp_id):
        """The anchors for which provider ``rp_id`` may serve the
        unsuffixed ``group``, whatever the class (worked out once per
        provider, for all the classes of the group)."""
        if group.forbidden and not group.forbidden.isdisjoint(
                self._traits(rp_id)):
            return ()
        root = self.snap.providers[rp_id].root_id
        if group.in_tree is not None:
            if root != group.in_tree:
                return ()
            anchors = (root,)
        else:
            anchors = self.snap.anchors(rp_id)
        member_of, bad = group.member_of, group.forbidden_aggs
        member = not member_of or self._member(rp_id, member_of)
        allowed = []
        for anchor in anchors:
            if not self._anchor_allowed(anchor):
                continue
            if not member and not (
                    anchor == root and self._member(root, member_of)):
                continue
            if bad and (self._aggs(rp_id) & bad or
                        self._aggs(anchor) & bad):
                continue
            allowed.append(anchor)
        return allowed

    def _plan(self):
        """[_SlotSpec] for every slot, and the anchors that can fill them
        all."""
        names = self.class_names
        plan = []
        for group in self.groups:
            if group.suffix:
                plan.append(_SlotSpec(
                    group.suffix, group.resources,
                    [(names[rc], amount)
                     for rc, amount in sorted(group.resources.items())],
                    True, self._granular_choices(group)))
            else:
                for rc_id, amount in sorted(group.resources.items()):
                    plan.append(_SlotSpec(
                        '', {rc_id: amount}, [(names[rc_id], amount)],
                        False, self._class_choices(group, rc_id, amount)))
        anchors = None
        for spec in plan:
            keys = set(spec.by_anchor)
            anchors = keys if anchors is None else anchors & keys
        anchors = sorted(anchors or ())
        if self._plain_required:
            plain = [spec.by_anchor for spec in plan if not spec.granular]
            anchors = [a for a in anchors if self._may_meet_plain(plain, a)]
        return plan, anchors

    def _may_meet_plain(self, plain, anchor):
        """Whether the providers that may serve the unsuffixed group's
        slots ``plain`` ([{anchor: [rp id]}]) at ``anchor`` have, between
        them, the traits that group requires: if not, no combination of
        them can, and the anchor need not be searched."""
        traits = self._traits
        return all(
            any(not any_of.isdisjoint(traits(rp_id))
                for by_anchor in plain for rp_id in by_anchor[anchor])
            for any_of in self._plain_required)

    # -- the search within one anchor -------------------------------------

    def _is_ancestor(self, top, rp_id):
        ancestors = self._ancestors.get(rp_id)
        if ancestors is None:
            ancestors, node = set(), rp_id
            while node is not None and node not in ancestors:
                ancestors.add(node)
                provider = self.snap.providers.get(node)
                node = provider.parent_id if provider else None
            self._ancestors[rp_id] = ancestors
        return top in ancestors

    def _same_subtree(self, rps):
        """Whether one of ``rps`` is an ancestor of (or is) all others."""
        rps = set(rps)
        if len(rps) < 2:
            return True
        for top in rps:
            for rp in rps:
                if not self._is_ancestor(top, rp):
                    break
            else:
                return True
        return False

    def _slots(self, plan, anchor):
        """The slots of ``anchor``: the unsuffixed group's first, then
        the granular ones, fewest choices first (dead ends show up
        sooner)."""
        slots, granular = [], []
        for spec in plan:
            choices = spec.by_anchor[anchor]
            if self.randomize:
                choices = list(choices)
                random.shuffle(choices)
            (granular if spec.granular else slots).append(
                _Slot(spec, choices))
        if len(granular) > 1:
            granular.sort(key=lambda s: (len(s.choices), s.suffix))
        return slots + granular

    def _bounds(self, slots):
        """Per slot index i, what slots i.. still need: granular count and
        the providers they may use; demand per class and the providers
        that may serve it, with their total room."""
        snap = self.snap
        bounds = [None] * (len(slots) + 1)
        granular, union = 0, set()
        demand, servers = collections.Counter(), collections.defaultdict(set)
        for i in range(len(slots) - 1, -1, -1):
            slot = slots[i]
            if slot.granular:
                granular += 1
                union |= set(slot.choices)
            for rc_id, amount in slot.amounts.items():
                demand[rc_id] += amount
                servers[rc_id] |= set(slot.choices)
            room = {rc: (frozenset(servers[rc]), sum(
                snap.inventory[(rp, rc)].room() for rp in servers[rc]))
                for rc in demand}
            bounds[i] = (granular, frozenset(union), dict(demand), room)
        return bounds

    def _single(self, plan, anchor):
        """When every slot of ``anchor`` has exactly one provider to
        choose from (a flat provider, a tree with one provider per
        class): ``(True, candidate or None)``, checked as
        ``_anchor_candidates`` would, without preparing slots. Else
        ``(False, None)``. The plan's order is the slots' order then
        (the unsuffixed group first, then the granular ones by suffix)."""
        chosen = []
        for spec in plan:
            choices = spec.by_anchor[anchor]
            if len(choices) != 1:
                return False, None
            chosen.append(choices[0])
        if not plan:
            return True, None
        if self._valid(plan, chosen, self._subtree_members(plan)):
            return True, self._build(plan, chosen)
        return True, None

    def _anchor_candidates(self, plan, anchor):
        """The candidates of one anchor. A generator: nothing is prepared
        for an anchor until the caller asks for a candidate."""
        slots = self._slots(plan, anchor)
        if not slots:
            return
        combinations = 1
        for slot in slots:
            combinations *= len(slot.choices)
        if combinations <= _ENUMERATE_UP_TO:
            subtrees = self._subtree_members(slots)
            for chosen in itertools.product(*[s.choices for s in slots]):
                if self._valid(slots, chosen, subtrees):
                    yield self._build(slots, chosen)
        else:
            yield from self._depth_first(slots)

    def _subtree_members(self, slots):
        """The indices in ``slots`` of each same_subtree's slots, for
        those with two slots or more (``_valid``'s ``subtrees``)."""
        return [members for members in (
            [i for i, slot in enumerate(slots) if slot.suffix in suffixes]
            for suffixes in self.same_subtrees) if len(members) > 1]

    def _valid(self, slots, chosen, subtrees):
        """Whether the providers ``chosen`` for ``slots`` (one each) break
        no rule: the checks of ``_depth_first``, made on a whole
        assignment at once. ``subtrees``: the slot indices of each
        same_subtree with two slots or more (checked first: it is what
        rules out most combinations)."""
        for members in subtrees:
            if not self._same_subtree([chosen[i] for i in members]):
                return False
        inventory = self.snap.inventory
        consumed = {}
        granular_used = set()
        owners = {}
        for slot, rp_id in zip(slots, chosen):
            if slot.granular and self.isolate:
                if rp_id in granular_used:
                    return False
                granular_used.add(rp_id)
            if not self.nested_aware:
                root = self.snap.providers[rp_id].root_id
                if owners.setdefault(root, rp_id) != rp_id:
                    return False
            for rc_id, amount in slot.amounts.items():
                key = (rp_id, rc_id)
                total = consumed.get(key, 0) + amount
                inv = inventory[key]
                if total > inv.max_unit or inv.used + total > inv.capacity:
                    return False
                consumed[key] = total
        if self._plain_required:
            traits = set()
            for slot, rp_id in zip(slots, chosen):
                if not slot.granular:
                    traits |= self._traits(rp_id)
            if not has_traits(traits, self._plain_required, frozenset()):
                return False
        return True

    def _build(self, slots, chosen):
        """The Candidate of providers ``chosen`` for ``slots``."""
        uuids = self.uuids
        allocations, mappings = {}, {}
        for slot, rp_id in zip(slots, chosen):
            rp_uuid = uuids[rp_id]
            if slot.named:
                entry = allocations.get(rp_uuid)
                if entry is None:
                    entry = allocations[rp_uuid] = {'resources': {}}
                res = entry['resources']
                for name, amount in slot.named:
                    res[name] = res.get(name, 0) + amount
            rps = mappings.get(slot.suffix)
            if rps is None:
                mappings[slot.suffix] = [rp_uuid]
            elif rp_uuid not in rps:
                rps.append(rp_uuid)
        return Candidate(allocations, mappings)

    def _depth_first(self, slots):
        """The candidates of an anchor's ``slots``, depth-first: a
        partial assignment is abandoned as soon as it breaks a rule or
        the bounds show the remaining slots cannot all be filled."""
        snap = self.snap
        count = len(slots)
        bounds = self._bounds(slots)
        last_plain = max((i for i, s in enumerate(slots) if not s.granular),
                         default=-1)
        plain_required = self._plain_required
        subtree_checks = collections.defaultdict(list)
        for suffixes in self.same_subtrees:
            members = [i for i, s in enumerate(slots) if s.suffix in suffixes]
            if members:
                subtree_checks[max(members)].append(members)
        chosen = [None] * count
        consumed = {}
        used = collections.Counter()
        owners = {}
        isolate, nested_aware = self.isolate, self.nested_aware

        def feasible(i):
            granular, union, demand, room = bounds[i]
            if isolate and granular > 1:
                taken = sum(1 for rp in used if used[rp] and rp in union)
                if len(union) - taken < granular:
                    return False
            for rc_id, need in demand.items():
                servers, total = room[rc_id]
                spent = sum(v for (rp, rc), v in consumed.items()
                            if rc == rc_id and rp in servers)
                if total - spent < need:
                    return False
            return True

        def rules_hold(i):
            if i == last_plain and plain_required:
                traits = set()
                for j in range(last_plain + 1):
                    traits |= self._traits(chosen[j])
                if not has_traits(traits, plain_required, frozenset()):
                    return False
            for members in subtree_checks.get(i, ()):
                if not self._same_subtree(chosen[j] for j in members):
                    return False
            return True

        def take(i, rp_id):
            """Put ``rp_id`` in slot i if it breaks no rule."""
            slot = slots[i]
            if isolate and slot.granular and used[rp_id]:
                return False
            root = snap.providers[rp_id].root_id
            if not nested_aware:
                owner = owners.get(root)
                if owner is not None and owner[0] != rp_id:
                    return False
            for rc_id, amount in slot.amounts.items():
                inv = snap.inventory[(rp_id, rc_id)]
                total = consumed.get((rp_id, rc_id), 0) + amount
                if total > inv.max_unit or inv.used + total > inv.capacity:
                    return False
            for rc_id, amount in slot.amounts.items():
                key = (rp_id, rc_id)
                consumed[key] = consumed.get(key, 0) + amount
            if slot.granular:
                used[rp_id] += 1
            if not nested_aware:
                owner = owners.get(root)
                owners[root] = (rp_id, owner[1] + 1 if owner else 1)
            chosen[i] = rp_id
            if rules_hold(i):
                return True
            give_back(i)
            return False

        def give_back(i):
            rp_id, slot = chosen[i], slots[i]
            chosen[i] = None
            if not nested_aware:
                root = snap.providers[rp_id].root_id
                owner = owners[root]
                if owner[1] == 1:
                    del owners[root]
                else:
                    owners[root] = (rp_id, owner[1] - 1)
            if slot.granular:
                used[rp_id] -= 1
            for rc_id, amount in slot.amounts.items():
                key = (rp_id, rc_id)
                consumed[key] -= amount
                if not consumed[key]:
                    del consumed[key]

        if not feasible(0):
            return
        # Iterative depth-first search: choices[i] walks slot i's
        # providers; a level is left when they run out.
        choices = [None] * count
        choices[0] = iter(slots[0].choices)
        i = 0
        while i >= 0:
            if chosen[i] is not None:
                give_back(i)
            for rp_id in choices[i]:
                if take(i, rp_id):
                    break
            else:
                i -= 1
                continue
            if i + 1 == count:
                yield self._build(slots, chosen)
            elif feasible(i + 1):
                i += 1
                choices[i] = iter(slots[i].choices)

    def _lone_group(self):
        """The request's one group when every candidate is a single
        provider: one unsuffixed group with resources, every tree read a
        lone root, no sharing provider serving another tree. None when
        the request or the trees are anything else."""
        if len(self.groups) != 1:
            return None
        group = self.groups[0]
        if group.suffix or not group.resources or self.snap.sharing_anchors:
            return None
        for rp_id, provider in self.snap.providers.items():
            if provider.root_id != rp_id:
                return None
        return group

    def _headroom(self, wanted):
        """A sort key: how many more requests of ``wanted`` [(rc id,
        amount)] a provider can take (-1 when it lacks a class).

        Clients that claim the first candidate of a small ``limit``
        (the scheduler's claim: GET with limit, then PUT) all ask at
        nearly the same moment. In id order they all get the lowest
        provider with room and queue on its row lock until it is full,
        the late ones with a 409, asking again. Most room first, the
        answer moves on to another provider with every claim committed,
        and two clients that still meet on one provider both fit unless
        it is nearly full. The order stays deterministic, as Placement
        promises when it does not randomize: the same usage gives the
        same answer (ties in id order, the sort being stable)."""
        inventory = self.snap.inventory

        def headroom(rp_id):
            most = None
            for rc_id, amount in wanted:
                inv = inventory.get((rp_id, rc_id))
                if inv is None:
                    return -1
                times = (inv.capacity - inv.used) // amount
                if most is None or times < most:
                    most = times
            return most
        return headroom

    def _lone_candidates(self, group):
        """The candidates of ``group`` (``_lone_group``), one provider
        each: what the general search finds for such a request, in the
        same order, checked provider by provider without planning slots
        (most requests to a deployment of flat compute nodes)."""
        snap = self.snap
        inventory, traits, aggregates = (snap.inventory, snap.traits,
                                         snap.aggregates)
        wanted = sorted(group.resources.items())
        named = [(self.class_names[rc_id], amount)
                 for rc_id, amount in wanted]
        required = list(group.required) + self.root_required
        forbidden = group.forbidden | self.root_forbidden
        member_of, bad = group.member_of, group.forbidden_aggs
        empty = frozenset()
        anchors = sorted(snap.providers)
        if group.in_tree is not None:
            anchors = [a for a in anchors if a == group.in_tree]
        if self.randomize:
            random.shuffle(anchors)
        elif self.spread:
            anchors.sort(key=self._headroom(wanted), reverse=True)
        for rp_id in anchors:
            for rc_id, amount in wanted:
                inv = inventory.get((rp_id, rc_id))
                if inv is None or not inv.fits(amount):
                    break
            else:
                if not has_traits(traits.get(rp_id, empty), required,
                                  forbidden):
                    continue
                if member_of or bad:
                    aggs = aggregates.get(rp_id, empty)
                    if not all(aggs & any_of for any_of in member_of):
                        continue
                    if aggs & bad:
                        continue
                rp_uuid = self.uuids[rp_id]
                yield Candidate({rp_uuid: {'resources': dict(named)}},
                                {'': [rp_uuid]})

    def candidates(self):
        """Every candidate once, lazily, one anchor after the other in
        turn (shuffled when randomizing)."""
        group = self._lone_group()
        if group is not None:
            yield from self._lone_candidates(group)
            return
        plan, anchors = self._plan()
        if self.randomize:
            random.shuffle(anchors)
        seen = set()

        def fresh(candidate):
            if not self._dedup:
                return True
            key = candidate.key()
            if key in seen:
                return False
            seen.add(key)
            return True

        # The first round, anchor by anchor; an anchor with a single
        # combination of choices gives its candidate (or none) at once
        # and drops out, the others go on round-robin.
        active = collections.deque()
        for anchor in anchors:
            single, candidate = self._single(plan, anchor)
            if not single:
                gen = self._anchor_candidates(plan, anchor)
                candidate = next(gen, None)
                if candidate is None:
                    continue
                active.append(gen)
            if candidate is not None and fresh(candidate):
                yield candidate
        while active:
            gen = active.popleft()
            candidate = next(gen, None)
            if candidate is None:
                continue
            active.append(gen)
            if fresh(candidate):
                yield candidate
