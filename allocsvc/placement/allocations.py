"""Allocations: reading them, and writing those of several consumers at
once, all or nothing, without ever going over capacity.

A write runs in stages (``replace``):

1. ``resolve``, a reader transaction: the providers named (ids and
   current generations), the resource classes, and the consumers' current
   rows and allocations. Unknown providers and classes are 400s; a wrong
   consumer generation (from microversion 1.28) is a 409.
2. The projects, users and consumer types are interned
   (``consumers.intern_ids``, transactions of their own).
3. A new writer transaction whose first statements bump the generation of
   every touched provider, in ascending id order (``bump_providers``):
   ``generation = generation + 1``. Each update waits for the row lock of
   any writer of that provider still in flight and holds it until commit,
   so competing writers of a provider queue in the database, in order,
   and never deadlock on providers. A provider deleted meanwhile is the
   only reason to start again at stage 1 (where it then is a 400), a
   bounded number of times ([placement] allocation_conflict_retry_count)
   before answering 409 placement.concurrent_update.

   Nothing is read in this transaction before those updates, and that is
   the point: the updates hold the provider rows locked until commit, so
   every competing allocation write is either committed already or
   waiting for us. InnoDB takes a REPEATABLE READ snapshot at the first
   plain SELECT, not at BEGIN, and PostgreSQL's READ COMMITTED reads per
   statement, so the usage read afterwards is the latest committed one on
   both. (Re-checking capacity inside the transaction that lost the race,
   as Placement does, reads a stale snapshot on MySQL and overcommits.)

   The generations read in stage 1 are not compared here: what stage 4
   decides on is read after the locks (usage, inventories), or guarded
   by the consumer generation (the consumer's own allocations), so a
   writer that committed in between changes nothing but the usage read.
   Comparing them made every writer that queued behind another give up,
   sleep and plan again, and under contention on one provider most of
   the work was such retries. The reshaper, whose inventory changes were
   computed from the provider generations its client sent, still swaps
   them (``lock_providers``) and starts again when one moved.
4. Still in that transaction (``write``): each consumer's generation is
   swapped (or the consumer created), the inventories and current usage of
   the touched (provider, class) pairs are read in one query and checked,
   the consumers' old allocations are replaced by the new ones, and
   consumers left without allocations are deleted.

Inventory writes bump the provider generation too, so they are serialized
with allocation writes on the same rows. The reshaper reuses stages 1-4
around its inventory changes.
"""

from oslo_utils import timeutils
import sqlalchemy as sa
import tenacity

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import consumers as consumers_mod
from allocsvc.placement import inventories
from allocsvc.placement import node_guard
from allocsvc.placement import reservations
from allocsvc.placement import resource_classes

_ALLOC = models.allocations
_CONSUMER = models.consumers
_CTYPE = models.consumer_types
_INV = models.inventories
_PROJECT = models.projects
_RC = models.resource_classes
_RP = models.resource_providers
_USER = models.users

_CHANGED = 'Inventory and/or allocations changed while attempting to allocate'


class ConsumerAllocations:
    """What a request asks for one consumer.

    ``resources``: {provider uuid: {class name: amount}}; empty to remove
    all the consumer's allocations. ``generation`` is checked only when
    ``check_generation`` (microversion 1.28+); None means "I expect a new
    consumer". ``consumer_type`` None keeps the type an existing consumer
    has (before 1.38).
    """

    __slots__ = ('uuid', 'project_id', 'user_id', 'consumer_type',
                 'generation', 'check_generation', 'resources')

    def __init__(self, uuid, project_id, user_id, resources,
                 consumer_type=None, generation=None,
                 check_generation=False):
        self.uuid = uuid
        self.project_id = project_id
        self.user_id = user_id
        self.resources = resources
        self.consumer_type = consumer_type
        self.generation = generation
        self.check_generation = check_generation


