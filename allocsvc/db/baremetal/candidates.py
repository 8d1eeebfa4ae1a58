"""The candidate-node query of the database allocation algorithm, and
the count of why the other nodes of a class are no candidates.

One query returns the nodes an allocation may take, trait matching
included (upstream loads every node of the class with its traits and
filters in Python, so each allocation costs O(nodes)).

What makes a node of the class no candidate is written once, as an
ordered list of conditions (``_drops``): ``find_candidates`` keeps the
nodes that meet none of them (each negated, in its WHERE), and
``count_drops`` counts, in one statement, the nodes each one drops
first (a CASE of them, in order). The two cannot disagree on what a
candidate is.
"""

import collections
import functools
import random

from oslo_utils import timeutils
import sqlalchemy as sa
from sqlalchemy.sql import elements
from sqlalchemy.sql import operators

from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import nodes as db_nodes
from allocsvc.db import models

_NODE = models.nodes
_TRAIT = models.node_traits
_RP = models.resource_providers
_PLACEMENT_ALLOC = models.allocations
_AMT = models.placement_reservation_amounts
_RES = models.placement_reservations
_PROJECT = models.projects


# A batch is taken in an order of its own: ids multiplied by a random
# factor modulo a prime larger than any id, a permutation of the ids that
# every database computes alike (no dialect's RANDOM() needed).
_PRIME = 2147483647

# Why a node of the requested class is no candidate, in the order the
# algorithm drops nodes; a node counts under the first that holds.
NOT_AVAILABLE = 'not_available'      # provision state not available
MAINTENANCE = 'maintenance'
NO_POWER_STATE = 'no_power_state'
ALLOCATED = 'allocated'              # it has an instance or allocation
HELD = 'held'                        # a Placement consumer holds its unit
RESERVED = 'reserved'                # another project's reservation does
NOT_OWNER = 'not_owner'              # not owned, leased or reserved by owner
MISSING_TRAIT = 'missing_trait'      # one count per trait
NOT_CANDIDATE = 'not_candidate'      # not among candidate_nodes
# Not a condition of the candidate query: a node the reservation stage
# tried and could not bind (``count_drops``' ``lost``).
LOST = 'lost'

# A node has at most this many traits, so it lacks one of the first
# MAX_TRAITS_PER_NODE + 1 of any request (sorted): the queries check no
# more than those, which keeps their shapes (and the cost of a request
# naming hundreds of traits) bounded, and changes no answer.
TRAITS_CHECKED = db_nodes.MAX_TRAITS_PER_NODE + 1


# A Placement consumer holds the node's unit.
def _held(uuid):
    return sa.exists().select_from(_PLACEMENT_ALLOC.join(
        _RP, _RP.c.id == _PLACEMENT_ALLOC.c.resource_provider_id)).where(
        _RP.c.uuid == uuid)


# What reservations hold, with their projects and providers.
_HOLDS = (_AMT.join(_RES, _RES.c.id == _AMT.c.reservation_id)
          .join(_PROJECT, _PROJECT.c.id == _RES.c.project_id)
          .join(_RP, _RP.c.id == _AMT.c.resource_provider_id))


def _holding(uuid, now):
    """The conditions of ``_HOLDS``' rows of the reservations active at
    ``now`` on the provider of node ``uuid``."""
    return (_RP.c.uuid == uuid, _RES.c.start_at <= now, _RES.c.end_at > now)


def reserved(uuid, now, project, by_other=False):
    """Whether a reservation active at ``now`` holds the provider of the
    node ``uuid`` (a column) for ``project`` -- or, ``by_other``, for
    another project than ``project``. During its window a reservation
    makes the node its project's alone: as if leased to it, and taken
    from everybody else."""
    return sa.exists().select_from(_HOLDS).where(
        *_holding(uuid, now),
        (_PROJECT.c.external_id != project) if by_other else
        (_PROJECT.c.external_id == project))


def holders(context, uuid, now):
    """The projects (external ids) whose reservations active at ``now``
    hold the provider of node ``uuid`` (caller's transaction)."""
    return frozenset(context.session.execute(
        sa.select(_PROJECT.c.external_id).select_from(_HOLDS)
        .where(*_holding(uuid, now))).scalars())


