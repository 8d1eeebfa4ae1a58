"""A node's VIFs, and what allocsvc's nodes do not keep, as Ironic shows
it for a ``fake-hardware`` node without any: BIOS settings, firmware
components, inventory and history.

Route table (each from the version it appeared in; 404 before, whatever
the method, as the node controller checks)::

    GET  /v1/nodes/{n}/vifs                      1.28    those of its ports
    POST /v1/nodes/{n}/vifs                      1.28    takes a free port
    DELETE /v1/nodes/{n}/vifs/{vif}              1.28    frees it
    GET  /v1/nodes/{n}/bios[/{name}]             1.40    no settings
    GET  /v1/nodes/{n}/firmware                  1.86    no components
    GET  /v1/nodes/{n}/inventory                 1.81    404: never inspected
    GET  /v1/nodes/{n}/history[/{event}]         1.78    no events
    *    /v1/nodes/{n}/volume/...                        404: not provided

A VIF is attached to a free port or port group of its node by the
node's conductor (``allocsvc.db.baremetal.vifs``), unless the node's
network interface is ``noop``, which keeps none (attaching and detaching
succeed, the list is empty, as Ironic's). ``attach`` also hangs the
controllers of ``node_management`` (management, vendor passthru),
``node_vmedia`` and ``node_states_extras`` (console, RAID, boot mode and
secure boot).
"""

import pecan
from oslo_utils import uuidutils
import webob.exc

from allocsvc import objects
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_management
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import node_states_extras
from allocsvc.api.controllers.v1 import node_vmedia
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

_OneNode = node_common.OneNode
_boolean = node_common.boolean
# The network interface that keeps no VIFs, and where the others keep
# one: in the internal_info of the port or port group it took.
_NOOP_NETWORK = 'noop'
_VIF_KEY = 'tenant_vif_port_id'


def attach(node_controller):
    """Hang these sub-resources (and those of the modules above) under a
    ``NodeController``."""
    ident = node_controller.ident
    node_controller.vifs = VifsController(ident)
    node_controller.bios = BiosController(ident)
    node_controller.firmware = FirmwareController(ident)
    node_controller.inventory = InventoryController(ident)
    node_controller.history = HistoryController(ident)
    node_management.attach(node_controller)
    node_vmedia.attach(node_controller)
    node_states_extras.attach(node_controller.states)


# -- VIFs --------------------------------------------------------------------

