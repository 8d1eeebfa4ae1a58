"""A brute-force model of GET /allocation_candidates, for property tests.

It is deliberately independent of the engine: it knows nothing of SQL,
pruning or limits, it just tries every way of placing every request group
on every provider and keeps the placements that break no rule. Worlds are
tiny (a handful of providers), so the blunt product is cheap.

The rules, each with where the API reference (``placement-api-reference``,
"Allocation candidates") says so, or, where it is silent, what OpenStack
Placement's engine does (``placement/objects/allocation_candidate.py`` and
``research_context.py``):

R1 Anchor. Every candidate is anchored on one root provider T (the root
   of "the same non-sharing tree"). With ``root_required`` T must have
   every listed trait and none of the ``!`` ones ("the (non-sharing)
   tree's root provider satisfies the specified trait requirements").
R2 Reach. Every provider a group uses is in T's tree, or carries
   MISC_SHARES_VIA_AGGREGATE and shares an aggregate with some provider of
   T's tree ("satisfied by any provider in the same non-sharing tree or
   associated via aggregate"). A sharing provider is in its own tree too.
R3 Capacity, per group. A group takes each resource class whole from one
   provider whose inventory fits the amount: used + amount <= (total -
   reserved) * allocation_ratio, min_unit <= amount <= max_unit, amount a
   multiple of step_size. Placement never splits one class of one group
   across providers.
R4 Unsuffixed group ("resources"). Each class may come from a different
   provider. Required traits: the providers it uses *collectively* have
   them (an ``in:`` list needs one of its traits); forbidden traits: none of
   those providers has one ("forbidden from any resource provider
   contributing resources"). ``member_of``: each provider used is in the
   aggregates directly, or is in T's tree and T (the root) is ("directly
   or via the root provider"); a sharing provider serving another tree
   must be in them itself (Placement filters sharing providers by
   ``member_of`` before anchoring them). Forbidden aggregates: neither the
   provider nor the anchor root is in one.
R5 Granular group ("resourcesN"). One provider satisfies all of it: its
   resources (R3), its required traits itself, none of its forbidden
   traits, and it is *directly* in the ``member_ofN`` aggregates and in no
   forbidden one ("must directly be associated"). A resourceless group
   (1.36, only with same_subtree) is any provider passing the filters.
R6 group_policy=isolate: the granular groups (resourceless ones included,
   as in Placement) use pairwise different providers; the unsuffixed
   group may overlap them.
R7 same_subtree: for each such parameter, among the providers of the
   named groups one is an ancestor (or itself) of all the others.
R8 Capacity, merged. Amounts of the same class on the same provider from
   different groups add up; the sum must fit used + sum <= capacity and
   sum <= max_unit.
R9 Before 1.29 (not nested-aware), when any provider in the deployment
   has a parent, a candidate may not use two providers of the same tree.

A candidate is the consolidated allocations plus the mappings (suffix ->
providers), as Placement de-duplicates on both (so one allocation reached
by two mappings is two candidates). Over anchors it is a set: the same
candidate reachable from two anchors counts once. This is the intended
reading; Placement itself keeps, for an unsuffixed group served only by a
sharing provider, just one arbitrary anchor per identical allocation
(a set union in ``_alloc_candidates_multiple_providers``), an accident of
hashing we do not model.
"""

import itertools

SHARING = 'MISC_SHARES_VIA_AGGREGATE'


class Inventory:
    __slots__ = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
                 'allocation_ratio')

    def __init__(self, total, reserved=0, min_unit=1, max_unit=None,
                 step_size=1, allocation_ratio=1.0):
        self.total = total
        self.reserved = reserved
        self.min_unit = min_unit
        self.max_unit = total if max_unit is None else max_unit
        self.step_size = step_size
        self.allocation_ratio = allocation_ratio

    @property
    def capacity(self):
        return int((self.total - self.reserved) * self.allocation_ratio)


