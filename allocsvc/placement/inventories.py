"""Inventories: how much of each resource class a provider offers.

Every write is one transaction that ends with the compare-and-swap of the
provider generation (``providers.increment_generation``), so a successful
write bumps the generation exactly once and two concurrent writers cannot
both win. Allocations change the provider generation too, which is what
makes the in-use checks below safe without row locks: an allocation made
between our check and our commit makes the compare-and-swap fail.

Inventory in use is never removed (InventoryInUse, 409
``placement.inventory.inuse``). It may be set below what is allocated
from it, with a warning in the log, as in Placement: the inventory is
what the hypervisor reports it has, and a client (nova's resource
tracker) that cannot write it retries for ever. The allocations stay;
new ones find no room until usage is back under capacity. The
``[placement] refuse_inventory_below_usage`` option makes that an
InventoryInUse too (``refuse_overcommit``).
"""

import struct

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import node_guard
from allocsvc.placement import providers
from allocsvc.placement import resource_classes
from allocsvc.placement import topology

_INV = models.inventories
_ALLOC = models.allocations
_RC = models.resource_classes

LOG = logging.getLogger(__name__)

MAX_INT = 2147483647

# The values Placement fills in for fields a client leaves out.
DEFAULTS = {
    'reserved': 0,
    'min_unit': 1,
    'max_unit': MAX_INT,
    'step_size': 1,
    'allocation_ratio': 1.0,
}

FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
          'allocation_ratio')


class Inventory:
    """The inventory of one resource class on one provider."""

    __slots__ = ('resource_class',) + FIELDS + ('created_at', 'updated_at')

    def __init__(self, resource_class, total, reserved=0, min_unit=1,
                 max_unit=MAX_INT, step_size=1, allocation_ratio=1.0,
                 created_at=None, updated_at=None):
        self.resource_class = resource_class
        # JSON Schema's "integer" admits 2.0: store and show plain ints.
        self.total = int(total)
        self.reserved = int(reserved)
        self.min_unit = int(min_unit)
        self.max_unit = int(max_unit)
        self.step_size = int(step_size)
        self.allocation_ratio = float(allocation_ratio)
        self.created_at = created_at
        self.updated_at = updated_at

    @classmethod
    def from_request(cls, resource_class, data):
        """An Inventory from validated request fields, defaults applied."""
        values = dict(DEFAULTS)
        values.update((k, v) for k, v in data.items() if k in FIELDS)
        return cls(resource_class, **values)

    @property
    def capacity(self):
        """What can be allocated: (total - reserved) * allocation_ratio."""
        return int((self.total - self.reserved) * self.allocation_ratio)

    def values(self):
        return {field: getattr(self, field) for field in FIELDS}


def shortest_float32(value):
    """The shortest decimal that a single-precision float reads back as.

    MySQL stores FLOAT columns in 4 bytes, so 1.1 comes back as
    1.100000023841858; showing it as 1.1 again is what the client wrote.
    """
    try:
        packed = struct.pack('<f', value)
    except OverflowError:
        return value
    for digits in range(1, 10):
        candidate = float('%.*g' % (digits, value))
        try:
            if struct.pack('<f', candidate) == packed:
                return candidate
        except OverflowError:
            # Rounded up past the largest float32, near the top of range.
            continue
    return value


def check_capacity(rp_uuid, inventories, reserved_may_equal_total):
    """BadRequest if an inventory leaves nothing (or less) to allocate.

    Before microversion 1.26 the capacity must be at least 1; from 1.26
    reserved may equal total (capacity 0) but not exceed it.
    """
    for inv in inventories:
        if reserved_may_equal_total:
            if inv.capacity < 0:
                raise exception.InvalidInventory(
                    'Invalid inventory for %s on resource provider %s: the '
                    'reserved value (%d) is greater than total (%d).'
                    % (inv.resource_class, rp_uuid, inv.reserved, inv.total))
        elif inv.capacity <= 0:
            raise exception.InvalidInventory(
                'Invalid inventory for %s on resource provider %s: the '
                'reserved value (%d) is greater than or equal to total (%d) '
                'or leaves no capacity; reserved may equal total only from '
                'microversion 1.26.'
                % (inv.resource_class, rp_uuid, inv.reserved, inv.total))


def _is_mysql(context):
    return context.session.get_bind().dialect.name == 'mysql'


def stored_ratio(context):
    """A function giving back, from an allocation_ratio as the database
    returns it, the value the client wrote (see ``shortest_float32``)."""
    if _is_mysql(context):
        return shortest_float32
    return float


