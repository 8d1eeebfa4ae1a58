"""What the ``/v1/ports`` and ``/v1/portgroups`` handlers share: one
``Kind`` describes each resource (its fields and versions, objects,
policy rules, conductor calls), and the functions here list, show,
create, change and delete either, as Ironic does.

Reads go through ``allocsvc.objects``; writes are conductor calls
(``utils.rpcapi()``) made under the node's lock there.
"""

import pecan

from allocsvc import objects
from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import chassis_schema
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import port_schema as schema
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

_PAGING = ('limit', 'marker', 'sort_key', 'sort_dir')
# What the query schema of Ironic's port group list checks before its
# argument checks run (see ``query_args``).
_PORTGROUP_SCHEMA_CHECKED = ('marker', 'sort_key', 'sort_dir', 'node',
                             'address')
_JSON = ('extra', 'internal_info', 'local_link_connection', 'properties')


class Kind:
    """A resource served here: 'port' or 'portgroup'."""

    def __init__(self, name, fields, since, gates, patch_gates,
                 list_fields, writable, unsortable, filters):
        self.name = name
        self.collection = name + 's'
        self.fields = fields
        self.since = since              # field -> first version shown
        self.gates = gates              # field -> first version named
        self.patch_gates = patch_gates  # field -> first version patched
        self.list_fields = list_fields
        self.writable = writable
        self.unsortable = unsortable
        self.filters = filters      # query parameter -> first version

    @property
    def obj(self):
        return objects.Port if self.name == 'port' else objects.Portgroup

    def not_found(self, ident):
        if self.name == 'port':
            return exception.PortNotFound(ident)
        return exception.PortgroupNotFound(ident)

    def rule(self, action):
        return 'baremetal:%s:%s' % (self.name, action)


# Ironic takes conductor_groups (1.99 for ports, 1.106 for port groups
# by its version history) and description_contains at any version.
PORT = Kind('port', schema.PORT_FIELDS, schema.PORT_SINCE,
            schema.PORT_GATES, schema.PORT_PATCH_GATES,
            schema.PORT_LIST_FIELDS, schema.PORT_WRITABLE,
            schema.PORT_UNSORTABLE,
            {'node': (1, 1), 'node_uuid': (1, 1), 'address': (1, 1),
             'portgroup': (1, 24), 'shard': (1, 82),
             'conductor_groups': (1, 1), 'description_contains': (1, 1)})
PORTGROUP = Kind('portgroup', schema.PORTGROUP_FIELDS,
                 schema.PORTGROUP_SINCE, schema.PORTGROUP_GATES,
                 schema.PORTGROUP_PATCH_GATES, schema.PORTGROUP_LIST_FIELDS,
                 schema.PORTGROUP_WRITABLE, schema.PORTGROUP_UNSORTABLE,
                 {'node': (1, 23), 'address': (1, 23), 'shard': (1, 106),
                  'conductor_groups': (1, 1)})


def not_acceptable(since=None):
    if since is None:
        return utils.NotAcceptable('Request not acceptable.')
    return utils.NotAcceptable('Request not acceptable. The minimal required '
                               'API version should be %d.%d' % since)


# -- rendering ---------------------------------------------------------------

def _value(record, name):
    if name in ('created_at', 'updated_at'):
        return utils.isotime(getattr(record, name))
    value = getattr(record, name)
    if name in _JSON:
        return dict(value or {})
    return value


def render(kind, record, fields=None):
    """The document of ``record`` at the request's version (only
    ``fields`` if given), with its links; its members in the order they
    have always had on the wire (by name)."""
    doc = {name: _value(record, name) for name, since in kind.fields
           if utils.allowed(since)}
    link = doc.get('local_link_connection')
    if link and schema.VTEP_KEYS[0] in link and not schema.vtep_allowed():
        # An OVN VTEP link shows empty outside 1.90 to 1.104.
        doc['local_link_connection'] = {}
    doc['links'] = base.resource_links(kind.collection, '/' + record.uuid)
    if kind is PORTGROUP and utils.allowed((1, 24)) and (
            fields is None or 'ports' in fields):
        doc['ports'] = base.resource_links(
            'portgroups', '/%s/ports' % record.uuid)
    return dict(sorted(utils.select_fields(doc, fields).items()))


# -- look-ups ----------------------------------------------------------------

