"""``/v1/portgroups`` (1.23): Ironic's port group API.

Routes (Pecan object dispatch; everything else is a 404 or a 405)::

    GET, POST           /v1/portgroups                list, create
    GET                 /v1/portgroups/detail
    GET, PATCH, DELETE  /v1/portgroups/{pg}           by UUID or name
    GET                 /v1/portgroups/{pg}/ports     (1.24) port.py
    GET                 /v1/nodes/{node}/portgroups   (1.24)
    GET                 /v1/nodes/{node}/portgroups/detail

Below 1.23 there are no port groups (404, whatever the method). Under a
node only lists are served (403 otherwise, as Ironic). ``port_common``
does the work.
"""

import pecan
import webob.exc

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import port
from allocsvc.api.controllers.v1 import port_common as common
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

KIND = common.PORTGROUP
FIRST_VERSION = (1, 23)
SUBCONTROLLERS = (1, 24)


def gate():
    """Port groups do not exist before 1.23."""
    if not utils.allowed(FIRST_VERSION):
        raise webob.exc.HTTPNotFound()


class PortgroupsController:
    """``/v1/portgroups``, or the port groups of one node."""

    def __init__(self, node_ident=None):
        self.node_ident = node_ident

    def _resource(self, detail=False):
        path = ('portgroups' if self.node_ident is None
                else 'nodes/%s/portgroups' % self.node_ident)
        return path + '/detail' if detail else path

    @pecan.expose()
    def _lookup(self, ident, *remainder):
        if self.node_ident is not None:
            # Before any handler: Pecan would not render the exception.
            raise webob.exc.HTTPForbidden(detail='Operation not permitted.')
        if remainder and remainder[0] == 'ports' and \
                not utils.allowed(SUBCONTROLLERS):
            raise webob.exc.HTTPNotFound()
        return PortgroupController(ident), list(remainder)

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET, POST')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.PortgroupCollection)
    def _list(self):
        return types.PortgroupCollection.from_document(
            common.list_collection(KIND, self._resource(),
                                   node_ident=self.node_ident))

    @pecan.expose('json', generic=True)
    def detail(self, *args, **kwargs):
        base.not_allowed('GET')

    @detail.when(method='GET', **base.WSME_JSON)
    @base.expose(types.PortgroupCollection)
    def _detail(self):
        return types.PortgroupCollection.from_document(
            common.list_collection(KIND, self._resource(detail=True),
                                   detail_path=True,
                                   node_ident=self.node_ident))

    @index.when(method='POST', **base.WSME_JSON)
    @base.expose(types.Portgroup, body=types.jsontype, status_code=201)
    def _post(self, body=None):
        if self.node_ident is not None:
            raise exception.OperationNotPermitted()
        node_common.query_without_arguments()
        return types.Portgroup.from_document(common.create(KIND, body))


class PortgroupController(base.Resource):
    """``/v1/portgroups/{pg}`` and its ports."""

    def __init__(self, ident):
        self.ident = ident
        self.ports = port.PortsController(portgroup_ident=ident)

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('DELETE, GET, PATCH')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.Portgroup)
    def _get(self):
        params = node_common.query()
        utils.check_arguments(params, ('fields',))
        fields = common.parse_fields(KIND, params.get('fields'))
        record, _node = common.authorized(KIND, self.ident, 'get')
        return types.Portgroup.from_document(
            common.render(KIND, record, fields))

    @index.when(method='PATCH', **base.WSME_JSON)
    @base.expose(types.Portgroup, body=types.jsontype)
    def _patch(self, patch=None):
        node_common.query_without_arguments()
        return types.Portgroup.from_document(
            common.update(KIND, self.ident, patch))

    @index.when(method='DELETE', **base.WSME_JSON)
    @base.expose(None, status_code=204)
    def _delete(self):
        node_common.query_without_arguments()
        common.destroy(KIND, self.ident)