def _read(context, rp_id, rc_ids=None):
    """{class name: Inventory} of provider ``rp_id`` (caller's transaction).

    SELECT rc.name, inv.* FROM inventories AS inv
    JOIN resource_classes AS rc ON rc.id = inv.resource_class_id
    WHERE inv.resource_provider_id = :rp_id
    """
    query = (sa.select(_RC.c.name, _INV.c.resource_class_id,
                       *[_INV.c[f] for f in FIELDS],
                       _INV.c.created_at, _INV.c.updated_at)
             .select_from(_INV.join(_RC, _RC.c.id == _INV.c.resource_class_id))
             .where(_INV.c.resource_provider_id == rp_id))
    if rc_ids is not None:
        query = query.where(_INV.c.resource_class_id.in_(sorted(rc_ids)))
    mysql = _is_mysql(context)
    found = {}
    for row in context.session.execute(query):
        ratio = row.allocation_ratio
        if mysql:
            ratio = shortest_float32(ratio)
        found[row.name] = Inventory(
            row.name, row.total, row.reserved, row.min_unit, row.max_unit,
            row.step_size, ratio, row.created_at, row.updated_at)
    return found


def _class_ids(context, rp_id):
    """{class id: class name} of the inventory of provider ``rp_id``."""
    rows = context.session.execute(
        sa.select(_INV.c.resource_class_id, _RC.c.name)
        .join(_RC, _RC.c.id == _INV.c.resource_class_id)
        .where(_INV.c.resource_provider_id == rp_id))
    return {row.resource_class_id: row.name for row in rows}


def _used(context, rp_id, rc_ids):
    """{class id: amount allocated} for the classes of ``rc_ids`` in use.

    SELECT resource_class_id, SUM(used) FROM allocations
    WHERE resource_provider_id = :rp_id AND resource_class_id IN (:rc_ids)
    GROUP BY resource_class_id
    """
    if not rc_ids:
        return {}
    rows = context.session.execute(
        sa.select(_ALLOC.c.resource_class_id,
                  sa.func.sum(_ALLOC.c.used).label('used'))
        .where(_ALLOC.c.resource_provider_id == rp_id,
               _ALLOC.c.resource_class_id.in_(sorted(rc_ids)))
        .group_by(_ALLOC.c.resource_class_id))
    # int(): MySQL's SUM() is a Decimal.
    return {row.resource_class_id: int(row.used or 0) for row in rows}


def in_use(names, rp_uuid, why=''):
    """InventoryInUse naming the classes ``names`` (in the order given)."""
    return exception.InventoryInUse(
        "Inventory for '%s' on resource provider '%s' in use%s."
        % (', '.join(names), rp_uuid, why))


def over_capacity(rp_uuid, rc_name, capacity, used, refuse):
    """An inventory of ``rc_name`` on ``rp_uuid`` is being set to
    ``capacity``, below the ``used`` allocated from it: InventoryInUse if
    ``refuse``, else a warning (with Placement's wording, which operators
    search their logs for)."""
    if refuse:
        raise in_use([rc_name], rp_uuid,
                     ': its capacity would be %d, less than the %d already '
                     'allocated' % (capacity, used))
    LOG.warning('Resource provider %(uuid)s is now over-capacity for '
                '%(resource)s', {'uuid': rp_uuid, 'resource': rc_name})


def _refuse_removal(context, rp, removed):
    """InventoryInUse if any class of ``removed`` ({id: name}) has
    allocations on ``rp``; ProviderInUse if ``rp`` is a bound node's."""
    if removed:
        node_guard.refuse(context, rp.uuid,
                          'remove inventory from resource provider')
    used = _used(context, rp.id, removed)
    if used:
        # In class id order (standard classes in os-resource-classes
        # order), as Placement names them.
        raise in_use([removed[rc_id] for rc_id in sorted(used)], rp.uuid)


def _check_shrinking(context, rp, updated, refuse):
    """``over_capacity`` for each inventory of ``updated`` ({id:
    Inventory}) that would have less capacity than is allocated."""
    used = _used(context, rp.id, updated)
    for rc_id, amount in sorted(used.items()):
        inv = updated[rc_id]
        if amount > inv.capacity:
            over_capacity(rp.uuid, inv.resource_class, inv.capacity, amount,
                          refuse)


def _check_generation(rp, generation):
    if generation != rp.generation:
        raise exception.ConcurrentUpdate(
            'resource provider generation conflict: provider %s is at '
            'generation %d, the request was made at generation %s. Please '
            'update the generation and try again.'
            % (rp.uuid, rp.generation, generation))


