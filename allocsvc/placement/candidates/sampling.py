"""Random candidates of single-provider requests, from a sample.

A request that wants a few candidates at random (``limit`` and
``randomize``), without provider summaries, of one unsuffixed group,
from providers that are trees of their own -- what the bare-metal
allocation algorithm asks of the placement back end, one node's unit
of its class -- needs no more than the usage of the providers it
returns. ``sample`` draws providers of the requested classes from the
process' copy of the trees (``topology``) in random order, keeps those
whose inventories, traits and aggregates fit, reads the usage of only
those, and what active reservations hold on them (queries of a few
dozen rows, where the general search reads the usage of every provider
of the classes), and stops at the limit. The answer is drawn from the
same candidates, with the same chances, as the general search's
shuffled one.

It declines (returns None) when any provider it would look at is part
of a larger tree, or a sharing provider has inventory of a requested
class: the general search serves those.
"""

import random

from allocsvc.placement.candidates import search
from allocsvc.placement.candidates import statements
from allocsvc.placement import inventories
from allocsvc.placement import reservations
from allocsvc.placement import topology

# The first draw is this many times the limit (at least FIRST_AT_LEAST
# providers); each further draw is GROWTH times the one before, so that
# a nearly full pool costs a few queries, not one per provider.
FIRST_TIMES_LIMIT = 2
FIRST_AT_LEAST = 16
GROWTH = 4


def applies(groups, wide, limit, randomize, summaries):
    """Whether ``sample`` may serve a request: a limit, randomized,
    without summaries, with one unsuffixed group asking resources."""
    if not (limit and randomize) or summaries or len(groups) != 1:
        return False
    group = groups.get('')
    return group is not None and bool(group.resources) and \
        not wide.same_subtrees


class _Declined(Exception):
    """The request or the providers are not of the shape served here."""


def _pool(topo, group, sharing, among):
    """The ids of the providers with inventory of every class of
    ``group``, in no particular order (only those of the uuids ``among``,
    or of the tree ``group.in_tree``, when given). Declined if a sharing
    provider has inventory of one of the classes."""
    stocks = [topo.inventories.get(rc_id, {}) for rc_id in group.resources]
    for found in stocks:
        if not sharing.isdisjoint(found):
            raise _Declined()
    stocks.sort(key=len)
    if group.in_tree is not None:
        pool = [group.in_tree] if group.in_tree in stocks[0] else []
    elif among is not None:
        by_uuid = topo.ids_by_uuid()
        pool = [by_uuid[uuid] for uuid in among if by_uuid.get(uuid)
                in stocks[0]]
    else:
        pool = list(stocks[0])
    for found in stocks[1:]:
        pool = [rp_id for rp_id in pool if rp_id in found]
    return pool


def _draws(pool, first):
    """The providers of ``pool`` in random order, in lists of ``first``,
    then ``GROWTH`` times more each time."""
    size = len(pool)
    if size <= first:
        drawn = list(pool)
        random.shuffle(drawn)
        yield drawn
        return
    drawn = random.sample(pool, first)
    yield drawn
    taken = set(drawn)
    rest = [rp_id for rp_id in pool if rp_id not in taken]
    random.shuffle(rest)
    count = first
    while rest:
        count *= GROWTH
        yield rest[:count]
        rest = rest[count:]


def sample(context, names, group, wide, limit, among=None):
    """Up to ``limit`` candidates of ``group`` (a ``search.Group`` of
    the request's one group, names resolved) in random order, or None
    when the general search must answer (see the module's text).
    ``names``: what ``loader.load_names`` read for the request;
    ``among``: uuids of the providers the candidates may use."""
    topo = topology.current(context, names.stamp,
                            inventories.stored_ratio(context))
    try:
        pool = _pool(topo, group, names.sharing, among)
    except _Declined:
        return None
    wanted = sorted(group.resources.items())
    class_names = {rc_id: name for name, rc_id in names.classes.items()}
    named = [(class_names[rc_id], amount) for rc_id, amount in wanted]
    required = list(group.required) + [frozenset([trait]) for trait in
                                       sorted(wide.root_required)]
    forbidden = group.forbidden | set(wide.root_forbidden)
    member_of, bad = group.member_of, group.forbidden_aggs
    traits, aggregates, trees = topo.traits, topo.aggregates, topo.trees
    empty = frozenset()
    connection = context.session.connection()
    rc_ids = [rc_id for rc_id, _amount in wanted]
    found = []
    first = max(limit * FIRST_TIMES_LIMIT, FIRST_AT_LEAST)
    for drawn in _draws(pool, first):
        fitting = []
        for rp_id in drawn:
            tree = trees.get(rp_id)
            if tree is None or len(tree) != 1:
                # A provider below a root, or a root with children.
                return None
            if not all(_fits(topo.inventories[rc_id][rp_id], amount, 0)
                       for rc_id, amount in wanted):
                continue
            if not search.has_traits(traits.get(rp_id, empty), required,
                                     forbidden):
                continue
            if member_of or bad:
                aggs = aggregates.get(rp_id, empty)
                if not all(aggs & any_of for any_of in member_of) or \
                        aggs & bad:
                    continue
            fitting.append(rp_id)
        if not fitting:
            continue
        used = reservations.hold_back(
            statements.usage(connection, fitting, rc_ids)[1],
            reservations.held_back(context, rc_ids, rp_ids=fitting))
        for rp_id in fitting:
            if all(_fits(topo.inventories[rc_id][rp_id], amount,
                         used.get((rp_id, rc_id), 0))
                   for rc_id, amount in wanted):
                rp_uuid = trees[rp_id][0].uuid
                found.append(search.Candidate(
                    {rp_uuid: {'resources': dict(named)}},
                    {'': [rp_uuid]}))
                if len(found) == limit:
                    return found
    return found


def _fits(stock, amount, used):
    return (stock.min_unit <= amount <= stock.max_unit and
            amount % stock.step_size == 0 and
            used + amount <= stock.capacity)
