"""The allocation algorithm, in named stages, and backfill.

``allocate`` finishes one ``allocating`` allocation that this conductor
owns:

1. ``_load_with_candidates`` (one reader transaction): the allocation
   -- stop if it is gone, final, or owned by another conductor now --
   and a batch of the nodes it may take, at random, from the
   ``backend`` (``allocsvc.conductor.backends``: the nodes table, or the
   Placement engine's candidates); none -> error, saying why (Ironic's
   words, then how many nodes of the class each reason ruled out:
   ``allocsvc.conductor.explain``). When others take a whole batch
   before the allocation could bind a node of it, it asks again
   (``_BATCHES`` times at most).
2. ``order_candidates``: shuffled (so that concurrent allocations spread
   over the nodes), the node named like the allocation first.
3. ``_reserve``: node by node (``_reserve_one``), one transaction
   each (``_lock_and_bind``): take its lock without waiting for another
   holder, then the row lock of its resource provider
   (``node_providers.lock``), re-check it under both (``unsuitable``;
   also unsuitable: a provider another Placement consumer holds) and
   bind it -- conditional on the lock and on this conductor still owning
   the allocation -- giving the lock back in the same write, and
   claiming or reserving the node's unit in the engine. A node that no
   longer fits rolls the transaction back, lock and all.
   Nodes that were locked are tried again, ``retry_attempts`` more times
   after waits growing up to ``retry_interval`` (``retry_wait``); then
   error, with the counts too, the nodes tried that fit again counted
   as lost to the race.

Outcomes: ``active``; ``error`` with ``last_error`` ("Failed to process
allocation <uuid>: <reason>.", or "Unexpected exception during
allocation: ..." for a bug, in words that tell the user what to do --
the details are in the log); or nothing written, when the allocation
stopped being this conductor's business (deleted, taken over by another
conductor, finished elsewhere). A lost database connection is no
failure of the allocation: each transaction runs again on a new
connection (``allocsvc.db.api.retry``), and when the database stays
unreachable the allocation is left ``allocating`` -- whatever was under
way rolled back -- for the owner's periodic check to run it again.

``backfill`` records an allocation for a node that is already deployed:
checked under the node's lock, inserted and bound in one transaction,
all or nothing.

Nothing here reads configuration: the caller passes the host name, the
conductor id, the retry settings and the back end.
"""

import random
import time

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_utils import uuidutils

from allocsvc import objects
from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import backends
from allocsvc.conductor import explain
from allocsvc.conductor import locking
from allocsvc.conductor import mirror
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import candidates as db_candidates
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes
from allocsvc.placement import node_providers

LOG = logging.getLogger(__name__)

# What happened to one candidate node.
BOUND = 'bound'
LOCKED = 'locked'
UNSUITABLE = 'unsuitable'

# How many times an allocation asks a back end that answers a batch of
# the candidates (``backend.full``) for more, when a whole batch was
# taken by others before it could bind one.
_BATCHES = 3

# The allocation is no longer this conductor's to finish.
_GONE = (exception.AllocationNotFound, exception.AllocationAffinityLost,
         states.InvalidTransition)


class _Stop(Exception):
    """Stop working on the allocation and write nothing."""


class _Failure(Exception):
    """The allocation fails, for the reason given. ``lost``: the UUIDs
    of the candidates the reservation stage tried in vain, when that is
    where it failed (the counts are added then)."""

    def __init__(self, reason, lost=None):
        super().__init__(reason)
        self.lost = lost


# -- pure helpers ------------------------------------------------------------

def order_candidates(candidates, name=None, rng=random):
    """The candidates in the order to try them: shuffled with ``rng``,
    then the one named ``name`` (if any) moved to the front."""
    ordered = list(candidates)
    rng.shuffle(ordered)
    if name:
        for index, candidate in enumerate(ordered):
            if candidate.name == name:
                ordered.insert(0, ordered.pop(index))
                break
    return ordered


