"""Allocation candidates: GET /allocation_candidates' engine.

``find`` loads the providers that can matter to a parsed request
(``request``) in a few queries, resolving its names on the way
(``loader``), searches the candidates lazily up to the limit
(``search``) and summarises their providers (``summaries``), all in one
reader transaction.
"""

import contextlib
import gc
import itertools
import sys
import threading

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.placement.candidates import loader
from allocsvc.placement.candidates import prefix
from allocsvc.placement.candidates import request as request_mod
from allocsvc.placement.candidates import sampling
from allocsvc.placement.candidates import search
from allocsvc.placement.candidates import summaries as summaries_mod
from allocsvc.placement import query
from allocsvc.placement import reservations

# A group whose in_tree names no provider: it matches nothing.
_NOWHERE = -1


class Result:
    """``allocation_requests``: [search.Candidate];
    ``provider_summaries`` as ``summaries.summarize`` gives them."""

    __slots__ = ('allocation_requests', 'provider_summaries')

    def __init__(self, allocation_requests=(), provider_summaries=None):
        self.allocation_requests = list(allocation_requests)
        self.provider_summaries = provider_summaries or {}


def check_names(groups, wide, found):
    """BadRequest for the first unknown resource class, or the unknown
    traits, of a request whose names ``loader.load`` looked up."""
    classes = set()
    for group in groups.values():
        classes |= set(group.resources)
    unknown = sorted(classes - set(found.classes))
    if unknown:
        raise exception.BadRequest(
            'Invalid resource class in resources parameter: No such '
            'resource class %s.' % unknown[0])
    unknown = request_mod.all_trait_names(groups, wide) - found.traits
    if unknown:
        raise query.unknown_traits(unknown)


def resolve(groups, class_ids, tree_roots):
    resolved = []
    for suffix in sorted(groups):
        group = groups[suffix]
        in_tree = None
        if group.in_tree is not None:
            in_tree = tree_roots.get(group.in_tree, _NOWHERE)
        resolved.append(search.Group(
            suffix, {class_ids[n]: a for n, a in group.resources.items()},
            [frozenset(s) for s in group.required],
            frozenset(group.forbidden),
            [frozenset(s) for s in group.member_of],
            frozenset(group.forbidden_aggs), in_tree))
    return resolved


def _member_aggs(groups):
    """When every group with resources requires aggregates, the union of
    those it names: a provider serving any of them is in one, or its root
    is. None otherwise (no provider can be left out for that reason)."""
    members = set()
    for group in groups:
        if not group.resources:
            continue
        if not group.member_of:
            return None
        for any_of in group.member_of:
            members |= any_of
    return members or None


def _among(candidates, uuids):
    """The candidates that use only providers of ``uuids``."""
    for candidate in candidates:
        if uuids.issuperset(candidate.allocations):
            yield candidate


def _collect(candidates, limit):
    """Up to ``limit`` candidates, in a list (the collector paused, even
    for a caller that did not pause it for the whole request)."""
    with gc_paused():
        return list(itertools.islice(candidates, limit))