# Another project than the allocation's owner (``reserver``, '' for
# none) holds the node now (``now``).
def _reserved(uuid):
    return reserved(uuid, sa.bindparam('now'), sa.bindparam('reserver'),
                    by_other=True)


def _drops(with_candidates, with_owner, trait_count):
    """The conditions that make a node of the class no candidate, in
    the algorithm's order: ``[(reason, condition)]``, a trait's reason
    ``(MISSING_TRAIT, i)`` for the i-th requested trait (sorted). The
    values are bound at execution (``_params``). None of them is ever
    NULL (a CASE would skip it): owner and lessee are compared with
    COALESCE."""
    drops = [
        (NOT_AVAILABLE, _NODE.c.provision_state != states.AVAILABLE),
        (MAINTENANCE, _NODE.c.maintenance != sa.false()),
        (NO_POWER_STATE, _NODE.c.power_state.is_(None)),
        (ALLOCATED, ~sa.and_(_NODE.c.instance_uuid.is_(None),
                             _NODE.c.allocation_id.is_(None))),
        (HELD, _held(_NODE.c.uuid)),
        (RESERVED, _reserved(_NODE.c.uuid)),
    ]
    if with_owner:
        owner = sa.bindparam('owner')
        drops.append((NOT_OWNER, ~sa.or_(
            sa.func.coalesce(_NODE.c.owner, '') == owner,
            sa.func.coalesce(_NODE.c.lessee, '') == owner,
            reserved(_NODE.c.uuid, sa.bindparam('now'), owner))))
    for index in range(trait_count):
        drops.append(((MISSING_TRAIT, index), ~sa.exists().where(
            _TRAIT.c.node_id == _NODE.c.id,
            _TRAIT.c.trait == sa.bindparam('trait_%d' % index))))
    if with_candidates:
        drops.append((NOT_CANDIDATE, _NODE.c.uuid.not_in(
            sa.bindparam('candidates', expanding=True))))
    return drops


def _kept(drop):
    """What a candidate meets: ``drop`` negated, a NOT taken off rather
    than doubled, so that the candidate query reads as written by hand
    (``EXISTS``, not ``NOT (NOT (EXISTS ...))``, which not every planner
    turns into a semi-join)."""
    if isinstance(drop, elements.UnaryExpression) and \
            drop.operator is operators.inv:
        element = drop.element
        if isinstance(element, elements.Grouping):
            element = element.element
        return element
    return sa.not_(drop)


def _shape(resource_class, traits, candidate_uuids, owner):
    """``(shape, traits, params)`` of a request: the shape of its
    statements (what ``_statement`` and ``_count_statement`` are cached
    by), the traits checked (sorted, at most TRAITS_CHECKED) and the
    values bound."""
    traits = sorted(set(traits or ()))[:TRAITS_CHECKED]
    params = {'resource_class': resource_class,
              'now': timeutils.utcnow(), 'reserver': owner or ''}
    if candidate_uuids:
        params['candidates'] = list(candidate_uuids)
    if owner:
        params['owner'] = owner
    for index, trait in enumerate(traits):
        params['trait_%d' % index] = trait
    return (bool(candidate_uuids), bool(owner), len(traits)), traits, params