def unsuitable(node, allocation, held=0, holders=frozenset()):
    """Why ``node`` (read under its lock) cannot take ``allocation`` any
    more, or None if it still can: the candidate query's conditions,
    checked again now that nobody else can change the node. ``held``:
    how many Placement allocations its resource provider has;
    ``holders``: the projects whose reservations hold it now."""
    if held:
        return 'its resource provider is held by a Placement consumer'
    if holders - {allocation.owner}:
        return 'it is reserved for another project now'
    if node.resource_class != allocation.resource_class:
        return 'its resource class is now %s' % node.resource_class
    if node.provision_state != states.AVAILABLE:
        return 'its provision state is now %s' % node.provision_state
    if node.maintenance:
        return 'it is in maintenance'
    if node.power_state is None:
        return 'its power state is unknown'
    if node.instance_uuid is not None or node.allocation_id is not None:
        return 'it is associated with instance %s' % node.instance_uuid
    missing = set(allocation.traits or ()) - set(node.traits)
    if missing:
        return 'it lacks the traits %s' % ', '.join(sorted(missing))
    if allocation.candidate_nodes and \
            node.uuid not in allocation.candidate_nodes:
        return 'it is not among the candidate nodes'
    if allocation.owner and allocation.owner not in (
            node.owner, node.lessee) and allocation.owner not in holders:
        return 'it is neither owned nor leased by %s' % allocation.owner
    return None


def retry_wait(attempt, attempts, interval):
    """Seconds to wait before pass ``attempt`` (1 to ``attempts``) over
    the nodes that were locked: a quarter as long as before the next
    one, the last wait being ``interval`` (1 s by default: 62 ms, 250 ms,
    1 s). The locks an available node meets are short (another
    allocation binding it, a state change of the API); waiting the whole
    interval at once made the allocations that met one, under many
    concurrent clients, take seconds."""
    return interval / 4 ** (attempts - attempt)


def failure_message(allocation_uuid, reason):
    return 'Failed to process allocation %s: %s.' % (allocation_uuid, reason)


def unexpected_message(exc):
    """``last_error`` for an error of no known kind: Ironic's words, with
    what the user can do rather than the exception's own text (which may
    hold SQL or internals; the conductor's log has it)."""
    if isinstance(exc, exception.AllocsvcException):
        reason = exc.message
    elif isinstance(exc, db_exc.DBError):
        reason = ('the database failed to process the request (the '
                  'conductor logged the details); delete the allocation '
                  'and create it again')
    else:
        reason = ('an internal error (%s) that the conductor logged; '
                  'delete the allocation and create it again'
                  % type(exc).__name__)
    return 'Unexpected exception during allocation: %s' % reason


# -- the algorithm -----------------------------------------------------------

def allocate(context, allocation_id, host, conductor_id, retry_attempts=3,
             retry_interval=1.0, rng=random, sleep=time.sleep,
             backend=None, given=None):
    """Finish allocation ``allocation_id`` as conductor ``conductor_id``
    (whose host name ``host`` goes into the node locks), finding and
    binding nodes through ``backend`` (default: the database's).
    ``given``: the allocation's record as its creator wrote it, if the
    caller has it; it is not read again then (every write is conditional
    on the state and owner it shows). Returns the allocation record as
    written, or None if nothing was written."""
    backend = backend or backends.Database()
    try:
        return _allocate(context, allocation_id, host, conductor_id,
                         retry_attempts, retry_interval, rng, sleep,
                         backend, given)
    except Exception as exc:
        if not db_api.is_disconnect(exc):
            raise
        # Retried already (allocsvc.db.api.retry): an outage, not a
        # failure of the allocation. It stays allocating, owned by this
        # conductor, whose periodic check runs it again; whatever was
        # under way rolled back with its transaction.
        LOG.warning('Allocation %s: the database is unavailable (%s); '
                    'it stays allocating until the periodic check runs it '
                    'again', allocation_id, exc)
        return None


