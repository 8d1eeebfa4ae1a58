"""Ports and port groups: read, list, insert, update, delete.

Plain SQLAlchemy Core. The readers are one transaction each; the
``*_in_transaction`` writers run inside their caller's, which holds the
node's lock (``allocsvc.conductor.port_rules``). Records carry the
UUIDs of their node and port group (joined), so the API renders them
without another query.

MAC addresses are unique among ports and among port groups: the unique
constraints decide between two concurrent writers, and the loser gets
Ironic's 409.
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

_PORT = models.ports
_PG = models.portgroups
_NODE = models.nodes

PORT_JSON = ('extra', 'internal_info', 'local_link_connection')
PORTGROUP_JSON = ('extra', 'internal_info', 'properties')
PORT_SORTABLE = frozenset(c.key for c in _PORT.c if c.key not in PORT_JSON)
PORTGROUP_SORTABLE = frozenset(c.key for c in _PG.c
                               if c.key not in PORTGROUP_JSON)
_READ_ONLY = frozenset(('id', 'uuid', 'created_at', 'updated_at',
                        'node_uuid', 'portgroup_uuid'))


class Port:
    """A port as read, with the UUIDs of its node and port group."""

    __slots__ = tuple(c.key for c in _PORT.c) + ('node_uuid',
                                                 'portgroup_uuid')

    def __init__(self, row):
        for name in self.__slots__:
            setattr(self, name, getattr(row, name))
        for name in PORT_JSON:
            if getattr(self, name) is None:
                setattr(self, name, {})


class Portgroup:
    """A port group as read, with the UUID of its node."""

    __slots__ = tuple(c.key for c in _PG.c) + ('node_uuid',)

    def __init__(self, row):
        for name in self.__slots__:
            setattr(self, name, getattr(row, name))
        for name in PORTGROUP_JSON:
            if getattr(self, name) is None:
                setattr(self, name, {})


def _port_select():
    # SELECT ports.*, nodes.uuid AS node_uuid, portgroups.uuid AS
    # portgroup_uuid FROM ports JOIN nodes ON nodes.id = ports.node_id
    # LEFT OUTER JOIN portgroups ON portgroups.id = ports.portgroup_id
    return sa.select(*_PORT.c, _NODE.c.uuid.label('node_uuid'),
                     _PG.c.uuid.label('portgroup_uuid')).select_from(
        _PORT.join(_NODE, _NODE.c.id == _PORT.c.node_id)
        .outerjoin(_PG, _PG.c.id == _PORT.c.portgroup_id))


def _portgroup_select():
    return sa.select(*_PG.c, _NODE.c.uuid.label('node_uuid')).select_from(
        _PG.join(_NODE, _NODE.c.id == _PG.c.node_id))


@functools.lru_cache(maxsize=None)
def _port_by(column):
    return _port_select().where(_PORT.c[column] == sa.bindparam('ident'))


@functools.lru_cache(maxsize=None)
def _portgroup_by(column):
    return _portgroup_select().where(_PG.c[column] == sa.bindparam('ident'))


# -- ports: reads ------------------------------------------------------------

def port_in_transaction(context, column, ident):
    row = context.session.execute(_port_by(column), {'ident': ident}).first()
    if row is None:
        raise exception.PortNotFound(ident)
    return Port(row)


@db_api.reader
def get_port(context, column, ident):
    """The port whose ``column`` (id, uuid, name or address) is
    ``ident``; PortNotFound otherwise."""
    return port_in_transaction(context, column, ident)


def _owner_filter(query, table, project):
    """Only the rows of nodes ``project`` owns or leases."""
    return query.where(sa.or_(_NODE.c.owner == project,
                              _NODE.c.lessee == project))


def _marker(context, table, marker, not_found):
    if marker is None:
        return None
    row = context.session.execute(
        sa.select(table).where(table.c.uuid == marker)).first()
    if row is None:
        raise not_found(marker)
    return row


@db_api.reader
def list_ports(context, filters=None, limit=None, marker=None,
               sort_key='id', sort_dir='asc'):
    """Ports matching ``filters`` (ANDed: ``node_id``, ``portgroup_id``,
    ``address``, ``project`` -- owner or lessee of the node,
    ``conductor_groups`` -- a list, the node's group among them;
    ``shard`` -- a list, the node's shard among them;
    ``description_contains`` -- a substring of the description), a page
    of them after the port whose UUID is ``marker``."""
    return list_ports_in_transaction(context, filters, limit, marker,
                                     sort_key, sort_dir)


def list_ports_in_transaction(context, filters=None, limit=None,
                              marker=None, sort_key='id', sort_dir='asc'):
    paging.check_limit(limit)
    paging.check_sort(sort_key, sort_dir, PORT_SORTABLE)
    query = _port_select()
    for key, value in (filters or {}).items():
        if key in ('node_id', 'portgroup_id', 'address'):
            query = query.where(_PORT.c[key] == value)
        elif key == 'project':
            query = _owner_filter(query, _PORT, value)
        elif key == 'conductor_groups':
            query = query.where(_NODE.c.conductor_group.in_(value))
        elif key == 'shard':
            query = query.where(_NODE.c.shard.in_(value))
        elif key == 'description_contains':
            # A substring, not a pattern: LIKE's wildcards are escaped.
            query = query.where(_PORT.c.description.contains(
                value, autoescape=True))
        else:
            raise exception.InvalidParameterValue(
                'Unknown port filter: %s' % key)
    marker_row = _marker(context, _PORT, marker, exception.PortNotFound)
    query = paging.paginate(query, _PORT.c.id, _PORT.c[sort_key], sort_dir,
                            marker_row, limit)
    return [Port(row) for row in context.session.execute(query)]


# -- ports: writes (inside the caller's transaction) -------------------------

def _port_duplicate(exc, values, uuid=None):
    columns = ' '.join(exc.columns or [])
    if 'address' in columns:
        return exception.MACAlreadyExists(values.get('address'))
    if 'name' in columns:
        return exception.PortDuplicateName(values.get('name'))
    return exception.PortAlreadyExists(uuid or values.get('uuid'))


def _inserted(context, table, values, duplicate):
    """Insert ``values``; return the new id. A unique clash is the
    error ``duplicate`` makes of it (the caller's transaction then rolls
    back)."""
    try:
        result = context.session.execute(table.insert().values(**values))
    except db_exc.DBDuplicateEntry as exc:
        raise duplicate(exc, values)
    return result.inserted_primary_key[0]


def create_port_in_transaction(context, values):
    """Insert a port from ``values`` (columns); return it. Defaults: a
    new UUID, PXE enabled, not a Smart NIC, available for a dynamic
    port group. MACAlreadyExists,
    PortAlreadyExists, PortDuplicateName on a unique clash."""
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    if values.get('pxe_enabled') is None:
        values['pxe_enabled'] = True
    if values.get('is_smartnic') is None:
        values['is_smartnic'] = False
    if values.get('available_for_dynamic_portgroup') is None:
        values['available_for_dynamic_portgroup'] = True
    values['created_at'] = timeutils.utcnow()
    port_id = _inserted(context, _PORT, values, _port_duplicate)
    return port_in_transaction(context, 'id', port_id)


def update_port_in_transaction(context, port, values):
    """Write ``values`` (columns) to ``port`` (a Port record); return
    the port as written."""
    bad = _READ_ONLY.intersection(values)
    if bad:
        raise exception.InvalidParameterValue(
            'Cannot overwrite %s of an existing port.'
            % ', '.join(sorted(bad)))
    values = dict(values, updated_at=timeutils.utcnow())
    try:
        result = context.session.execute(
            _PORT.update().where(_PORT.c.id == port.id).values(**values))
    except db_exc.DBDuplicateEntry as exc:
        raise _port_duplicate(exc, values, uuid=port.uuid)
    if result.rowcount != 1:
        raise exception.PortNotFound(port.uuid)
    return port_in_transaction(context, 'id', port.id)


def destroy_port_in_transaction(context, port):
    result = context.session.execute(
        _PORT.delete().where(_PORT.c.id == port.id))
    if result.rowcount != 1:
        raise exception.PortNotFound(port.uuid)


def physnets_of_portgroup(context, portgroup_id, exclude_port_id=None):
    """The physical networks of the ports in the port group (None
    included), but for port ``exclude_port_id``."""
    query = sa.select(_PORT.c.physical_network).distinct().where(
        _PORT.c.portgroup_id == portgroup_id)
    if exclude_port_id is not None:
        query = query.where(_PORT.c.id != exclude_port_id)
    return set(context.session.execute(query).scalars())


def set_physnet_of_members(context, portgroup_id, physnet):
    """Put every port of the port group on ``physnet``."""
    context.session.execute(
        _PORT.update().where(_PORT.c.portgroup_id == portgroup_id)
        .where(_PORT.c.physical_network.is_distinct_from(physnet))
        .values(physical_network=physnet, updated_at=timeutils.utcnow()))


def portgroup_has_ports(context, portgroup_id):
    return context.session.execute(
        sa.select(_PORT.c.id).where(_PORT.c.portgroup_id == portgroup_id)
        .limit(1)).first() is not None


# -- port groups -------------------------------------------------------------

def portgroup_in_transaction(context, column, ident):
    row = context.session.execute(_portgroup_by(column),
                                  {'ident': ident}).first()
    if row is None:
        raise exception.PortgroupNotFound(ident)
    return Portgroup(row)


@db_api.reader
def get_portgroup(context, column, ident):
    """The port group whose ``column`` (id, uuid, name or address) is
    ``ident``; PortgroupNotFound otherwise."""
    return portgroup_in_transaction(context, column, ident)


@db_api.reader
def list_portgroups(context, filters=None, limit=None, marker=None,
                    sort_key='id', sort_dir='asc'):
    """Port groups matching ``filters`` (``node_id``, ``address``,
    ``project``, ``conductor_groups`` and ``shard`` -- lists, as for
    ports), a page of them after ``marker`` (a UUID)."""
    paging.check_limit(limit)
    paging.check_sort(sort_key, sort_dir, PORTGROUP_SORTABLE)
    query = _portgroup_select()
    for key, value in (filters or {}).items():
        if key in ('node_id', 'address'):
            query = query.where(_PG.c[key] == value)
        elif key == 'project':
            query = _owner_filter(query, _PG, value)
        elif key == 'conductor_groups':
            query = query.where(_NODE.c.conductor_group.in_(value))
        elif key == 'shard':
            query = query.where(_NODE.c.shard.in_(value))
        else:
            raise exception.InvalidParameterValue(
                'Unknown portgroup filter: %s' % key)
    marker_row = _marker(context, _PG, marker, exception.PortgroupNotFound)
    query = paging.paginate(query, _PG.c.id, _PG.c[sort_key], sort_dir,
                            marker_row, limit)
    return [Portgroup(row) for row in context.session.execute(query)]


def _portgroup_duplicate(exc, values, uuid=None):
    columns = ' '.join(exc.columns or [])
    if 'address' in columns:
        return exception.PortgroupMACAlreadyExists(values.get('address'))
    if 'name' in columns:
        return exception.PortgroupDuplicateName(values.get('name'))
    return exception.PortgroupAlreadyExists(uuid or values.get('uuid'))


def create_portgroup_in_transaction(context, values):
    """Insert a port group from ``values``; return it. Defaults: a new
    UUID, standalone ports supported, not dynamic."""
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    if values.get('standalone_ports_supported') is None:
        values['standalone_ports_supported'] = True
    if values.get('dynamic_portgroup') is None:
        values['dynamic_portgroup'] = False
    values['created_at'] = timeutils.utcnow()
    portgroup_id = _inserted(context, _PG, values, _portgroup_duplicate)
    return portgroup_in_transaction(context, 'id', portgroup_id)


def update_portgroup_in_transaction(context, portgroup, values):
    bad = _READ_ONLY.intersection(values)
    if bad:
        raise exception.InvalidParameterValue(
            'Cannot overwrite %s of an existing portgroup.'
            % ', '.join(sorted(bad)))
    values = dict(values, updated_at=timeutils.utcnow())
    try:
        result = context.session.execute(
            _PG.update().where(_PG.c.id == portgroup.id).values(**values))
    except db_exc.DBDuplicateEntry as exc:
        raise _portgroup_duplicate(exc, values, uuid=portgroup.uuid)
    if result.rowcount != 1:
        raise exception.PortgroupNotFound(portgroup.uuid)
    return portgroup_in_transaction(context, 'id', portgroup.id)


def destroy_portgroup_in_transaction(context, portgroup):
    if portgroup_has_ports(context, portgroup.id):
        raise exception.PortgroupNotEmpty(portgroup.uuid)
    result = context.session.execute(
        _PG.delete().where(_PG.c.id == portgroup.id))
    if result.rowcount != 1:
        raise exception.PortgroupNotFound(portgroup.uuid)
