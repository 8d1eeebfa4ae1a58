"""Consumers: the holders of allocations, with their project, user, type
and generation.

Projects, users and consumer types are interned: a row per distinct
external id (or type name), created the first time a write names it.
``intern_ids`` does that before the allocation writer starts, each
creation in a short transaction of its own, so that two requests creating
the same project at once cost one of them a re-read, never an error, and
so that a failed insert cannot poison the writer's transaction (PostgreSQL
aborts a transaction on any error). Rows interned for a request that then
fails stay: they are harmless and Placement keeps them too.

Consumer rows themselves change only inside the allocation writer's
transaction (``save``, ``delete``): compare-and-swap on the generation for
an existing consumer, an insert for a new one (a duplicate key means a
concurrent request created it first), and deletion once the consumer has
no allocations left. Every successful write bumps the generation, which
is what clients send back from microversion 1.28.
"""

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import node_guard

_ALLOC = models.allocations
_CONSUMER = models.consumers
_CTYPE = models.consumer_types
_PROJECT = models.projects
_USER = models.users

# The name GET shows (from microversion 1.38) for a consumer without type.
UNKNOWN_TYPE = 'unknown'

# (table, name column) of each interned kind of name.
_KINDS = {
    'project': (_PROJECT, _PROJECT.c.external_id),
    'user': (_USER, _USER.c.external_id),
    'consumer type': (_CTYPE, _CTYPE.c.name),
}


class Consumer:
    """A consumer row as read inside a transaction."""

    __slots__ = ('id', 'uuid', 'generation', 'project_id', 'user_id',
                 'consumer_type_id')

    def __init__(self, row):
        for field in self.__slots__:
            setattr(self, field, getattr(row, field))


def _exact(rows, values):
    """{value: id} of the rows whose name is exactly one of ``values``.

    MySQL compares with PAD SPACE ("abc" = "abc "): the comparison in
    Python keeps each id to the very string it was created for.
    """
    return {row[1]: row[0] for row in rows if row[1] in values}


def _lookup(context, kind, values):
    table, column = _KINDS[kind]
    rows = context.session.execute(
        sa.select(table.c.id, column).where(column.in_(sorted(values))))
    return _exact(rows, values)


@db_api.reader
def _find(context, wanted):
    """{kind: {value: id}} of the existing rows for ``wanted`` ({kind:
    values}), all in one transaction."""
    return {kind: _lookup(context, kind, values) if values else {}
            for kind, values in wanted.items()}


@db_api.writer
def _insert(context, kind, value):
    table, column = _KINDS[kind]
    return context.session.execute(table.insert().values(
        {column.name: value, 'created_at': timeutils.utcnow()})
    ).inserted_primary_key[0]


def _create_missing(context, kind, values, found):
    """Complete ``found`` ({value: id}) with rows created for the
    ``values`` it lacks."""
    for value in sorted(set(values) - set(found)):
        try:
            found[value] = _insert(context, kind, value)
        except db_exc.DBDuplicateEntry:
            # Created by a concurrent request since we looked.
            again = _find(context, {kind: {value}})[kind]
            if value not in again:
                # Only a collation-equal name exists (trailing spaces on
                # MySQL): this one cannot be stored beside it.
                raise exception.BadRequest(
                    'The %s %r cannot be stored: it differs from an '
                    'existing one only by trailing spaces.' % (kind, value))
            found[value] = again[value]
    return found


class InternedIds:
    """Database ids of the projects, users and consumer types of a
    request, by external id / name."""

    __slots__ = ('projects', 'users', 'types')

    def __init__(self, projects, users, types):
        self.projects = projects
        self.users = users
        self.types = types


