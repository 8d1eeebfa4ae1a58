"""Group claims: N consumers' allocations chosen together from one
allocation candidates query, all written or none (an allocsvc
extension, POST /allocation_candidates/claim).

Two stages, as a scheduler's claim has, but for N at once:

1. ``choose`` (a reader transaction): the query's candidates with their
   provider summaries (``candidates.find``), put in the requested
   ``order`` (pack: least free first; spread: most free first; random),
   then taken for the consumers while they fit *jointly* -- what the
   consumers chosen so far take is counted against each provider's
   capacity, so a candidate may serve several consumers while its
   providers have room -- and while the spread rule allows: at most K
   consumers per failure domain, a domain being the candidate's tree
   (``root``), an aggregate of its root (``aggregate``) or the value of
   a trait of its root with a prefix (``trait:CUSTOM_RACK_``); a
   candidate in no domain of the kind keeps no rule. A strict
   rule that cannot be met, or fewer than N candidates that fit
   together, is a 409 saying why (with the explanation's reason when the
   query finds nothing at all); a preferred rule that cannot be met is
   relaxed, and the answer says so.
2. ``allocations.replace``: the N consumers' allocations in one writer
   transaction, capacity checked again under the providers' row locks
   (``allocations``): all or nothing, never over capacity whatever other
   writers do. When another writer took the room in between, the claim
   chooses again, a bounded number of times, then is a 409.
"""

import random

import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import allocations
from allocsvc.placement import candidates as candidates_mod
from allocsvc.placement.candidates import explain

# The error code of a group claim that cannot be met (frozen).
UNSATISFIED = 'placement.group_claim.unsatisfied'

ROOT = 'root'
AGGREGATE = 'aggregate'
TRAIT_PREFIX = 'trait:'

PACK, SPREAD, RANDOM = 'pack', 'spread', 'random'

_RP = models.resource_providers
_RPA = models.resource_provider_aggregates
_AGG = models.placement_aggregates
_RPT = models.resource_provider_traits
_TRAIT = models.traits


class Unsatisfied(exception.Conflict):
    error_code = UNSATISFIED


class Spread:
    """``by`` (root, aggregate or trait:PREFIX), ``most`` consumers per
    domain, ``strict``."""

    __slots__ = ('by', 'most', 'strict')

    def __init__(self, by, most=1, strict=False):
        self.by = by
        self.most = most
        self.strict = strict

    def words(self):
        return 'at most %d per %s' % (self.most, self.by)


class Consumer:
    """One consumer of the claim: ``uuid``, ``project_id``, ``user_id``,
    ``generation`` (None: a new consumer), ``consumer_type``."""

    __slots__ = ('uuid', 'project_id', 'user_id', 'generation',
                 'consumer_type')

    def __init__(self, uuid, project_id, user_id, generation=None,
                 consumer_type=None):
        self.uuid = uuid
        self.project_id = project_id
        self.user_id = user_id
        self.generation = generation
        self.consumer_type = consumer_type


class Claimed:
    """The answer: ``chosen`` [(Consumer, search.Candidate, domains)],
    ``spread_met`` (None without a rule), ``domains`` {domain: count}."""

    def __init__(self, chosen, spread_met, domains):
        self.chosen = chosen
        self.spread_met = spread_met
        self.domains = domains