class Plan:
    """What stage 1 resolved for a list of ConsumerAllocations.

    ``providers``: {uuid: (id, generation)}; ``classes``: {name: id};
    ``consumers``: {uuid: Consumer} of those that exist; ``old``: {uuid:
    [(provider id, class id, used)]} of their current allocations.
    ``capacity``: None, or what ``check_capacity`` would read, {(provider
    id, class id): row with the inventory's ``total``, ``reserved``,
    ``min_unit``, ``max_unit``, ``step_size``, ``allocation_ratio`` and
    the ``used`` of everybody else} for every pair allocated, as a
    caller holding the providers' row locks already read it.
    """

    __slots__ = ('requests', 'providers', 'classes', 'consumers', 'old',
                 'capacity')

    def __init__(self, requests, providers, classes, consumers, old,
                 capacity=None):
        self.requests = requests
        self.providers = providers
        self.classes = classes
        self.consumers = consumers
        self.old = old
        self.capacity = capacity

    def touched_provider_ids(self):
        """Providers whose generation the write bumps: those allocated
        from, and those a consumer's allocations are all removed from
        (as Placement: moving a consumer bumps only its new providers)."""
        ids = set()
        for req in self.requests:
            if req.resources:
                ids.update(self.providers[uuid][0] for uuid in req.resources)
            else:
                ids.update(rp_id for rp_id, _, _ in
                           self.old.get(req.uuid, ()))
        return ids

    def lock_targets(self):
        """{id: (uuid, generation read)} of the touched providers."""
        touched = self.touched_provider_ids()
        return {rp_id: (uuid, generation)
                for uuid, (rp_id, generation) in self.providers.items()
                if rp_id in touched}


class ProviderChanged(Exception):
    """A provider generation moved between stage 1 and stage 3."""

    def __init__(self, uuid):
        super().__init__(uuid)
        self.uuid = uuid


def until_written(attempts, attempt):
    """Call ``attempt()`` -- plan, then write in one transaction -- up to
    ``attempts`` times while a provider changes under it
    (ProviderChanged); ConcurrentUpdate (409) after the last. Before each
    new attempt a short random pause, growing: the writers that lost a
    race on a provider all woke up at the same commit, and spreading
    them out lets more of them win the next round."""
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(ProviderChanged),
        stop=tenacity.stop_after_attempt(attempts),
        wait=tenacity.wait_random_exponential(multiplier=0.004, max=0.064))
    try:
        return retrying(attempt)
    except tenacity.RetryError as exc:
        raise exception.ConcurrentUpdate(
            '%s: resource provider %s was changed by other requests during '
            'each of %d attempts. Please retry.'
            % (_CHANGED, exc.last_attempt.exception().uuid, attempts))


def resolve_providers(context, uuids):
    """{uuid: (id, generation)} of the providers ``uuids``; BadRequest
    for the first that does not exist."""
    uuids = set(uuids)
    found = {}
    if uuids:
        rows = context.session.execute(
            sa.select(_RP.c.id, _RP.c.uuid, _RP.c.generation)
            .where(_RP.c.uuid.in_(sorted(uuids))))
        found = {row.uuid: (row.id, row.generation) for row in rows
                 if row.uuid in uuids}
    for uuid in sorted(uuids - set(found)):
        raise exception.BadRequest(
            "Allocation for resource provider '%s' that does not exist."
            % uuid)
    return found


def _check_generation(req, current):
    if not req.check_generation:
        return
    if current is None and req.generation is not None:
        raise exception.ConcurrentUpdate(
            'consumer generation conflict - expected null but got %s '
            '(consumer %s does not exist)' % (req.generation, req.uuid))
    if current is not None and current.generation != req.generation:
        raise exception.ConcurrentUpdate(
            'consumer generation conflict - expected %s but got %s '
            '(consumer %s)' % (current.generation,
                               'null' if req.generation is None
                               else req.generation, req.uuid))


def resolve(context, requests, class_error_prefix):
    """Stage 1, in the caller's (reader) transaction: a Plan.

    BadRequest for an unknown provider or class (the detail of the latter
    starts with ``class_error_prefix``), ConcurrentUpdate for a wrong
    consumer generation.
    """
    providers = resolve_providers(
        context, [uuid for req in requests for uuid in req.resources])
    names = {name for req in requests for res in req.resources.values()
             for name in res}
    try:
        classes = resource_classes.ids_by_name(context, names)
    except exception.NotFound as exc:
        raise exception.BadRequest(
            '%s%s' % (class_error_prefix, exc.message))
    uuids = {req.uuid for req in requests}
    current = consumers_mod.get_by_uuids(context, uuids)
    for req in requests:
        _check_generation(req, current.get(req.uuid))
    old = consumers_mod.current_allocations(context, set(current))
    return Plan(requests, providers, classes, current, old)


def intern_ids(context, requests):
    """Stage 2: the ids of the requests' projects, users and types."""
    return consumers_mod.intern_ids(
        context,
        {req.project_id for req in requests},
        {req.user_id for req in requests},
        {req.consumer_type for req in requests
         if req.consumer_type is not None})