def _allocate(context, allocation_id, host, conductor_id, retry_attempts,
              retry_interval, rng, sleep, backend, given):
    try:
        allocation, candidates, why_none = _load_with_candidates(
            context, allocation_id, conductor_id, backend, given)
    except _Stop as stop:
        LOG.debug('Allocation %s: nothing to do (%s)', allocation_id, stop)
        return None
    except Exception as exc:
        if db_api.is_disconnect(exc):
            raise
        LOG.exception('Unexpected exception looking for nodes for '
                      'allocation %s', allocation_id)
        try:
            allocation = _load(context, allocation_id, conductor_id)
        except _Stop:
            return None
        return _fail(context, allocation, conductor_id,
                     unexpected_message(exc))
    lost = set()
    try:
        claim = backend.claimer(context, allocation)
        for batch in range(_BATCHES):
            if not candidates:
                raise _Failure(why_none)
            ordered = order_candidates(candidates, allocation.name, rng)
            try:
                return _reserve(context, allocation, ordered, host,
                                conductor_id, retry_attempts, retry_interval,
                                sleep, claim)
            except _Failure as failure:
                if failure.lost is not None:
                    # Counted as lost if they fit again (explain).
                    lost.update(failure.lost)
                    failure.lost = lost
                # Others took a whole batch of the candidates meanwhile:
                # ask for the nodes left.
                if batch + 1 == _BATCHES or not backend.full(candidates):
                    raise
            allocation, candidates, why_none = _load_with_candidates(
                context, allocation_id, conductor_id, backend)
    except _Stop as stop:
        LOG.info('Allocation %s: stopped, %s', allocation.uuid, stop)
        return None
    except _Failure as failure:
        reason = _explained(context, backend, allocation, failure)
        LOG.info('Allocation %s failed: %s', allocation.uuid, reason)
        return _fail(context, allocation, conductor_id,
                     failure_message(allocation.uuid, reason))
    except Exception as exc:
        if db_api.is_disconnect(exc):
            raise
        LOG.exception('Unexpected exception during allocation %s',
                      allocation.uuid)
        return _fail(context, allocation, conductor_id,
                     unexpected_message(exc))


def _explained(context, backend, allocation, failure):
    """The reason of ``failure``, with the counts when the reservation
    stage is where it failed. Counting is no part of the allocation: if
    it fails, the reason stays as it was said."""
    if failure.lost is None:
        return str(failure)
    try:
        return explain.reservation_failed(context, backend, allocation,
                                          str(failure), failure.lost)
    except Exception as exc:
        if db_api.is_disconnect(exc):
            raise
        LOG.exception('Allocation %s: cannot count why its nodes could '
                      'not be reserved', allocation.uuid)
        return str(failure)


def _load(context, allocation_id, conductor_id):
    try:
        allocation = db_allocations.get_by_id(context, allocation_id)
    except exception.AllocationNotFound:
        raise _Stop('it was deleted')
    if allocation.state != states.ALLOCATING:
        raise _Stop('it is %s already' % allocation.state)
    if allocation.conductor_affinity != conductor_id:
        raise _Stop('conductor %s handles it'
                    % allocation.conductor_affinity)
    return allocation


@db_api.reader
def _load_with_candidates(context, allocation_id, conductor_id, backend,
                          given=None):
    """The allocation (``given`` if it is ``allocating`` and this
    conductor's, else ``_load``), its candidate nodes and, if there are
    none, why (Ironic's words), in one reader transaction."""
    if given is not None and given.state == states.ALLOCATING and \
            given.conductor_affinity == conductor_id:
        allocation = given
    else:
        allocation = _load(context, allocation_id, conductor_id)
    candidates, why_none = backends.find(context, backend, allocation)
    return allocation, candidates, why_none


