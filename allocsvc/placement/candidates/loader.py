"""Load what the candidate search needs, in a few set-based queries.

One ``Snapshot`` holds, for the providers that can matter to a request:
the inventories of the requested classes with their usage (only the
providers with room for the smallest requested amount of some class),
the providers of the trees they belong to and of the trees that sharing
providers serve, the traits of those providers, their memberships in the
requested aggregates, and which roots each sharing provider can serve.
The number of queries does not depend on the number of providers.
"""

import sqlalchemy as sa

from allocsvc.db import models
from allocsvc.placement import inventories

_RP = models.resource_providers
_INV = models.inventories
_ALLOC = models.allocations
_RPT = models.resource_provider_traits
_TRAIT = models.traits
_RPA = models.resource_provider_aggregates
_AGG = models.placement_aggregates
_RC = models.resource_classes

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'


class Inventory:
    """Room left in one (provider, class) inventory."""

    __slots__ = ('capacity', 'used', 'min_unit', 'max_unit', 'step_size')

    def __init__(self, capacity, used, min_unit, max_unit, step_size):
        self.capacity = capacity
        self.used = used
        self.min_unit = min_unit
        self.max_unit = max_unit
        self.step_size = step_size

    def fits(self, amount):
        """Whether one group's ``amount`` is a valid allocation alone."""
        return (self.min_unit <= amount <= self.max_unit and
                amount % self.step_size == 0 and
                self.used + amount <= self.capacity)

    def room(self):
        """The most all groups together may take (max_unit caps the sum
        of one consumer's allocations of the class)."""
        return max(0, min(int(self.capacity - self.used), self.max_unit))


class Provider:
    __slots__ = ('id', 'uuid', 'parent_id', 'root_id')

    def __init__(self, row):
        self.id = row.id
        self.uuid = row.uuid
        self.parent_id = row.parent_provider_id
        self.root_id = row.root_provider_id


class Snapshot:
    """What the search reads. ``inventory`` {(rp id, rc id): Inventory};
    ``providers`` {id: Provider}; ``traits`` {rp id: set of names};
    ``aggregates`` {rp id: set of requested aggregate uuids};
    ``sharing_anchors`` {sharing rp id: set of root ids it serves}."""

    def __init__(self):
        self.inventory = {}
        self.providers = {}
        self.traits = {}
        self.aggregates = {}
        self.sharing_anchors = {}

    def anchors(self, rp_id):
        """The roots whose requests ``rp_id`` may serve: its own, and
        those it shares with when it is a sharing provider."""
        root = self.providers[rp_id].root_id
        if SHARING_TRAIT in self.traits.get(rp_id, ()):
            return {root} | self.sharing_anchors.get(rp_id, set())
        return {root}


def _usage(rc_ids):
    return (sa.select(_ALLOC.c.resource_provider_id,
                      _ALLOC.c.resource_class_id,
                      sa.func.sum(_ALLOC.c.used).label('used'))
            .where(_ALLOC.c.resource_class_id.in_(sorted(rc_ids)))
            .group_by(_ALLOC.c.resource_provider_id,
                      _ALLOC.c.resource_class_id)
            .subquery('usage'))


def _capacity_query(min_amounts):
    """Inventories with room for the smallest amount requested of their
    class. The filter is loose by one unit (float allocation ratios are
    rounded differently by each database); the search checks exactly.

    SELECT inv.resource_provider_id, rp.root_provider_id,
           inv.resource_class_id, inv.total, inv.reserved,
           inv.allocation_ratio, inv.min_unit, inv.max_unit,
           inv.step_size, usage.used
    FROM inventories AS inv
    JOIN resource_providers AS rp ON rp.id = inv.resource_provider_id
    LEFT JOIN (SELECT resource_provider_id, resource_class_id,
                      SUM(used) AS used
               FROM allocations WHERE resource_class_id IN (:rcs)
               GROUP BY resource_provider_id, resource_class_id) AS usage
      ON usage.resource_provider_id = inv.resource_provider_id
     AND usage.resource_class_id = inv.resource_class_id
    WHERE (inv.resource_class_id = :rc_1 AND inv.max_unit >= :min_1
           AND (inv.total - inv.reserved) * inv.allocation_ratio + 1
               >= COALESCE(usage.used, 0) + :min_1)
       OR (...one such clause per requested class...)
    """
    usage = _usage(min_amounts)
    used = sa.func.coalesce(usage.c.used, 0)
    clauses = [
        sa.and_(_INV.c.resource_class_id == rc_id,
                _INV.c.max_unit >= amount,
                (_INV.c.total - _INV.c.reserved) * _INV.c.allocation_ratio
                + 1 >= used + amount)
        for rc_id, amount in sorted(min_amounts.items())]
    return (
        sa.select(_INV.c.resource_provider_id, _RP.c.root_provider_id,
                  _INV.c.resource_class_id, _INV.c.total, _INV.c.reserved,
                  _INV.c.allocation_ratio, _INV.c.min_unit, _INV.c.max_unit,
                  _INV.c.step_size, usage.c.used)
        .select_from(
            _INV.join(_RP, _RP.c.id == _INV.c.resource_provider_id)
            .outerjoin(usage, sa.and_(
                usage.c.resource_provider_id == _INV.c.resource_provider_id,
                usage.c.resource_class_id == _INV.c.resource_class_id)))
        .where(sa.or_(*clauses)))


