"""Provider aggregates: the groups of providers a provider belongs to.

An aggregate is only a uuid (``placement_aggregates``); it is created the
first time a provider is put in it and never deleted. Two requests may
create the same new aggregate at once: the loser's insert fails with a
duplicate key, and its whole transaction is retried, because on MySQL
(REPEATABLE READ) the winner's row stays invisible to the loser's
snapshot until it starts a new transaction.
"""

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import providers
from allocsvc.placement import topology

_AGG = models.placement_aggregates
_RPA = models.resource_provider_aggregates

_retry_on_duplicate = oslo_db_api.wrap_db_retry(
    max_retries=5, retry_interval=0.01, inc_retry_interval=True,
    max_retry_interval=0.2, jitter=True,
    exception_checker=lambda exc: isinstance(exc, db_exc.DBDuplicateEntry))


def _linked(context, rp_id):
    """{aggregate id: uuid} of the aggregates of provider ``rp_id``.

    SELECT agg.id, agg.uuid FROM placement_aggregates AS agg
    JOIN resource_provider_aggregates AS rpa ON rpa.aggregate_id = agg.id
    WHERE rpa.resource_provider_id = :rp_id
    """
    rows = context.session.execute(
        sa.select(_AGG.c.id, _AGG.c.uuid)
        .join(_RPA, _RPA.c.aggregate_id == _AGG.c.id)
        .where(_RPA.c.resource_provider_id == rp_id))
    return {row.id: row.uuid for row in rows}


def match_stored(wanted, stored):
    """{wanted uuid: id of the stored row it names} for the uuids of
    ``wanted`` found among ``stored`` ({id: uuid}).

    An exact match wins; failing that, a match ignoring case, because
    MySQL's collation makes "ABC" and "abc" the same row (its unique index
    would refuse the second), while other backends keep them apart and
    return only exact matches from the query.
    """
    exact = {uuid: agg_id for agg_id, uuid in stored.items()}
    folded = {uuid.lower(): agg_id for agg_id, uuid in stored.items()}
    found = {}
    for uuid in wanted:
        if uuid in exact:
            found[uuid] = exact[uuid]
        elif uuid.lower() in folded:
            found[uuid] = folded[uuid.lower()]
    return found


def _ensure(context, uuids, now):
    """Ids of the aggregates ``uuids``, creating the missing ones."""
    if not uuids:
        return set()
    rows = context.session.execute(
        sa.select(_AGG.c.id, _AGG.c.uuid)
        .where(_AGG.c.uuid.in_(sorted(uuids))))
    found = match_stored(uuids, {row.id: row.uuid for row in rows})
    ids = set(found.values())
    for uuid in sorted(set(uuids) - set(found)):
        # A DBDuplicateEntry here is a concurrent creation: retried whole.
        result = context.session.execute(
            _AGG.insert().values(uuid=uuid, created_at=now))
        ids.add(result.inserted_primary_key[0])
    return ids


@db_api.reader
def get_aggregates(context, rp_uuid):
    """(provider, sorted aggregate uuids); NotFound for no provider."""
    rp = providers.get_in_transaction(context, rp_uuid)
    return rp, sorted(_linked(context, rp.id).values())


@_retry_on_duplicate
@db_api.writer
def _set(context, rp_uuid, uuids, generation):
    rp = providers.get_in_transaction(context, rp_uuid)
    if generation is not None and generation != rp.generation:
        raise exception.ConcurrentUpdate(
            "Resource provider's generation already changed: provider %s "
            "is at generation %d, the request was made at generation %d. "
            "Please update the generation and try again."
            % (rp.uuid, rp.generation, generation))
    now = timeutils.utcnow()
    current = set(_linked(context, rp.id))
    wanted = _ensure(context, uuids, now)
    gone = current - wanted
    if gone or wanted - current:
        topology.changed(context, provider_ids=[rp.id])
    if gone:
        context.session.execute(_RPA.delete().where(
            _RPA.c.resource_provider_id == rp.id,
            _RPA.c.aggregate_id.in_(sorted(gone))))
    for agg_id in sorted(wanted - current):
        context.session.execute(_RPA.insert().values(
            resource_provider_id=rp.id, aggregate_id=agg_id,
            created_at=now))
    if generation is None:
        return rp.generation
    return providers.increment_generation(context, rp.id, generation)


def set_aggregates(context, rp_uuid, uuids, generation=None):
    """Make ``uuids`` the provider's aggregates; returns its generation.

    With ``generation`` (microversion 1.19 on) it must be the provider's
    current one, and is incremented; without it (1.1 - 1.18) the
    generation is left alone, as Placement does.
    """
    try:
        return _set(context, rp_uuid, list(uuids), generation)
    except db_exc.DBDuplicateEntry:
        # Still losing races after the retries: let the client retry.
        raise exception.ConcurrentUpdate(
            'Update conflict: the aggregates of resource provider %s were '
            'changed concurrently. Please retry.' % rp_uuid)