def fetch(kind, ident):
    """The port or port group ``ident`` names: by UUID, or by name (at
    any version, as Ironic looks ports up: a port has a name from 1.88);
    400 for an ident that is neither, 404 if none. Up to
    1.90 an ident not found is looked for again without a ``.json``
    suffix (Ironic's format suffix)."""
    try:
        return _fetch(kind, ident)
    except (exception.NotFound, utils.BadRequest):
        stripped = utils.strip_json_suffix(ident)
        if stripped == ident:
            raise
    return _fetch(kind, stripped)


def _fetch(kind, ident):
    ctx = utils.context()
    if utils.is_uuid(ident):
        return kind.obj.get_by_uuid(ctx, ident)
    utils.check_ident(ident)
    return kind.obj.get(ctx, ident)


def authorized(kind, ident, action):
    """``(record, node)`` for ``ident``, if the caller may ``action``
    it; 404 when it may not even see it (as if there were none)."""
    record = fetch(kind, ident)
    node = objects.Node.get_by_id(utils.context(), record.node_id)
    access.authorize_port(kind.rule(action), node, kind.not_found(ident))
    return record, node


def show(kind, ident):
    """``GET`` of one (``fields`` only, if asked): the record is looked
    up after the query is checked."""
    params = node_common.query()
    utils.check_arguments(params, ('fields',))
    fields = utils.parse_fields(params.get('fields'), kind.since,
                                kind.gates)
    record, _node = authorized(kind, ident, 'get')
    return render(kind, record, fields)


def _node_for_filter(ident):
    if not utils.is_uuid(ident) and not utils.allowed((1, 5)):
        raise not_acceptable()
    node = node_common.get_node(ident)
    access.authorize_node('baremetal:node:get', node, ident)
    return node


# -- lists -------------------------------------------------------------------

def list_collection(kind, resource, detail_path=False, node_ident=None,
                    portgroup_ident=None):
    """``GET`` of a list (``resource``: the path of its next link). The
    query is read here: which parameters exist depends on the version
    and on the path (``/detail`` takes neither ``fields`` nor
    ``detail``)."""
    project = access.port_list_project(kind.name)
    params = node_common.query(
        _PORTGROUP_SCHEMA_CHECKED if kind is PORTGROUP else ())
    known = set(kind.filters) | set(_PAGING)
    if not detail_path:
        known |= {'fields', 'detail'}
    utils.check_arguments(params, known)
    for name, since in kind.filters.items():
        if name in params and not utils.allowed(since):
            raise not_acceptable(since if name == 'shard' else None)
    fields = None
    if not detail_path:
        fields = utils.parse_fields(params.get('fields'),
                                    kind.since, kind.gates)
        detail = params.get('detail')
        if detail is not None:
            if not utils.allowed((1, 43)):
                raise not_acceptable()
            detail = utils.parse_bool('detail', detail)
        if detail and fields is not None:
            raise utils.BadRequest('Can not specify ?detail=True and fields '
                                   'in the same request.')
        if fields is None and not detail:
            fields = list(kind.list_fields)
    sort_key = params.get('sort_key', 'id')
    sort_dir = params.get('sort_dir', 'asc')
    if sort_key in kind.gates and not utils.allowed(kind.gates[sort_key]):
        raise not_acceptable()
    utils.check_sort(sort_key, sort_dir,
                     kind.obj.SORTABLE - set(kind.unsortable),
                     kind.unsortable)
    limit = utils.parse_limit(params.get('limit'))
    marker = params.get('marker')
    utils.check_uuid(marker)
    filters = _filters(kind, params, node_ident, portgroup_ident)
    if project is not None:
        filters['project'] = project
    found = kind.obj.list(utils.context(), filters, limit, marker,
                          sort_key, sort_dir)
    items = [render(kind, record, fields) for record in found]
    query = {key: value for key, value in params.items()
             if key not in ('limit', 'marker')}
    return utils.collection(kind.collection, items, limit,
                            resource=resource,
                            marker=found[-1].uuid if found else None,
                            **query)


def _list_param(name):
    """A comma-separated list query parameter, maybe repeated: its
    items, or None for none (an empty one filters nothing, as in
    Ironic)."""
    items = {item.strip() for value in pecan.request.GET.getall(name)
             for item in value.split(',') if item.strip()}
    return sorted(items) or None


