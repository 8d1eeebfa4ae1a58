"""The lazy search for allocation candidates: the engine's public face.

A request's groups become *slots* (``planning``: a granular group is one,
the unsuffixed group one per resource class), filled per *anchor* (the
root of the tree a candidate belongs to; sharing providers serve
several anchors) from the providers that may serve them. An anchor
with only a few combinations of choices (a flat provider has one, a
small tree a few) has each combination checked whole against the rules
(``planning.Rules``); one with more is walked depth-first (``walk``),
which abandons a partial assignment as soon as it breaks a rule or
cannot be completed. Both give the same candidates in the same order.
Anchors are visited round-robin, so a limit spreads candidates over
roots, and the caller stops the generators once it has enough: the work
grows with the number of candidates returned, not with the product of
every group's choices. A request every candidate of which is one lone
root skips the slots altogether (``Search._lone_candidates``).
"""

import collections
import itertools
import random

from allocsvc.placement.candidates import planning
from allocsvc.placement.candidates import walk

# Callers check traits as the search does (``sampling``).
has_traits = planning.has_traits

# Up to this many combinations of an anchor's choices, they are simply
# tried one by one, each checked whole (flat providers have one, small
# trees a few); beyond, the depth-first walk with its pruning bounds
# pays for its set-up.
_ENUMERATE_UP_TO = 16


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