class Provider:
    __slots__ = ('uuid', 'parent', 'traits', 'aggregates', 'inventory',
                 'used')

    def __init__(self, uuid, parent=None, traits=(), aggregates=(),
                 inventory=None, used=None):
        self.uuid = uuid
        self.parent = parent
        self.traits = frozenset(traits)
        self.aggregates = frozenset(aggregates)
        self.inventory = inventory or {}
        self.used = used or {}


class World:
    """Providers by uuid, with the tree and aggregate relations."""

    def __init__(self, providers):
        self.providers = {p.uuid: p for p in providers}

    def root(self, uuid):
        while self.providers[uuid].parent is not None:
            uuid = self.providers[uuid].parent
        return uuid

    def lineage(self, uuid):
        """The provider and all its ancestors."""
        out = {uuid}
        while self.providers[uuid].parent is not None:
            uuid = self.providers[uuid].parent
            out.add(uuid)
        return out

    @property
    def roots(self):
        return sorted(u for u, p in self.providers.items() if p.parent is None)

    @property
    def has_nested(self):
        return any(p.parent is not None for p in self.providers.values())

    def reaches(self, uuid, anchor):
        """R2."""
        if self.root(uuid) == anchor:
            return True
        prov = self.providers[uuid]
        if SHARING not in prov.traits:
            return False
        return any(other.aggregates & prov.aggregates
                   and self.root(other.uuid) == anchor
                   for other in self.providers.values())

    def fits(self, uuid, rc, amount):
        """R3."""
        inv = self.providers[uuid].inventory.get(rc)
        if inv is None:
            return False
        used = self.providers[uuid].used.get(rc, 0)
        return (used + amount <= inv.capacity and
                inv.min_unit <= amount <= inv.max_unit and
                amount % inv.step_size == 0)


class Group:
    """One request group. ``required`` is a list of any-of trait sets (a
    plain trait is a one-element set); ``member_of`` a list of any-of
    aggregate sets."""

    def __init__(self, suffix, resources=None, required=(), forbidden=(),
                 member_of=(), forbidden_aggs=()):
        self.suffix = suffix
        self.resources = dict(resources or {})
        self.required = [frozenset(s) for s in required]
        self.forbidden = frozenset(forbidden)
        self.member_of = [frozenset(s) for s in member_of]
        self.forbidden_aggs = frozenset(forbidden_aggs)

    @property
    def granular(self):
        return self.suffix != ''


class Request:
    def __init__(self, groups, version=(1, 39), group_policy=None,
                 same_subtrees=(), root_required=(), root_forbidden=()):
        self.groups = {g.suffix: g for g in groups}
        self.version = version
        self.group_policy = group_policy
        self.same_subtrees = [frozenset(s) for s in same_subtrees]
        self.root_required = frozenset(root_required)
        self.root_forbidden = frozenset(root_forbidden)

    @property
    def granular(self):
        return sorted(s for s in self.groups if s)


def _in_aggs(aggregates, member_of):
    return all(aggregates & any_of for any_of in member_of)


def anchor_violations(world, req, anchor):
    """R1."""
    traits = world.providers[anchor].traits
    out = []
    if not req.root_required <= traits:
        out.append('root %s lacks root_required %s'
                   % (anchor, sorted(req.root_required - traits)))
    if req.root_forbidden & traits:
        out.append('root %s has forbidden root trait %s'
                   % (anchor, sorted(req.root_forbidden & traits)))
    return out


def unsuffixed_class_violations(world, group, anchor, rc, uuid):
    """R2, R3 and the aggregate part of R4 for one class of the group."""
    prov = world.providers[uuid]
    out = []
    if not world.reaches(uuid, anchor):
        out.append('%s (%s) is not in or shared with tree %s'
                   % (uuid, rc, anchor))
    if not world.fits(uuid, rc, group.resources[rc]):
        out.append('%s cannot fit %s:%d' % (uuid, rc, group.resources[rc]))
    if group.member_of and not (
            _in_aggs(prov.aggregates, group.member_of) or
            (world.root(uuid) == anchor and _in_aggs(
                world.providers[anchor].aggregates, group.member_of))):
        out.append('%s (%s) nor its root is in member_of' % (uuid, rc))
    for bad in (uuid, anchor):
        if world.providers[bad].aggregates & group.forbidden_aggs:
            out.append('%s is in a forbidden aggregate' % bad)
    return out


