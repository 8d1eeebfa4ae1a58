"""The first few candidates of a request, from the first few trees.

Without randomizing, the search gives one candidate per anchor in anchor
(root id) order, then the others round-robin (``search``): when the
first ``limit`` anchors that have a candidate give it, the rest of the
answer is never looked at. ``first`` serves a request with a ``limit``
from a prefix of its anchors, reading the usage of those trees alone,
so that its cost follows the limit and not the number of providers:

- the anchors whatever the usage -- the roots whose trees, with the
  sharing providers serving them, have inventory of every requested
  class -- come from the process' copy of the trees, worked out once per
  copy (``loader.outline``);
- the search runs over the first ``2 x limit`` of them (at least 16),
  then four times more each time, until the first round of the search
  gives ``limit`` candidates or the prefix holds every anchor. The
  answer is then the general search's, candidate for candidate: each
  anchor's candidates depend only on its tree and its sharing providers,
  which the prefix reads whole, and the candidates found twice (those of
  sharing providers alone) are found first at the same anchor.

When every candidate is a lone root (one group, trees of one provider,
no sharing provider), the candidates of each prefix come most room
first (``search.Search._headroom``), which spreads clients that claim
the first candidate over the providers; the prefix grows while it holds
fewer providers with room than the limit.

It declines (returns None) the requests the general search answers with
no more work or another way: those with an ``in_tree`` (one tree; the
anchors' order says nothing of where it is) and those whose anchors fit
in the first prefix anyway.
"""

from allocsvc.placement.candidates import loader
from allocsvc.placement.candidates import sampling
from allocsvc.placement.candidates import search
from allocsvc.placement import inventories
from allocsvc.placement import topology


def applies(groups, limit, randomize, among):
    """Whether ``first`` may serve a request: a limit, in order, for the
    API (not a caller's own subset of providers), without in_tree."""
    return (limit is not None and not randomize and among is None and
            all(group.in_tree is None for group in groups.values()))


def _first_size(limit):
    return max(limit * sampling.FIRST_TIMES_LIMIT, sampling.FIRST_AT_LEAST)


def first(context, names, groups, class_names, wide, limit, least_of,
          member_aggs, nested_aware, collect):
    """(candidates, Snapshot they were found in), or None when declined
    (see the module's text). ``names`` as ``loader.load_names`` read
    them; ``groups`` the request's search.Group list; ``class_names``
    {rc id: name} of the requested classes; ``least_of`` {rc id:
    smallest amount asked}; ``member_aggs`` as ``loader.load`` takes it;
    ``collect(candidates, limit)`` takes the first ``limit``."""
    topo = topology.current(context, names.stamp,
                            inventories.stored_ratio(context))
    any_sharing = any(not group.resources for group in groups)
    found = loader.outline(topo, least_of, member_aggs, any_sharing)
    everything = found.anchors
    size = _first_size(limit)
    if len(everything) <= size:
        return None
    lone = (len(groups) == 1 and not groups[0].suffix and
            not found.sharing and found.flat)
    while True:
        part = everything[:size]
        snap = loader.load_part(context, names, topo, least_of, found, part,
                                member_aggs, any_sharing)
        finder = search.Search(
            snap, groups, class_names, isolate=wide.group_policy == 'isolate',
            same_subtrees=wide.same_subtrees,
            root_required=wide.root_required,
            root_forbidden=wide.root_forbidden, nested_aware=nested_aware,
            spread=lone, anchors=set(part))
        candidates = collect(finder.candidates(), limit) \
            if snap.inventory else []
        if finder.first_round >= limit or size >= len(everything):
            return candidates, snap
        size *= sampling.GROWTH