def _insert(context, rp, rc_id, inv, now):
    topology.changed(context, provider_ids=[rp.id])
    context.session.execute(_INV.insert().values(
        resource_provider_id=rp.id, resource_class_id=rc_id,
        created_at=now, **inv.values()))


def _update(context, rp, rc_id, inv, now):
    topology.changed(context, provider_ids=[rp.id])
    return context.session.execute(
        _INV.update()
        .where(_INV.c.resource_provider_id == rp.id,
               _INV.c.resource_class_id == rc_id)
        .values(updated_at=now, **inv.values())).rowcount


def _unknown_class(rp_uuid, exc):
    return exception.BadRequest(
        'Unknown resource class in inventory for resource provider %s: %s'
        % (rp_uuid, exc.message))


@db_api.reader
def get_all(context, rp_uuid):
    """(provider, {class name: Inventory}); NotFound for no provider."""
    rp = providers.get_in_transaction(context, rp_uuid)
    return rp, _read(context, rp.id)


@db_api.reader
def get_one(context, rp_uuid, resource_class):
    """(provider, Inventory of ``resource_class``); NotFound if either is
    missing."""
    rp = providers.get_in_transaction(context, rp_uuid)
    not_found = exception.NotFound(
        'No inventory of class %s for %s' % (resource_class, rp_uuid))
    try:
        rc_id = resource_classes.ids_by_name(
            context, [resource_class])[resource_class]
    except exception.NotFound:
        raise not_found
    found = _read(context, rp.id, [rc_id])
    if resource_class not in found:
        raise not_found
    return rp, found[resource_class]


@db_api.writer
def create(context, rp_uuid, inv, reserved_may_equal_total):
    """Add the inventory of a class the provider does not have yet.

    Returns the new provider generation. The client sends no generation
    (Placement ignores one if given): the one read here is swapped.
    """
    rp = providers.get_in_transaction(context, rp_uuid)
    check_capacity(rp_uuid, [inv], reserved_may_equal_total)
    try:
        rc_id = resource_classes.ids_by_name(
            context, [inv.resource_class])[inv.resource_class]
    except exception.NotFound as exc:
        raise _unknown_class(rp_uuid, exc)
    exists = exception.ConcurrentUpdate(
        'Update conflict: resource provider %s already has inventory of '
        'class %s; use PUT to change it.' % (rp_uuid, inv.resource_class))
    if rc_id in _class_ids(context, rp.id):
        raise exists
    try:
        _insert(context, rp, rc_id, inv, timeutils.utcnow())
    except db_exc.DBDuplicateEntry:
        # Added by a concurrent request since we looked.
        raise exists
    return providers.increment_generation(context, rp.id, rp.generation)


@db_api.writer
def update(context, rp_uuid, generation, inv, reserved_may_equal_total,
           refuse_overcommit=False):
    """Replace the inventory of one class the provider already has.

    Returns the new provider generation.
    """
    rp = providers.get_in_transaction(context, rp_uuid)
    _check_generation(rp, generation)
    check_capacity(rp_uuid, [inv], reserved_may_equal_total)
    try:
        rc_id = resource_classes.ids_by_name(
            context, [inv.resource_class])[inv.resource_class]
    except exception.NotFound as exc:
        raise _unknown_class(rp_uuid, exc)
    if rc_id not in _class_ids(context, rp.id):
        raise exception.BadRequest(
            'No inventory record with resource class %s for resource '
            'provider %s: create it with POST or PUT to the inventories '
            'collection first.'
            % (inv.resource_class, rp_uuid))
    _check_shrinking(context, rp, {rc_id: inv}, refuse_overcommit)
    _update(context, rp, rc_id, inv, timeutils.utcnow())
    return providers.increment_generation(context, rp.id, generation)


def _split(context, rp, wanted):
    """({class id: name} removed, {class id: Inventory} kept) when
    ``wanted`` ({class id: Inventory}) replaces the inventory of ``rp``."""
    existing = _class_ids(context, rp.id)
    removed = {rc_id: name for rc_id, name in existing.items()
               if rc_id not in wanted}
    kept = {rc_id: inv for rc_id, inv in wanted.items() if rc_id in existing}
    return removed, kept


def _delete_classes(context, rp, removed):
    if removed:
        topology.changed(context, provider_ids=[rp.id])
        context.session.execute(_INV.delete().where(
            _INV.c.resource_provider_id == rp.id,
            _INV.c.resource_class_id.in_(sorted(removed))))


