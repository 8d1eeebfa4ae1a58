"""Allocation groups: N nodes at once, all or none, spread over failure
domains (an allocsvc extension).

``allocate_group`` finishes one ``allocating`` group that this conductor
owns, in named stages:

1. ``_load`` (reader): the group and its ``allocating`` members -- stop
   if the group is gone, final or another conductor's. A member deleted
   by its user meanwhile is simply one node fewer to find.
2. ``_candidates`` (reader): every node the allocation back end offers
   for the group's request (``backend.offered``: the nodes table, or the
   Placement engine's candidates), and each one's failure domain
   (``domains_of``) when the group has a spread rule.
3. ``choose`` (pure): the nodes, jointly -- at most ``max_per_domain``
   per domain, domains filled in turn so the group spreads as widely as
   it can; a strict rule that cannot be met fails the group, a preferred
   one falls back to any node.
4. ``_bind_all`` (one writer transaction): the chosen nodes in ascending
   node id -- one global order, so that two groups never wait on each
   other in opposite orders -- each locked (only if free), its provider
   row locked, re-checked under both (``allocations.unsuitable``) and
   bound to a member (claimed through the back end's claimer, as a
   single allocation is), then the group moved to ``active``. Any node
   that fails rolls the whole transaction back: nobody ever sees part
   of a group bound. The node lost to a race is left out and the group
   chooses again (``ATTEMPTS`` times in all).

Outcomes: ``active`` with every member bound; ``error`` for the group
and its members with ``last_error`` saying why, and no node held; or
nothing written when the group stopped being this conductor's business.
"""

import random

from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import allocations as single
from allocsvc.conductor import explain
from allocsvc.conductor import mirror
from allocsvc.conductor import provisioning
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import allocation_groups as db_groups
from allocsvc.db.baremetal import candidates as db_candidates
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes
from allocsvc.db import models
from allocsvc.placement import node_providers

LOG = logging.getLogger(__name__)

# How many times a group chooses its nodes, when one of those chosen is
# lost to a race (locked or taken under its feet).
ATTEMPTS = 3

CONDUCTOR_GROUP = 'conductor_group'
AGGREGATE = 'aggregate'
TRAIT_PREFIX = 'trait:'

_NODE = models.nodes


class _Stop(Exception):
    """The group is no longer this conductor's to finish."""


class _Failure(Exception):
    """The group fails, for the reason given."""


class _Lost(Exception):
    """A chosen node could not be bound (locked, or no longer fitting):
    the transaction rolls back and the group chooses again without it."""

    def __init__(self, uuid, why):
        super().__init__('node %s: %s' % (uuid, why))
        self.uuid = uuid


# -- pure helpers ------------------------------------------------------------

def describe_spread(spread):
    """The rule in words: "at most 1 node per conductor_group"."""
    cap = spread.get('max_per_domain', 1)
    return 'at most %d node%s per %s' % (cap, '' if cap == 1 else 's',
                                         spread['by'])


def choose(candidates, count, spread=None, domains=None, rng=random):
    """``count`` of ``candidates`` (node UUIDs), chosen together, or
    ``_Failure`` saying why there are not enough.

    ``spread``: ``{"by", "max_per_domain", "strict"}`` or None;
    ``domains``: UUID -> its domain (None: the node is in none). The
    domains are filled in turns, one node each per turn, at most
    ``max_per_domain`` each. A node in no domain can meet no strict
    rule; a preferred rule takes any node when the domains run out."""
    ordered = list(candidates)
    rng.shuffle(ordered)
    if len(ordered) < count:
        raise _Failure('only %d of the %d nodes the group needs are '
                       'suitable' % (len(ordered), count))
    if not spread:
        return ordered[:count]
    cap = spread.get('max_per_domain', 1)
    by_domain = {}
    for uuid in ordered:
        domain = (domains or {}).get(uuid)
        if domain is not None:
            by_domain.setdefault(domain, []).append(uuid)
    chosen = []
    for turn in range(cap):
        for members in by_domain.values():
            if len(chosen) < count and turn < len(members):
                chosen.append(members[turn])
    if len(chosen) == count:
        return chosen
    if spread.get('strict', False):
        raise _Failure(
            'the spread rule (%s) could not be met: %d suitable nodes in '
            '%d %s domains allow at most %d of the %d nodes the group '
            'needs' % (describe_spread(spread), len(ordered),
                       len(by_domain), spread['by'], len(chosen), count))
    taken = set(chosen)
    chosen += [uuid for uuid in ordered if uuid not in taken][
        :count - len(chosen)]
    return chosen


# -- failure domains ---------------------------------------------------------

