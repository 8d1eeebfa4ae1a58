"""Resource classes: the standard ones (os-resource-classes) and CUSTOM_*.

Standard classes are loaded at start-up (``sync``) and are read-only here;
custom classes are created, renamed (before microversion 1.7) and deleted
through the API. Lookups, creation and deletion are those of every
catalogue of names (``names``), which also says why names are compared by
SQL alone.
"""

from oslo_db import exception as db_exc
from oslo_utils import timeutils

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import names
from allocsvc.placement import sync

_RC = models.resource_classes

_CLASSES = names.Catalogue(
    _RC, 'resource class',
    not_found='No such resource class %s.',
    in_use='Error in delete resource class: Cannot delete resource class '
           '%s. Class is in use in inventory.',
    # Allocations refer to the class too: the foreign key guards those.
    used_by=models.inventories.c.resource_class_id,
    is_standard=sync.is_standard_resource_class)

is_plausible_name = names.is_plausible_name

# get_by_name(context, name): the class called ``name``; NotFound if none.
get_by_name = _CLASSES.get_by_name
# ensure(context, name): the class ``name``, created if missing:
# (record, created); each step in a transaction of its own.
ensure = _CLASSES.ensure
# delete(context, name): delete the custom class ``name``; refused while
# inventory (or an allocation) uses it.
delete = _CLASSES.delete


def ids_by_name(context, names):
    """{name: id} for ``names``, inside the caller's transaction.

    NotFound names the first class that does not exist.
    """
    wanted = set(names)
    if not wanted:
        return {}
    found = {rc.name: rc.id for rc in _CLASSES.find(context, wanted)}
    missing = sorted(wanted - set(found))
    if missing:
        raise _CLASSES.not_found(missing[0])
    return found


@db_api.reader
def get_ids(context, names):
    """{name: id} for ``names``; NotFound for the first unknown one."""
    return ids_by_name(context, names)


@db_api.reader
def list_all(context):
    """Every resource class, standard ones first (in id order)."""
    return _CLASSES.read(context, _CLASSES.select().order_by(_RC.c.id))


def create(context, name):
    """Create the custom class ``name`` (its own transaction).

    Conflict if it exists, even when it was created by a concurrent
    request a moment ago (with Placement's placement.undefined_code: it
    gives this conflict no code of its own).
    """
    try:
        return _CLASSES.insert(context, name)
    except db_exc.DBDuplicateEntry:
        raise exception.Conflict(
            'Conflicting resource class already exists: %s' % name)


# The rename checks in a reader transaction first and then writes with a
# statement that is right even if the checks went stale meanwhile
# (matching on id and name). The write also comes first in its
# transaction, which keeps SQLite from failing with "database is locked"
# when a transaction that has read must wait for another writer.
@db_api.writer
def _update_name(context, rc, new_name):
    try:
        result = context.session.execute(
            _RC.update().where(_RC.c.id == rc.id, _RC.c.name == rc.name)
            .values(name=new_name, updated_at=timeutils.utcnow()))
    except db_exc.DBDuplicateEntry:
        raise exception.Conflict(
            'Resource class already exists: %s' % new_name)
    if result.rowcount != 1:
        raise _CLASSES.not_found(rc.name)
    return _CLASSES.get(context, new_name)


def rename(context, name, new_name):
    """Rename the custom class ``name`` to ``new_name`` (microversions
    1.2-1.6). Inventories and allocations follow, as they refer to the id.
    """
    rc = _CLASSES.get_custom(context, name, 'update')
    if new_name == rc.name:
        return rc
    return _update_name(context, rc, new_name)
