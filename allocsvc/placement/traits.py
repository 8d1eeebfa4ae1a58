"""Traits: the standard ones (os-traits) and CUSTOM_*, and provider traits.

Standard traits are loaded at start-up (``sync``) and are read-only here.
A provider's trait set is replaced as a whole, guarded by the provider
generation (compare-and-swap), which every change increments.

Name lookups compare names in Python as well as in SQL: MySQL's default
collation is case- and trailing-space-insensitive, and a name a client
typed must find the same trait on every backend.
"""

import re

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import providers
from allocsvc.placement import sync

_TRAIT = models.traits
_RPT = models.resource_provider_traits

# Every standard and custom trait name has this form. Other strings are
# never sent to the database: they cannot name a trait, and some (a NUL
# byte) are an error on PostgreSQL rather than a miss. (\Z, not $, which
# would let a trailing newline through.)
_PLAUSIBLE_NAME = re.compile(r'[A-Z0-9_]{1,255}\Z')


def is_plausible_name(name):
    return isinstance(name, str) and bool(_PLAUSIBLE_NAME.match(name))


class Trait:
    """A trait as read from the database."""

    __slots__ = ('id', 'name', 'created_at', 'updated_at')

    def __init__(self, row):
        for field in self.__slots__:
            setattr(self, field, getattr(row, field))


def _select():
    return sa.select(_TRAIT.c.id, _TRAIT.c.name, _TRAIT.c.created_at,
                     _TRAIT.c.updated_at)


def _sorted(traits):
    # Sorted here, not in SQL: collations order '_' differently, and the
    # order must be the same on every backend.
    return sorted(traits, key=lambda t: t.name)


def _not_found(names):
    return exception.NotFound('No such trait(s): %s.' % ', '.join(names))


def _by_names(context, names):
    """The existing traits among ``names`` (caller's transaction)."""
    wanted = set(names)
    queried = sorted(n for n in wanted if is_plausible_name(n))
    if not queried:
        return []
    rows = context.session.execute(
        _select().where(_TRAIT.c.name.in_(queried)))
    return _sorted(Trait(row) for row in rows if row.name in wanted)


def missing_names(context, names):
    """The names among ``names`` that are not traits (caller's transaction)."""
    names = set(names)
    return names - {t.name for t in _by_names(context, names)}


@db_api.reader
def get_missing(context, names):
    """The names among ``names`` that are not traits."""
    return missing_names(context, names)


def _get(context, name):
    found = _by_names(context, [name])
    if not found:
        raise _not_found([name])
    return found[0]


@db_api.reader
def get_by_name(context, name):
    """The trait called ``name``; NotFound if there is none."""
    return _get(context, name)


def _associated():
    return sa.select(_RPT.c.trait_id).distinct()


@db_api.reader
def list_traits(context, names=None, prefix=None, associated=None):
    """Traits sorted by name, filtered (ANDed) by: ``names`` (a list: only
    these), ``prefix`` (names starting with it), ``associated`` (True:
    only traits some provider has; False: only traits none has).
    """
    query = _select()
    if names is not None:
        names = set(names)
        wanted = sorted(n for n in names if is_plausible_name(n))
        if not wanted:
            return []
        query = query.where(_TRAIT.c.name.in_(wanted))
    if prefix is not None:
        if prefix and not is_plausible_name(prefix):
            return []
        # autoescape: '_' is a LIKE wildcard and common in trait names.
        query = query.where(_TRAIT.c.name.startswith(prefix, autoescape=True))
    if associated is True:
        query = query.where(_TRAIT.c.id.in_(_associated()))
    elif associated is False:
        query = query.where(_TRAIT.c.id.not_in(_associated()))
    found = [Trait(row) for row in context.session.execute(query)]
    # The SQL filters may be case-insensitive (MySQL): recheck exactly.
    if names is not None:
        found = [t for t in found if t.name in names]
    if prefix:
        found = [t for t in found if t.name.startswith(prefix)]
    return _sorted(found)


@db_api.retry_on_deadlock
@db_api.writer
def _insert(context, name):
    """Insert ``name`` in a transaction of its own; DBDuplicateEntry if a
    trait of that name exists (or is being created by someone else)."""
    context.session.execute(_TRAIT.insert().values(
        name=name, created_at=timeutils.utcnow()))
    return _get(context, name)


