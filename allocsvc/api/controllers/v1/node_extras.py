"""What allocsvc's nodes do not keep, as Ironic shows it for a
``fake-hardware`` node without any: VIFs, BIOS settings, firmware
components, inventory and history.

Route table (each from the version it appeared in; 404 before)::

    GET  /v1/nodes/{n}/vifs                      1.28    none attached
    POST /v1/nodes/{n}/vifs                      1.28    400: no free port
    DELETE /v1/nodes/{n}/vifs/{vif}              1.28    400: not attached
    GET  /v1/nodes/{n}/bios[/{name}]             1.40    no settings
    GET  /v1/nodes/{n}/firmware                  1.86    no components
    GET  /v1/nodes/{n}/inventory                 1.81    404: never inspected
    GET  /v1/nodes/{n}/history[/{event}]         1.78    no events
    *    /v1/nodes/{n}/volume/...                        404: not provided

A VIF is attached to a free port of its node; allocsvc's nodes have none
to give. ``attach`` also hangs ``node_management``'s controllers.
"""

import pecan
from oslo_utils import uuidutils
import webob.exc

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_management
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import unprovided
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

_OneNode = node_management.OneNode
_since = node_management.since
_boolean = node_management.boolean
_VOLUME = unprovided.UnprovidedResource('volume')


def attach(node_controller):
    """Hang these sub-resources (and ``node_management``'s) under a
    ``NodeController``."""
    ident = node_controller.ident
    node_controller.vifs = VifsController(ident)
    node_controller.bios = BiosController(ident)
    node_controller.firmware = FirmwareController(ident)
    node_controller.inventory = InventoryController(ident)
    node_controller.history = HistoryController(ident)
    # Volume connectors and targets are not provided, under a node either.
    node_controller.volume = _VOLUME
    node_management.attach(node_controller)


# -- VIFs --------------------------------------------------------------------

class VifsController(_OneNode):
    """``/v1/nodes/{n}/vifs`` (1.28)."""

    @pecan.expose()
    def _lookup(self, vif, *remainder):
        _since((1, 28))
        if remainder:
            raise webob.exc.HTTPNotFound()
        return VifController(self._ident, vif), []

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET, POST')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        _since((1, 28))
        self._node('baremetal:node:vif:list')
        return {'vifs': []}

    @index.when(method='POST', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _post(self, body=None):
        _since((1, 28))
        body = node_common.json_object(body)
        vif = body.get('id')
        if vif is None:
            raise utils.BadRequest("Schema error for vif: 'id' is a "
                                   "required property  Failed validating "
                                   "'required' in schema")
        if not isinstance(vif, str) or not (
                uuidutils.is_uuid_like(vif) or
                utils.is_valid_logical_name(vif)):
            raise utils.BadRequest('Expected UUID or name for id: %s'
                                   % (vif,))
        node_schema.check_text('id', vif)
        self._node('baremetal:node:vif:attach')
        # A VIF takes a free physical port of the node.
        raise exception.InvalidParameterValue(
            'Unable to attach VIF %s, not enough free physical ports.'
            % vif)


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
        raise exception.InvalidParameterValue(
            'Unable to detach VIF %s from node %s because it is not '
            'attached to it.' % (self._vif, node.uuid))


# -- read-only records: BIOS, firmware, inventory, history -------------------

class BiosController(_OneNode):
    """``/v1/nodes/{n}/bios`` (1.40): no settings."""

    @pecan.expose()
    def _lookup(self, name, *remainder):
        _since((1, 40))
        if remainder:
            raise webob.exc.HTTPNotFound()
        return BiosSettingController(self._ident, name), []

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        _since((1, 40))
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
        _since((1, 81))
        node = self._node('baremetal:node:inventory:get')
        raise exception.NotFound('Node inventory record for node %s could '
                                 'not be found.' % node.uuid)


class HistoryController(_OneNode):
    """``/v1/nodes/{n}/history`` (1.78): no events are recorded."""

    @pecan.expose()
    def _lookup(self, event, *remainder):
        _since((1, 78))
        if remainder:
            raise webob.exc.HTTPNotFound()
        return HistoryEventController(self._ident, event), []

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        _since((1, 78))
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


def _empty_list(name, since, action):
    """A controller of ``/v1/nodes/{n}/<name>`` (from ``since``) listing
    nothing: ``{name: []}``."""

    class EmptyListController(_OneNode):
        @pecan.expose('json', generic=True)
        def index(self, *args, **kwargs):
            base.not_allowed('GET')

        @index.when(method='GET', **base.WSME_JSON)
        @base.expose(types.jsontype)
        def _get(self):
            _since(since)
            self._node(action)
            return {name: []}

    EmptyListController.__name__ = '%sController' % name.capitalize()
    return EmptyListController


# /v1/nodes/{n}/firmware (1.86): no components are recorded.
FirmwareController = _empty_list('firmware', (1, 86),
                                 'baremetal:node:firmware:get')

# Every controller class here and in node_management (the routing hook
# reads their attributes).
CONTROLLER_CLASSES = (
    VifsController, VifController, BiosController, BiosSettingController,
    InventoryController, HistoryController, HistoryEventController,
    FirmwareController,
) + node_management.CONTROLLER_CLASSES