def _anchor_query(capacity, any_sharing):
    """(sharing provider, root it serves) pairs: the roots of every
    provider in an aggregate of the sharing provider (itself included).

    SELECT DISTINCT spt.resource_provider_id AS sharing_id,
                    other.root_provider_id AS anchor_id
    FROM resource_provider_traits AS spt
    JOIN traits AS t ON t.id = spt.trait_id
    JOIN resource_provider_aggregates AS shr
      ON shr.resource_provider_id = spt.resource_provider_id
    JOIN resource_provider_aggregates AS oth
      ON oth.aggregate_id = shr.aggregate_id
    JOIN resource_providers AS other ON other.id = oth.resource_provider_id
    WHERE t.name = 'MISC_SHARES_VIA_AGGREGATE'
      AND spt.resource_provider_id IN (SELECT resource_provider_id
                                       FROM <capacity query>)
    """
    shr = _RPA.alias('shr')
    oth = _RPA.alias('oth')
    other = _RP.alias('other')
    query = (
        sa.select(_RPT.c.resource_provider_id.label('sharing_id'),
                  other.c.root_provider_id.label('anchor_id'))
        .select_from(
            _RPT.join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id)
            .join(shr, shr.c.resource_provider_id ==
                  _RPT.c.resource_provider_id)
            .join(oth, oth.c.aggregate_id == shr.c.aggregate_id)
            .join(other, other.c.id == oth.c.resource_provider_id))
        .where(_TRAIT.c.name == SHARING_TRAIT)
        .distinct())
    if not any_sharing:
        query = query.where(_RPT.c.resource_provider_id.in_(
            sa.select(capacity.c.resource_provider_id)))
    return query


def load(context, min_amounts, agg_uuids, any_sharing=False):
    """A Snapshot for a request whose classes (ids) have at least the
    amounts ``min_amounts`` requested, naming aggregates ``agg_uuids``.
    ``any_sharing``: serve resourceless groups, which any sharing
    provider may satisfy. Runs in the caller's reader transaction."""
    snap = Snapshot()
    session = context.session
    ratio = inventories.stored_ratio(context)
    capacity = _capacity_query(min_amounts).subquery('capacity')
    root_ids = set()
    for row in session.execute(sa.select(capacity)):
        root_ids.add(row.root_provider_id)
        snap.inventory[(row.resource_provider_id, row.resource_class_id)] = (
            Inventory((row.total - row.reserved) * ratio(
                row.allocation_ratio), int(row.used or 0), row.min_unit,
                row.max_unit, row.step_size))
    anchors = _anchor_query(capacity, any_sharing).subquery('anchors')
    for row in session.execute(sa.select(anchors)):
        snap.sharing_anchors.setdefault(row.sharing_id, set()).add(
            row.anchor_id)
    if not snap.inventory:
        return snap
    # The trees that matter, as ids read back once: asking the database
    # to re-evaluate the capacity subquery inside each of the queries
    # below cost more than the queries themselves.
    for anchor_ids in snap.sharing_anchors.values():
        root_ids |= anchor_ids
    for chunk in _chunks(sorted(root_ids)):
        in_trees = _RP.c.root_provider_id.in_(chunk)
        for row in session.execute(
                sa.select(_RP.c.id, _RP.c.uuid, _RP.c.parent_provider_id,
                          _RP.c.root_provider_id).where(in_trees)):
            snap.providers[row.id] = Provider(row)
        for row in session.execute(
                sa.select(_RPT.c.resource_provider_id, _TRAIT.c.name)
                .select_from(
                    _RPT.join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id)
                    .join(_RP, _RP.c.id == _RPT.c.resource_provider_id))
                .where(in_trees)):
            snap.traits.setdefault(row.resource_provider_id, set()).add(
                row.name)
        if agg_uuids:
            for row in session.execute(
                    sa.select(_RPA.c.resource_provider_id, _AGG.c.uuid)
                    .select_from(
                        _RPA.join(_AGG, _AGG.c.id == _RPA.c.aggregate_id)
                        .join(_RP, _RP.c.id == _RPA.c.resource_provider_id))
                    .where(in_trees, _AGG.c.uuid.in_(sorted(agg_uuids)))):
                snap.aggregates.setdefault(
                    row.resource_provider_id, set()).add(row.uuid)
    return snap