@functools.lru_cache(maxsize=None)
def _statement(with_candidates, with_owner, trait_count, batched=False,
               flag_held=False):
    """The candidate query of one shape, built once (every allocation
    runs it): the values are bound at execution (``_query``). Its WHERE
    is every condition of ``_drops`` negated:

    SELECT nodes.id, nodes.uuid, nodes.name FROM nodes
    WHERE nodes.resource_class = :resource_class
      AND nodes.provision_state = 'available'
      AND nodes.maintenance = false
      AND nodes.power_state IS NOT NULL
      AND nodes.instance_uuid IS NULL AND nodes.allocation_id IS NULL
      AND NOT (EXISTS (SELECT * FROM allocations
                       JOIN resource_providers
                         ON resource_providers.id =
                            allocations.resource_provider_id
                       WHERE resource_providers.uuid = nodes.uuid))
      [AND (coalesce(nodes.owner, '') = :owner
            OR coalesce(nodes.lessee, '') = :owner)]
      [AND EXISTS (SELECT * FROM node_traits
                   WHERE node_traits.node_id = nodes.id
                     AND node_traits.trait = :trait_0)
       AND ... one per trait]
      [AND nodes.uuid IN (:candidates)]
    ORDER BY nodes.id
    (batched: ORDER BY (CAST(nodes.id AS BIGINT) * :spread) % 2147483647
     LIMIT :batch)

    ``flag_held`` (batched only): the NOT EXISTS of a Placement consumer
    and of another project's reservation (``_reserved``) are left out
    of the query, which draws the batch among all free nodes, and asked
    of the batch's rows alone, as a column:

    SELECT b.id, b.uuid, b.name, EXISTS (SELECT * FROM allocations ...
                                         WHERE ....uuid = b.uuid) AS held
    FROM (<the query above without NOT EXISTS>) AS b
    """
    kept = [_kept(drop) for reason, drop in
            _drops(with_candidates, with_owner, trait_count)
            if not (flag_held and reason in (HELD, RESERVED))]
    query = sa.select(_NODE.c.id, _NODE.c.uuid, _NODE.c.name).where(
        _NODE.c.resource_class == sa.bindparam('resource_class'), *kept)
    if batched:
        query = query.order_by(
            (sa.cast(_NODE.c.id, sa.BigInteger) *
             sa.bindparam('spread', type_=sa.BigInteger)) % _PRIME
        ).limit(sa.bindparam('batch'))
        if flag_held:
            drawn = query.subquery('b')
            query = sa.select(drawn.c.id, drawn.c.uuid, drawn.c.name,
                              sa.or_(_held(drawn.c.uuid),
                                     _reserved(drawn.c.uuid)).label('held'))
        return query
    # A stable order: the caller shuffles, and tests can compare.
    return query.order_by(_NODE.c.id)


def _query(resource_class, traits, candidate_uuids, owner, batch=None,
           flag_held=False):
    """``(statement, parameters)`` of the candidate query."""
    shape, _traits, params = _shape(resource_class, traits,
                                    candidate_uuids, owner)
    if batch:
        params['batch'] = batch
        params['spread'] = random.randint(1, _PRIME - 1)
    return _statement(*shape, batched=bool(batch),
                      flag_held=flag_held), params


@db_api.reader
def find_candidates(context, resource_class, traits=None,
                    candidate_uuids=None, owner=None, batch=None):
    """The nodes an allocation may take: of ``resource_class``,
    ``available``, not in maintenance, with a known power state, with no
    instance or allocation, whose resource provider no Placement
    consumer holds, owned or leased by ``owner`` if given, having every
    trait of ``traits``, and among ``candidate_uuids`` if given
    (``_drops``).

    Nodes locked by a conductor are included: the lock is what the caller
    tries next, and a lock is usually short.

    With ``batch``, at most that many of them, in a random order. The
    batch is drawn among the free nodes first and only its rows are
    checked for a Placement consumer (checking every free node of the
    class was a fifth of the query's cost); if one is held, which only
    happens where Placement clients claim nodes too, the batch is drawn
    again among the nodes nobody holds, so that it is as large as there
    are such nodes.
    """
    if batch:
        query, params = _query(resource_class, traits, candidate_uuids,
                               owner, batch=batch, flag_held=True)
        rows = context.session.execute(query, params).all()
        if not any(row.held for row in rows):
            return rows
    query, params = _query(resource_class, traits, candidate_uuids, owner,
                           batch=batch)
    # The rows as they come (``id``, ``uuid``, ``name``): copying a few
    # hundred of them into objects of our own cost more than the query.
    return context.session.execute(query, params).all()


def _label(reason):
    """A reason as the counting query names it."""
    return '%s:%d' % reason if isinstance(reason, tuple) else reason


