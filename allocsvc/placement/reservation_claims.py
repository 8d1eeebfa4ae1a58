"""A reservation chosen by the engine: N slots of an allocation
candidates query, held together over a window (``POST /reservations``
with ``query`` and ``count``).

The candidates are searched as a reservation of the window needs room
(``reservations.for_window``: against the most the reservations hold
at an instant of it, and the load now when it holds the present), then
N of them are taken with the rules of a group claim (``group_claims``:
jointly, so a provider serves several slots while its room lasts;
spread over failure domains; packed, spread or random order). What
they take is then held as one reservation, checked again under the
providers' locks (``reservations.create``); when another writer took
the room in between, the choice is made again, a bounded number of
times.
"""

from allocsvc.common import exception
from allocsvc.placement import group_claims
from allocsvc.placement import reservations


class _Slot:
    """A consumer of the group claim's choice: a slot of the
    reservation (nothing is written for it)."""

    def __init__(self, index):
        self.uuid = 'slot-%d' % index


def create(context, project_id, start, end, groups, wide, count,
           spread=None, order=None, limit=None, nested_aware=True,
           attempts=10, uuid=None):
    """Hold ``count`` slots of the candidates query ``groups``, ``wide``
    for project ``project_id`` over [``start``, ``end``): the new
    Reservation, and the Claimed choice (its spread). Unsatisfied (409)
    when the slots cannot be found, or stay taken by other writers."""
    at = reservations.now()
    reservations.check_window(start, end, at)
    slots = [_Slot(i) for i in range(count)]
    last = None
    for _attempt in range(attempts):
        with reservations.for_window(start, end):
            claimed = group_claims.choose(
                context, groups, wide, slots, spread=spread, order=order,
                limit=limit, nested_aware=nested_aware)
        amounts = {}
        for _slot, candidate, _domains in claimed.chosen:
            for rp, entry in candidate.allocations.items():
                held = amounts.setdefault(rp, {})
                for rc, amount in entry['resources'].items():
                    held[rc] = held.get(rc, 0) + amount
        try:
            made = reservations.create(context, project_id, start, end,
                                       amounts, uuid=uuid)
        except exception.Conflict as exc:
            if exc.error_code != reservations.UNSATISFIED:
                raise
            last = exc
            continue
        return made, claimed
    raise group_claims.Unsatisfied(
        'Other writers took the room chosen for the reservation %d times: '
        '%s' % (attempts, last.message))
