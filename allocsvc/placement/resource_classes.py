"""Resource classes: the standard ones (os-resource-classes) and CUSTOM_*.

Standard classes are loaded at start-up (``sync``) and are read-only here;
custom classes are created, renamed (before microversion 1.7) and deleted
through the API.

Name lookups compare names in Python as well as in SQL: MySQL's default
collation is case- and trailing-space-insensitive, and a name a client
typed must find the same class on every backend.
"""

import re

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import sync

_RC = models.resource_classes
_INV = models.inventories

# Every standard and custom class name has this form. Other strings are
# never sent to the database: they cannot name a class, and some (a NUL
# byte) are an error on PostgreSQL rather than a miss. (\Z, not $, which
# would let a trailing newline through.)
_PLAUSIBLE_NAME = re.compile(r'[A-Z0-9_]{1,255}\Z')


def is_plausible_name(name):
    return isinstance(name, str) and bool(_PLAUSIBLE_NAME.match(name))


class ResourceClass:
    """A resource class as read from the database."""

    __slots__ = ('id', 'name', 'created_at', 'updated_at')

    def __init__(self, row):
        for field in self.__slots__:
            setattr(self, field, getattr(row, field))


def _select():
    return sa.select(_RC.c.id, _RC.c.name, _RC.c.created_at,
                     _RC.c.updated_at)


def _not_found(name):
    return exception.NotFound('No such resource class %s.' % name)


def ids_by_name(context, names):
    """{name: id} for ``names``, inside the caller's transaction.

    NotFound names the first class that does not exist.
    """
    wanted = set(names)
    if not wanted:
        return {}
    queried = sorted(n for n in wanted if is_plausible_name(n))
    found = {}
    if queried:
        rows = context.session.execute(
            sa.select(_RC.c.name, _RC.c.id).where(_RC.c.name.in_(queried)))
        found = {row.name: row.id for row in rows if row.name in wanted}
    missing = sorted(wanted - set(found))
    if missing:
        raise _not_found(missing[0])
    return found


@db_api.reader
def get_ids(context, names):
    """{name: id} for ``names``; NotFound for the first unknown one."""
    return ids_by_name(context, names)


def _get(context, name):
    if is_plausible_name(name):
        for row in context.session.execute(
                _select().where(_RC.c.name == name)):
            if row.name == name:
                return ResourceClass(row)
    raise _not_found(name)


@db_api.reader
def get_by_name(context, name):
    """The class called ``name``; NotFound if there is none."""
    return _get(context, name)


@db_api.reader
def list_all(context):
    """Every resource class, standard ones first (in id order)."""
    return [ResourceClass(row)
            for row in context.session.execute(_select().order_by(_RC.c.id))]


@db_api.retry_on_deadlock
@db_api.writer
def _insert(context, name):
    """Insert ``name`` in a transaction of its own; DBDuplicateEntry if a
    class of that name exists (or is being created by someone else)."""
    context.session.execute(_RC.insert().values(
        name=name, created_at=timeutils.utcnow()))
    return _get(context, name)


def create(context, name):
    """Create the custom class ``name`` (its own transaction).

    DuplicateName if it exists, even when it was created by a concurrent
    request a moment ago.
    """
    try:
        return _insert(context, name)
    except db_exc.DBDuplicateEntry:
        raise exception.DuplicateName(
            'Conflicting resource class already exists: %s' % name)


def ensure(context, name):
    """The class ``name``, created if missing: (ResourceClass, created).

    Each step is its own transaction: after losing a creation race the
    winner's row must be read in a fresh snapshot (MySQL's repeatable
    read would hide it from the transaction that lost). Bounded, in case
    the class is also being deleted concurrently.
    """
    for _attempt in range(3):
        try:
            return get_by_name(context, name), False
        except exception.NotFound:
            pass
        try:
            return _insert(context, name), True
        except db_exc.DBDuplicateEntry:
            continue
    raise exception.ConcurrentUpdate(
        'Resource class %s is being created and deleted concurrently; '
        'please try again.' % name)


def _custom(context, name, action):
    """The custom class ``name`` (own reader transaction): NotFound if
    there is none, BadRequest for a standard class."""
    rc = get_by_name(context, name)
    if sync.is_standard_resource_class(rc.name):
        raise exception.BadRequest(
            'Cannot %s standard resource class %s.' % (action, name))
    return rc


# Writers below check in a reader transaction first and then write with
# a statement that is right even if the checks went stale meanwhile
# (matching on id and name; foreign keys guarding the delete). The write
# also comes first in its transaction, which keeps SQLite from failing
# with "database is locked" when a transaction that has read must wait
# for another writer.

@db_api.retry_on_deadlock
@db_api.writer
def _update_name(context, rc, new_name):
    try:
        result = context.session.execute(
            _RC.update().where(_RC.c.id == rc.id, _RC.c.name == rc.name)
            .values(name=new_name, updated_at=timeutils.utcnow()))
    except db_exc.DBDuplicateEntry:
        raise exception.DuplicateName(
            'Resource class already exists: %s' % new_name)
    if result.rowcount != 1:
        raise _not_found(rc.name)
    return _get(context, new_name)


def rename(context, name, new_name):
    """Rename the custom class ``name`` to ``new_name`` (microversions
    1.2-1.6). Inventories and allocations follow, as they refer to the id.
    """
    rc = _custom(context, name, 'update')
    if new_name == rc.name:
        return rc
    return _update_name(context, rc, new_name)


@db_api.retry_on_deadlock
@db_api.writer
def _delete_row(context, rc):
    try:
        result = context.session.execute(
            _RC.delete().where(_RC.c.id == rc.id))
    except db_exc.DBReferenceError:
        # Inventory (or an allocation) was added after the check.
        raise _in_use(rc.name)
    if result.rowcount != 1:
        raise _not_found(rc.name)


def _in_use(name):
    return exception.Conflict(
        'Cannot delete resource class %s. Class is in use in inventory.'
        % name)


@db_api.reader
def _used_by_inventory(context, rc_id):
    return context.session.execute(
        sa.select(_INV.c.id).where(_INV.c.resource_class_id == rc_id)
        .limit(1)).first() is not None


def delete(context, name):
    """Delete the custom class ``name``; refused while inventory uses it."""
    rc = _custom(context, name, 'delete')
    if _used_by_inventory(context, rc.id):
        raise _in_use(name)
    _delete_row(context, rc)
