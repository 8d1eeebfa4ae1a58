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
  copy (``outline``);
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


class Outline:
    """What a request's classes and aggregate filter make of a copy of
    the trees, whatever the usage: ``anchors``, the sorted ids of the
    roots whose trees, with the sharing providers serving them, have
    inventory of every class; ``sharing`` {sharing rp id: (its root,
    frozenset of the roots it serves)} of the sharing providers that
    may take part; ``flat``: no anchor has providers below it;
    ``eligible`` as ``loader.in_member_aggs`` gives it."""

    __slots__ = ('anchors', 'sharing', 'flat', 'eligible')

    def __init__(self, anchors, sharing, flat, eligible):
        self.anchors = anchors
        self.sharing = sharing
        self.flat = flat
        self.eligible = eligible


def outline(topo, rc_ids, member_aggs=None, any_sharing=False):
    """The Outline of a request for the classes ``rc_ids``, with the
    aggregate filter ``member_aggs`` (see ``load``), serving resourceless
    groups (``any_sharing``), worked out once per copy of the trees.
    The anchors the usage leaves room in are among its ``anchors``, in
    the order the search visits them."""
    key = ('outline', frozenset(rc_ids),
           None if member_aggs is None else frozenset(member_aggs),
           any_sharing)
    return topo.memo(key, lambda: _outline(topo, rc_ids, member_aggs,
                                           any_sharing))


def _outline(topo, rc_ids, member_aggs, any_sharing):
    """``outline`` in set operations over what each class and each
    sharing provider give, kept per copy of the trees: an anchor has,
    for every class, a provider of its own with inventory of it or a
    sharing provider serving it that has."""
    eligible = loader.in_member_aggs(topo, member_aggs)
    by_id = topo.by_id()
    # One memo entry of parts shared by requests of different classes
    # (a fleet with hundreds of sharing providers would flood the memo).
    parts = topo.memo(('outline parts',), dict)
    sharing_ids = _part(parts, 'sharing', lambda: frozenset(
        rp_id for rp_id, names in topo.traits.items()
        if loader.SHARING_TRAIT in names))
    owners, shared_classes = [], {}
    for rc_id in rc_ids:
        stocks = topo.inventories.get(rc_id, {})
        if eligible is None:
            roots = _part(parts, ('roots with', rc_id), lambda: frozenset(
                by_id[rp_id].root_id for rp_id in stocks))
            sharers = sharing_ids.intersection(stocks)
        else:
            found = [rp_id for rp_id in eligible if rp_id in stocks]
            roots = {by_id[rp_id].root_id for rp_id in found}
            sharers = sharing_ids.intersection(found)
        owners.append((rc_id, roots))
        for sharing_id in sharers:
            shared_classes.setdefault(sharing_id, set()).add(rc_id)
    sharing = {}
    for sharing_id in (sharing_ids if any_sharing else shared_classes):
        served = _part(parts, ('served by', sharing_id),
                       lambda: _served(topo, sharing_id))
        if served:
            sharing[sharing_id] = (by_id[sharing_id].root_id, served)
    viable = None
    for rc_id, roots in owners:
        shared = [served for sharing_id, (_root, served) in sharing.items()
                  if rc_id in shared_classes.get(sharing_id, ())]
        if shared:
            roots = roots.union(*shared)
        viable = roots if viable is None else viable & roots
    anchors = sorted(viable or ())
    nested = _part(parts, 'nested', lambda: frozenset(
        root for root, tree in topo.trees.items() if len(tree) > 1))
    return Outline(anchors, sharing, nested.isdisjoint(anchors), eligible)


def _part(parts, key, build):
    found = parts.get(key)
    if found is None:
        found = parts[key] = build()
    return found


def _served(topo, sharing_id):
    """The roots of every provider of the aggregates of ``sharing_id``,
    as the sharing_anchors statement reads them."""
    by_id = topo.by_id()
    return frozenset(by_id[member].root_id
                     for uuid in topo.aggregates.get(sharing_id, ())
                     for member in topo.members.get(uuid, ()))


def applies(groups, limit, randomize, among):
    """Whether ``first`` may serve a request: a limit, in order, for the
    API (not a caller's own subset of providers), without in_tree."""
    return (limit is not None and not randomize and among is None and
            all(group.in_tree is None for group in groups.values()))


def _first_size(limit):
    return max(limit * sampling.FIRST_TIMES_LIMIT, sampling.FIRST_AT_LEAST)


def first(context, names, groups, class_names, wide, limit, least_of,
          member_aggs, nested_aware, collect, most_of=None):
    """(candidates, Snapshot they were found in, the Search that found
    them), or None when declined
    (see the module's text). ``names`` as ``loader.load_names`` read
    them; ``groups`` the request's search.Group list; ``class_names``
    {rc id: name} of the requested classes; ``least_of`` {rc id:
    smallest amount asked}; ``member_aggs`` as ``loader.load`` takes it;
    ``collect(candidates, limit)`` takes the first ``limit``;
    ``most_of`` as ``loader.load`` takes it."""
    topo = topology.current(context, names.stamp,
                            inventories.stored_ratio(context))
    any_sharing = any(not group.resources for group in groups)
    found = outline(topo, least_of, member_aggs, any_sharing)
    everything = found.anchors
    size = _first_size(limit)
    if len(everything) <= size:
        return None
    lone = (len(groups) == 1 and not groups[0].suffix and
            not found.sharing and found.flat)
    while True:
        part = everything[:size]
        snap = loader.load_part(context, names, topo, least_of, found, part,
                                member_aggs, any_sharing, most_of)
        finder = search.Search(
            snap, groups, class_names, isolate=wide.group_policy == 'isolate',
            same_subtrees=wide.same_subtrees,
            root_required=wide.root_required,
            root_forbidden=wide.root_forbidden, nested_aware=nested_aware,
            spread=lone, anchors=set(part))
        candidates = collect(finder.candidates(), limit) \
            if snap.inventory else []
        if finder.first_round >= limit or size >= len(everything):
            return candidates, snap, finder
        size *= sampling.GROWTH
