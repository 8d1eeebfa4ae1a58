"""The candidate-node query of the database allocation algorithm.

One query returns the nodes an allocation may take, trait matching
included (upstream loads every node of the class with its traits and
filters in Python, so each allocation costs O(nodes)).
"""

import functools
import random

import sqlalchemy as sa

from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db import models

_NODE = models.nodes
_TRAIT = models.node_traits
_RP = models.resource_providers
_PLACEMENT_ALLOC = models.allocations


# A batch is taken in an order of its own: ids multiplied by a random
# factor modulo a prime larger than any id, a permutation of the ids that
# every database computes alike (no dialect's RANDOM() needed).
_PRIME = 2147483647


# A Placement consumer holds the node's unit.
def _held(uuid):
    return sa.exists().select_from(_PLACEMENT_ALLOC.join(
        _RP, _RP.c.id == _PLACEMENT_ALLOC.c.resource_provider_id)).where(
        _RP.c.uuid == uuid)


@functools.lru_cache(maxsize=None)
def _statement(with_candidates, with_owner, with_traits, first_only=False,
               batched=False, flag_held=False):
    """The candidate query of one shape, built once (every allocation
    runs it): the values are bound at execution (``_query``).

    SELECT nodes.id, nodes.uuid, nodes.name FROM nodes
    WHERE nodes.resource_class = :rc
      AND nodes.provision_state = 'available'
      AND nodes.maintenance = false
      AND nodes.power_state IS NOT NULL
      AND nodes.instance_uuid IS NULL AND nodes.allocation_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM allocations
                      JOIN resource_providers rp
                        ON rp.id = allocations.resource_provider_id
                      WHERE rp.uuid = nodes.uuid)
      [AND nodes.uuid IN (:candidates)]
      [AND (nodes.owner = :owner OR nodes.lessee = :owner)]
      [AND nodes.id IN (SELECT node_traits.node_id FROM node_traits
                        WHERE node_traits.trait IN (:traits)
                        GROUP BY node_traits.node_id
                        HAVING count(DISTINCT node_traits.trait) = :n)]
    ORDER BY nodes.id [LIMIT 1]
    (batched: ORDER BY (CAST(nodes.id AS BIGINT) * :spread) % 2147483647
     LIMIT :batch)

    ``flag_held`` (batched only): the NOT EXISTS is left out of the
    query, which draws the batch among all free nodes, and asked of the
    batch's rows alone, as a column:

    SELECT b.id, b.uuid, b.name, EXISTS (SELECT 1 FROM allocations ...
                                         WHERE rp.uuid = b.uuid) AS held
    FROM (<the query above without NOT EXISTS>) AS b
    """
    query = sa.select(_NODE.c.id, _NODE.c.uuid, _NODE.c.name).where(
        _NODE.c.resource_class == sa.bindparam('resource_class'),
        _NODE.c.provision_state == states.AVAILABLE,
        _NODE.c.maintenance == sa.false(),
        _NODE.c.power_state.is_not(None),
        _NODE.c.instance_uuid.is_(None),
        _NODE.c.allocation_id.is_(None))
    if not flag_held:
        query = query.where(~_held(_NODE.c.uuid))
    if with_candidates:
        query = query.where(_NODE.c.uuid.in_(
            sa.bindparam('candidates', expanding=True)))
    if with_owner:
        owner = sa.bindparam('owner')
        query = query.where(sa.or_(_NODE.c.owner == owner,
                                   _NODE.c.lessee == owner))
    if with_traits:
        traits = sa.bindparam('traits', expanding=True)
        having = sa.select(_TRAIT.c.node_id) \
            .where(_TRAIT.c.trait.in_(traits)) \
            .group_by(_TRAIT.c.node_id) \
            .having(sa.func.count(sa.distinct(_TRAIT.c.trait)) ==
                    sa.bindparam('trait_count'))
        query = query.where(_NODE.c.id.in_(having))
    if batched:
        query = query.order_by(
            (sa.cast(_NODE.c.id, sa.BigInteger) *
             sa.bindparam('spread', type_=sa.BigInteger)) % _PRIME
        ).limit(sa.bindparam('batch'))
        if flag_held:
            drawn = query.subquery('b')
            query = sa.select(drawn.c.id, drawn.c.uuid, drawn.c.name,
                              _held(drawn.c.uuid).label('held'))
        return query
    # A stable order: the caller shuffles, and tests can compare.
    query = query.order_by(_NODE.c.id)
    return query.limit(1) if first_only else query


def _query(resource_class, traits, candidate_uuids, owner, first_only=False,
           batch=None, flag_held=False):
    """``(statement, parameters)`` of the candidate query."""
    traits = sorted(set(traits or ()))
    params = {'resource_class': resource_class}
    if batch:
        params['batch'] = batch
        params['spread'] = random.randint(1, _PRIME - 1)
    if candidate_uuids:
        params['candidates'] = list(candidate_uuids)
    if owner:
        params['owner'] = owner
    if traits:
        params['traits'] = traits
        params['trait_count'] = len(traits)
    return _statement(bool(candidate_uuids), bool(owner), bool(traits),
                      first_only, bool(batch), flag_held), params


@db_api.reader
def find_candidates(context, resource_class, traits=None,
                    candidate_uuids=None, owner=None, batch=None):
    """The nodes an allocation may take: of ``resource_class``,
    ``available``, not in maintenance, with a known power state, with no
    instance or allocation, whose resource provider no Placement
    consumer holds, among ``candidate_uuids`` if given, owned or
    leased by ``owner`` if given, and having every trait of ``traits``.

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


@db_api.reader
def explain_no_candidates(context, resource_class, traits=None,
                          candidate_uuids=None, owner=None):
    """Why ``find_candidates`` found nothing, in Ironic's words: either no
    node matches even without the traits, or the traits rule them out."""
    query, params = _query(resource_class, None, candidate_uuids, owner,
                           first_only=True)
    if context.session.execute(query, params).first() is None:
        if candidate_uuids:
            return ('none of the requested nodes are available and match '
                    'the resource class %s' % resource_class)
        return 'no available nodes match the resource class %s' % (
            resource_class)
    return 'no suitable nodes have the requested traits %s' % (
        ', '.join(sorted(set(traits or ()))))