def _reserve(context, allocation, candidates, host, conductor_id,
             retry_attempts, retry_interval, sleep, claim=None):
    """Bind the first candidate that can be locked and still fits;
    return the allocation bound. Locked ones get ``retry_attempts`` more
    passes (see ``retry_wait``)."""
    pending = candidates
    for attempt in range(retry_attempts + 1):
        if attempt:
            sleep(retry_wait(attempt, retry_attempts, retry_interval))
            # Waiting is the moment the allocation may have been
            # deleted or taken over: do not keep nodes locked for it.
            _load(context, allocation.id, conductor_id)
        locked = []
        for candidate in pending:
            outcome, bound = _reserve_one(context, allocation, candidate,
                                          host, conductor_id, claim)
            if outcome == BOUND:
                LOG.info('Allocation %s: node %s', allocation.uuid,
                         candidate.uuid)
                return bound
            if outcome == LOCKED:
                locked.append(candidate)
        if not locked:
            raise _Failure('all nodes were filtered out during reservation',
                           lost=[c.uuid for c in candidates])
        pending = locked
    raise _Failure('could not reserve any of %d suitable nodes'
                   % len(candidates), lost=[c.uuid for c in candidates])


class _Unsuitable(Exception):
    """The node locked no longer fits: roll the lock back with the
    transaction."""


def _reserve_one(context, allocation, candidate, host, conductor_id,
                 claim=None):
    """Lock, re-check and bind one node, in one transaction
    (``_lock_and_bind``): ``(outcome, allocation bound or None)``."""
    try:
        return _lock_and_bind(context, allocation, candidate, host,
                              conductor_id, claim)
    except exception.NodeLocked:
        return LOCKED, None
    except (exception.NodeNotAvailable, exception.NodeNotFound,
            _Unsuitable):
        return UNSUITABLE, None
    except exception.Conflict as exc:
        # The engine refused the claim (rolled back with the lock and
        # the bind): the node's unit is not to be had after all.
        LOG.info('Allocation %s: node %s: %s', allocation.uuid,
                 candidate.uuid, exc)
        return UNSUITABLE, None


@db_api.writer
def _lock_and_bind(context, allocation, candidate, host, conductor_id,
                   claim=None):
    """One transaction: take the node's lock (only if it is still free,
    NodeLocked if someone holds it), then its resource provider's row
    lock (``node_providers.lock``, so that the usage read next is the
    latest committed), read the node and its provider under both (one
    statement), re-check it
    (``unsuitable``; also unsuitable: a provider another Placement
    consumer holds) and bind it -- conditional on the lock and on this
    conductor still owning the allocation -- giving the lock back in the
    same write, and claiming or reserving the node's unit in the engine.
    Anything that stops the bind rolls the whole transaction back, the
    lock included: nobody ever sees a node locked by an allocation that
    did not take it. While the transaction runs, the node's row lock
    makes a concurrent lock of it wait for the outcome.

    Lock order, as every node write: the node's row, then its
    provider's."""
    uuid = candidate.uuid
    node_locks.reserve_in_transaction(context, uuid, host, only_free=True,
                                      column='uuid')
    provider, row = node_providers.lock(context, uuid, nodes.BINDABLE)
    if row is None:
        raise exception.NodeNotFound(uuid)
    held = provider.used if provider is not None else 0
    # The node's traits only matter if the allocation asks for some.
    node = nodes.bindable(context, row, with_traits=bool(allocation.traits))
    reason = unsuitable(node, allocation, held, db_candidates.holders(
        context, uuid, timeutils.utcnow()))
    if reason is not None:
        LOG.debug('Allocation %s: skipping node %s: %s',
                  allocation.uuid, node.uuid, reason)
        raise _Unsuitable(reason)
    try:
        bound = mirror.bind_locked(context, allocation, node, conductor_id,
                                   host, claim, provider)
    except (exception.NodeNotAvailable, exception.NodeAssociated) as exc:
        LOG.debug('Allocation %s: node %s: %s', allocation.uuid, node.uuid,
                  exc)
        raise _Unsuitable(str(exc))
    except exception.InstanceAssociated as exc:
        # The allocation's UUID is some other node's instance: no node
        # can take it.
        raise _Failure(exc.message.rstrip('.'))
    except _GONE as exc:
        raise _Stop(exc.message)
    return BOUND, bound