def lock_providers(context, generations, steps):
    """Stage 3 of a reshape, the first statements of its writer
    transaction: move each provider of ``generations`` ({id: (uuid,
    generation read)}) on by ``steps[id]``, in id order, by
    compare-and-swap. ProviderChanged if one moved meanwhile (the
    reshape's inventories were computed from those generations).

    UPDATE resource_providers SET generation = :g + :steps
    WHERE id = :id AND generation = :g
    """
    now = timeutils.utcnow()
    for rp_id in sorted(generations):
        uuid, generation = generations[rp_id]
        result = context.session.execute(
            _RP.update()
            .where(_RP.c.id == rp_id, _RP.c.generation == generation)
            .values(generation=generation + steps[rp_id], updated_at=now))
        if result.rowcount != 1:
            raise ProviderChanged(uuid)


def bump_providers(context, providers):
    """Stage 3 of an allocation write, the first statements of the writer
    transaction: bump the generation of each provider of ``providers``
    ({id: uuid}) in id order, taking its row lock (waiting for writers in
    flight). ProviderChanged if one no longer exists.

    UPDATE resource_providers SET generation = generation + 1
    WHERE id = :id
    """
    now = timeutils.utcnow()
    for rp_id in sorted(providers):
        result = context.session.execute(
            _BUMP, {'rp_id': rp_id, 'now': now})
        if result.rowcount != 1:
            raise ProviderChanged(providers[rp_id])


# Built once: it runs once per provider of every allocation write.
_BUMP = (_RP.update()
         .where(_RP.c.id == sa.bindparam('rp_id'))
         .values(generation=_RP.c.generation + 1,
                 updated_at=sa.bindparam('now')))


def _capacity_rows(context, pairs):
    """{(provider id, class id): row} of the inventories of ``pairs``
    with what is allocated from them, in one query:

    SELECT inv.resource_provider_id, inv.resource_class_id, inv.total,
           inv.reserved, inv.min_unit, inv.max_unit, inv.step_size,
           inv.allocation_ratio, usage.used
    FROM inventories AS inv
    LEFT JOIN (SELECT resource_provider_id, resource_class_id,
                      SUM(used) AS used
               FROM allocations
               WHERE resource_provider_id IN (:rps)
                 AND resource_class_id IN (:rcs)
               GROUP BY resource_provider_id, resource_class_id) AS usage
      ON usage.resource_provider_id = inv.resource_provider_id
     AND usage.resource_class_id = inv.resource_class_id
    WHERE inv.resource_provider_id IN (:rps)
      AND inv.resource_class_id IN (:rcs)
    """
    rp_ids = sorted({rp for rp, _ in pairs})
    rc_ids = sorted({rc for _, rc in pairs})
    usage = (sa.select(_ALLOC.c.resource_provider_id,
                       _ALLOC.c.resource_class_id,
                       sa.func.sum(_ALLOC.c.used).label('used'))
             .where(_ALLOC.c.resource_provider_id.in_(rp_ids),
                    _ALLOC.c.resource_class_id.in_(rc_ids))
             .group_by(_ALLOC.c.resource_provider_id,
                       _ALLOC.c.resource_class_id)
             .subquery('usage'))
    query = (
        sa.select(_INV.c.resource_provider_id, _INV.c.resource_class_id,
                  _INV.c.total, _INV.c.reserved, _INV.c.min_unit,
                  _INV.c.max_unit, _INV.c.step_size,
                  _INV.c.allocation_ratio, usage.c.used)
        .select_from(_INV.outerjoin(usage, sa.and_(
            usage.c.resource_provider_id == _INV.c.resource_provider_id,
            usage.c.resource_class_id == _INV.c.resource_class_id)))
        .where(_INV.c.resource_provider_id.in_(rp_ids),
               _INV.c.resource_class_id.in_(rc_ids)))
    return {(row.resource_provider_id, row.resource_class_id): row
            for row in context.session.execute(query)}


def _unable(message, rc_name, rp_uuid):
    return exception.Conflict(
        "Unable to allocate inventory: Unable to create allocation for "
        "'%s' on resource provider '%s'. %s" % (rc_name, rp_uuid, message))