@functools.lru_cache(maxsize=None)
def _count_statement(with_candidates, with_owner, trait_count, with_lost,
                     visible):
    """The count of one shape (see ``count_drops``), built once, and
    its reasons in order: ``(statement, [(label, reason)])``.

    SELECT r.reason, count(*) AS nodes, sum(r.untraited) AS untraited
    FROM (SELECT CASE WHEN nodes.provision_state != 'available'
                        THEN 'not_available'
                      WHEN nodes.maintenance != false THEN 'maintenance'
                      ... every condition of ``_drops``, in order ...
                      WHEN NOT (EXISTS (SELECT * FROM node_traits
                                        WHERE node_traits.node_id =
                                              nodes.id
                                          AND node_traits.trait =
                                              :trait_0))
                        THEN 'missing_trait:0'
                      ...
                      [WHEN nodes.uuid IN (:lost) THEN 'lost']
                 END AS reason,
                 CASE WHEN <any condition but the traits'> THEN 0
                      ELSE 1 END AS untraited
          FROM nodes
          WHERE nodes.resource_class = :resource_class
            [AND (nodes.owner = :visible OR nodes.lessee = :visible)]) AS r
    GROUP BY r.reason
    """
    drops = _drops(with_candidates, with_owner, trait_count)
    untraited = sa.case(
        (sa.or_(*[drop for reason, drop in drops
                  if not isinstance(reason, tuple)]), 0), else_=1)
    if with_lost:
        drops.append((LOST, _NODE.c.uuid.in_(
            sa.bindparam('lost', expanding=True))))
    reason = sa.case(*[(drop, sa.literal(_label(reason), sa.String(32)))
                       for reason, drop in drops], else_=sa.null())
    inner = sa.select(reason.label('reason'),
                      untraited.label('untraited')).where(
        _NODE.c.resource_class == sa.bindparam('resource_class'))
    if visible:
        project = sa.bindparam('visible')
        inner = inner.where(sa.or_(_NODE.c.owner == project,
                                   _NODE.c.lessee == project))
    inner = inner.subquery('r')
    query = sa.select(inner.c.reason, sa.func.count().label('nodes'),
                      sa.func.sum(inner.c.untraited).label('untraited')
                      ).group_by(inner.c.reason)
    return query, tuple((_label(reason), reason) for reason, _drop in drops)


# What ``count_drops`` found: ``total`` nodes of the class; ``dropped``,
# ``[(reason, trait or None, count)]`` in the order of ``_drops`` (then
# LOST), only the reasons that dropped a node; ``fits``, the nodes none
# dropped; ``untraited``, the nodes no condition but the traits' drops.
Counts = collections.namedtuple('Counts',
                                ('total', 'dropped', 'fits', 'untraited'))


@db_api.reader
def count_drops(context, resource_class, traits=None, candidate_uuids=None,
                owner=None, lost=None, visible_to=None):
    """How many nodes of ``resource_class`` there are and, per reason of
    ``_drops``, how many the candidate query leaves out for that reason
    first (one statement), as ``Counts``. The nodes ``lost`` (UUIDs)
    that no condition drops count under LOST: those the reservation
    stage tried and could not bind. ``visible_to``: count only the nodes
    that project owns or leases."""
    shape, checked, params = _shape(resource_class, traits,
                                    candidate_uuids, owner)
    if lost:
        params['lost'] = sorted(set(lost))
    if visible_to is not None:
        params['visible'] = visible_to
    query, reasons = _count_statement(*shape, with_lost=bool(lost),
                                      visible=visible_to is not None)
    found = {}
    total = untraited = 0
    for row in context.session.execute(query, params):
        # MySQL's SUM is a Decimal.
        found[row.reason] = int(row.nodes)
        total += int(row.nodes)
        untraited += int(row.untraited or 0)
    dropped = []
    for label, reason in reasons:
        count = found.get(label)
        if not count:
            continue
        if isinstance(reason, tuple):
            dropped.append((MISSING_TRAIT, checked[reason[1]], count))
        else:
            dropped.append((reason, None, count))
    return Counts(total, dropped, found.get(None, 0), untraited)


@db_api.reader
def visible_uuids(context, resource_class, project):
    """The UUIDs of the nodes of ``resource_class`` that ``project`` owns
    or leases."""
    query = sa.select(_NODE.c.uuid).where(
        _NODE.c.resource_class == resource_class,
        sa.or_(_NODE.c.owner == project, _NODE.c.lessee == project))
    return frozenset(context.session.execute(query).scalars())


@db_api.reader
def names(context, uuids):
    """``{uuid: name}`` of the nodes ``uuids`` (a short list)."""
    if not uuids:
        return {}
    query = sa.select(_NODE.c.uuid, _NODE.c.name).where(
        _NODE.c.uuid.in_(sorted(set(uuids))))
    return dict(context.session.execute(query).all())
