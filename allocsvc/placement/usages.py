"""Usages: sums of allocations, per provider or per project (and user).

Read-only; allocations are written elsewhere. MySQL's SUM() returns a
Decimal, so every sum is made an int here.

Project, user and consumer type names are looked up first and compared
in Python as well, so that "ABC" and "abc" (or "abc ") are different ids
on every backend, not only on those with a case-sensitive collation.
"""

import sqlalchemy as sa

from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import providers

_ALLOC = models.allocations
_CONSUMER = models.consumers
_CTYPE = models.consumer_types
_INV = models.inventories
_PROJECT = models.projects
_RC = models.resource_classes
_USER = models.users

# Group names of GET /usages from microversion 1.38.
ALL = 'all'
UNKNOWN = 'unknown'


@db_api.reader
def provider_usages(context, rp_uuid):
    """(provider, {class: used}) for every class the provider has
    inventory of, 0 when unused; NotFound for no provider.

    SELECT rc.name, COALESCE(SUM(a.used), 0) FROM inventories AS inv
    JOIN resource_classes AS rc ON rc.id = inv.resource_class_id
    LEFT JOIN allocations AS a
      ON a.resource_provider_id = inv.resource_provider_id
     AND a.resource_class_id = inv.resource_class_id
    WHERE inv.resource_provider_id = :rp_id
    GROUP BY rc.name
    """
    rp = providers.get_in_transaction(context, rp_uuid)
    used = sa.func.coalesce(sa.func.sum(_ALLOC.c.used), 0)
    rows = context.session.execute(
        sa.select(_RC.c.name, used.label('used'))
        .select_from(
            _INV.join(_RC, _RC.c.id == _INV.c.resource_class_id)
            .outerjoin(_ALLOC, sa.and_(
                _ALLOC.c.resource_provider_id ==
                _INV.c.resource_provider_id,
                _ALLOC.c.resource_class_id == _INV.c.resource_class_id)))
        .where(_INV.c.resource_provider_id == rp.id)
        .group_by(_RC.c.name))
    return rp, {row.name: int(row.used) for row in rows}


def _id_of(context, column, id_column, value):
    """The id of the row whose ``column`` is exactly ``value``, or None."""
    if '\x00' in value:
        # No backend compares NUL bytes sanely; no such name can exist.
        return None
    rows = context.session.execute(
        sa.select(id_column, column).where(column == value))
    for row in rows:
        if row[1] == value:
            return row[0]
    return None


class _Filter:
    """Resolved ids to filter consumers on; ``empty`` if none can match."""

    __slots__ = ('project', 'user', 'empty')

    def __init__(self, context, project_id, user_id):
        self.project = _id_of(context, _PROJECT.c.external_id,
                              _PROJECT.c.id, project_id)
        self.user = None
        self.empty = self.project is None
        if user_id is not None and not self.empty:
            self.user = _id_of(context, _USER.c.external_id, _USER.c.id,
                               user_id)
            self.empty = self.user is None

    def apply(self, query):
        query = query.where(_CONSUMER.c.project_id == self.project)
        if self.user is not None:
            query = query.where(_CONSUMER.c.user_id == self.user)
        return query


def _by_type(context, filt, type_clause=None):
    """{consumer type id or None: ({class: used}, consumer count)}.

    SELECT c.consumer_type_id, rc.name, SUM(a.used)
    FROM allocations AS a
    JOIN consumers AS c ON c.uuid = a.consumer_id
    JOIN resource_classes AS rc ON rc.id = a.resource_class_id
    WHERE c.project_id = :project [AND c.user_id = :user] [AND <type>]
    GROUP BY c.consumer_type_id, rc.name

    and the same joins with COUNT(DISTINCT a.consumer_id) grouped by
    c.consumer_type_id: a consumer allocating two classes counts once.
    """
    joined = (_ALLOC.join(_CONSUMER, _CONSUMER.c.uuid == _ALLOC.c.consumer_id)
              .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id))

    def query(*columns):
        q = filt.apply(sa.select(*columns).select_from(joined))
        if type_clause is not None:
            q = q.where(type_clause)
        return q

    type_id = _CONSUMER.c.consumer_type_id
    sums = {}
    for row in context.session.execute(
            query(type_id, _RC.c.name,
                  sa.func.sum(_ALLOC.c.used).label('used'))
            .group_by(type_id, _RC.c.name)):
        sums.setdefault(row.consumer_type_id, {})[row.name] = int(row.used)
    counts = {}
    for row in context.session.execute(
            query(type_id, sa.func.count(
                sa.distinct(_ALLOC.c.consumer_id)).label('consumers'))
            .group_by(type_id)):
        counts[row.consumer_type_id] = int(row.consumers)
    return {key: (used, counts.get(key, 0)) for key, used in sums.items()}


def _type_names(context, ids):
    ids = sorted(i for i in ids if i is not None)
    if not ids:
        return {}
    rows = context.session.execute(
        sa.select(_CTYPE.c.id, _CTYPE.c.name).where(_CTYPE.c.id.in_(ids)))
    return {row.id: row.name for row in rows}


def _merge(groups):
    """One (usages, consumer count) for several consumer type groups:
    counts add up because each consumer has exactly one type."""
    total, count = {}, 0
    for used, consumers in groups:
        count += consumers
        for name, amount in used.items():
            total[name] = total.get(name, 0) + amount
    return total, count


@db_api.reader
def total_usages(context, project_id, user_id=None):
    """{class: used} by the consumers of a project (and user)."""
    filt = _Filter(context, project_id, user_id)
    if filt.empty:
        return {}
    return _merge(_by_type(context, filt).values())[0]


@db_api.reader
def usages_by_consumer_type(context, project_id, user_id=None,
                            consumer_type=None):
    """{group: {class: used, ..., 'consumer_count': n}} (microversion 1.38).

    Without ``consumer_type`` there is one group per consumer type, and
    "unknown" for consumers without one; "all" puts everything in one
    group "all"; "unknown" keeps only consumers without a type; a type
    name keeps only that type. Groups with no allocations are left out.
    """
    filt = _Filter(context, project_id, user_id)
    if filt.empty:
        return {}
    type_id = _CONSUMER.c.consumer_type_id
    clause = None
    if consumer_type == UNKNOWN:
        clause = type_id.is_(None)
    elif consumer_type not in (None, ALL):
        wanted = _id_of(context, _CTYPE.c.name, _CTYPE.c.id, consumer_type)
        if wanted is None:
            return {}
        clause = type_id == wanted
    groups = _by_type(context, filt, clause)
    if not groups:
        return {}
    if consumer_type == ALL:
        named = {ALL: _merge(groups.values())}
    else:
        names = _type_names(context, groups)
        named = {names.get(key, UNKNOWN) if key is not None else UNKNOWN:
                 value for key, value in groups.items()}
    return {name: dict(used, consumer_count=count)
            for name, (used, count) in named.items()}