def _write_all(context, rp, wanted, removed, kept):
    now = timeutils.utcnow()
    _delete_classes(context, rp, removed)
    for rc_id, inv in sorted(wanted.items()):
        if rc_id in kept:
            _update(context, rp, rc_id, inv, now)
        else:
            try:
                _insert(context, rp, rc_id, inv, now)
            except db_exc.DBDuplicateEntry:
                raise exception.ConcurrentUpdate(
                    'Update conflict: inventory of class %s was added to '
                    'resource provider %s concurrently.'
                    % (inv.resource_class, rp.uuid))


def write_union(context, rp, wanted):
    """Inside the caller's transaction, write the classes of ``wanted``
    ({class id: Inventory}) on ``rp`` (anything with ``id`` and
    ``uuid``) and leave in place, as they are, those it drops: the union
    of the old and the new inventory, against which the reshaper checks
    the allocations it moves. No in-use check, no generation change.
    Returns the dropped classes ({class id: name}), for
    ``delete_unchecked`` once the allocations have moved off them.
    """
    removed, kept = _split(context, rp, wanted)
    if removed:
        node_guard.refuse(context, rp.uuid, 'reshape resource provider')
    _write_all(context, rp, wanted, {}, kept)
    return removed


def delete_unchecked(context, rp, removed):
    """Inside the caller's transaction, delete the inventory of the
    classes ``removed`` ({class id: name}) of ``rp``, allocated or not:
    the reshaper checks what is left on them afterwards."""
    _delete_classes(context, rp, removed)


@db_api.writer
def replace_all(context, rp_uuid, generation, inventories,
                reserved_may_equal_total, refuse_overcommit=False):
    """Make ``inventories`` (a list of Inventory) the provider's whole
    inventory: add, update and delete classes as needed.

    Returns the new provider generation.
    """
    rp = providers.get_in_transaction(context, rp_uuid)
    _check_generation(rp, generation)
    check_capacity(rp_uuid, inventories, reserved_may_equal_total)
    try:
        ids = resource_classes.ids_by_name(
            context, [inv.resource_class for inv in inventories])
    except exception.NotFound as exc:
        raise _unknown_class(rp_uuid, exc)
    wanted = {ids[inv.resource_class]: inv for inv in inventories}
    removed, kept = _split(context, rp, wanted)
    try:
        _refuse_removal(context, rp, removed)
        _check_shrinking(context, rp, kept, refuse_overcommit)
    except exception.InventoryInUse as exc:
        # Placement's wording for a PUT of the whole inventory; nova
        # matches on it.
        raise exception.InventoryInUse('update conflict: ' + exc.message)
    _write_all(context, rp, wanted, removed, kept)
    return providers.increment_generation(context, rp.id, generation)


@db_api.writer
def delete(context, rp_uuid, resource_class):
    """Remove the inventory of one class, unless it is allocated."""
    rp = providers.get_in_transaction(context, rp_uuid)
    not_found = exception.NotFound(
        'No inventory of class %s found for delete on resource provider %s'
        % (resource_class, rp_uuid))
    try:
        rc_id = resource_classes.ids_by_name(
            context, [resource_class])[resource_class]
    except exception.NotFound:
        raise not_found
    try:
        _refuse_removal(context, rp, {rc_id: resource_class})
    except exception.InventoryInUse as exc:
        # Placement's wording and code for this one request: it answers
        # an inventory in use and a lost race alike, with
        # placement.concurrent_update (clients such as Blazar's retry on
        # it).
        raise exception.ConcurrentUpdate(
            'Unable to delete inventory of class %s: %s'
            % (resource_class, exc.message))
    result = context.session.execute(_INV.delete().where(
        _INV.c.resource_provider_id == rp.id,
        _INV.c.resource_class_id == rc_id))
    if not result.rowcount:
        raise not_found
    topology.changed(context, provider_ids=[rp.id])
    return providers.increment_generation(context, rp.id, rp.generation)


@db_api.writer
def delete_all(context, rp_uuid):
    """Remove all the provider's inventory, unless some is allocated.

    Bumps the generation even when there was nothing to remove, as
    Placement does: the request still asserted a new state.
    """
    rp = providers.get_in_transaction(context, rp_uuid)
    existing = _class_ids(context, rp.id)
    _refuse_removal(context, rp, existing)
    if existing:
        topology.changed(context, provider_ids=[rp.id])
        context.session.execute(_INV.delete().where(
            _INV.c.resource_provider_id == rp.id))
    return providers.increment_generation(context, rp.id, rp.generation)