def unsuffixed_violations(world, group, anchor, by_rc):
    """R4: ``by_rc`` maps each class of the group to a provider."""
    out = []
    for rc, uuid in by_rc.items():
        out.extend(unsuffixed_class_violations(world, group, anchor, rc,
                                               uuid))
    used = set(by_rc.values())
    traits = frozenset().union(*(world.providers[u].traits for u in used))
    for any_of in group.required:
        if not any_of & traits:
            out.append('unsuffixed providers %s lack %s'
                       % (sorted(used), sorted(any_of)))
    for uuid in used:
        bad = world.providers[uuid].traits & group.forbidden
        if bad:
            out.append('%s has forbidden %s' % (uuid, sorted(bad)))
    return out


def granular_violations(world, group, anchor, uuid):
    """R2, R3 and R5 for a granular group on one provider."""
    prov = world.providers[uuid]
    out = []
    if not world.reaches(uuid, anchor):
        out.append('group %s: %s is not in or shared with tree %s'
                   % (group.suffix, uuid, anchor))
    for rc, amount in sorted(group.resources.items()):
        if not world.fits(uuid, rc, amount):
            out.append('group %s: %s cannot fit %s:%d'
                       % (group.suffix, uuid, rc, amount))
    for any_of in group.required:
        if not any_of & prov.traits:
            out.append('group %s: %s lacks %s'
                       % (group.suffix, uuid, sorted(any_of)))
    if prov.traits & group.forbidden:
        out.append('group %s: %s has forbidden %s' % (
            group.suffix, uuid, sorted(prov.traits & group.forbidden)))
    if not _in_aggs(prov.aggregates, group.member_of):
        out.append('group %s: %s not in member_of' % (group.suffix, uuid))
    if prov.aggregates & group.forbidden_aggs:
        out.append('group %s: %s in forbidden aggregate'
                   % (group.suffix, uuid))
    return out


def consolidate(req, by_rc, granular):
    """The allocations {(provider, class): amount} of one placement."""
    amounts = {}
    unsuffixed = req.groups.get('')
    for rc, uuid in (by_rc or {}).items():
        key = (uuid, rc)
        amounts[key] = amounts.get(key, 0) + unsuffixed.resources[rc]
    for suffix, uuid in granular.items():
        for rc, amount in req.groups[suffix].resources.items():
            key = (uuid, rc)
            amounts[key] = amounts.get(key, 0) + amount
    return amounts


def combination_violations(world, req, by_rc, granular):
    """R6, R7, R8 and R9 for a whole placement."""
    out = []
    if req.group_policy == 'isolate':
        if len(set(granular.values())) != len(granular):
            out.append('isolate: granular groups share a provider: %s'
                       % sorted(granular.items()))
    for names in req.same_subtrees:
        members = {granular[s] for s in names}
        if not any(all(top in world.lineage(m) for m in members)
                   for top in members):
            out.append('same_subtree %s: no common top among %s'
                       % (sorted(names), sorted(members)))
    amounts = consolidate(req, by_rc, granular)
    for (uuid, rc), amount in sorted(amounts.items()):
        inv = world.providers[uuid].inventory[rc]
        used = world.providers[uuid].used.get(rc, 0)
        if used + amount > inv.capacity or amount > inv.max_unit:
            out.append('%s %s: %d more exceeds capacity %d (used %d, '
                       'max_unit %d)' % (uuid, rc, amount, inv.capacity,
                                         used, inv.max_unit))
    if req.version < (1, 29) and world.has_nested:
        providers = {uuid for uuid, _ in amounts}
        if len({world.root(u) for u in providers}) != len(providers):
            out.append('before 1.29: two providers of one tree %s'
                       % sorted(providers))
    return out