# Ids per IN list: well within every backend's bound-parameter limit.
_CHUNK = 5000


def _chunks(ids):
    for start in range(0, len(ids), _CHUNK):
        yield ids[start:start + _CHUNK]


def roots_of(context, uuids):
    """{provider uuid: root id} for the ``uuids`` that exist."""
    if not uuids:
        return {}
    rows = context.session.execute(
        sa.select(_RP.c.uuid, _RP.c.root_provider_id)
        .where(_RP.c.uuid.in_(sorted(uuids))))
    return {row.uuid: row.root_provider_id for row in rows}


def summary_inventories(context, root_ids, rc_ids=None):
    """{rp id: [(class name, capacity, used)]} for every provider of the
    trees ``root_ids``; only classes ``rc_ids`` when given.

    SELECT inv.resource_provider_id, rc.name, inv.total, inv.reserved,
           inv.allocation_ratio, usage.used
    FROM inventories AS inv
    JOIN resource_classes AS rc ON rc.id = inv.resource_class_id
    JOIN resource_providers AS rp ON rp.id = inv.resource_provider_id
    LEFT JOIN (SELECT a.resource_provider_id, a.resource_class_id,
                      SUM(a.used) AS used
               FROM allocations AS a
               JOIN resource_providers AS arp
                 ON arp.id = a.resource_provider_id
               WHERE arp.root_provider_id IN (:roots)
               GROUP BY a.resource_provider_id, a.resource_class_id) AS usage
      ON usage.resource_provider_id = inv.resource_provider_id
     AND usage.resource_class_id = inv.resource_class_id
    WHERE rp.root_provider_id IN (:roots)
    """
    root_ids = sorted(root_ids)
    if not root_ids:
        return {}
    arp = _RP.alias('arp')
    usage = (sa.select(_ALLOC.c.resource_provider_id,
                       _ALLOC.c.resource_class_id,
                       sa.func.sum(_ALLOC.c.used).label('used'))
             .select_from(_ALLOC.join(
                 arp, arp.c.id == _ALLOC.c.resource_provider_id))
             .where(arp.c.root_provider_id.in_(root_ids))
             .group_by(_ALLOC.c.resource_provider_id,
                       _ALLOC.c.resource_class_id)
             .subquery('usage'))
    query = (
        sa.select(_INV.c.resource_provider_id, _RC.c.name, _INV.c.total,
                  _INV.c.reserved, _INV.c.allocation_ratio, usage.c.used)
        .select_from(
            _INV.join(_RC, _RC.c.id == _INV.c.resource_class_id)
            .join(_RP, _RP.c.id == _INV.c.resource_provider_id)
            .outerjoin(usage, sa.and_(
                usage.c.resource_provider_id == _INV.c.resource_provider_id,
                usage.c.resource_class_id == _INV.c.resource_class_id)))
        .where(_RP.c.root_provider_id.in_(root_ids)))
    if rc_ids is not None:
        query = query.where(_INV.c.resource_class_id.in_(sorted(rc_ids)))
    ratio = inventories.stored_ratio(context)
    found = {}
    for row in context.session.execute(query):
        capacity = int((row.total - row.reserved) *
                       ratio(row.allocation_ratio))
        found.setdefault(row.resource_provider_id, []).append(
            (row.name, capacity, int(row.used or 0)))
    return found
