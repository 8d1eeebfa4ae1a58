"""The reshaper: replace inventories and allocations in one transaction.

Used when inventory moves between providers (say from a compute node to
a new child provider) while it is allocated. It is the allocation write
of ``allocations`` with inventory changes in front:

1. A reader transaction resolves the inventory providers (400 with code
   placement.resource_provider.not_found if one is missing, 409 if the
   generation given for it is not the current one), the classes, and
   the allocation plan (``allocations.resolve``).
2. Projects, users and consumer types are interned.
3. A writer transaction moves, first of all, the generation of every
   provider involved (inventory providers and those allocated from), in
   id order, by compare-and-swap; if one moved meanwhile it starts again
   from 1 (bounded), exactly as allocation writes do.
4. The new inventories are written, but the classes they drop stay
   until the allocations are replaced and checked against that union of
   old and new (Placement's order); then the dropped classes go, and
   last every inventory provider is checked: no allocation may be left
   on a class it no longer has (409 placement.inventory.inuse, which
   nova's report client looks for when it reshapes without moving the
   allocations). One left above its new capacity
   (an allocation of a consumer the request does not name) is accepted
   with a warning, as for any inventory write, or refused with
   ``refuse_overcommit`` (``inventories.over_capacity``).

Generations move as Placement's do, which clients that reshape and then
write at the generation they expect rely on. Placement writes a
provider's inventory twice (first the union of old and new, skipped when
the new one is empty, then the new one) around the allocation write, and
each write bumps: so an inventory provider moves by two (one if its new
inventory is empty), plus one if the allocation write touches it
(``allocations.Plan.touched_provider_ids``); any other provider the
allocations touch moves by one.
"""

import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import allocations
from allocsvc.placement import inventories as inventories_mod
from allocsvc.placement import node_guard
from allocsvc.placement import resource_classes

_ALLOC = models.allocations
_INV = models.inventories
_RC = models.resource_classes
_RP = models.resource_providers

_MALFORMED = 'malformed reshaper data: '


class ProviderInventories:
    """The whole new inventory of one provider, as the request gives it:
    ``inventories`` is a list of inventories.Inventory (empty to remove
    all)."""

    __slots__ = ('uuid', 'generation', 'inventories')

    def __init__(self, uuid, generation, inventories):
        self.uuid = uuid
        self.generation = generation
        self.inventories = inventories


class _Provider:
    __slots__ = ('id', 'uuid')

    def __init__(self, rp_id, uuid):
        self.id = rp_id
        self.uuid = uuid


class _Plan:
    __slots__ = ('allocations', 'providers', 'wanted')

    def __init__(self, allocation_plan, providers, wanted):
        self.allocations = allocation_plan
        # {uuid: (id, generation)} of the inventory providers.
        self.providers = providers
        # {uuid: {class id: Inventory}}
        self.wanted = wanted

    def lock_targets(self):
        targets = self.allocations.lock_targets()
        for uuid, (rp_id, generation) in self.providers.items():
            targets[rp_id] = (uuid, generation)
        return targets

    def steps(self):
        """{provider id: by how much its generation moves} (see the
        module's docstring)."""
        steps = dict.fromkeys(self.allocations.touched_provider_ids(), 1)
        for uuid, (rp_id, _generation) in self.providers.items():
            steps[rp_id] = (steps.get(rp_id, 0) + 1 +
                            (1 if self.wanted[uuid] else 0))
        return steps


def _resolve_inventory_providers(context, new_inventories):
    uuids = {inv.uuid for inv in new_inventories}
    rows = context.session.execute(
        sa.select(_RP.c.id, _RP.c.uuid, _RP.c.generation)
        .where(_RP.c.uuid.in_(sorted(uuids))))
    found = {row.uuid: (row.id, row.generation) for row in rows
             if row.uuid in uuids}
    for item in new_inventories:
        if item.uuid not in found:
            raise exception.BadRequest(
                'Resource provider %s in inventories not found: No resource '
                'provider with uuid %s found' % (item.uuid, item.uuid),
                error_code=exception.RESOURCE_PROVIDER_NOT_FOUND)
        generation = found[item.uuid][1]
        if item.generation != generation:
            raise exception.ConcurrentUpdate(
                'resource provider generation conflict for provider %s: '
                'actual: %s, given: %s'
                % (item.uuid, generation, item.generation))
    return found