def key(req, by_rc, granular):
    """The candidate as (allocations, mappings), both frozensets."""
    amounts = consolidate(req, by_rc, granular)
    allocations = frozenset((u, rc, n) for (u, rc), n in amounts.items())
    mappings = {s: frozenset([u]) for s, u in granular.items()}
    if by_rc is not None:
        mappings[''] = frozenset(by_rc.values())
    return allocations, frozenset(mappings.items())


def _granular_options(world, req, anchor):
    return [[u for u in sorted(world.providers)
             if not granular_violations(world, req.groups[s], anchor, u)]
            for s in req.granular]


def _unsuffixed_options(world, req, anchor):
    """Every valid class -> provider map of the unsuffixed group, or
    [None] when there is no unsuffixed group."""
    group = req.groups.get('')
    if group is None:
        return [None]
    rcs = sorted(group.resources)
    per_rc = [[u for u in sorted(world.providers)
               if not unsuffixed_class_violations(world, group, anchor, rc,
                                                  u)] for rc in rcs]
    out = []
    for choice in itertools.product(*per_rc):
        by_rc = dict(zip(rcs, choice))
        if not unsuffixed_violations(world, group, anchor, by_rc):
            out.append(by_rc)
    return out


def enumerate_candidates(world, req):
    """Every candidate (see ``key``) that breaks no rule."""
    found = set()
    for anchor in world.roots:
        if anchor_violations(world, req, anchor):
            continue
        unsuffixed = _unsuffixed_options(world, req, anchor)
        granular = _granular_options(world, req, anchor)
        for by_rc in unsuffixed:
            for choice in itertools.product(*granular):
                placed = dict(zip(req.granular, choice))
                if not combination_violations(world, req, by_rc, placed):
                    found.add(key(req, by_rc, placed))
    return found


def explain(world, req, allocations, mappings):
    """Why the returned candidate breaks the rules ([] when it does not).

    ``allocations`` and ``mappings`` are in ``key``'s form. Every anchor and
    every way the unsuffixed classes could sit on its mapped providers is
    tried; the shortest list of broken rules is returned.
    """
    mapped = dict(mappings)
    if set(mapped) != set(req.groups):
        return ['mappings name groups %s, request has %s'
                % (sorted(mapped), sorted(req.groups))]
    granular = {}
    for suffix in req.granular:
        if len(mapped[suffix]) != 1:
            return ['group %s mapped to %d providers'
                    % (suffix, len(mapped[suffix]))]
        granular[suffix] = next(iter(mapped[suffix]))
    unknown = {u for u, _, _ in allocations} - set(world.providers)
    unknown |= set().union(*mapped.values()) - set(world.providers)
    if unknown:
        return ['unknown providers %s' % sorted(unknown)]
    group = req.groups.get('')
    rcs = sorted(group.resources) if group else []
    spots = sorted(mapped.get('', ()))
    best = None
    for anchor in world.roots:
        for choice in itertools.product(spots, repeat=len(rcs)):
            if set(choice) != set(spots):
                continue
            by_rc = dict(zip(rcs, choice)) if group else None
            if key(req, by_rc, granular)[0] != allocations:
                continue
            problems = anchor_violations(world, req, anchor)
            if group:
                problems += unsuffixed_violations(world, group, anchor,
                                                  by_rc)
            for suffix, uuid in granular.items():
                problems += granular_violations(world, req.groups[suffix],
                                                anchor, uuid)
            problems += combination_violations(world, req, by_rc, granular)
            if not problems:
                return []
            if best is None or len(problems) < len(best):
                best = problems
    return best or ['allocations are not the sum of the groups\' amounts '
                    'on the mapped providers']