class VifsController(_OneNode):
    """``/v1/nodes/{n}/vifs`` (1.28)."""

    @pecan.expose()
    def _lookup(self, vif, *remainder):
        if remainder:
            raise webob.exc.HTTPNotFound()
        return VifController(self._ident, vif), []

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET, POST')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        node = self._node('baremetal:node:vif:list')
        if node.network_interface == _NOOP_NETWORK:
            return {'vifs': []}
        ctx = utils.context()
        holders = (objects.Port.list(ctx, {'node_id': node.id}) +
                   objects.Portgroup.list(ctx, {'node_id': node.id}))
        return {'vifs': [{'id': holder.internal_info[_VIF_KEY]}
                         for holder in holders
                         if holder.internal_info.get(_VIF_KEY)]}

    @index.when(method='POST', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _post(self, body=None):
        vif_info = _vif_info(node_common.json_object(body, schema='vif'))
        node = self._node('baremetal:node:vif:attach')
        if node.network_interface == _NOOP_NETWORK:
            return  # noop keeps no VIFs, as Ironic's
        utils.rpcapi().vif_attach(utils.context(), node, vif_info)


def _vif_info(body):
    """What a VIF attachment request asks for: its ``id`` and, from
    1.67, the port or port group to take (Ironic's checks)."""
    vif = body.get('id')
    if vif is None:
        raise utils.BadRequest("Schema error for vif: 'id' is a "
                               "required property")
    if not isinstance(vif, str) or not (
            uuidutils.is_uuid_like(vif) or
            utils.is_valid_logical_name(vif)):
        raise utils.BadRequest('Expected UUID or name for id: %s' % (vif,))
    node_schema.check_text('id', vif)
    info = {'id': vif}
    wanted = [key for key in ('port_uuid', 'portgroup_uuid') if key in body]
    if wanted and not utils.allowed((1, 67)):
        raise utils.BadRequest('Additional properties are not allowed '
                               '(%s was unexpected)' % ', '.join(
                                   repr(key) for key in wanted))
    if len(wanted) == 2:
        raise utils.BadRequest('Cannot specify both port_uuid and '
                               'portgroup_uuid')
    for key in wanted:
        node_schema.check_uuid(key, body[key])
        info[key] = body[key]
    return info


class VifController(_OneNode):
    def __init__(self, ident, vif):
        super().__init__(ident)
        self._vif = vif

    _vif = None

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('DELETE')

    @index.when(method='DELETE', **base.WSME_JSON)
    @base.expose(None, status_code=204)
    def _delete(self):
        node = self._node('baremetal:node:vif:detach')
        if node.network_interface == _NOOP_NETWORK:
            return  # nothing was attached, nothing to detach
        utils.rpcapi().vif_detach(utils.context(), node, self._vif)


# -- read-only records: BIOS, firmware, inventory, history -------------------

class BiosController(_OneNode):
    """``/v1/nodes/{n}/bios`` (1.40): no settings."""

    @pecan.expose()
    def _lookup(self, name, *remainder):
        if remainder:
            raise webob.exc.HTTPNotFound()
        return BiosSettingController(self._ident, name), []

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        params = node_common.query()
        known = ('detail', 'fields') if utils.allowed((1, 74)) else ()
        utils.check_arguments(params, known)
        if params.get('detail') is not None:
            _boolean('detail', params['detail'])
        node_common.authorized_node(self._ident, 'baremetal:node:bios:get')
        return {'bios': []}


class BiosSettingController(_OneNode):
    _name = None

    def __init__(self, ident, name):
        super().__init__(ident)
        self._name = name

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        node = self._node('baremetal:node:bios:get')
        raise exception.NotFound("Node %s doesn't have a BIOS setting '%s'"
                                 % (node.uuid, self._name))


class InventoryController(_OneNode):
    """``/v1/nodes/{n}/inventory`` (1.81): nodes here are never
    inspected."""

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        node = self._node('baremetal:node:inventory:get')
        raise exception.NotFound('Node inventory record for node %s could '
                                 'not be found.' % node.uuid)


class HistoryController(_OneNode):
    """``/v1/nodes/{n}/history`` (1.78): no events are recorded."""

    @pecan.expose()
    def _lookup(self, event, *remainder):
        if remainder:
            raise webob.exc.HTTPNotFound()
        return HistoryEventController(self._ident, event), []

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        params = node_common.query()
        utils.check_arguments(params, ('detail', 'marker', 'limit'))
        if params.get('detail') is not None:
            _boolean('detail', params['detail'])
        utils.parse_limit(params.get('limit'))
        node_common.authorized_node(self._ident,
                                    'baremetal:node:history:get')
        return {'history': []}


class HistoryEventController(_OneNode):
    _event = None

    def __init__(self, ident, event):
        super().__init__(ident)
        self._event = event

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        self._node('baremetal:node:history:get')
        raise exception.NotFound('Node history record %s could not be '
                                 'found.' % self._event)


def _empty_list(name, action):
    """A controller of ``/v1/nodes/{n}/<name>`` listing nothing:
    ``{name: []}``."""

    class EmptyListController(_OneNode):
        @pecan.expose('json', generic=True)
        def index(self, *args, **kwargs):
            base.not_allowed('GET')

        @index.when(method='GET', **base.WSME_JSON)
        @base.expose(types.jsontype)
        def _get(self):
            self._node(action)
            return {name: []}

    EmptyListController.__name__ = '%sController' % name.capitalize()
    return EmptyListController


# /v1/nodes/{n}/firmware (1.86): no components are recorded.
FirmwareController = _empty_list('firmware', 'baremetal:node:firmware:get')

# Every controller class here and in the modules above (the routing hook
# reads their attributes).
CONTROLLER_CLASSES = (
    VifsController, VifController, BiosController, BiosSettingController,
    InventoryController, HistoryController, HistoryEventController,
    FirmwareController,
) + (node_management.CONTROLLER_CLASSES + node_vmedia.CONTROLLER_CLASSES +
     node_states_extras.CONTROLLER_CLASSES)
