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
    if missing:
        now = timeutils.utcnow()
        try:
            session.execute(table.insert(), [
                {'name': name, 'created_at': now} for name in missing])
        except db_exc.DBDuplicateEntry as exc:
            # Another API worker starting at the same time inserted some
            # of them first: start again, and read what it committed.
            raise db_exc.RetryRequest(exc)
    return len(missing)


# Every API worker syncs when it starts, so on a fresh database several
# do it at once. No savepoints: on MariaDB their inserts can deadlock,
# which rolls back the whole transaction, savepoints included (a
# savepoint rollback then fails and the worker does not boot); the
# whole transaction is retried instead.
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


def prepare_database(conf):
    """Configure the database layer for ``conf`` and, unless ``[placement]
    sync_on_startup`` is off, load the standard classes and traits: what
    an API process does before it serves."""
    db_api.configure(conf)
    if conf.placement.sync_on_startup:
        ensure_standard()