def intern_ids(context, projects, users, types):
    """Ids for the given external project and user ids and consumer type
    names: one reader transaction finds the existing ones, and each
    missing one is created in a transaction of its own."""
    wanted = {'project': set(projects), 'user': set(users),
              'consumer type': set(types)}
    found = _find(context, wanted)
    for kind, values in wanted.items():
        _create_missing(context, kind, values, found[kind])
    return InternedIds(found['project'], found['user'],
                       found['consumer type'])


def get_by_uuids(context, uuids):
    """{uuid: Consumer} of the consumers that exist (caller's
    transaction)."""
    if not uuids:
        return {}
    rows = context.session.execute(
        sa.select(_CONSUMER.c.id, _CONSUMER.c.uuid, _CONSUMER.c.generation,
                  _CONSUMER.c.project_id, _CONSUMER.c.user_id,
                  _CONSUMER.c.consumer_type_id)
        .where(_CONSUMER.c.uuid.in_(sorted(uuids))))
    wanted = set(uuids)
    return {row.uuid: Consumer(row) for row in rows if row.uuid in wanted}


def current_allocations(context, uuids):
    """{uuid: [(provider id, class id, used)]} of the consumers
    ``uuids`` (caller's transaction); consumers without any are left
    out."""
    if not uuids:
        return {}
    rows = context.session.execute(
        sa.select(_ALLOC.c.consumer_id, _ALLOC.c.resource_provider_id,
                  _ALLOC.c.resource_class_id, _ALLOC.c.used)
        .where(_ALLOC.c.consumer_id.in_(sorted(uuids))))
    found = {}
    for row in rows:
        if row.consumer_id in uuids:
            found.setdefault(row.consumer_id, []).append(
                (row.resource_provider_id, row.resource_class_id, row.used))
    return found


def _changed(uuid):
    return exception.ConcurrentUpdate(
        'Inventory and/or allocations changed while attempting to '
        'allocate: consumer %s was changed by another request meanwhile. '
        'Please read its allocations and consumer generation again and '
        'retry.' % uuid)


# Built once: every allocation write for a new consumer runs it.
_INSERT = _CONSUMER.insert()


def save(context, uuid, current, project_id, user_id, type_id,
         keep_type=False):
    """Write consumer ``uuid`` in the caller's transaction: bump the
    generation of ``current`` (the Consumer read earlier) by
    compare-and-swap, or create it (generation 1) when ``current`` is
    None. Project, user and (unless ``keep_type``) type are set to the
    given ids. ConcurrentUpdate if another request got there first.
    """
    now = timeutils.utcnow()
    values = {'project_id': project_id, 'user_id': user_id}
    if not keep_type:
        values['consumer_type_id'] = type_id
    if current is None:
        try:
            context.session.execute(_INSERT, dict(
                values, uuid=uuid, generation=1, created_at=now))
        except db_exc.DBDuplicateEntry:
            raise _changed(uuid)
        return
    result = context.session.execute(
        _CONSUMER.update()
        .where(_CONSUMER.c.id == current.id,
               _CONSUMER.c.generation == current.generation)
        .values(generation=current.generation + 1, updated_at=now,
                **values))
    if result.rowcount != 1:
        raise _changed(uuid)


def delete(context, ids):
    """Delete the consumer rows ``ids`` (caller's transaction)."""
    if ids:
        context.session.execute(
            _CONSUMER.delete().where(_CONSUMER.c.id.in_(sorted(ids))))


@db_api.writer
def delete_allocations(context, uuid):
    """DELETE /allocations/{uuid}: remove all the consumer's allocations
    and the consumer; NotFound if it has none.

    As in Placement, provider generations do not change: removing
    allocations cannot overcommit anything.
    """
    node_guard.refuse_claims(context, [uuid])
    result = context.session.execute(
        _ALLOC.delete().where(_ALLOC.c.consumer_id == uuid))
    if not result.rowcount:
        raise exception.NotFound(
            "No allocations for consumer '%s'" % uuid)
    context.session.execute(
        _CONSUMER.delete().where(_CONSUMER.c.uuid == uuid))
