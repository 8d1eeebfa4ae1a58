"""``/v1/nodes``: Ironic's node API, for the parts allocsvc serves.

The whole URL surface is ``ROUTES`` below; a path it does not know is a
404, a method a path does not take a 405 with ``Allow``. Handlers check
the request as Ironic does (microversion of every field, filter and
verb; Ironic's messages) and leave the rules of changing a node to
``allocsvc.db.baremetal.provisioning``.
"""


import pecan
from pecan import routing
import webob.exc

from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import allocation as allocation_api
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import node_states
from allocsvc.api.controllers.v1 import node_traits
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import states
from allocsvc.db.baremetal import nodes
from allocsvc.db.baremetal import provisioning

# Path under /v1/nodes ('{node}': a node ident, '{trait}': a trait name)
# -> {method: (handler object attribute, handler name)}, and the version
# the path appeared in (404 before). /{node}/allocation is delegated to
# the allocation API's NodeAllocationController (see _route).
ROUTES = [
    ((), {'GET': ('self', 'get_all'), 'POST': ('self', 'post')}, (1, 1)),
    (('detail',), {'GET': ('self', 'detail')}, (1, 1)),
    (('{node}',), {'GET': ('self', 'get_one'), 'PATCH': ('self', 'patch'),
                   'DELETE': ('self', 'delete')}, (1, 1)),
    (('{node}', 'states'), {'GET': ('states', 'get')}, (1, 1)),
    (('{node}', 'states', 'power'), {'PUT': ('states', 'power')}, (1, 1)),
    (('{node}', 'states', 'provision'),
     {'PUT': ('states', 'provision')}, (1, 1)),
    (('{node}', 'maintenance'), {'PUT': ('maintenance', 'put'),
                                 'DELETE': ('maintenance', 'delete')},
     (1, 1)),
    (('{node}', 'traits'), {'GET': ('traits', 'get_all'),
                            'PUT': ('traits', 'put_all'),
                            'DELETE': ('traits', 'delete_all')}, (1, 37)),
    (('{node}', 'traits', '{trait}'), {'PUT': ('traits', 'put_one'),
                                       'DELETE': ('traits', 'delete_one')},
     (1, 37)),
]
ALLOCATION_SINCE = (1, 52)

# List filters: query parameter -> (first version, parser).
_FILTERS = {
    'maintenance': ((1, 1), utils.parse_bool),
    'associated': ((1, 1), utils.parse_bool),
    'instance_uuid': ((1, 1), None),
    'provision_state': ((1, 9), None),
    'driver': ((1, 16), None),
    'resource_class': ((1, 21), None),
    'conductor_group': ((1, 46), None),
    'conductor': ((1, 49), None),
    'owner': ((1, 50), None),
    'description_contains': ((1, 51), None),
    'lessee': ((1, 65), None),
}
_PAGING = ('limit', 'marker', 'sort_key', 'sort_dir')
_SORTABLE = nodes.SORTABLE - set(node_schema.UNSORTABLE)


def _match(pattern, path):
    """The path variables if ``path`` fits ``pattern``, else None."""
    if len(pattern) != len(path):
        return None
    found = []
    for part, segment in zip(pattern, path):
        if part.startswith('{'):
            found.append(segment)
        elif part != segment:
            return None
    return found


