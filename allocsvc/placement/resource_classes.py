"""Resource classes: the standard ones (os-resource-classes) and CUSTOM_*."""

import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models

_RC = models.resource_classes


def ids_by_name(context, names):
    """{name: id} for ``names``, inside the caller's transaction.

    NotFound names the first class that does not exist.
    """
    names = set(names)
    if not names:
        return {}
    rows = context.session.execute(
        sa.select(_RC.c.name, _RC.c.id).where(_RC.c.name.in_(sorted(names))))
    found = {row.name: row.id for row in rows}
    missing = sorted(names - set(found))
    if missing:
        raise exception.NotFound('No such resource class %s.' % missing[0])
    return found


@db_api.reader
def get_ids(context, names):
    """{name: id} for ``names``; NotFound for the first unknown one."""
    return ids_by_name(context, names)