def check_capacity(context, plan, ids=None):
    """Refuse (409) allocations the inventories cannot take: a class the
    provider has no inventory of, an amount outside min_unit..max_unit
    or not a multiple of step_size, or a total over
    (total - reserved) * allocation_ratio. Run after the consumers' old
    allocations are deleted, so usage is everybody else's; a write that
    does not raise the total of an already overcommitted pair passes.

    Where reservations are active (``reservations``), what they still
    hold for other projects counts as used: the load, not the usage, is
    held to the capacity. ``ids``: the write's interned ids (the
    consumers' projects).
    """
    new, old = {}, {}
    for req in plan.requests:
        for rp_uuid, res in req.resources.items():
            rp_id = plan.providers[rp_uuid][0]
            for name, amount in res.items():
                key = (rp_id, plan.classes[name])
                new[key] = new.get(key, 0) + amount
        for rp_id, rc_id, used in plan.old.get(req.uuid, ()):
            old[(rp_id, rc_id)] = old.get((rp_id, rc_id), 0) + used
    if not new:
        return
    rows = plan.capacity
    if rows is None:
        rows = _capacity_rows(context, new)
    ratio = inventories.stored_ratio(context)
    loads = _loads(context, plan, ids, new, old)
    for req in plan.requests:
        for rp_uuid, res in req.resources.items():
            rp_id = plan.providers[rp_uuid][0]
            for name, amount in res.items():
                key = (rp_id, plan.classes[name])
                row = rows.get(key)
                if row is None:
                    raise exception.Conflict(
                        "Unable to allocate inventory: Inventory for '%s' "
                        "on resource provider '%s' invalid."
                        % (name, rp_uuid))
                if not (row.min_unit <= amount <= row.max_unit and
                        amount % row.step_size == 0):
                    raise _unable(
                        'The requested amount would violate inventory '
                        'constraints: %d is not a multiple of step_size %d '
                        'between min_unit %d and max_unit %d.'
                        % (amount, row.step_size, row.min_unit,
                           row.max_unit), name, rp_uuid)
                used = int(row.used or 0)
                capacity = ((row.total - row.reserved) *
                            ratio(row.allocation_ratio))
                total = used + new[key]
                if total > capacity and total > used + old.get(key, 0):
                    raise _unable(
                        'The requested amount would exceed the capacity.',
                        name, rp_uuid)
                if key in loads:
                    before, after = loads[key](used)
                    if after > capacity and after > before:
                        raise _unable(
                            'The requested amount would exceed the '
                            'capacity: reservations of other projects hold '
                            'part of it.', name, rp_uuid)


def _loads(context, plan, ids, new, old):
    """{(provider id, class id): function(others' usage) -> (load before,
    load after)} of the pairs of ``new`` on which reservations are
    active now (``reservations.load``); ``new`` and ``old``: the
    write's amounts and the consumers' former ones, per pair."""
    if ids is None:
        return {}
    held = reservations.holds(context, set(new), reservations.now())
    if not held:
        return {}
    new_by, old_by = {}, {}
    for req in plan.requests:
        project = ids.projects[req.project_id]
        for rp_uuid, res in req.resources.items():
            rp_id = plan.providers[rp_uuid][0]
            for name, amount in res.items():
                mine = new_by.setdefault((rp_id, plan.classes[name]), {})
                mine[project] = mine.get(project, 0) + amount
        current = plan.consumers.get(req.uuid)
        for rp_id, rc_id, used in plan.old.get(req.uuid, ()):
            mine = old_by.setdefault((rp_id, rc_id), {})
            mine[current.project_id] = mine.get(
                current.project_id, 0) + used
    projects = {p for pair in held.values() for p in pair}
    others = reservations.usage_by_project(context, set(held), projects)

    def for_pair(key):
        def loads(used):
            by = others.get(key, {})
            before_by = dict(by)
            for project, amount in old_by.get(key, {}).items():
                before_by[project] = before_by.get(project, 0) + amount
            after_by = dict(by)
            for project, amount in new_by.get(key, {}).items():
                after_by[project] = after_by.get(project, 0) + amount
            return (reservations.load(used + old.get(key, 0), held[key],
                                      before_by),
                    reservations.load(used + new[key], held[key],
                                      after_by))
        return loads
    return {key: for_pair(key) for key in held}


_INSERT = _ALLOC.insert()


