"""Which providers may fill each slot of a request, and the rules a
choice of providers must keep.

Every request group becomes one or more *slots*: a granular group is one
slot (one provider for all its resources); the unsuffixed group is one
slot per resource class (each class from one provider of the tree or a
provider sharing with it). ``Planner`` finds, per *anchor* (the root of
the tree a candidate belongs to; sharing providers serve several
anchors), the providers that may fill each slot on their own: they have
the room, traits and aggregates it asks for. ``Rules`` checks what can
only be judged on a choice of one provider per slot: the room the slots
share, group_policy=isolate, same_subtree, the unsuffixed group's
traits (which its providers may have between them) and, before
microversion 1.29, one provider per tree.
"""

import collections
import random


def has_traits(traits, required, forbidden):
    """``traits`` meet every any-of set of ``required`` and miss every
    name of ``forbidden``."""
    return (all(traits & any_of for any_of in required) and
            not traits & forbidden)


def alone_admits(snap, wanted, required, forbidden, member_of, bad):
    """A function telling whether a provider of ``snap`` alone has room
    for ``wanted`` [(rc id, amount)] and has the traits (``required``
    any-of sets, ``forbidden``) and aggregates (``member_of`` any-of
    sets, ``bad`` forbidden) a group asks of it."""
    inventory, traits, aggregates = (snap.inventory, snap.traits,
                                     snap.aggregates)
    wanted = list(wanted)
    empty = frozenset()

    def admits(rp_id):
        for rc_id, amount in wanted:
            inv = inventory.get((rp_id, rc_id))
            if inv is None or not inv.fits(amount):
                return False
        if (required or forbidden) and not has_traits(
                traits.get(rp_id, empty), required, forbidden):
            return False
        if member_of or bad:
            aggs = aggregates.get(rp_id, empty)
            if not all(aggs & any_of for any_of in member_of):
                return False
            if aggs & bad:
                return False
        return True
    return admits


class SlotSpec:
    """One slot of the request: its group's ``suffix``, ``amounts`` {rc
    id: amount}, ``named`` [(class name, amount)] as a candidate shows
    them, ``granular`` (one provider for the whole group), and
    ``by_anchor`` {anchor: [rp id]} the providers that may fill it."""

    __slots__ = ('suffix', 'amounts', 'named', 'granular', 'by_anchor')

    def __init__(self, suffix, amounts, named, granular, by_anchor):
        self.suffix = suffix
        self.amounts = amounts
        self.named = named
        self.granular = granular
        self.by_anchor = by_anchor


class Slot:
    """One slot within one anchor: its spec's fields and ``choices``, the
    providers of that anchor that may fill it."""

    __slots__ = ('suffix', 'amounts', 'named', 'choices', 'granular')

    def __init__(self, spec, choices):
        self.suffix = spec.suffix
        self.amounts = spec.amounts
        self.named = spec.named
        self.granular = spec.granular
        self.choices = choices


