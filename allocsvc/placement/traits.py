"""Traits: the standard ones (os-traits) and CUSTOM_*, and provider traits.

Standard traits are loaded at start-up (``sync``) and are read-only here.
A provider's trait set is replaced as a whole, guarded by the provider
generation (compare-and-swap), which every change increments. Lookups,
creation and deletion are those of every catalogue of names (``names``),
which also says why names are compared by SQL alone.
"""

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import names
from allocsvc.placement import providers
from allocsvc.placement import sync
from allocsvc.placement import topology

_TRAIT = models.traits
_RPT = models.resource_provider_traits

_TRAITS = names.Catalogue(
    _TRAIT, 'trait',
    not_found='No such trait(s): %s.',
    in_use='The trait %s is in use by a resource provider.',
    used_by=_RPT.c.trait_id,
    is_standard=sync.is_standard_trait)

is_plausible_name = names.is_plausible_name
_plausible = names.plausible  # list_traits' argument hides the module

# get_by_name(context, name): the trait called ``name``; NotFound if none.
get_by_name = _TRAITS.get_by_name
# ensure(context, name): the trait ``name``, created if missing:
# (record, created); each step in a transaction of its own.
ensure = _TRAITS.ensure
# delete(context, name): delete the custom trait ``name``; refused while a
# provider has it.
delete = _TRAITS.delete


def _sorted(traits):
    # Sorted here, not in SQL: collations order '_' differently, and the
    # order must be the same on every backend.
    return sorted(traits, key=lambda t: t.name)


def missing_names(context, names):
    """The names among ``names`` that are not traits (caller's transaction)."""
    names = set(names)
    return names - {t.name for t in _TRAITS.find(context, names)}


@db_api.reader
def get_missing(context, names):
    """The names among ``names`` that are not traits."""
    return missing_names(context, names)


def _associated():
    return sa.select(_RPT.c.trait_id).distinct()


@db_api.reader
def list_traits(context, names=None, prefix=None, associated=None):
    """Traits sorted by name, filtered (ANDed) by: ``names`` (a list: only
    these), ``prefix`` (names starting with it), ``associated`` (True:
    only traits some provider has; False: only traits none has).
    """
    query = _TRAITS.select()
    if names is not None:
        wanted = _plausible(names)
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
    return _sorted(_TRAITS.read(context, query))


def _provider_traits(context, provider_id):
    # In trait id order, as Placement lists them (it reads the
    # provider's rows of resource_provider_traits, whose key is
    # (provider, trait)): custom traits in the order they were created.
    query = (_TRAITS.select()
             .join(_RPT, _RPT.c.trait_id == _TRAIT.c.id)
             .where(_RPT.c.resource_provider_id == provider_id)
             .order_by(_TRAIT.c.id))
    return _TRAITS.read(context, query)


@db_api.reader
def get_provider_traits(context, uuid):
    """(Provider, [trait]) for the provider ``uuid``; NotFound if none."""
    rp = providers.get_in_transaction(context, uuid)
    return rp, _provider_traits(context, rp.id)


def _replace(context, provider_id, trait_ids):
    """Make ``trait_ids`` the provider's whole trait set, touching only
    the associations that change."""
    current = set(context.session.execute(
        sa.select(_RPT.c.trait_id)
        .where(_RPT.c.resource_provider_id == provider_id)).scalars())
    removed = current - trait_ids
    added = trait_ids - current
    if removed or added:
        topology.changed(context, provider_ids=[provider_id])
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
    found = _sorted(_TRAITS.find(context, names))
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
