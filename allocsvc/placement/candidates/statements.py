"""The statements the candidates loader sends, built once per shape.

Each builder takes the dialect's name and the statement's *shape* (which
parts it has) and is cached on those: the statement is then the same
object at every request, with the request's values bound as parameters
(lists are arrays on PostgreSQL, "expanding" IN lists elsewhere), and
SQLAlchemy compiles it once and keeps it in its compiled cache, where
building and compiling them on every request cost as much as running
them. The docstrings show the SQL each sends.
"""

import functools

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from allocsvc.db import models
from allocsvc.db import unions

_RP = models.resource_providers
_INV = models.inventories
_ALLOC = models.allocations
_RPT = models.resource_provider_traits
_TRAIT = models.traits
_RPA = models.resource_provider_aggregates
_RC = models.resource_classes
_TOPO = models.placement_topology

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'


def in_list(dialect, column, name):
    """``column IN (:name)``, the list bound as parameter ``name``.

    PostgreSQL receives the list as one array (``column = ANY(:name)``):
    the statement's text then never changes, where an "expanding" IN is
    rendered again at every execution with one placeholder per value (a
    visible share of a request's time with a hundred roots). The other
    drivers have no array parameter."""
    if dialect == 'postgresql':
        return column == sa.any_(
            sa.bindparam(name, type_=postgresql.ARRAY(column.type)))
    return column.in_(sa.bindparam(name, expanding=True))


def _sum_used():
    # An integer on every backend (MySQL's SUM() gives a DECIMAL, which
    # would also turn the union's column into one).
    return sa.cast(sa.func.sum(_ALLOC.c.used), sa.BigInteger)


@functools.lru_cache(maxsize=8)
def capacity(dialect, usage=True):
    """Everything a request needs from the database before the search,
    in one round trip (the inventories themselves come from the
    process' copy of the trees, ``topology``):

    kind 1 (unless not ``usage``): what is allocated of the classes
      named ``:classes``, per provider.
    kind 2, 3: the ids of the classes ``:classes`` and the traits among
      ``:traits`` that exist (the name last).
    kind 4: every sharing provider.
    kind 5: the roots of the providers ``:in_trees`` (the uuid last).
    kind 6: the version of the trees: version, floor, epoch last.

    SELECT 1, resource_provider_id, resource_class_id, SUM(used), NULL...
    FROM allocations WHERE resource_class_id IN (
        SELECT id FROM resource_classes WHERE name IN (:classes))
    GROUP BY resource_provider_id, resource_class_id
    UNION ALL
    SELECT 2, id, NULL..., name FROM resource_classes
    WHERE name IN (:classes)
    UNION ALL
    SELECT 3, id, NULL..., name FROM traits WHERE name IN (:traits)
    UNION ALL
    SELECT 4, rpt.resource_provider_id, NULL...
    FROM resource_provider_traits AS rpt
    JOIN traits AS t ON t.id = rpt.trait_id
    WHERE t.name = 'MISC_SHARES_VIA_AGGREGATE'
    UNION ALL
    SELECT 5, root_provider_id, NULL..., uuid FROM resource_providers
    WHERE uuid IN (:in_trees)
    UNION ALL
    SELECT 6, version, floor, NULL..., epoch FROM placement_topology
    WHERE id = 1
    """
    holes = unions.holes
    classes = sa.select(_RC.c.id).where(
        in_list(dialect, _RC.c.name, 'classes'))
    used = (sa.select(_ALLOC.c.resource_provider_id,
                      _ALLOC.c.resource_class_id, _sum_used())
            .where(_ALLOC.c.resource_class_id.in_(classes))
            .group_by(_ALLOC.c.resource_provider_id,
                      _ALLOC.c.resource_class_id))
    class_ids = (sa.select(_RC.c.id, *holes(3), _RC.c.name)
                 .where(in_list(dialect, _RC.c.name, 'classes')))
    trait_ids = (sa.select(_TRAIT.c.id, *holes(3), _TRAIT.c.name)
                 .where(in_list(dialect, _TRAIT.c.name, 'traits')))
    sharing = (sa.select(_RPT.c.resource_provider_id)
               .select_from(_RPT.join(_TRAIT,
                                      _TRAIT.c.id == _RPT.c.trait_id))
               .where(_TRAIT.c.name == SHARING_TRAIT))
    tree_roots = (sa.select(_RP.c.root_provider_id, *holes(3), _RP.c.uuid)
                  .where(in_list(dialect, _RP.c.uuid, 'in_trees')))
    stamp = (sa.select(_TOPO.c.version, _TOPO.c.floor, *holes(2),
                       _TOPO.c.epoch)
             .where(_TOPO.c.id == 1))
    parts = {2: class_ids, 3: trait_ids, 4: sharing, 5: tree_roots,
             6: stamp}
    if usage:
        parts[1] = used
    return unions.tagged(dialect, parts)