def _domains_of(context, spread, roots):
    """{root uuid: frozenset of domain names} under ``spread``."""
    if spread is None or spread.by == ROOT:
        return {root: frozenset([root]) for root in roots}
    found = {root: set() for root in roots}
    if spread.by == AGGREGATE:
        rows = context.session.execute(
            sa.select(_RP.c.uuid, _AGG.c.uuid)
            .select_from(_RP.join(_RPA, _RPA.c.resource_provider_id ==
                                  _RP.c.id)
                         .join(_AGG, _AGG.c.id == _RPA.c.aggregate_id))
            .where(_RP.c.uuid.in_(sorted(roots))))
    else:
        prefix = spread.by[len(TRAIT_PREFIX):]
        rows = context.session.execute(
            sa.select(_RP.c.uuid, _TRAIT.c.name)
            .select_from(_RP.join(_RPT, _RPT.c.resource_provider_id ==
                                  _RP.c.id)
                         .join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id))
            .where(_RP.c.uuid.in_(sorted(roots)),
                   _TRAIT.c.name.startswith(prefix, autoescape=True)))
    for root, name in rows:
        found[root].add(name)
    # A root in no domain of the kind can keep no strict rule (it may
    # share a rack with any other, for all the service knows), as a
    # node in none cannot in a bare-metal group.
    return {root: frozenset(names) for root, names in found.items()}


def _root_of(candidate, summaries):
    """The root of the tree a candidate belongs to: that of its first
    provider that shares nothing (a provider summarised with a root of
    its own tree)."""
    uuids = list(candidate.allocations)
    for uuids_of in candidate.mappings.values():
        uuids.extend(uuids_of)
    roots = [summaries[u].get('root_provider_uuid', u) for u in uuids
             if u in summaries]
    return roots[0] if roots else uuids[0]


def _free(candidate, summaries):
    """How free the providers of ``candidate`` are, as the smallest
    share of their capacity left (0 full, 1 empty)."""
    shares = []
    for rp, entry in candidate.allocations.items():
        resources = summaries.get(rp, {}).get('resources', {})
        for rc in entry['resources']:
            stock = resources.get(rc)
            if stock and stock['capacity']:
                shares.append((stock['capacity'] - stock['used']) /
                              stock['capacity'])
    return min(shares) if shares else 0.0


def _ordered(found, summaries, order, rng):
    if order == PACK:
        return sorted(found, key=lambda c: _free(c, summaries))
    if order == SPREAD:
        return sorted(found, key=lambda c: -_free(c, summaries))
    if order == RANDOM:
        found = list(found)
        rng.shuffle(found)
    return found


def _fits(candidate, summaries, taken):
    """Whether ``candidate`` fits what is left once ``taken`` {(rp,
    class): amount} is counted against the summarised capacity."""
    for rp, entry in candidate.allocations.items():
        resources = summaries.get(rp, {}).get('resources', {})
        for rc, amount in entry['resources'].items():
            stock = resources.get(rc)
            if stock is None:
                return False
            if stock['used'] + taken.get((rp, rc), 0) + amount > \
                    stock['capacity']:
                return False
    return True


def _take(candidate, taken):
    for rp, entry in candidate.allocations.items():
        for rc, amount in entry['resources'].items():
            taken[(rp, rc)] = taken.get((rp, rc), 0) + amount


def _pick(ordered, summaries, consumers, spread, domains_of,
          fill=False):
    """Greedily, in order: [(candidate, domains)] for as many consumers
    as fit jointly and keep ``spread`` (None: no rule). A candidate may
    serve several consumers while its providers have room: with
    ``fill`` (packing) it takes as many as fit before the next one is
    tried, else the candidates take one consumer each in turn."""
    taken, counts, chosen = {}, {}, []
    wanted = len(consumers)

    def try_take(candidate):
        domains = domains_of(candidate)
        if spread is not None and (not domains or any(
                counts.get(d, 0) >= spread.most for d in domains)):
            return False
        if not _fits(candidate, summaries, taken):
            return False
        _take(candidate, taken)
        for domain in domains:
            counts[domain] = counts.get(domain, 0) + 1
        chosen.append((candidate, domains))
        return True

    progress = True
    while progress and len(chosen) < wanted:
        progress = False
        for candidate in ordered:
            while len(chosen) < wanted and try_take(candidate):
                progress = True
                if not fill:
                    break
            if len(chosen) == wanted:
                break
    return chosen, counts


