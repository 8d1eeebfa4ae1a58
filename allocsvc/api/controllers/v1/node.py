"""``/v1/nodes``: Ironic's node API, for the parts allocsvc serves: the
collection, one node (show, patch, delete, validate, children) and the
nodes of a chassis. Their rows, and those of a node's sub-resources
(``node_states``, ``node_management``, ``node_vifs``, ``node_traits``,
``node_records``, ports, port groups, its allocation), are in
``routes.ROUTES``; what Ironic makes of other node paths is
``node_paths``'.

Handlers check the request as Ironic does (microversion of every field,
filter and verb; Ironic's messages) and leave the rules of changing a
node to the conductor (``utils.rpcapi()``), which makes each change
under the node's lock.
"""


from allocsvc import objects
from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_conductor
from allocsvc.api.controllers.v1 import node_paths
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.common import states

# List filters: query parameter -> (first version, parser).
_FILTERS = {
    'maintenance': ((1, 1), utils.parse_bool),
    'associated': ((1, 1), utils.parse_bool),
    'instance_uuid': ((1, 1), None),
    'chassis_uuid': ((1, 1), None),
    'provision_state': ((1, 9), None),
    'driver': ((1, 16), None),
    'resource_class': ((1, 21), None),
    'conductor_group': ((1, 46), None),
    'conductor': ((1, 49), None),
    'owner': ((1, 50), None),
    'description_contains': ((1, 51), None),
    'lessee': ((1, 65), None),
    'fault': ((1, 42), None),
    'retired': ((1, 61), utils.parse_bool),
    'shard': ((1, 82), None),
    'sharded': ((1, 82), utils.parse_bool),
    'parent_node': ((1, 83), None),
    'include_children': ((1, 83), utils.parse_bool),
    'instance_name': ((1, 104), None),
}

# Ironic's faults (a fault filter names one of them).
FAULTS = ('power failure', 'clean failure', 'rescue abort failure',
          'service failure')
_PAGING = ('limit', 'marker', 'sort_key', 'sort_dir')


# What Ironic answers under /v1/chassis/{chassis}/nodes to anything but a
# list of the chassis's nodes.
_MALFORMED = 'Malformed request URI.'


@dispatch.bodiless
def malformed(chassis, rest=None):
    """``/v1/chassis/{chassis}/nodes/{ident}`` and every path below it,
    whatever the method: Ironic's 400 fault "Malformed request URI.".
    (Ironic means to answer that, and does for GET; other requests there
    meet its routing and get a 404, a 500 or a list of ports.)"""
    raise utils.BadRequest(_MALFORMED)


def _known(names, chassis=None):
    """The query parameters a list takes: the chassis of a chassis's
    node list is its path's."""
    names = set(_FILTERS) | set(_PAGING) | set(names)
    if chassis is not None:
        names.discard('chassis_uuid')
    return names


def _resource(chassis, detail=False):
    path = 'nodes' if chassis is None else 'chassis/%s/nodes' % chassis
    return path + '/detail' if detail else path


# -- the collection -----------------------------------------------------------

# The handlers read the query themselves (``node_common.query``): which
# filters exist depends on the request's version.

@dispatch.wsme_arguments()
def list_nodes(chassis=None):
    """``GET /v1/nodes`` (or the nodes of ``chassis``): the list fields
    of each, or ``fields``, or all with ``detail`` (1.43)."""
    project = access.node_list_project()
    params = node_common.query()
    utils.check_arguments(params, _known({'fields', 'detail'}, chassis))
    fields = node_common.parse_fields(params.get('fields'))
    detail = params.get('detail')
    if detail is not None:
        if not utils.allowed((1, 43)):
            raise utils.NotAcceptable('Request not acceptable.')
        detail = utils.parse_bool('detail', detail)
    if detail and fields is not None:
        raise utils.BadRequest('Can not specify ?detail=True and fields '
                               'in the same request.')
    if fields is None and not detail:
        fields = list(node_schema.LIST_FIELDS)
    return _collection(chassis, _resource(chassis), params, fields,
                       project)


@dispatch.wsme_arguments()
def list_nodes_detail(chassis=None):
    """``GET /v1/nodes/detail`` (or of ``chassis``): whole nodes."""
    project = access.node_list_project()
    params = node_common.query()
    utils.check_arguments(params, _known((), chassis))
    return _collection(chassis, _resource(chassis, detail=True), params,
                       None, project)


def _collection(chassis, resource, params, fields, project=None):
    if chassis is None:
        filters = _filters(params)
    else:
        # The chassis is the path's, not a parameter of the next link.
        filters = _filters(dict(params, chassis_uuid=chassis))
    if project is not None:
        filters['project'] = project  # nodes it owns or leases
    sort_key = params.get('sort_key', 'id')
    sort_dir = params.get('sort_dir', 'asc')
    utils.check_gates([sort_key], node_schema.SINCE)
    utils.check_sort(sort_key, sort_dir,
                     objects.Node.SORTABLE - set(node_schema.UNSORTABLE),
                     node_schema.UNSORTABLE)
    marker = params.get('marker')
    if marker is not None:
        utils.check_uuid(marker, 'marker')
    limit = utils.parse_limit(params.get('limit'))
    found = node_conductor.list_nodes(filters, limit, marker, sort_key,
                                      sort_dir)
    items = [node_common.render(node, fields) for node in found]
    query = {key: value for key, value in params.items()
             if key not in ('limit', 'marker')}
    # instance_uuid names at most one node: no next page (as Ironic).
    page = 0 if 'instance_uuid' in filters else limit
    return utils.collection(
        'nodes', items, page, resource=resource,
        marker=found[-1].uuid if found else None, **query)


