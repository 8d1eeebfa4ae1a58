"""The depth-first walk over the slots of one anchor with many choices.

Slots are filled one at a time, in order, from the providers that may
serve them; a partial assignment is abandoned as soon as it breaks a
rule (``planning.Rules``: capacity -- the room left is tracked as slots
consume it --, group_policy=isolate, same_subtree, the unsuffixed
group's traits, one provider per tree before microversion 1.29) or as
soon as a cheap bound shows the remaining slots cannot all be filled.
The work grows with the number of assignments taken from the walk, not
with the product of the slots' choices.
"""

import collections


def _bounds(inventory, slots):
    """Per slot index i, what slots i.. still need: granular count and
    the providers they may use; demand per class and the providers
    that may serve it, with their total room."""
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
            inventory[(rp, rc)].room() for rp in servers[rc]))
            for rc in demand}
        bounds[i] = (granular, frozenset(union), dict(demand), room)
    return bounds


class Walk:
    """One walk over ``slots`` (planning.Slot list, the unsuffixed group's
    first) under ``rules`` (planning.Rules). ``assignments`` gives, lazily,
    every tuple of one provider id per slot that keeps the rules, in the
    order of the slots' choices; a Walk serves one walk.

    What the steps share: ``chosen`` the provider of each slot so far
    (None past the current one), ``consumed`` {(rp id, rc id): amount}
    the slots so far take, ``used`` {rp id: count} the granular slots
    each provider fills, ``owners`` {root id: (rp id, count)} the one
    provider each tree gives and how many slots it fills (before 1.29).
    """

    __slots__ = ('rules', 'slots', 'providers', 'inventory', 'isolate',
                 'nested_aware', 'bounds', 'plain_at', 'subtree_checks',
                 'chosen', 'consumed', 'used', 'owners')

    def __init__(self, rules, slots):
        snap = rules.snap
        self.rules = rules
        self.slots = slots
        self.providers = snap.providers
        self.inventory = snap.inventory
        self.isolate = rules.isolate
        self.nested_aware = rules.nested_aware
        self.bounds = _bounds(snap.inventory, slots)
        # The unsuffixed group's traits are checked once its last slot
        # is filled (``plain_at``, -1 if they need no check), each
        # same_subtree once its last slot is (``subtree_checks`` {slot
        # index: [slot indices]}); the other slots have nothing to check.
        self.plain_at = -1
        if rules.plain_required:
            self.plain_at = max(
                (i for i, s in enumerate(slots) if not s.granular),
                default=-1)
        self.subtree_checks = {}
        for members in rules.subtree_members(slots):
            self.subtree_checks.setdefault(max(members), []).append(members)
        self.chosen = [None] * len(slots)
        self.consumed = {}
        self.used = collections.Counter()
        self.owners = {}

    def assignments(self):
        """The assignments, depth-first: ``choices[i]`` walks slot i's
        providers; a level is left when they run out."""
        slots, chosen = self.slots, self.chosen
        take, give_back, feasible = self._take, self._give_back, self._feasible
        count = len(slots)
        if not feasible(0):
            return
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
                yield tuple(chosen)
            elif feasible(i + 1):
                i += 1
                choices[i] = iter(slots[i].choices)

    def _feasible(self, i):
        """Whether slots i.. may still all be filled: enough distinct
        providers left for the granular ones (isolate), enough room left
        in their servers for each class."""
        granular, union, demand, room = self.bounds[i]
        if self.isolate and granular > 1:
            used = self.used
            taken = sum(1 for rp in used if used[rp] and rp in union)
            if len(union) - taken < granular:
                return False
        consumed = self.consumed
        for rc_id, need in demand.items():
            servers, total = room[rc_id]
            spent = sum(v for (rp, rc), v in consumed.items()
                        if rc == rc_id and rp in servers)
            if total - spent < need:
                return False
        return True

    def _take(self, i, rp_id):
        """Put ``rp_id`` in slot i if it breaks no rule."""
        slot = self.slots[i]
        granular = slot.granular
        used = self.used
        if self.isolate and granular and used[rp_id]:
            return False
        nested_aware = self.nested_aware
        if not nested_aware:
            owners = self.owners
            root = self.providers[rp_id].root_id
            owner = owners.get(root)
            if owner is not None and owner[0] != rp_id:
                return False
        amounts = slot.amounts.items()
        inventory, consumed = self.inventory, self.consumed
        for rc_id, amount in amounts:
            inv = inventory[(rp_id, rc_id)]
            total = consumed.get((rp_id, rc_id), 0) + amount
            if total > inv.max_unit or inv.used + total > inv.capacity:
                return False
        for rc_id, amount in amounts:
            key = (rp_id, rc_id)
            consumed[key] = consumed.get(key, 0) + amount
        if granular:
            used[rp_id] += 1
        if not nested_aware:
            owners[root] = (rp_id, owner[1] + 1 if owner else 1)
        self.chosen[i] = rp_id
        if (i != self.plain_at and i not in self.subtree_checks or
                self._rules_hold(i)):
            return True
        self._give_back(i)
        return False

    def _rules_hold(self, i):
        """Whether the rules that wait for slot i, the last of their
        slots, hold now that it is filled."""
        chosen, rules = self.chosen, self.rules
        if i == self.plain_at and not rules.plain_traits_met(self.slots,
                                                             chosen):
            return False
        for members in self.subtree_checks.get(i, ()):
            if not rules.same_subtree(chosen[j] for j in members):
                return False
        return True

    def _give_back(self, i):
        """Empty slot i, returning what its provider gave."""
        chosen = self.chosen
        rp_id, slot = chosen[i], self.slots[i]
        chosen[i] = None
        if not self.nested_aware:
            owners = self.owners
            root = self.providers[rp_id].root_id
            owner = owners[root]
            if owner[1] == 1:
                del owners[root]
            else:
                owners[root] = (rp_id, owner[1] - 1)
        if slot.granular:
            self.used[rp_id] -= 1
        consumed = self.consumed
        for rc_id, amount in slot.amounts.items():
            key = (rp_id, rc_id)
            consumed[key] -= amount
            if not consumed[key]:
                del consumed[key]