class Search:
    """The candidates of one request over one loader.Snapshot.

    ``groups``: search.Group list; ``isolate``: group_policy=isolate;
    ``same_subtrees``: list of suffix sets; ``root_required`` /
    ``root_forbidden``: trait names the anchor must have / lack;
    ``nested_aware``: microversion 1.29 or later; ``class_names`` {rc id:
    name}; ``spread``: a request for the first few candidates of single
    providers gets those with the most room first (see
    ``_lone_candidates``); ``anchors``: the only anchors to search (a
    set of root ids; None: all those of ``snap``).

    ``first_round`` counts the candidates given so far that were the
    first of their anchor in anchor order: while it is below the number
    a caller took, the next anchors might have come before the rest.

    What the explanation reads (``explain``): ``anchors_found``, how
    many anchors had a candidate in the first round so far (duplicates
    of a shared candidate included); ``first_round_done`` once every
    anchor was tried; ``planned`` when the slots were planned (the
    planner's ``stages`` are then recorded, and ``plan`` is the
    planner's).
    """

    def __init__(self, snap, groups, class_names, isolate=False,
                 same_subtrees=(), root_required=frozenset(),
                 root_forbidden=frozenset(), nested_aware=True,
                 randomize=False, spread=False, anchors=None):
        self.snap = snap
        self.only = anchors
        self.first_round = 0
        self.anchors_found = 0
        self.first_round_done = False
        self.planned = False
        self.plan = None
        self.class_names = class_names
        self.uuids = {rp_id: p.uuid for rp_id, p in snap.providers.items()}
        self.groups = groups
        self.root_required = [frozenset([t]) for t in root_required]
        self.root_forbidden = set(root_forbidden)
        self.randomize = randomize
        self.spread = spread
        plain = next((g for g in groups if not g.suffix), None)
        plain_required = plain.required if plain else ()
        self.planner = planning.Planner(
            snap, groups, class_names, self.root_required,
            self.root_forbidden, plain_required, randomize, isolate)
        self.rules = planning.Rules(
            snap, isolate, [frozenset(s) for s in same_subtrees],
            nested_aware, plain_required)
        self._shared = self._serving_others(snap)

    @staticmethod
    def _serving_others(snap):
        """The uuids of the sharing providers that serve other trees
        than their own. A candidate can come from two anchors only if
        every provider it allocates from is one of them: any other
        provider belongs to one anchor alone. Only such candidates need
        looking for twice."""
        found = set()
        for rp_id, anchors in snap.sharing_anchors.items():
            provider = snap.providers.get(rp_id)
            if provider is not None and anchors - {provider.root_id}:
                found.add(provider.uuid)
        return found

    def _single(self, plan, subtrees, anchor):
        """When every slot of ``anchor`` has exactly one provider to
        choose from (a flat provider, a tree with one provider per
        class): ``(True, candidate or None)``, checked as
        ``_anchor_candidates`` would, without preparing slots. Else
        ``(False, None)``. The plan's order is the slots' order then
        (the unsuffixed group first, then the granular ones by suffix);
        ``subtrees`` is ``Rules.subtree_members`` of the plan."""
        chosen = []
        for spec in plan:
            choices = spec.by_anchor[anchor]
            if len(choices) != 1:
                return False, None
            chosen.append(choices[0])
        if not plan:
            return True, None
        if self.rules.valid(plan, chosen, subtrees):
            return True, self._build(plan, chosen)
        return True, None

    def _anchor_candidates(self, plan, anchor):
        """The candidates of one anchor. A generator: nothing is prepared
        for an anchor until the caller asks for a candidate."""
        slots = self.planner.slots(plan, anchor)
        if not slots:
            return
        combinations = 1
        for slot in slots:
            combinations *= len(slot.choices)
        if combinations <= _ENUMERATE_UP_TO:
            valid = self.rules.valid
            subtrees = self.rules.subtree_members(slots)
            for chosen in itertools.product(*[s.choices for s in slots]):
                if valid(slots, chosen, subtrees):
                    yield self._build(slots, chosen)
        else:
            for chosen in walk.Walk(self.rules, slots).assignments():
                yield self._build(slots, chosen)

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
        wanted = sorted(group.resources.items())
        named = [(self.class_names[rc_id], amount)
                 for rc_id, amount in wanted]
        admits = planning.alone_admits(
            self.snap, wanted, list(group.required) + self.root_required,
            group.forbidden | self.root_forbidden, group.member_of,
            group.forbidden_aggs)
        anchors = self._kept(sorted(self.snap.providers))
        if group.in_tree is not None:
            anchors = [a for a in anchors if a == group.in_tree]
        if self.randomize:
            random.shuffle(anchors)
        elif self.spread:
            anchors.sort(key=self._headroom(wanted), reverse=True)
        for rp_id in anchors:
            if admits(rp_id):
                rp_uuid = self.uuids[rp_id]
                self.first_round += 1
                self.anchors_found += 1
                yield Candidate({rp_uuid: {'resources': dict(named)}},
                                {'': [rp_uuid]})
        self.first_round_done = True

    def _kept(self, anchors):
        """``anchors`` without those outside ``self.only``."""
        if self.only is None:
            return anchors
        return [anchor for anchor in anchors if anchor in self.only]

    def candidates(self):
        """Every candidate once, lazily, one anchor after the other in
        turn (shuffled when randomizing)."""
        group = self._lone_group()
        if group is not None:
            yield from self._lone_candidates(group)
            return
        plan, anchors = self.planner.plan()
        self.plan = plan
        self.planned = True
        anchors = self._kept(anchors)
        if self.randomize:
            random.shuffle(anchors)
        self.rules.prepare(plan)
        subtrees = self.rules.subtree_members(plan)
        seen = set()
        shared = self._shared

        def fresh(candidate):
            if not shared or not shared.issuperset(candidate.allocations):
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
            single, candidate = self._single(plan, subtrees, anchor)
            if not single:
                gen = self._anchor_candidates(plan, anchor)
                candidate = next(gen, None)
                if candidate is None:
                    continue
                active.append(gen)
            if candidate is None:
                continue
            self.anchors_found += 1
            if fresh(candidate):
                self.first_round += 1
                yield candidate
        self.first_round_done = True
        while active:
            gen = active.popleft()
            candidate = next(gen, None)
            if candidate is None:
                continue
            active.append(gen)
            if fresh(candidate):
                yield candidate
