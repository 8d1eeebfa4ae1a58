"""Load the standard resource classes and traits into the database."""

import os_resource_classes
import os_traits
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import context as ctx_mod
from allocsvc.db import api as db_api
from allocsvc.db import models


def _ensure_names(session, table, names):
    existing = set(session.execute(sa.select(table.c.name)).scalars())
    missing = [name for name in names if name not in existing]
    now = timeutils.utcnow()
    for name in missing:
        try:
            # A savepoint per row: another API worker may be syncing too.
            with session.begin_nested():
                session.execute(table.insert().values(name=name,
                                                      created_at=now))
        except db_exc.DBDuplicateEntry:
            pass
    return len(missing)


@db_api.writer
def _sync(context):
    added = _ensure_names(context.session, models.resource_classes,
                          os_resource_classes.STANDARDS)
    added += _ensure_names(context.session, models.traits,
                           os_traits.get_traits())
    return added


def ensure_standard():
    """Insert the standard classes and traits that are missing.

    Returns how many rows were added.
    """
    return _sync(ctx_mod.get_admin_context())


def is_standard_resource_class(name):
    return name in os_resource_classes.STANDARDS


def is_standard_trait(name):
    return not name.startswith(os_traits.CUSTOM_NAMESPACE)