@functools.lru_cache(maxsize=8)
def sharing_anchors(dialect, every_sharing):
    """(sharing provider, its root, root it serves) triples: the roots of
    every provider in an aggregate of the sharing provider (itself
    included), for every sharing provider or only ``:sharing_ids``.

    SELECT DISTINCT spt.resource_provider_id AS sharing_id,
                    srp.root_provider_id AS sharing_root_id,
                    other.root_provider_id AS anchor_id
    FROM resource_provider_traits AS spt
    JOIN traits AS t ON t.id = spt.trait_id
    JOIN resource_providers AS srp ON srp.id = spt.resource_provider_id
    JOIN resource_provider_aggregates AS shr
      ON shr.resource_provider_id = spt.resource_provider_id
    JOIN resource_provider_aggregates AS oth
      ON oth.aggregate_id = shr.aggregate_id
    JOIN resource_providers AS other ON other.id = oth.resource_provider_id
    WHERE t.name = 'MISC_SHARES_VIA_AGGREGATE'
     [AND spt.resource_provider_id IN (:sharing_ids)]
    """
    srp = _RP.alias('srp')
    shr = _RPA.alias('shr')
    oth = _RPA.alias('oth')
    other = _RP.alias('other')
    query = (
        sa.select(_RPT.c.resource_provider_id.label('sharing_id'),
                  srp.c.root_provider_id.label('sharing_root_id'),
                  other.c.root_provider_id.label('anchor_id'))
        .select_from(
            _RPT.join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id)
            .join(srp, srp.c.id == _RPT.c.resource_provider_id)
            .join(shr, shr.c.resource_provider_id ==
                  _RPT.c.resource_provider_id)
            .join(oth, oth.c.aggregate_id == shr.c.aggregate_id)
            .join(other, other.c.id == oth.c.resource_provider_id))
        .where(_TRAIT.c.name == SHARING_TRAIT)
        .distinct())
    if not every_sharing:
        query = query.where(
            in_list(dialect, _RPT.c.resource_provider_id, 'sharing_ids'))
    return query


@functools.lru_cache(maxsize=16)
def summary(dialect, some_classes):
    """Every inventory of the providers of the trees ``:roots`` (kind 0),
    and what is allocated from them (kind 1): of every class, or only of
    the classes ``:rc_ids`` (``some_classes``).

    SELECT 0, inv.resource_provider_id, inv.resource_class_id, rc.name,
           inv.total, inv.reserved, inv.allocation_ratio
    FROM inventories AS inv
    JOIN resource_classes AS rc ON rc.id = inv.resource_class_id
    JOIN resource_providers AS rp ON rp.id = inv.resource_provider_id
    WHERE rp.root_provider_id IN (:roots)
     [AND inv.resource_class_id IN (:rc_ids)]
    UNION ALL
    SELECT 1, a.resource_provider_id, a.resource_class_id, NULL,
           SUM(a.used), NULL, NULL
    FROM allocations AS a
    JOIN resource_providers AS rp ON rp.id = a.resource_provider_id
    WHERE rp.root_provider_id IN (:roots)
     [AND a.resource_class_id IN (:rc_ids)]
    GROUP BY a.resource_provider_id, a.resource_class_id
    """
    inventory = (
        sa.select(_INV.c.resource_provider_id, _INV.c.resource_class_id,
                  _RC.c.name, _INV.c.total, _INV.c.reserved,
                  _INV.c.allocation_ratio)
        .select_from(
            _INV.join(_RC, _RC.c.id == _INV.c.resource_class_id)
            .join(_RP, _RP.c.id == _INV.c.resource_provider_id))
        .where(in_list(dialect, _RP.c.root_provider_id, 'roots')))
    usage = (
        sa.select(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id,
                  sa.null().label('name'), _sum_used())
        .select_from(_ALLOC.join(
            _RP, _RP.c.id == _ALLOC.c.resource_provider_id))
        .where(in_list(dialect, _RP.c.root_provider_id, 'roots'))
        .group_by(_ALLOC.c.resource_provider_id,
                  _ALLOC.c.resource_class_id))
    if some_classes:
        inventory = inventory.where(
            in_list(dialect, _INV.c.resource_class_id, 'rc_ids'))
        usage = usage.where(
            in_list(dialect, _ALLOC.c.resource_class_id, 'rc_ids'))
    return unions.tagged(dialect, {0: inventory, 1: usage})


# Provider ids per inline list (see ``usage``).
_INLINE = 5000


def usage(connection, rp_ids, rc_ids, with_names=False):
    """({class id: name} of ``rc_ids`` when ``with_names``, else {};
    {(rp id, rc id): amount} allocated of the classes ``rc_ids`` from
    the providers ``rp_ids``), both lists of ints:

    [SELECT 0, id, NULL, NULL, name FROM resource_classes
     WHERE id IN (...)
     UNION ALL]
    SELECT 1, resource_provider_id, resource_class_id, SUM(used), NULL
    FROM allocations
    WHERE resource_provider_id IN (...) AND resource_class_id IN (...)
    GROUP BY resource_provider_id, resource_class_id

    Unlike the statements above, the ids are the database's own
    integers written into the text, in lists of at most 5,000
    providers: these statements name from a few dozen to thousands of
    providers, and binding each as a parameter (expanded, then escaped
    by the driver) cost more than running them.
    """
    classes = ','.join(str(int(rc_id)) for rc_id in rc_ids)
    names, used = {}, {}
    for start in range(0, len(rp_ids), _INLINE):
        statement = (
            'SELECT 1, resource_provider_id, resource_class_id, '
            'SUM(used), NULL FROM allocations '
            'WHERE resource_provider_id IN (%s) '
            'AND resource_class_id IN (%s) '
            'GROUP BY resource_provider_id, resource_class_id' % (
                ','.join(str(int(rp_id))
                         for rp_id in rp_ids[start:start + _INLINE]),
                classes))
        if with_names and not start:
            statement = (
                'SELECT 0, id, NULL, NULL, name FROM resource_classes '
                'WHERE id IN (%s) UNION ALL ' % classes) + statement
        for kind, first, rc_id, amount, name in connection.exec_driver_sql(
                statement):
            if kind:
                used[(first, rc_id)] = int(amount)
            else:
                names[first] = name
    return names, used
