"""``/v1/ports``: Ironic's port API (a node's network interfaces).

Routes (Pecan object dispatch; everything else is a 404 or a 405)::

    GET, POST           /v1/ports                   list (filters, fields,
                                                    detail, paging), create
    GET                 /v1/ports/detail
    GET, PATCH, DELETE  /v1/ports/{port}            by UUID (name, 1.88)
    GET                 /v1/nodes/{node}/ports      the node's ports
    GET                 /v1/nodes/{node}/ports/detail
    GET                 /v1/portgroups/{pg}/ports   (1.24) its members
    GET                 /v1/portgroups/{pg}/ports/detail

Under a node or a port group only lists are served: any other request
there is Ironic's 403 "Operation not permitted.". The handlers are thin:
``port_common`` does the work for ports and port groups alike.
"""

import pecan
import webob.exc

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import port_common as common
from allocsvc.api.controllers.v1 import types
from allocsvc.common import exception

KIND = common.PORT


class PortsController:
    """``/v1/ports``, or the ports of one node (``node_ident``) or port
    group (``portgroup_ident``)."""

    def __init__(self, node_ident=None, portgroup_ident=None):
        self.node_ident = node_ident
        self.portgroup_ident = portgroup_ident

    @property
    def _nested(self):
        return self.node_ident is not None or \
            self.portgroup_ident is not None

    def _resource(self, detail=False):
        if self.node_ident is not None:
            path = 'nodes/%s/ports' % self.node_ident
        elif self.portgroup_ident is not None:
            path = 'portgroups/%s/ports' % self.portgroup_ident
        else:
            path = 'ports'
        return path + '/detail' if detail else path

    @pecan.expose()
    def _lookup(self, ident, *remainder):
        if self._nested:
            # Before any handler: Pecan would not render the exception.
            raise webob.exc.HTTPForbidden(detail='Operation not permitted.')
        return PortController(ident), list(remainder)

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET, POST')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.PortCollection)
    def _list(self):
        return types.PortCollection.from_document(common.list_collection(
            KIND, self._resource(), node_ident=self.node_ident,
            portgroup_ident=self.portgroup_ident))

    @pecan.expose('json', generic=True)
    def detail(self, *args, **kwargs):
        base.not_allowed('GET')

    @detail.when(method='GET', **base.WSME_JSON)
    @base.expose(types.PortCollection)
    def _detail(self):
        return types.PortCollection.from_document(common.list_collection(
            KIND, self._resource(detail=True), detail_path=True,
            node_ident=self.node_ident,
            portgroup_ident=self.portgroup_ident))

    @index.when(method='POST', **base.WSME_JSON)
    @base.expose(types.Port, body=types.jsontype, status_code=201)
    def _post(self, body=None):
        if self._nested:
            raise exception.OperationNotPermitted()
        node_common.query_without_arguments()
        return types.Port.from_document(common.create(KIND, body))


class PortController(base.Resource):
    """``/v1/ports/{port}``."""

    def __init__(self, ident):
        self.ident = ident

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('DELETE, GET, PATCH')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.Port)
    def _get(self):
        params = node_common.query()
        common.utils.check_arguments(params, ('fields',))
        fields = common.parse_fields(KIND, params.get('fields'))
        record, _node = common.authorized(KIND, self.ident, 'get')
        return types.Port.from_document(common.render(KIND, record, fields))

    @index.when(method='PATCH', **base.WSME_JSON)
    @base.expose(types.Port, body=types.jsontype)
    def _patch(self, patch=None):
        node_common.query_without_arguments()
        return types.Port.from_document(common.update(KIND, self.ident,
                                                      patch))

    @index.when(method='DELETE', **base.WSME_JSON)
    @base.expose(None, status_code=204)
    def _delete(self):
        node_common.query_without_arguments()
        common.destroy(KIND, self.ident)