def write(context, plan, ids):
    """Stage 4, in the writer transaction after ``lock_providers``."""
    session = context.session
    emptied = []
    for req in sorted(plan.requests, key=lambda r: r.uuid):
        current = plan.consumers.get(req.uuid)
        if not req.resources and current is None:
            # Nothing to remove and nothing to keep.
            continue
        consumers_mod.save(
            context, req.uuid, current, ids.projects[req.project_id],
            ids.users[req.user_id],
            ids.types.get(req.consumer_type),
            keep_type=req.consumer_type is None and current is not None)
        if not req.resources:
            emptied.append(current.id)
    existing = sorted(uuid for uuid in plan.consumers)
    if existing:
        session.execute(_ALLOC.delete().where(
            _ALLOC.c.consumer_id.in_(existing)))
    check_capacity(context, plan, ids)
    now = timeutils.utcnow()
    rows = [{'resource_provider_id': plan.providers[rp_uuid][0],
             'consumer_id': req.uuid,
             'resource_class_id': plan.classes[name],
             'used': amount, 'created_at': now}
            for req in plan.requests
            for rp_uuid, res in req.resources.items()
            for name, amount in res.items()]
    if rows:
        session.execute(_INSERT, rows)
    consumers_mod.delete(context, emptied)


@db_api.writer
def _write(context, plan, ids):
    bump_providers(context, {rp_id: uuid for rp_id, (uuid, _generation)
                             in plan.lock_targets().items()})
    write(context, plan, ids)


def add_removed_providers(context, plan):
    """Add to ``plan.providers`` the providers of old allocations that
    are removed (they are bumped but not named in the request)."""
    missing = plan.touched_provider_ids() - {
        rp_id for rp_id, _ in plan.providers.values()}
    if not missing:
        return
    rows = context.session.execute(
        sa.select(_RP.c.id, _RP.c.uuid, _RP.c.generation)
        .where(_RP.c.id.in_(sorted(missing))))
    for row in rows:
        plan.providers[row.uuid] = (row.id, row.generation)


@db_api.reader
def _plan(context, requests, class_error_prefix):
    node_guard.refuse_claims(context, [req.uuid for req in requests])
    # A reservation's class names the reservation the claim draws on
    # (as nova sends back the allocation request it was offered).
    reservations.strip_classes(context, requests)
    plan = resolve(context, requests, class_error_prefix)
    add_removed_providers(context, plan)
    return plan


def replace(context, requests, attempts,
            class_error_prefix='Unable to allocate inventory: '):
    """Make each ConsumerAllocations of ``requests`` the whole set of
    allocations of its consumer, in one transaction (stages 1-4), trying
    up to ``attempts`` times while providers are deleted under us."""
    ids = []

    def attempt():
        plan = _plan(context, requests, class_error_prefix)
        if not ids:
            ids.append(intern_ids(context, requests))
        _write(context, plan, ids[0])
    until_written(attempts, attempt)


# Reading -----------------------------------------------------------------

class Allocation:
    """One allocation row with what GET shows about it."""

    __slots__ = ('rp_uuid', 'rp_generation', 'resource_class', 'used',
                 'consumer_uuid', 'consumer_generation', 'project_id',
                 'user_id', 'consumer_type', 'created_at', 'updated_at')

    def __init__(self, row):
        for field in self.__slots__:
            setattr(self, field, getattr(row, field))


def _allocation_select():
    return sa.select(
        _RP.c.uuid.label('rp_uuid'), _RP.c.generation.label('rp_generation'),
        _RC.c.name.label('resource_class'), _ALLOC.c.used,
        _ALLOC.c.consumer_id.label('consumer_uuid'),
        _CONSUMER.c.generation.label('consumer_generation'),
        _PROJECT.c.external_id.label('project_id'),
        _USER.c.external_id.label('user_id'),
        _CTYPE.c.name.label('consumer_type'),
        _ALLOC.c.created_at, _ALLOC.c.updated_at,
    ).select_from(
        _ALLOC.join(_RP, _RP.c.id == _ALLOC.c.resource_provider_id)
        .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
        .outerjoin(_CONSUMER, _CONSUMER.c.uuid == _ALLOC.c.consumer_id)
        .outerjoin(_PROJECT, _PROJECT.c.id == _CONSUMER.c.project_id)
        .outerjoin(_USER, _USER.c.id == _CONSUMER.c.user_id)
        .outerjoin(_CTYPE, _CTYPE.c.id == _CONSUMER.c.consumer_type_id)
    ).order_by(_ALLOC.c.id)


@db_api.reader
def get_for_consumer(context, consumer_uuid):
    """Every Allocation of the consumer (none for an unknown one)."""
    rows = context.session.execute(
        _allocation_select().where(_ALLOC.c.consumer_id == consumer_uuid))
    return [Allocation(row) for row in rows
            if row.consumer_uuid == consumer_uuid]


@db_api.reader
def get_for_provider(context, rp_id):
    """Every Allocation made against provider ``rp_id``."""
    rows = context.session.execute(
        _allocation_select().where(_ALLOC.c.resource_provider_id == rp_id))
    return [Allocation(row) for row in rows]