def _filters(params):
    filters = {}
    for name, (since, parse) in _FILTERS.items():
        value = params.get(name)
        if value is None:
            continue
        if not utils.allowed(since):
            raise utils.NotAcceptable('Request not acceptable.')
        filters[name] = parse(name, value) if parse else value
    if 'instance_uuid' in filters:
        utils.check_uuid(filters['instance_uuid'], 'instance_uuid')
    if 'chassis_uuid' in filters:
        # A chassis that does not exist is a 404, as in Ironic.
        filters['chassis_id'] = node_common.chassis_for_filter(
            filters.pop('chassis_uuid')).id
    state = filters.get('provision_state')
    if state is not None and state not in states.NODE_STATES:
        raise utils.BadRequest('Provision state "%s" is not valid' % state)
    if 'conductor_group' in filters:
        # Conductor groups are case-insensitive and stored lower-case.
        filters['conductor_group'] = filters['conductor_group'].lower()
    fault = filters.get('fault')
    if fault is not None and fault not in FAULTS:
        raise utils.BadRequest(
            'Unrecognized fault "%s" is specified, allowed faults are %s'
            % (fault, FAULTS))
    if 'shard' in filters:
        filters['shard_in'] = [shard.strip() for shard in
                               filters.pop('shard').split(',')
                               if shard.strip()]
    if 'parent_node' in filters:
        filters.pop('include_children', None)
        filters['parent_node'] = _parent_uuid(filters['parent_node'])
    else:
        # Child nodes are listed only when asked for (Ironic's).
        filters['include_children'] = filters.get('include_children', False)
    return filters


def _parent_uuid(ident):
    """The UUID of the parent node ``ident`` names (itself if there is
    no such node: the filter then finds no child)."""
    if utils.is_uuid(ident):
        return ident
    try:
        return node_common.get_node(ident).uuid
    except exception.NodeNotFound:
        return ident


@dispatch.wsme_arguments()
def validate_by_query():
    """``GET /v1/nodes/validate``, Ironic's older form of a node's
    validation: the node is a query parameter."""
    params = node_common.query()
    utils.check_arguments(params, ('node', 'node_uuid'))
    ident = params.get('node_uuid') or params.get('node')
    if params.get('node_uuid') is not None:
        utils.check_uuid(params['node_uuid'], 'node_uuid')
    if ident is None:
        raise utils.BadRequest('Missing argument: "node"')
    node_paths.check_ident(ident)
    return _validate(ident)


@dispatch.wsme_arguments('body')
def create_node(body):
    """``POST /v1/nodes``: 201, the node as created."""
    node_common.query_without_arguments()
    body = node_common.json_object(body, schema='node')
    owner = access.node_create_owner(body)
    values = node_schema.check_node(body)
    for key, value in body.items():
        if utils.allowed(node_schema.SINCE[key]):
            continue
            # Ironic lets an old client send the empty value of a field it
        # does not know yet.
        if value is not None and not (key == 'conductor_group' and
                                      value == ''):
            raise utils.NotAcceptable('Request not acceptable.')
    if body.get('name') is not None:
        node_schema.check_name(body['name'], "Cannot create node with "
                                             "invalid name '%s'")
    values = {key: value for key, value in values.items()
              if value is not None}
    if owner is not None:
        values['owner'] = owner
    node = utils.rpcapi().create_node(
        utils.context(), values, legacy=not utils.allowed((1, 11)))
    return dispatch.Reply(201, node_common.render(node),
                          node_common.location(node.uuid))


@dispatch.wsme_arguments('body')
def create_chassis_node(chassis, body):
    """``POST /v1/chassis/{chassis}/nodes``: Ironic's 400, once the body
    is read."""
    raise utils.BadRequest(_MALFORMED)


# -- one node -----------------------------------------------------------------

def _validate(ident):
    """What validating the driver interfaces of the node ``ident`` (UUID
    or name) finds, per interface type (the conductor answers)."""
    if not utils.allowed(node_schema.SINCE['name']) and \
            not utils.is_uuid(ident):
        raise utils.NotAcceptable('Request not acceptable.')
    node = node_common.authorized_node(ident, 'baremetal:node:validate')
    return utils.rpcapi().validate_driver_interfaces(utils.context(), node)


@dispatch.wsme_arguments()
def validate_node(node):
    node_common.query_without_arguments()
    return _validate(node)


@dispatch.wsme_arguments()
def node_children(node):
    """The UUIDs of the node's child nodes (1.83)."""
    found = node_common.node_for(node, 'baremetal:node:get')
    children = objects.Node.list(utils.context(),
                                 {'parent_node': found.uuid})
    return {'children': [child.uuid for child in children]}


@dispatch.wsme_arguments()
def show_node(node):
    params = node_common.query()
    utils.check_arguments(params, ('fields',))
    return node_common.show(node, params.get('fields'))


@dispatch.wsme_arguments('patch')
def update_node(node, body):
    params = node_common.query()
    utils.check_arguments(params, ('reset_interfaces',))
    return node_common.patch(node, body, params.get('reset_interfaces'))


@dispatch.wsme_arguments()
def delete_node(node):
    node_common.query_without_arguments()
    found = node_common.get_node(node, with_suffix=True)
    access.authorize_node_delete(found, node)
    utils.rpcapi().destroy_node(utils.context(), found)
    return dispatch.Reply(204)
