"""Catalogues of unique names: what resource classes and traits share.

Both catalogues are tables of unique names (id, name, timestamps): the
standard names are loaded at start-up (``sync``) and are read-only; custom
ones (CUSTOM_*) are created on demand and deleted while nothing refers to
them. A ``Catalogue`` is one such table with the messages of its errors;
``resource_classes`` and ``traits`` each build one and add their own
operations on top.

Names are compared by SQL alone: the tables use a binary collation on
MySQL (utf8mb4_bin) as on the other backends, and only names of the form
[A-Z0-9_]+ reach SQL (so MySQL's padding of trailing spaces never
applies), hence a row found by name has exactly that name.
"""

import re

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api

# Every standard and custom name has this form. Other strings are never
# sent to the database: they cannot name anything, and some (a NUL byte)
# are an error on PostgreSQL rather than a miss. (\Z, not $, which would
# let a trailing newline through.)
_PLAUSIBLE_NAME = re.compile(r'[A-Z0-9_]{1,255}\Z')


def is_plausible_name(name):
    return isinstance(name, str) and bool(_PLAUSIBLE_NAME.match(name))


def plausible(names):
    """The plausible names among ``names``, sorted and without repeats:
    the only ones worth a query."""
    return sorted(n for n in set(names) if is_plausible_name(n))


class Record:
    """A resource class or trait as read from the database."""

    __slots__ = ('id', 'name', 'created_at', 'updated_at')

    def __init__(self, row):
        for field in self.__slots__:
            setattr(self, field, getattr(row, field))


class Catalogue:
    """One table of unique names.

    ``noun`` is what a row is called in messages ('resource class');
    ``not_found`` and ``in_use`` are the details (with one %s, the name)
    of the NotFound for a missing name and of the Conflict for a delete
    refused because ``used_by`` (a foreign key column to the table's id)
    still refers to the row; ``is_standard(name)`` tells the read-only
    standard names.
    """

    def __init__(self, table, noun, not_found, in_use, used_by, is_standard):
        self.table = table
        self.noun = noun
        self._not_found = not_found
        self._in_use = in_use
        self._used_by = used_by
        self._is_standard = is_standard

    def not_found(self, name):
        return exception.NotFound(self._not_found % name)

    def in_use(self, name):
        return exception.Conflict(self._in_use % name)

    def select(self):
        t = self.table
        return sa.select(t.c.id, t.c.name, t.c.created_at, t.c.updated_at)

    def read(self, context, query):
        """The records that ``query`` (built on ``select()``) finds."""
        return [Record(row) for row in context.session.execute(query)]

    def find(self, context, names):
        """The existing records among ``names``, in no particular order
        (caller's transaction)."""
        queried = plausible(names)
        if not queried:
            return []
        return self.read(
            context, self.select().where(self.table.c.name.in_(queried)))

    def get(self, context, name):
        """The record ``name`` (caller's transaction); NotFound if none."""
        found = self.find(context, [name])
        if not found:
            raise self.not_found(name)
        return found[0]

    @db_api.reader
    def get_by_name(self, context, name):
        """The record called ``name``; NotFound if there is none."""
        return self.get(context, name)

    @db_api.writer
    def insert(self, context, name):
        """Insert ``name`` in a transaction of its own; DBDuplicateEntry if
        it exists (or is being created by someone else)."""
        context.session.execute(self.table.insert().values(
            name=name, created_at=timeutils.utcnow()))
        return self.get(context, name)

    def ensure(self, context, name):
        """The record ``name``, created if missing: (Record, created).

        Each step is its own transaction: after losing a creation race the
        winner's row must be read in a fresh snapshot (MySQL's repeatable
        read would hide it from the transaction that lost). Bounded, in
        case the name is also being deleted concurrently.
        """
        for _attempt in range(3):
            try:
                return self.get_by_name(context, name), False
            except exception.NotFound:
                pass
            try:
                return self.insert(context, name), True
            except db_exc.DBDuplicateEntry:
                continue
        raise exception.ConcurrentUpdate(
            '%s %s is being created and deleted concurrently; please try '
            'again.' % (self.noun.capitalize(), name))

    def _custom(self, context, name, action):
        record = self.get(context, name)
        if self._is_standard(record.name):
            raise exception.BadRequest('Cannot %s standard %s %s.'
                                       % (action, self.noun, name))
        return record

    @db_api.reader
    def get_custom(self, context, name, action):
        """The custom record ``name``: NotFound if there is none,
        BadRequest (saying what ``action`` was refused) for a standard one.
        """
        return self._custom(context, name, action)

    @db_api.reader
    def _check_deletable(self, context, name):
        record = self._custom(context, name, 'delete')
        if context.session.execute(
                sa.select(self._used_by).where(self._used_by == record.id)
                .limit(1)).first() is not None:
            raise self.in_use(name)
        return record

    @db_api.writer
    def _delete_row(self, context, record):
        # The write comes first in its transaction (SQLite cannot make a
        # transaction that has read wait for another writer) and stays
        # right if the checks went stale: the foreign keys refuse a row
        # that got referenced meanwhile.
        try:
            result = context.session.execute(
                self.table.delete().where(self.table.c.id == record.id))
        except db_exc.DBReferenceError:
            raise self.in_use(record.name)
        if result.rowcount != 1:
            raise self.not_found(record.name)

    def delete(self, context, name):
        """Delete the custom record ``name``; refused while referenced."""
        self._delete_row(context, self._check_deletable(context, name))