def domains_of(context, uuids, by):
    """Node UUID -> its domain under rule ``by``, for ``uuids``, in the
    caller's transaction: the node's conductor group (none if empty);
    the first (by UUID) aggregate of its resource provider; the first
    (sorted) of its traits that start with the prefix of ``trait:``."""
    uuids = sorted(set(uuids))
    if not uuids:
        return {}
    session = context.session
    found = {}
    if by == CONDUCTOR_GROUP:
        rows = session.execute(sa.select(_NODE.c.uuid, _NODE.c.conductor_group)
                               .where(_NODE.c.uuid.in_(uuids)))
        return {uuid: group or None for uuid, group in rows}
    if by == AGGREGATE:
        rp = models.resource_providers
        link = models.resource_provider_aggregates
        agg = models.placement_aggregates
        rows = session.execute(
            sa.select(rp.c.uuid, agg.c.uuid)
            .select_from(rp.join(link, link.c.resource_provider_id == rp.c.id)
                         .join(agg, agg.c.id == link.c.aggregate_id))
            .where(rp.c.uuid.in_(uuids)).order_by(rp.c.uuid, agg.c.uuid))
    else:
        prefix = by[len(TRAIT_PREFIX):]
        traits = models.node_traits
        rows = session.execute(
            sa.select(_NODE.c.uuid, traits.c.trait)
            .select_from(_NODE.join(traits, traits.c.node_id == _NODE.c.id))
            .where(_NODE.c.uuid.in_(uuids)).order_by(_NODE.c.uuid,
                                                     traits.c.trait))
        rows = [(u, t) for u, t in rows if t.startswith(prefix)]
    for uuid, domain in rows:
        found.setdefault(uuid, domain)
    return found


# -- the job -----------------------------------------------------------------

def allocate_group(context, group_id, host, conductor_id, backend,
                   rng=random):
    """Finish group ``group_id`` as conductor ``conductor_id`` (host
    name ``host`` in the node locks) through allocation back end
    ``backend``. Returns the group as written, or None if nothing was."""
    try:
        return _allocate_group(context, group_id, host, conductor_id,
                               backend, rng)
    except _Stop as stop:
        LOG.info('Allocation group %s: stopped, %s', group_id, stop)
        return None


def _allocate_group(context, group_id, host, conductor_id, backend, rng):
    lost = set()
    try:
        for _attempt in range(ATTEMPTS):
            group, members = _load(context, group_id, conductor_id)
            if not members:
                # Every member deleted meanwhile: nothing left to find.
                _bind_all(context, group, [], [], host, conductor_id)
                return db_groups.get_by_id(context, group_id)
            offered, domains, node_ids = _candidates(context, backend,
                                                     group)
            offered = [uuid for uuid in offered if uuid not in lost]
            try:
                chosen = choose(offered, len(members), group.spread,
                                domains, rng)
            except _Failure as failure:
                raise _Failure(_explained(context, backend, group,
                                          len(members), offered, failure))
            # Outside the binding transaction: the claimer may write
            # (the consumers' project and user) and keeps what it wrote.
            claim = backend.claimer(context, members[0])
            try:
                _bind_all(context, group, members, chosen, host,
                          conductor_id, claim, node_ids)
            except _Lost as exc:
                LOG.info('Allocation group %s: %s; choosing again',
                         group.uuid, exc)
                lost.add(exc.uuid)
                continue
            LOG.info('Allocation group %s: active, nodes %s', group.uuid,
                     ', '.join(sorted(chosen)))
            return db_groups.get_by_id(context, group_id)
        raise _Failure('could not reserve %d nodes together: %d chosen '
                       'nodes were locked or changed while being reserved'
                       % (len(members), len(lost)))
    except _Failure as failure:
        return _fail(context, group_id, conductor_id, str(failure))
    except _Stop:
        raise
    except Exception as exc:
        if db_api.is_disconnect(exc):
            raise
        LOG.exception('Unexpected exception during allocation group %s',
                      group_id)
        return _fail(context, group_id, conductor_id,
                     single.unexpected_message(exc))


@db_api.reader
def _load(context, group_id, conductor_id):
    try:
        group = db_groups.get_in_transaction(context, 'id', group_id)
    except exception.AllocationGroupNotFound:
        raise _Stop('it was deleted')
    if group.state != states.ALLOCATING:
        raise _Stop('it is %s already' % group.state)
    if group.conductor_affinity != conductor_id:
        raise _Stop('conductor %s handles it' % group.conductor_affinity)
    return group, db_groups.allocating_members(context, group_id)


def _request(group):
    return explain.Request(group.resource_class, group.traits,
                           group.candidate_nodes, group.owner)