def _fail(context, allocation, conductor_id, last_error):
    try:
        return db_allocations.fail_allocation(context, allocation.id,
                                              conductor_id, last_error,
                                              allocation=allocation)
    except _GONE as exc:
        LOG.info('Allocation %s: not recording the failure: %s',
                 allocation.uuid, exc)
    except Exception as exc:
        if db_api.is_disconnect(exc):
            raise
        LOG.exception('Allocation %s: cannot record its failure; it stays '
                      'allocating until the periodic check runs it again',
                      allocation.uuid)
    return None


# -- backfill ----------------------------------------------------------------

class _Values:
    """An allocation's ``values`` as the back ends read a record."""

    def __init__(self, values):
        self.uuid = values['uuid']
        self.owner = values.get('owner')


def backfill_mismatch(node, values):
    """Why an allocation with ``values`` cannot describe the deployed
    ``node``, or None."""
    if node.provision_state != states.ACTIVE:
        return 'its provision state is %s, not %s' % (node.provision_state,
                                                      states.ACTIVE)
    if node.maintenance:
        return 'it is in maintenance'
    if values.get('resource_class') != node.resource_class:
        return 'its resource class %s is not the requested %s' % (
            node.resource_class, values.get('resource_class'))
    missing = set(values.get('traits') or ()) - set(node.traits)
    if missing:
        return 'it lacks the requested traits %s' % ', '.join(
            sorted(missing))
    candidates = values.get('candidate_nodes') or ()
    if candidates and node.uuid not in candidates and \
            node.name not in candidates:
        return 'it is not one of the candidate nodes'
    return None


def backfill(context, values, node_id, host, conductor_id,
             retry_attempts=3, retry_interval=1.0, backend=None):
    """Record an ``active`` allocation from ``values`` for the deployed
    node ``node_id``, under the node's lock; return it as an
    ``objects.Allocation``. On any failure nothing is written:

    * AllocationFailed (400): the node is not active, in maintenance, or
      does not match the resource class, traits or candidate nodes;
    * NodeAssociated (409): the node runs another instance;
    * InstanceAssociated (409): the allocation's UUID is another node's
      instance;
    * AllocationAlreadyExists / AllocationDuplicateName (409);
    * NodeLocked (409) if the lock cannot be had after the retries;
      NodeNotFound (404);
    * with the placement ``backend``, the engine's Conflict (409) when
      another consumer holds the node's unit.
    """
    backend = backend or backends.Database()
    values = dict(values)
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    for name in ('traits', 'candidate_nodes'):
        values[name] = list(values.get(name) or [])
    result = None
    try:
        with locking.node_lock(context, node_id, host, retry_attempts,
                               retry_interval) as node:
            if values.get('resource_class') is None:
                values['resource_class'] = node.resource_class
            reason = backfill_mismatch(node, values)
            if reason is not None:
                raise exception.AllocationFailed(
                    values['uuid'],
                    'Cannot backfill an allocation for node %s: %s'
                    % (node.uuid, reason))
            if node.instance_uuid not in (None, values['uuid']):
                raise exception.NodeAssociated(node.uuid,
                                               node.instance_uuid)
            claim = backend.claimer(context, _Values(values))
            result = objects.Allocation.from_record(context, mirror.backfill(
                context, values, node.id, conductor_id, locked_by=host,
                claim=claim))
    except exception.NodeNotLocked:
        if result is None:
            raise
    LOG.info('Allocation %s backfilled for node %s', result.uuid,
             result.node_uuid)
    return result
