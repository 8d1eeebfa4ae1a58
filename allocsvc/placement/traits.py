"""Traits: the standard ones (os-traits) and CUSTOM_*, and provider traits."""

import sqlalchemy as sa

from allocsvc.db import api as db_api
from allocsvc.db import models

_TRAIT = models.traits


def missing_names(context, names):
    """The names among ``names`` that are not traits (caller's transaction)."""
    names = set(names)
    if not names:
        return set()
    found = context.session.execute(
        sa.select(_TRAIT.c.name).where(_TRAIT.c.name.in_(sorted(names))))
    return names - set(found.scalars())


@db_api.reader
def get_missing(context, names):
    """The names among ``names`` that are not traits."""
    return missing_names(context, names)