class Planner:
    """The slots of one request over one loader.Snapshot.

    ``groups``: search.Group list; ``class_names`` {rc id: name};
    ``root_required``: any-of sets (one trait name each) the anchor must
    meet; ``root_forbidden``: trait names it must lack;
    ``plain_required``: the unsuffixed group's any-of sets of traits;
    ``randomize``: each anchor's choices in random order; ``isolate``:
    group_policy=isolate.

    ``stages``: [(name, anchors)] the anchors ``plan`` kept after each
    of its checks ('groups': those every slot can be filled at, then
    'required' and 'group_policy' when they apply), for the
    explanation.
    """

    def __init__(self, snap, groups, class_names, root_required,
                 root_forbidden, plain_required, randomize, isolate=False):
        self.snap = snap
        self.groups = groups
        self.class_names = class_names
        self.root_required = root_required
        self.root_forbidden = root_forbidden
        self.plain_required = plain_required
        self.randomize = randomize
        self.isolate = isolate
        self._by_class = None
        self._anchor_ok = {}
        self._plain_anchors = {}
        self._granular = {}
        self.stages = []

    def plan(self):
        """[SlotSpec] for every slot, and the anchors that can fill them
        all."""
        self._by_class = self._providers_by_class()
        names = self.class_names
        plan = []
        for group in self.groups:
            if group.suffix:
                plan.append(SlotSpec(
                    group.suffix, group.resources,
                    [(names[rc], amount)
                     for rc, amount in sorted(group.resources.items())],
                    True, self._granular_choices(group)))
            else:
                for rc_id, amount in sorted(group.resources.items()):
                    plan.append(SlotSpec(
                        '', {rc_id: amount}, [(names[rc_id], amount)],
                        False, self._class_choices(group, rc_id, amount)))
        anchors = None
        for spec in plan:
            keys = set(spec.by_anchor)
            anchors = keys if anchors is None else anchors & keys
        anchors = sorted(anchors or ())
        stages = self.stages = [('groups', anchors)]
        if self.plain_required:
            plain = [spec.by_anchor for spec in plan if not spec.granular]
            anchors = [a for a in anchors if self._may_meet_plain(plain, a)]
            stages.append(('required', anchors))
        granular = [spec.by_anchor for spec in plan if spec.granular]
        if self.isolate and len(granular) > 1:
            anchors = [a for a in anchors if self._may_isolate(granular, a)]
            stages.append(('group_policy', anchors))
        return plan, anchors

    @staticmethod
    def _may_isolate(granular, anchor):
        """Whether the granular slots ``granular`` ([{anchor: [rp id]}])
        have, between them, as many providers at ``anchor`` as there are
        slots, as group_policy=isolate needs: a flat provider serving
        two isolated groups has no candidate, and need not be searched."""
        distinct = set()
        for by_anchor in granular:
            distinct.update(by_anchor[anchor])
        return len(distinct) >= len(granular)

    def slots(self, plan, anchor):
        """The Slots of ``anchor``: the unsuffixed group's first, then
        the granular ones, fewest choices first (dead ends show up
        sooner)."""
        slots, granular = [], []
        for spec in plan:
            choices = spec.by_anchor[anchor]
            if self.randomize:
                choices = list(choices)
                random.shuffle(choices)
            (granular if spec.granular else slots).append(
                Slot(spec, choices))
        if len(granular) > 1:
            granular.sort(key=lambda s: (len(s.choices), s.suffix))
        return slots + granular

    def _providers_by_class(self):
        """{rc id: [rp id]} the providers read with inventory of each
        class, in id order: the pools the slots' choices come from."""
        snap = self.snap
        by_class = collections.defaultdict(list)
        for rp_id, rc_id in snap.inventory:
            if rp_id in snap.providers:
                by_class[rc_id].append(rp_id)
        for rps in by_class.values():
            rps.sort()
        return by_class

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
        in_tree. Groups asking the same of one provider (a NUMA pair:
        two groups of VCPU and MEMORY_MB) share one answer, which is
        only read."""
        key = (tuple(sorted(group.resources.items())),
               tuple(group.required), group.forbidden,
               tuple(group.member_of), group.forbidden_aggs, group.in_tree)
        found = self._granular.get(key)
        if found is not None:
            return found
        snap = self.snap
        if group.resources:
            pool = self._by_class.get(min(group.resources), ())
        else:
            pool = sorted(snap.providers)
        admits = alone_admits(snap, group.resources.items(), group.required,
                              group.forbidden, group.member_of,
                              group.forbidden_aggs)
        in_tree = group.in_tree
        allowed = self._anchor_allowed
        found = self._granular[key] = collections.defaultdict(list)
        for rp_id in pool:
            if not admits(rp_id):
                continue
            if in_tree is not None and \
                    snap.providers[rp_id].root_id != in_tree:
                continue
            for anchor in snap.anchors(rp_id):
                if allowed(anchor):
                    found[anchor].append(rp_id)
        return found

    def _class_choices(self, group, rc_id, amount):
        """{anchor: [rp id]} of the providers that may serve ``amount``
        of ``rc_id`` for the unsuffixed group: a provider of the anchor's
        tree whose aggregates (or its root's) match, or a sharing provider
        itself in the aggregates. None may have a forbidden trait.
        (Called once per class of every request: the lookups are local,
        and what does not depend on the anchor is worked out once per
        provider.)"""
        inventory = self.snap.inventory
        anchors_of = self._plain_anchors_of(group)
        by_anchor = collections.defaultdict(list)
        for rp_id in self._by_class.get(rc_id, ()):
            if inventory[(rp_id, rc_id)].fits(amount):
                for anchor in anchors_of(rp_id):
                    by_anchor[anchor].append(rp_id)
        return by_anchor

    def _plain_anchors_of(self, group):
        """A function giving the anchors a provider may serve the
        unsuffixed ``group`` at. With nothing to check but room (most
        requests), those it may serve at all; else ``_plain_served``,
        worked out once per provider for all the group's classes."""
        if not (group.forbidden or group.member_of or group.forbidden_aggs or
                group.in_tree is not None or self.root_required or
                self.root_forbidden):
            return self.snap.anchors
        served = self._plain_anchors.setdefault(id(group), {})

        def anchors_of(rp_id):
            found = served.get(rp_id)
            if found is None:
                found = served[rp_id] = self._plain_served(group, rp_id)
            return found
        return anchors_of

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

    def _may_meet_plain(self, plain, anchor):
        """Whether the providers that may serve the unsuffixed group's
        slots ``plain`` ([{anchor: [rp id]}]) at ``anchor`` have, between
        them, the traits that group requires: if not, no combination of
        them can, and the anchor need not be searched."""
        traits = self._traits
        return all(
            any(not any_of.isdisjoint(traits(rp_id))
                for by_anchor in plain for rp_id in by_anchor[anchor])
            for any_of in self.plain_required)


def share_a_class(slot_amounts):
    """Whether two of the slots, given by their {rc id: amount}, ask for
    one class."""
    seen = set()
    for amounts in slot_amounts:
        if not seen.isdisjoint(amounts):
            return True
        seen.update(amounts)
    return False


def slot_amounts(groups):
    """The {rc id: amount} of each slot of ``groups`` (search.Group):
    the unsuffixed group's one per class, a granular group's whole."""
    for group in groups:
        if group.suffix:
            yield group.resources
        else:
            for rc_id, amount in group.resources.items():
                yield {rc_id: amount}


class Rules:
    """The rules a choice of providers, one per slot, must keep beyond
    each provider's own fitness (``Planner`` saw to that).

    ``isolate``: group_policy=isolate, no provider in two granular
    slots; ``same_subtrees``: suffix sets whose slots' providers must
    all lie under one of them; ``nested_aware``: microversion 1.29 or
    later (before, one provider per tree); ``plain_required``: the
    any-of sets of traits the unsuffixed group's providers must meet
    between them.
    """

    def __init__(self, snap, isolate, same_subtrees, nested_aware,
                 plain_required):
        self.snap = snap
        self.isolate = isolate
        self.same_subtrees = same_subtrees
        self.nested_aware = nested_aware
        self.plain_required = plain_required
        # Whether two slots may draw on one inventory (see ``prepare``).
        self.shared_room = True
        self._ancestors = {}

    def prepare(self, plan):
        """Note whether two slots of ``plan`` ([SlotSpec]) ask for one
        class. If none do, each slot draws on inventories no other slot
        touches, the Planner already chose only providers with room for
        each slot alone, and ``valid`` need not count the room again:
        for most requests (one unsuffixed group, each of its classes a
        slot) that count was most of the time spent per candidate."""
        self.shared_room = share_a_class(spec.amounts for spec in plan)

    def subtree_members(self, slots):
        """The indices in ``slots`` of each same_subtree's slots, for
        those with two slots or more (a lone slot is its own subtree)."""
        return [members for members in (
            [i for i, slot in enumerate(slots) if slot.suffix in suffixes]
            for suffixes in self.same_subtrees) if len(members) > 1]

    def same_subtree(self, rps):
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

    def plain_traits_met(self, slots, chosen):
        """Whether the providers ``chosen`` for the unsuffixed group's
        slots among ``slots`` (the granular ones are passed over) have,
        between them, the traits that group requires."""
        traits = self.snap.traits
        empty = frozenset()
        found = set()
        for slot, rp_id in zip(slots, chosen):
            if not slot.granular:
                found |= traits.get(rp_id, empty)
        # has_traits without forbidden traits (checked per provider).
        return all(not any_of.isdisjoint(found)
                   for any_of in self.plain_required)

    def valid(self, slots, chosen, subtrees):
        """Whether the providers ``chosen`` for ``slots`` (one each) break
        no rule: the checks the depth-first walk makes slot by slot, on a
        whole assignment at once. ``subtrees``: ``subtree_members`` of
        ``slots`` (checked first: it is what rules out most
        combinations)."""
        for members in subtrees:
            if not self.same_subtree([chosen[i] for i in members]):
                return False
        isolate, nested_aware = self.isolate, self.nested_aware
        shared_room = self.shared_room
        if isolate or shared_room or not nested_aware:
            snap = self.snap
            inventory = snap.inventory
            consumed = {}
            granular_used = set()
            owners = {}
            for slot, rp_id in zip(slots, chosen):
                if isolate and slot.granular:
                    if rp_id in granular_used:
                        return False
                    granular_used.add(rp_id)
                if not nested_aware:
                    root = snap.providers[rp_id].root_id
                    if owners.setdefault(root, rp_id) != rp_id:
                        return False
                if not shared_room:
                    continue
                for rc_id, amount in slot.amounts.items():
                    key = (rp_id, rc_id)
                    total = consumed.get(key, 0) + amount
                    inv = inventory[key]
                    if total > inv.max_unit or \
                            inv.used + total > inv.capacity:
                        return False
                    consumed[key] = total
        return not self.plain_required or self.plain_traits_met(slots, chosen)