def _filters(kind, params, node_ident, portgroup_ident):
    """The filters of a list. Ironic takes some only alone: a port list
    one of node, port group and shard (403 otherwise), and conductor
    groups with none of node, port group and address (400); a port
    group list one of node, address, shard and conductor groups
    (400)."""
    filters = {}
    node_ident = node_ident or params.get('node_uuid') or params.get('node')
    portgroup_ident = portgroup_ident or params.get('portgroup')
    address = params.get('address')
    # Groups are case-insensitive and stored lower-case.
    groups = _list_param('conductor_groups')
    if groups:
        groups = sorted({group.lower() for group in groups})
    shards = _list_param('shard')
    if kind is PORT:
        if len([f for f in (node_ident, portgroup_ident, shards) if f]) > 1:
            raise exception.OperationNotPermitted()
        if groups and (node_ident or portgroup_ident or address):
            raise utils.BadRequest(
                'Filtering by conductor_groups cannot be combined with '
                'node_ident, portgroup_ident, or node address filters.')
    elif len([f for f in (node_ident, address, shards, groups) if f]) > 1:
        raise utils.BadRequest('Filtering by node, address, or shard '
                               'simultaneously is not supported.')
    if params.get('node_uuid') is not None:
        utils.check_uuid(params['node_uuid'])
    if node_ident:
        filters['node_id'] = _node_for_filter(node_ident).id
    if portgroup_ident:
        portgroup = fetch(PORTGROUP, portgroup_ident)
        # A port group of a node the caller may not see does not exist.
        access.authorize_port(
            'baremetal:node:get',
            objects.Node.get_by_id(utils.context(), portgroup.node_id),
            PORTGROUP.not_found(portgroup_ident))
        filters['portgroup_id'] = portgroup.id
    if address is not None:
        filters['address'] = schema.normalize_mac(address)
    if groups:
        filters['conductor_groups'] = groups
    if shards:
        # The ports of nodes in these shards.
        filters['shard'] = shards
    if params.get('description_contains'):
        filters['description_contains'] = params['description_contains']
    return filters


# -- writes ------------------------------------------------------------------

def _node_for_write(kind, node_uuid):
    """The node a port or port group is created on or moved to: 400 if
    there is none (or the caller may not see it), as Ironic answers."""
    try:
        node = objects.Node.get_by_uuid(utils.context(), node_uuid)
        access.authorize_port('baremetal:node:get', node,
                              exception.NodeNotFound(node_uuid))
    except exception.NodeNotFound as exc:
        raise utils.BadRequest(exc.message)
    return node


def _portgroup_id(portgroup_uuid):
    if portgroup_uuid is None:
        return None
    try:
        return objects.Portgroup.get_by_uuid(utils.context(),
                                             portgroup_uuid).id
    except exception.PortgroupNotFound as exc:
        raise utils.BadRequest(exc.message)


def _columns(values, node):
    columns = {key: value for key, value in values.items()
               if key not in ('node_uuid', 'portgroup_uuid')}
    columns['node_id'] = node.id
    if 'portgroup_uuid' in values:
        columns['portgroup_id'] = _portgroup_id(values['portgroup_uuid'])
    return columns


def create(kind, body):
    """``POST``: the new record (201, its Location), after Ironic's
    checks."""
    body = node_common.json_object(body, schema=kind.name)
    for key, value in body.items():
        # Ironic refuses a port field the version may not name even as
        # null, a port group's mode or properties only when set.
        since = kind.gates.get(key)
        if since is not None and not utils.allowed(since) and (
                kind is PORT or value):
            raise not_acceptable()
    values = schema.check_document(kind.name, body)
    if kind is PORT:
        schema.check_link_versions(values.get('local_link_connection'))
    if values.get('name') is not None and \
            not utils.is_valid_logical_name(values['name']):
        raise utils.BadRequest("Cannot create %s with invalid name '%s'"
                               % (kind.name, values['name']))
    if 'node_ident' in values:
        if not utils.allowed((1, 94)):
            raise not_acceptable()
        values['node_uuid'] = _node_uuid(values.pop('node_ident'))
    if kind is PORT and values.get('physical_network') == '':
        raise utils.BadRequest('A non-empty value is required when setting '
                               'physical_network')
    if kind is PORTGROUP and values.get('mode') is None:
        values['mode'] = utils.conf().api.default_portgroup_mode
    node = _node_for_write(kind, values['node_uuid'])
    access.authorize_port(kind.rule('create'), node,
                          utils.BadRequest('Node %s could not be found.'
                                           % node.uuid))
    columns = _columns(values, node)
    rpcapi = utils.rpcapi()
    if kind is PORT:
        record = rpcapi.create_port(utils.context(), node, columns)
    else:
        record = rpcapi.create_portgroup(utils.context(), node, columns)
    return dispatch.Reply(201, render(kind, record), '%s/v1/%s/%s' % (
        base.public_url(), kind.collection, record.uuid))