_gc_lock = threading.Lock()


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic garbage collector while a request builds its
    answer. A request makes tens of thousands of acyclic containers
    (rows, candidates, summaries) in a few milliseconds; each full
    collection they trigger walks every live object of the process
    again, which doubled the time of a large answer.

    The request that paused the collector starts it again when it is
    done, even while other requests (which found it paused and left it
    so) are still running: under a steady flow of overlapping requests
    the collector still gets to run, at the latest with the next
    allocation, and cyclic garbage cannot pile up.
    """
    with _gc_lock:
        owner = gc.isenabled()
        if owner:
            gc.disable()
    try:
        yield
    finally:
        if owner:
            gc.enable()


@db_api.reader
def find(context, groups, wide, limit=None, nested_aware=True,
         randomize=False, all_classes=True, among=None, summaries=True,
         record=None, counted=False):
    """The candidates of a request parsed by ``request.parse``.

    ``limit``: the most candidates to return (None: all; a request
    for a few at random of one provider each is served from a sample,
    ``sampling``);
    ``nested_aware``: microversion 1.29 or later (before, no candidate
    uses two providers of one tree and summaries show only the providers
    used); ``randomize``: shuffle; ``all_classes``: summaries show every
    inventory (1.27), not only the requested classes; ``among``: a set
    of provider uuids the candidates must keep to (callers of the engine,
    not the API); without ``summaries`` the result has none;
    ``record``: a dict where the search that found the candidates is
    put, as 'search' (``search.Search``, for the explanation; none for
    an answer drawn from a sample or known empty before any search);
    ``counted``: the summaries' ``used`` of the requested classes is what
    the search counted as used (what is allocated and what active
    reservations hold back) rather than what is allocated, for callers
    that fit several consumers on one provider (group claims).
    BadRequest for an unknown resource class or trait.
    """
    if limit is not None and limit > sys.maxsize:
        # More than any list can hold (and than islice takes): all of
        # them, as Placement answers such a limit.
        limit = None
    served = reservations.named(context, {
        name for group in groups.values() for name in group.resources})
    if served:
        return _find_reserved(
            context, groups, wide, served, limit=limit,
            nested_aware=nested_aware, randomize=randomize,
            all_classes=all_classes, among=among, summaries=summaries,
            record=record, counted=counted)
    in_trees = {g.in_tree for g in groups.values() if g.in_tree}
    min_amounts = {}
    for group in groups.values():
        for name, amount in group.resources.items():
            min_amounts[name] = min(amount, min_amounts.get(name, amount))
    trait_names = request_mod.all_trait_names(groups, wide)
    most_of = None
    if not counted:
        # What reservations hold back is then read exactly only where
        # counting all they hold as used could leave too little room
        # for what a candidate may take of a class from one inventory
        # (``loader.load``); the room ordering the first candidates
        # counts all they hold as used.
        most_of = {}
        for group in groups.values():
            for name, amount in group.resources.items():
                most_of[name] = most_of.get(name, 0) + amount
    sample = sampling.applies(groups, wide, limit, randomize, summaries)
    if sample or prefix.applies(groups, limit, randomize, among):
        names = loader.load_names(context, min_amounts, trait_names,
                                  in_trees)
        check_names(groups, wide, names)
        resolved = resolve(groups, names.classes, names.roots)
        if sample:
            found = sampling.sample(context, names, resolved[0], wide,
                                    limit, among)
            if found is not None:
                return Result(found)
        else:
            class_names = {rc_id: name
                           for name, rc_id in names.classes.items()}
            first = prefix.first(
                context, names, resolved, class_names, wide, limit,
                {names.classes[n]: a for n, a in min_amounts.items()},
                _member_aggs(resolved), nested_aware, _collect, most_of)
            if first is not None:
                if record is not None:
                    record['search'] = first[2]
                return _answer(context, first[1], first[0], summaries,
                               nested_aware, class_names, all_classes)
    snap = loader.load(
        context, min_amounts, trait_names, in_trees=in_trees,
        any_sharing=any(not g.resources for g in groups.values()),
        member_aggs=_member_aggs(groups.values()), most_of=most_of)
    check_names(groups, wide, snap.names)
    if not snap.inventory:
        return Result()
    class_ids = snap.names.classes
    resolved = resolve(groups, class_ids, snap.names.roots)
    loader.load_trees(context, snap)
    names = {rc_id: name for name, rc_id in class_ids.items()}
    finder = search.Search(
        snap, resolved, names, isolate=wide.group_policy == 'isolate',
        same_subtrees=wide.same_subtrees, root_required=wide.root_required,
        root_forbidden=wide.root_forbidden, nested_aware=nested_aware,
        randomize=randomize, spread=limit is not None)
    if record is not None:
        record['search'] = finder
    candidates = finder.candidates()
    if among is not None:
        candidates = _among(candidates, among)
    return _answer(context, snap, _collect(candidates, limit), summaries,
                   nested_aware, names, all_classes)


def _find_reserved(context, groups, wide, served, among=None, **options):
    """``find`` for a request naming reservation classes (``served``,
    ``reservations.named``): none while a reservation is not active;
    else the candidates of the request without those classes, within
    the trees the reservations hold amounts in, with what their
    projects hold there counted as free, and each class put back into
    the candidates on a provider of its group (one the reservation
    holds amounts on, when the group uses one)."""
    if not all(entry.active for entry in served.values()):
        return Result()
    trees = set.intersection(*(entry.trees for entry in served.values()))
    among = trees if among is None else set(among) & trees
    plain, marks = {}, {}
    for suffix, group in groups.items():
        copy = request_mod.RequestGroup(suffix)
        for field in group.__slots__:
            setattr(copy, field, getattr(group, field))
        copy.resources = {name: amount
                          for name, amount in group.resources.items()
                          if name not in served}
        marks[suffix] = {name: amount
                         for name, amount in group.resources.items()
                         if name in served}
        plain[suffix] = copy
    with reservations.exempting({e.project_id for e in served.values()}):
        result = find(context, plain, wide, among=among, **options)
    for candidate in result.allocation_requests:
        _mark(candidate, marks, served, result.provider_summaries)
    return result


def _mark(candidate, marks, served, summaries):
    """Put the reservation classes of each group (``marks`` {suffix:
    {class name: amount}}) into ``candidate``, in place."""
    allocations = {rp: {'resources': dict(entry['resources'])}
                   for rp, entry in candidate.allocations.items()}
    for suffix, classes in marks.items():
        used = candidate.mappings.get(suffix) or sorted(allocations)
        for name, amount in classes.items():
            held = served[name].held_uuids
            rp = next((u for u in used if u in held), used[0])
            allocations.setdefault(rp, {'resources': {}})['resources'][
                name] = amount
            summary = summaries.get(rp)
            if summary is not None:
                summary['resources'][name] = {'capacity': amount,
                                              'used': 0}
    candidate.allocations = allocations


def _answer(context, snap, found, summaries, nested_aware, class_names,
            all_classes):
    """The Result of the candidates ``found`` in ``snap``, with their
    provider summaries when ``summaries``."""
    if not found or not summaries:
        return Result(found)
    provider_summaries = summaries_mod.summarize(
        context, snap, found, whole_trees=nested_aware,
        class_names=class_names,
        rc_ids=None if all_classes else snap.requested)
    return Result(found, provider_summaries)