class NodesController:
    """The node collection and everything under it."""

    def __init__(self):
        self.states = node_states.NodeStatesController()
        self.maintenance = node_states.NodeMaintenanceController()
        self.traits = node_traits.NodeTraitsController()

    @pecan.expose()
    def _route(self, args, request=None):
        request = request or pecan.request
        path = list(args)
        if path and path[-1] == '':
            path.pop()  # a trailing slash
        if any('\x00' in segment for segment in path):
            raise webob.exc.HTTPBadRequest(
                detail='The request path contains a NUL character.')
        if len(path) >= 2 and path[1] == 'allocation':
            return self._allocation(path, request)
        for pattern, methods, since in ROUTES:
            found = _match(pattern, path)
            if found is None:
                continue
            if len(pattern) > 1:
                # As Ironic: the ident is checked before anything else.
                self._check_ident(found[0])
            if not utils.allowed(since):
                raise webob.exc.HTTPNotFound()
            if request.method not in methods:
                raise webob.exc.HTTPMethodNotAllowed(
                    headers={'Allow': ', '.join(sorted(methods))})
            owner, name = methods[request.method]
            target = self if owner == 'self' else getattr(self, owner)
            return getattr(target, name), found
        raise webob.exc.HTTPNotFound()

    @staticmethod
    def _check_ident(ident):
        try:
            utils.check_ident(ident)
        except utils.BadRequest as exc:
            raise webob.exc.HTTPBadRequest(detail=exc.message)

    def _allocation(self, path, request):
        self._check_ident(path[0])
        if not utils.allowed(ALLOCATION_SINCE):
            raise webob.exc.HTTPNotFound()
        controller = allocation_api.NodeAllocationController(path[0])
        return routing.lookup_controller(controller, path[2:], request)

    # -- the collection ------------------------------------------------------

    @base.expose()
    def get_all(self):
        project = access.node_list_project()
        params = node_common.query()
        utils.check_arguments(params, set(_FILTERS) | set(_PAGING) |
                              {'fields', 'detail'})
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
        return self._collection('nodes', params, fields, project)

    @base.expose()
    def detail(self):
        project = access.node_list_project()
        params = node_common.query()
        utils.check_arguments(params, set(_FILTERS) | set(_PAGING))
        return self._collection('nodes/detail', params, None, project)

    def _collection(self, resource, params, fields, project=None):
        filters = self._filters(params)
        if project is not None:
            filters['project'] = project  # nodes it owns or leases
        sort_key = params.get('sort_key', 'id')
        sort_dir = params.get('sort_dir', 'asc')
        node_common.check_known_at_version([sort_key])
        utils.check_sort(sort_key, sort_dir, _SORTABLE,
                         node_schema.UNSORTABLE)
        marker = params.get('marker')
        if marker is not None:
            node_schema.check_uuid('marker', marker)
        limit = utils.parse_limit(params.get('limit'))
        found = nodes.list_nodes(utils.context(), filters, limit, marker,
                                 sort_key, sort_dir)
        items = [node_common.render(node, fields) for node in found]
        query = {key: value for key, value in params.items()
                 if key not in ('limit', 'marker')}
        # instance_uuid names at most one node: no next page (as Ironic).
        page = 0 if 'instance_uuid' in filters else limit
        return utils.collection(
            'nodes', items, page, resource=resource,
            marker=found[-1].uuid if found else None, **query)

    @staticmethod
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
            node_schema.check_uuid('instance_uuid', filters['instance_uuid'])
        state = filters.get('provision_state')
        if state is not None and state not in states.NODE_STATES:
            raise utils.BadRequest('Provision state "%s" is not valid'
                                   % state)
        if 'conductor_group' in filters:
            # Conductor groups are case-insensitive and stored lower-case.
            filters['conductor_group'] = filters['conductor_group'].lower()
        return filters

    @base.expose(201)
    def post(self):
        node_common.query_without_arguments()
        body = node_common.json_object()
        owner = access.node_create_owner(body)
        values = node_schema.check_node(body)
        for key, value in body.items():
            if utils.allowed(node_schema.SINCE[key]):
                continue
            # Ironic lets an old client send the empty value of a field
            # it does not know yet.
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
        node = provisioning.create_node(
            utils.context(), values, legacy=not utils.allowed((1, 11)))
        node_common.set_location(node.uuid)
        return node_common.render(node)

    # -- one node ------------------------------------------------------------

    @base.expose()
    def get_one(self, ident):
        params = node_common.query()
        utils.check_arguments(params, ('fields',))
        fields = node_common.parse_fields(params.get('fields'))
        node = node_common.get_node(ident, with_suffix=True)
        access.authorize_node('baremetal:node:get', node, ident)
        return node_common.render(node, fields)

    @base.expose()
    def patch(self, ident):
        node_common.query_without_arguments()
        patch = utils.json_body()
        utils.check_patch(patch)
        for op in patch:
            root = utils.patch_root(op)
            if root not in node_schema.PATCHABLE:
                raise utils.BadRequest(
                    'Cannot patch %s. Only the following can be updated: %s'
                    % (op['path'], ', '.join(node_schema.PATCHABLE)))
            if not utils.allowed(node_schema.SINCE[root]):
                raise utils.NotAcceptable('Request not acceptable.')
            if op['path'] == '/name' and op.get('value') is not None:
                node_schema.check_name(
                    op['value'], "Node %s: Cannot change name to invalid "
                                 "name '%%s'" % ident)
        node = node_common.get_node(ident, with_suffix=True)
        access.authorize_node_patch(patch, node, ident)
        current = {name: getattr(node, name)
                   for name in node_schema.PATCHABLE}
        patched = utils.apply_patch(current, patch)
        for name in node_schema.PATCHABLE:
            if name not in node_schema.NODE['required']:
                patched.setdefault(name, None)  # removed: its default
        values = node_schema.check_node(patched, name='patch')
        changes = {name: values[name] for name in node_schema.PATCHABLE
                   if values[name] != current[name]}
        node = provisioning.update_node(
            utils.context(), node.id, changes, node_common.locker(),
            expected={name: current[name] for name in changes})
        return node_common.render(node)

    @base.expose(204)
    def delete(self, ident):
        node_common.query_without_arguments()
        node = node_common.get_node(ident, with_suffix=True)
        access.authorize_node_delete(node, ident)
        provisioning.destroy_node(utils.context(), node.id,
                                  node_common.locker())