def ensure(context, name):
    """The trait ``name``, created if missing: (Trait, created).

    Each step is its own transaction: after losing a creation race the
    winner's row must be read in a fresh snapshot (MySQL's repeatable
    read would hide it from the transaction that lost). Bounded, in case
    the trait is also being deleted concurrently.
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
        'Trait %s is being created and deleted concurrently; please try '
        'again.' % name)


def _in_use(name):
    return exception.Conflict(
        'The trait %s is in use by a resource provider.' % name)


@db_api.reader
def _check_deletable(context, name):
    trait = _get(context, name)
    if sync.is_standard_trait(trait.name):
        raise exception.BadRequest('Cannot delete standard trait %s.' % name)
    if context.session.execute(
            sa.select(_RPT.c.trait_id).where(_RPT.c.trait_id == trait.id)
            .limit(1)).first():
        raise _in_use(name)
    return trait


@db_api.retry_on_deadlock
@db_api.writer
def _delete_row(context, trait):
    # The write comes first in its transaction (SQLite cannot make a
    # transaction that has read wait for another writer) and stays right
    # if the checks went stale: the foreign key refuses a trait that a
    # provider got meanwhile.
    try:
        result = context.session.execute(
            _TRAIT.delete().where(_TRAIT.c.id == trait.id))
    except db_exc.DBReferenceError:
        raise _in_use(trait.name)
    if result.rowcount != 1:
        raise _not_found([trait.name])


def delete(context, name):
    """Delete the custom trait ``name``; refused while a provider has it."""
    _delete_row(context, _check_deletable(context, name))


def _provider_traits(context, provider_id):
    rows = context.session.execute(
        _select().join(_RPT, _RPT.c.trait_id == _TRAIT.c.id)
        .where(_RPT.c.resource_provider_id == provider_id))
    return _sorted(Trait(row) for row in rows)


@db_api.reader
def get_provider_traits(context, uuid):
    """(Provider, [Trait]) for the provider ``uuid``; NotFound if none."""
    rp = providers.get_for_update(context, uuid)
    return rp, _provider_traits(context, rp.id)


def _replace(context, provider_id, trait_ids):
    """Make ``trait_ids`` the provider's whole trait set, touching only
    the associations that change."""
    current = set(context.session.execute(
        sa.select(_RPT.c.trait_id)
        .where(_RPT.c.resource_provider_id == provider_id)).scalars())
    removed = current - trait_ids
    added = trait_ids - current
    if removed:
        context.session.execute(_RPT.delete().where(
            _RPT.c.resource_provider_id == provider_id,
            _RPT.c.trait_id.in_(sorted(removed))))
    if added:
        now = timeutils.utcnow()
        try:
            context.session.execute(_RPT.insert(), [
                {'resource_provider_id': provider_id, 'trait_id': trait_id,
                 'created_at': now} for trait_id in sorted(added)])
        except db_exc.DBReferenceError:
            raise exception.Conflict(
                'A trait being set was deleted concurrently; please check '
                'the traits and try again.')


@db_api.retry_on_deadlock
@db_api.writer
def _swap_traits(context, provider_id, names, generation):
    """Compare-and-swap the generation, then replace the trait set.

    The swap is the transaction's first statement on purpose: a
    concurrent writer with the same generation then waits on the provider
    row and fails cleanly (MySQL, PostgreSQL) instead of racing on the
    association rows; and SQLite, which cannot upgrade a transaction that
    has already read to a writer without risking "database is locked",
    takes its write lock before reading anything.
    """
    new_generation = providers.increment_generation(context, provider_id,
                                                    generation)
    found = _by_names(context, names)
    missing = set(names) - {t.name for t in found}
    if missing:
        raise exception.BadRequest(
            'No such trait(s): %s' % ', '.join(sorted(missing)))
    _replace(context, provider_id, {t.id for t in found})
    return new_generation, found


def set_provider_traits(context, uuid, names, generation):
    """Replace the traits of provider ``uuid`` by ``names`` if its
    generation is still ``generation``; returns (new generation, traits).

    NotFound for an unknown provider, ConcurrentUpdate for a stale
    generation (checked before the names: BadRequest for unknown ones).
    """
    rp = providers.get_by_uuid(context, uuid)
    return _swap_traits(context, rp.id, names, generation)


def clear_provider_traits(context, uuid):
    """Remove every trait of provider ``uuid``, incrementing its
    generation (ConcurrentUpdate if it changes while we work)."""
    rp = providers.get_by_uuid(context, uuid)
    _swap_traits(context, rp.id, [], rp.generation)
