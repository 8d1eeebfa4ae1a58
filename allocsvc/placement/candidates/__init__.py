"""Allocation candidates: GET /allocation_candidates' engine.

``find`` resolves the names of a parsed request (``request``), loads the
providers that can matter in a few queries (``loader``), searches the
candidates lazily up to the limit (``search``) and summarises their
providers (``summaries``), all in one reader transaction.
"""

import gc
import itertools

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.placement.candidates import loader
from allocsvc.placement.candidates import request as request_mod
from allocsvc.placement.candidates import search
from allocsvc.placement.candidates import summaries
from allocsvc.placement import resource_classes
from allocsvc.placement import traits as traits_mod

# A group whose in_tree names no provider: it matches nothing.
_NOWHERE = -1


class Result:
    """``allocation_requests``: [search.Candidate];
    ``provider_summaries`` as ``summaries.summarize`` gives them."""

    __slots__ = ('allocation_requests', 'provider_summaries')

    def __init__(self, allocation_requests=(), provider_summaries=None):
        self.allocation_requests = list(allocation_requests)
        self.provider_summaries = provider_summaries or {}


def _class_ids(context, groups):
    names = set()
    for group in groups.values():
        names |= set(group.resources)
    try:
        return resource_classes.ids_by_name(context, names)
    except exception.NotFound as exc:
        raise exception.BadRequest(
            'Invalid resource class in resources parameter: %s' % exc)


def _resolve(groups, class_ids, tree_roots):
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


def _collect(candidates, limit):
    """Up to ``limit`` candidates, in a list. The cyclic garbage collector
    is paused meanwhile: these are acyclic containers, and with tens of
    thousands of them alive each collection would walk them all again,
    making the cost grow faster than the result."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return list(itertools.islice(candidates, limit))
    finally:
        if enabled:
            gc.enable()


@db_api.reader
def find(context, groups, wide, limit=None, nested_aware=True,
         randomize=False, all_classes=True):
    """The candidates of a request parsed by ``request.parse``.

    ``limit``: the most candidates to return (None: all);
    ``nested_aware``: microversion 1.29 or later (before, no candidate
    uses two providers of one tree and summaries show only the providers
    used); ``randomize``: shuffle; ``all_classes``: summaries show every
    inventory (1.27), not only the requested classes.
    BadRequest for an unknown resource class or trait.
    """
    class_ids = _class_ids(context, groups)
    unknown = traits_mod.missing_names(
        context, request_mod.all_trait_names(groups, wide))
    if unknown:
        raise exception.BadRequest(
            'No such trait(s): %s.' % ', '.join(sorted(unknown)))
    tree_roots = loader.roots_of(
        context, {g.in_tree for g in groups.values() if g.in_tree})
    resolved = _resolve(groups, class_ids, tree_roots)
    min_amounts = {}
    agg_uuids = set()
    for group in resolved:
        for rc_id, amount in group.resources.items():
            min_amounts[rc_id] = min(amount, min_amounts.get(rc_id, amount))
        for any_of in group.member_of:
            agg_uuids |= any_of
        agg_uuids |= group.forbidden_aggs
    resourceless = any(not g.resources for g in resolved)
    snap = loader.load(context, min_amounts, agg_uuids,
                       any_sharing=resourceless)
    if not snap.inventory:
        return Result()
    names = {rc_id: name for name, rc_id in class_ids.items()}
    finder = search.Search(
        snap, resolved, names, isolate=wide.group_policy == 'isolate',
        same_subtrees=wide.same_subtrees, root_required=wide.root_required,
        root_forbidden=wide.root_forbidden, nested_aware=nested_aware,
        randomize=randomize)
    found = _collect(finder.candidates(), limit)
    if not found:
        return Result()
    provider_summaries = summaries.summarize(
        context, snap, found, whole_trees=nested_aware,
        rc_ids=None if all_classes else set(class_ids.values()))
    return Result(found, provider_summaries)