@db_api.reader
def choose(context, groups, wide, consumers, spread=None, order=None,
           limit=None, nested_aware=True, rng=random):
    """A Claimed for ``consumers`` [Consumer] from the candidates of the
    query ``groups``, ``wide`` (``request.parse``), or Unsatisfied
    (409) saying why; BadRequest as the query's."""
    # The summaries' usage counts what reservations hold back: the
    # consumers are fitted against it (``_fits``).
    result = candidates_mod.find(context, groups, wide, limit=limit,
                                 nested_aware=nested_aware,
                                 all_classes=True, counted=True)
    found = result.allocation_requests
    summaries = result.provider_summaries
    if not found:
        reason = explain.document(explain.explain(
            context, groups, wide, limit=limit,
            nested_aware=nested_aware))['reason']
        raise Unsatisfied('No allocation candidates for the claim: %s.'
                          % reason)
    roots = {id(c): _root_of(c, summaries) for c in found}
    by_root = _domains_of(context, spread, set(roots.values()))

    def domains_of(candidate):
        return by_root[roots[id(candidate)]]

    ordered = _ordered(found, summaries, order, rng)
    fill = order == PACK
    chosen, counts = _pick(ordered, summaries, consumers, spread,
                           domains_of, fill)
    spread_met = None if spread is None else True
    if len(chosen) < len(consumers) and spread is not None:
        if spread.strict:
            alone, _counts = _pick(ordered, summaries, consumers, None,
                                   domains_of, fill)
            if len(alone) < len(consumers):
                raise _short(len(alone), consumers, found)
            raise Unsatisfied(
                'The candidates cannot keep the spread rule: %s, '
                'strict: %d of %d consumers fit while keeping it (%d '
                'domains have a candidate).' % (
                    spread.words(), len(chosen), len(consumers),
                    len({d for c in found for d in domains_of(c)})))
        chosen, counts = _pick(ordered, summaries, consumers, None,
                               domains_of, fill)
        spread_met = False
    if len(chosen) < len(consumers):
        raise _short(len(chosen), consumers, found)
    return Claimed([(consumer, candidate, domains) for consumer, (
        candidate, domains) in zip(consumers, chosen)], spread_met, counts)


def _short(fitted, consumers, found):
    return Unsatisfied(
        'Only %d of the %d consumers fit together: the query has %d '
        'candidates, and what the others take leaves no room for more '
        'on their providers.' % (fitted, len(consumers), len(found)))


def claim(context, groups, wide, consumers, spread=None, order=None,
          limit=None, nested_aware=True, attempts=10, check_generation=True,
          rng=random):
    """Choose and write, all or nothing: the Claimed written. When
    another writer took the room chosen before the write, choose again,
    ``attempts`` times in all, then Unsatisfied."""
    last = None
    for _attempt in range(attempts):
        claimed = choose(context, groups, wide, consumers, spread, order,
                         limit, nested_aware, rng)
        requests = [allocations.ConsumerAllocations(
            consumer.uuid, consumer.project_id, consumer.user_id,
            {rp: entry['resources']
             for rp, entry in candidate.allocations.items()},
            consumer_type=consumer.consumer_type,
            generation=consumer.generation,
            check_generation=check_generation)
            for consumer, candidate, _domains in claimed.chosen]
        try:
            allocations.replace(
                context, requests, attempts,
                class_error_prefix='Unable to allocate inventory for the '
                                   'group claim: ')
        except exception.Conflict as exc:
            # Room taken by another writer since the choice: choose
            # again. A consumer generation that does not match is the
            # client's to mend.
            lost = (isinstance(exc, exception.ConcurrentUpdate) or
                    exc.message.startswith('Unable to allocate'))
            if not lost or 'consumer generation' in exc.message:
                raise
            last = exc
            continue
        return claimed
    raise Unsatisfied('Other writers took the room chosen for the group '
                      'claim %d times: %s' % (attempts, last.message))