def _node_uuid(ident):
    """The UUID of the node ``ident`` (a UUID or a name) names; 400 if
    there is none."""
    try:
        return node_common.get_node(ident).uuid
    except exception.NodeNotFound as exc:
        raise utils.BadRequest(exc.message)


def _check_patch(kind, patch):
    """Ironic's checks of a patch before it is applied: its form, the
    fields it may change (400 naming them), and (406) the fields the
    request's version may not change."""
    # Ironic's JSON patch schema first ("Schema error for patch: ...").
    chassis_schema.check_argument('patch', chassis_schema.PATCH, patch)
    utils.check_patch(patch)
    for op in patch:
        if utils.patch_root(op) not in kind.writable:
            raise utils.BadRequest(
                'Cannot patch %s. Only the following can be updated: %s'
                % (op['path'], ', '.join(kind.writable)))
    for op in patch:
        if not utils.allowed(kind.patch_gates.get(utils.patch_root(op),
                                                  (1, 1))):
            raise not_acceptable()


def _defaults(kind):
    if kind is PORT:
        return {'pxe_enabled': True, 'is_smartnic': False, 'extra': {},
                'local_link_connection': {},
                'available_for_dynamic_portgroup': True}
    return {'standalone_ports_supported': True, 'extra': {},
            'properties': {}}


def update(kind, ident, patch):
    """``PATCH``: the record with the JSON patch applied by the
    conductor."""
    patch = utils.json_body(patch)
    _check_patch(kind, patch)
    record, node = authorized(kind, ident, 'update')
    # Every field, whatever the version shows (as Ironic patches).
    current = {name: _value(record, name) for name in kind.writable
               if name != 'node_ident'}
    patched = utils.apply_patch(current, patch)
    # Removing the node keeps it (Ironic sets it back); a port group
    # must keep a mode.
    patched['node_uuid'] = patched.get('node_uuid') or record.node_uuid
    if kind is PORTGROUP and 'mode' not in patched:
        raise utils.BadRequest("'mode' is a mandatory attribute and can "
                               "not be removed")
    # A field removed gets its default; a port must keep its address
    # (the schema says so).
    defaults = _defaults(kind)
    for name in current:
        if name not in patched and (kind is PORTGROUP or name != 'address'):
            patched[name] = defaults.get(name)
    name = patched.get('name')
    if name is not None and name != record.name and \
            not utils.is_valid_logical_name(name):
        raise utils.BadRequest("%s %s: Cannot change name to invalid name "
                               "'%s'" % (kind.name.capitalize(), ident,
                                         name))
    values = schema.check_document(kind.name, patched, name='patch')
    if kind is PORT:
        _check_physnet_patch(patch, values)
    target = node
    if values['node_uuid'] != record.node_uuid:
        target = _node_for_write(kind, values['node_uuid'])
    columns = _columns(values, target)
    changes = {key: value for key, value in columns.items()
               if value != getattr(record, key)}
    expected = {key: getattr(record, key) for key in changes}
    rpcapi = utils.rpcapi()
    if changes:
        if kind is PORT:
            record = rpcapi.update_port(utils.context(), node, record,
                                        changes, expected)
        else:
            record = rpcapi.update_portgroup(utils.context(), node, record,
                                             changes, expected)
    return render(kind, record)


def _check_physnet_patch(patch, values):
    """Ironic's rules of a port's physical network in a PATCH whose
    first operation names it (Ironic looks at the first only): not
    empty, and (1.102) not changed while the port is in a port group,
    whose network its members share (the conductor still checks that
    they do)."""
    if not patch or utils.patch_root(patch[0]) != 'physical_network':
        return
    if values.get('physical_network') == '':
        raise utils.BadRequest('A non-empty value is required when setting '
                               'physical_network')
    if utils.allowed((1, 102)) and values.get('portgroup_uuid'):
        raise utils.BadRequest('physical_network cannot be changed while '
                               'the port belongs to a portgroup.')


def destroy(kind, ident):
    record, node = authorized(kind, ident, 'delete')
    if kind is PORT:
        utils.rpcapi().destroy_port(utils.context(), node, record)
    else:
        utils.rpcapi().destroy_portgroup(utils.context(), node, record)
