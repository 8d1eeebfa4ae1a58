"""Chassis: read, list, insert, update, delete.

Plain SQLAlchemy Core, each public function one transaction. A chassis
is not node state: its writes take no node lock and need no conductor.
Nodes name their chassis by ``nodes.chassis_id``, a foreign key: a
chassis that still has nodes is not deleted (ChassisNotEmpty), and the
key settles the race the check leaves open -- a node attached while the
chassis is being deleted makes one of the two writes fail, so no node
is ever left naming a chassis that is gone.

Updates are compare-and-swap on the values the change was computed from
(``expected``): two clients patching one chassis at once cannot lose
each other's change; the second gets ChassisChanged (409).
"""

import functools

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import paging
from allocsvc.db import models

_CHASSIS = models.chassis
_NODE = models.nodes

# Columns that hold JSON documents: they cannot order a list.
JSON_COLUMNS = ('extra',)
SORTABLE = frozenset(c.key for c in _CHASSIS.c if c.key not in JSON_COLUMNS)
# Columns a caller may not write through update_chassis.
_READ_ONLY = frozenset(('id', 'created_at', 'updated_at'))


class Chassis:
    """A chassis as read (``extra`` is {} when the column is NULL)."""

    __slots__ = tuple(c.key for c in _CHASSIS.c)

    def __init__(self, row):
        for name in self.__slots__:
            setattr(self, name, getattr(row, name))
        if self.extra is None:
            self.extra = {}


@functools.lru_cache(maxsize=None)
def _by(column):
    """The chassis whose ``column`` is ``:ident``."""
    return sa.select(_CHASSIS).where(_CHASSIS.c[column] ==
                                     sa.bindparam('ident'))


def get_in_transaction(context, column, ident):
    """Inside a caller's transaction: the chassis whose ``column`` (id
    or uuid) is ``ident``; ChassisNotFound naming ``ident`` otherwise."""
    row = context.session.execute(_by(column), {'ident': ident}).first()
    if row is None:
        raise exception.ChassisNotFound(ident)
    return Chassis(row)


@db_api.reader
def get_chassis(context, column, ident):
    """The chassis whose ``column`` (id or uuid) is ``ident``;
    ChassisNotFound otherwise."""
    return get_in_transaction(context, column, ident)


@db_api.reader
def list_chassis(context, limit=None, marker=None, sort_key='id',
                 sort_dir='asc'):
    """A page of chassis in ``sort_key``/``sort_dir`` order (ties by
    id), after the chassis whose UUID is ``marker`` (ChassisNotFound if
    there is none)."""
    paging.check_limit(limit)
    paging.check_sort(sort_key, sort_dir, SORTABLE)
    marker_row = None
    if marker is not None:
        marker_row = context.session.execute(
            _by('uuid'), {'ident': marker}).first()
        if marker_row is None:
            raise exception.ChassisNotFound(marker)
    query = paging.paginate(sa.select(_CHASSIS), _CHASSIS.c.id,
                            _CHASSIS.c[sort_key], sort_dir, marker_row,
                            limit)
    return [Chassis(row) for row in context.session.execute(query)]


@db_api.writer
def create_chassis(context, values):
    """Insert a chassis from ``values`` (columns) and return it.
    Defaults: a new UUID, an empty ``extra``. ChassisAlreadyExists when
    the UUID is taken."""
    values = dict(values)
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    if values.get('extra') is None:
        values['extra'] = {}
    values['created_at'] = timeutils.utcnow()
    values.pop('updated_at', None)
    try:
        result = context.session.execute(_CHASSIS.insert().values(**values))
    except db_exc.DBDuplicateEntry:
        raise exception.ChassisAlreadyExists(values['uuid'])
    return get_in_transaction(context, 'id', result.inserted_primary_key[0])


def _unchanged(column, value):
    """``column`` still holds ``value`` (a NULL ``extra`` reads as {})."""
    if value is None:
        return column.is_(None)
    if column.key in JSON_COLUMNS and value == {}:
        return sa.or_(column.is_(None), column == value)
    return column == value


@db_api.writer
def update_chassis(context, chassis_id, values, expected=None):
    """Write ``values`` (columns) to chassis ``chassis_id`` and return
    it, provided each column of ``expected`` still has its value there
    (ChassisChanged otherwise). A UUID cannot change (Ironic's 400)."""
    if 'uuid' in values:
        raise exception.InvalidParameterValue(
            'Cannot overwrite UUID for an existing Chassis.')
    bad = _READ_ONLY.intersection(values)
    if bad:
        raise exception.InvalidParameterValue(
            'Cannot overwrite %s of an existing chassis.'
            % ', '.join(sorted(bad)))
    values = dict(values, updated_at=timeutils.utcnow())
    if 'extra' in values and values['extra'] is None:
        values['extra'] = {}
    expected = expected or {}
    # UPDATE chassis SET ... WHERE id = :id AND <column> = :expected ...
    where = [_CHASSIS.c.id == chassis_id]
    where.extend(_unchanged(_CHASSIS.c[column], value)
                 for column, value in sorted(expected.items()))
    result = context.session.execute(
        _CHASSIS.update().where(*where).values(**values))
    if result.rowcount != 1:
        current = get_in_transaction(context, 'id', chassis_id)
        changed = [column for column, value in sorted(expected.items())
                   if getattr(current, column) != value]
        # None differs now: it changed and changed back meanwhile.
        raise exception.ChassisChanged(
            current.uuid, (changed or sorted(expected) or ['row'])[0])
    return get_in_transaction(context, 'id', chassis_id)


@db_api.writer
def destroy_chassis(context, chassis_id):
    """Delete chassis ``chassis_id``: ChassisNotFound if there is none,
    ChassisNotEmpty (naming its UUID) while a node is in it -- also when
    the node was attached by a transaction that raced this one, which
    the nodes' foreign key refuses."""
    chassis = get_in_transaction(context, 'id', chassis_id)
    if has_nodes(context, chassis_id):
        raise exception.ChassisNotEmpty(chassis.uuid)
    try:
        result = context.session.execute(
            _CHASSIS.delete().where(_CHASSIS.c.id == chassis_id))
    except db_exc.DBReferenceError:
        raise exception.ChassisNotEmpty(chassis.uuid)
    if result.rowcount != 1:
        raise exception.ChassisNotFound(chassis.uuid)


def has_nodes(context, chassis_id):
    """Inside a caller's transaction: whether a node is in the chassis
    (as the transaction sees it: one may join it before its commit)."""
    # SELECT nodes.id FROM nodes WHERE nodes.chassis_id = :id LIMIT 1
    return context.session.execute(
        sa.select(_NODE.c.id).where(_NODE.c.chassis_id == chassis_id)
        .limit(1)).first() is not None


def id_for_node(context, uuid):
    """Inside a node write's transaction: the id of the chassis ``uuid``
    names, for ``nodes.chassis_id`` (None for None). A chassis that does
    not exist is the node request's error, a 400 as in Ironic."""
    if uuid is None:
        return None
    try:
        return get_in_transaction(context, 'uuid', uuid).id
    except exception.ChassisNotFound as exc:
        raise exception.InvalidParameterValue(exc.message)