@db_api.reader
def _plan(context, new_inventories, requests):
    providers = _resolve_inventory_providers(context, new_inventories)
    names = {inv.resource_class for item in new_inventories
             for inv in item.inventories}
    try:
        ids = resource_classes.ids_by_name(context, names)
    except exception.NotFound as exc:
        raise exception.BadRequest(_MALFORMED + exc.message)
    wanted = {item.uuid: {ids[inv.resource_class]: inv
                          for inv in item.inventories}
              for item in new_inventories}
    node_guard.refuse_claims(context, [req.uuid for req in requests])
    plan = allocations.resolve(context, requests, _MALFORMED)
    allocations.add_removed_providers(context, plan)
    return _Plan(plan, providers, wanted)


def _check_in_use(context, providers, refuse_overcommit):
    """InventoryInUse if an allocation on one of ``providers`` ({uuid:
    (id, generation)}) has no inventory left; ``over_capacity`` for one
    above its new capacity.

    SELECT a.resource_provider_id, a.resource_class_id, rc.name,
           SUM(a.used), inv.total, inv.reserved, inv.allocation_ratio
    FROM allocations AS a
    JOIN resource_classes AS rc ON rc.id = a.resource_class_id
    LEFT JOIN inventories AS inv
      ON inv.resource_provider_id = a.resource_provider_id
     AND inv.resource_class_id = a.resource_class_id
    WHERE a.resource_provider_id IN (:rps)
    GROUP BY a.resource_provider_id, a.resource_class_id, rc.name,
             inv.total, inv.reserved, inv.allocation_ratio
    ORDER BY a.resource_provider_id, a.resource_class_id
    """
    uuids = {rp_id: uuid for uuid, (rp_id, _) in providers.items()}
    if not uuids:
        return
    query = (
        sa.select(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id,
                  _RC.c.name, sa.func.sum(_ALLOC.c.used).label('used'),
                  _INV.c.total, _INV.c.reserved, _INV.c.allocation_ratio)
        .select_from(
            _ALLOC.join(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
            .outerjoin(_INV, sa.and_(
                _INV.c.resource_provider_id == _ALLOC.c.resource_provider_id,
                _INV.c.resource_class_id == _ALLOC.c.resource_class_id)))
        .where(_ALLOC.c.resource_provider_id.in_(sorted(uuids)))
        .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id,
                  _RC.c.name, _INV.c.total, _INV.c.reserved,
                  _INV.c.allocation_ratio)
        .order_by(_ALLOC.c.resource_provider_id,
                  _ALLOC.c.resource_class_id))
    ratio = inventories_mod.stored_ratio(context)
    removed = {}
    for row in context.session.execute(query):
        rp_uuid = uuids[row.resource_provider_id]
        if row.total is None:
            removed.setdefault(rp_uuid, []).append(row.name)
            continue
        used = int(row.used)
        capacity = int((row.total - row.reserved) *
                       ratio(row.allocation_ratio))
        if used > capacity:
            inventories_mod.over_capacity(rp_uuid, row.name, capacity, used,
                                          refuse_overcommit)
    for rp_uuid, names in removed.items():
        exc = inventories_mod.in_use(names, rp_uuid)
        raise exception.InventoryInUse('update conflict: ' + exc.message)


@db_api.writer
def _write(context, plan, ids, refuse_overcommit):
    allocations.lock_providers(context, plan.lock_targets(), plan.steps())
    dropped = []
    for uuid, wanted in sorted(plan.wanted.items()):
        rp = _Provider(plan.providers[uuid][0], uuid)
        dropped.append((rp, inventories_mod.write_union(context, rp,
                                                        wanted)))
    allocations.write(context, plan.allocations, ids)
    for rp, removed in dropped:
        inventories_mod.delete_unchecked(context, rp, removed)
    _check_in_use(context, plan.providers, refuse_overcommit)


def reshape(context, new_inventories, requests, attempts,
            refuse_overcommit=False):
    """Replace the inventories of ``new_inventories`` (ProviderInventories)
    and the allocations of ``requests`` (allocations.ConsumerAllocations)
    atomically, trying up to ``attempts`` times while providers change
    under us. ``refuse_overcommit``: refuse, rather than log, an
    inventory left below what is allocated from it."""
    for item in new_inventories:
        inventories_mod.check_capacity(item.uuid, item.inventories, True)
    ids = []

    def attempt():
        plan = _plan(context, new_inventories, requests)
        if not ids:
            ids.append(allocations.intern_ids(context, requests))
        _write(context, plan, ids[0], refuse_overcommit)
    allocations.until_written(attempts, attempt)