@db_api.reader
def _candidates(context, backend, group):
    offered = [c.uuid for c in backend.offered(context, _request(group))]
    domains = None
    if group.spread:
        domains = domains_of(context, offered, group.spread['by'])
    # The ids give the lock order (a node's id never changes).
    ids = {}
    for start in range(0, len(offered), 500):
        ids.update((row.uuid, row.id) for row in context.session.execute(
            sa.select(_NODE.c.uuid, _NODE.c.id).where(
                _NODE.c.uuid.in_(offered[start:start + 500]))))
    return [uuid for uuid in offered if uuid in ids], domains, ids


@db_api.reader
def _explained(context, backend, group, needed, offered, failure):
    """Why the group fails: with no suitable node at all, an allocation's
    reason (Ironic's sentence and the counts); with too few, how many of
    how many, and the counts of the nodes ruled out."""
    request = _request(group)
    if not offered:
        return 'the group needs %d nodes: %s' % (
            needed, explain.no_candidates(context, backend, request))
    if group.spread and len(offered) >= needed:
        return str(failure)
    counts = explain._count(context, request)
    return explain.reason(str(failure), group.resource_class, counts.total,
                          explain.entries(counts, group.owner))


@db_api.writer
def _bind_all(context, group, members, chosen, host, conductor_id,
              claim=None, node_ids=None):
    """Bind ``members[i]`` to the node ``chosen`` gives it, in one
    transaction, the nodes locked in ascending id; then the group is
    ``active``. ``claim``: the back end's claimer (the members share
    their owner); ``node_ids``: UUID -> node id of the ``chosen``.
    ``_Lost`` (all rolled back) for a node that cannot be
    locked or no longer fits; ``_Stop`` when the group or a member is no
    longer this conductor's ``allocating`` one."""
    # Every lock first, in ascending node id, then the reads: InnoDB
    # takes this transaction's snapshot at its first plain read, which
    # must come after the last lock for what it reads of every node and
    # provider to be the latest committed.
    order = sorted(chosen, key=lambda uuid: node_ids[uuid])
    for uuid in order:
        try:
            node_locks.reserve_in_transaction(context, uuid, host,
                                              only_free=True, column='uuid')
        except (exception.NodeLocked, exception.NodeNotAvailable,
                exception.NodeNotFound) as exc:
            raise _Lost(uuid, exc)
        node_providers.lock_only(context, uuid)
    for member, uuid in zip(members, order):
        provider, row = node_providers.read_locked(context, uuid,
                                                   nodes.BINDABLE)
        if row is None:
            raise _Lost(uuid, 'it was deleted')
        held = provider.used if provider is not None else 0
        node = nodes.bindable(context, row, with_traits=bool(member.traits))
        reason = single.unsuitable(node, member, held, db_candidates.holders(
            context, uuid, timeutils.utcnow()))
        if reason is not None:
            raise _Lost(uuid, reason)
        try:
            mirror.bind_locked(context, member, node, conductor_id, host,
                               claim, provider)
        except (exception.NodeNotAvailable, exception.NodeAssociated,
                exception.InstanceAssociated) as exc:
            raise _Lost(uuid, exc)
        except exception.Conflict as exc:
            if isinstance(exc, exception.AllocationAffinityLost):
                raise _Stop(exc.message)
            # The engine refused the claim.
            raise _Lost(uuid, exc)
        except (exception.AllocationNotFound, states.InvalidTransition):
            raise _Stop('member %s changed' % member.uuid)
    if not db_groups.finish_in_transaction(context, group.id,
                                           states.SUCCESS, conductor_id):
        raise _Stop('the group changed')


def _fail(context, group_id, conductor_id, reason):
    last_error = 'Failed to process allocation group %s: %s.' % (
        group_id, reason)
    try:
        group = db_groups.get_by_id(context, group_id)
        last_error = 'Failed to process allocation group %s: %s.' % (
            group.uuid, reason)
        if not db_groups.fail_group(context, group_id, conductor_id,
                                    last_error):
            return None
    except (exception.AllocationGroupNotFound, exception.AllocationNotFound,
            exception.AllocationAffinityLost, states.InvalidTransition):
        return None
    LOG.info('Allocation group %s failed: %s', group_id, reason)
    return db_groups.get_by_id(context, group_id)


def destroy_group(context, group, locker):
    """Delete ``group`` (a record with ``id`` and its ``members``): each
    member as ``DELETE /v1/allocations/{member}`` deletes it (its node
    freed under the node's lock, with Ironic's rules), then the group's
    row. A member that cannot be deleted (409) stops it there: the group
    stays with the members left, and can be deleted again."""
    for member in group.members:
        try:
            provisioning.destroy_allocation(context, member, locker)
        except exception.AllocationNotFound:
            pass
    if not db_groups.delete_group_row(context, group.id):
        raise exception.Conflict('Allocation group %s got a member while '
                                 'being deleted.' % group.uuid)
