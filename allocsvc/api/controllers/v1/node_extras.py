"""The parts of a node Ironic's drivers act on and allocsvc's
``fake-hardware`` does not keep: boot device, VIFs, console, RAID, BIOS,
firmware, inventory, history and children.

Route table (each from the version it appeared in; 404 before)::

    GET  /v1/nodes/{n}/management/boot_device            {pxe, false}
    PUT  /v1/nodes/{n}/management/boot_device            pxe only (204)
    GET  /v1/nodes/{n}/management/boot_device/supported  [pxe]
    GET  /v1/nodes/{n}/vifs                      1.28    none attached
    POST /v1/nodes/{n}/vifs                      1.28    400: no free port
    DELETE /v1/nodes/{n}/vifs/{vif}              1.28    400: not attached
    GET  /v1/nodes/{n}/states/console                    disabled
    PUT  /v1/nodes/{n}/states/console                    202 to disable;
                                                         400 to enable
    PUT  /v1/nodes/{n}/states/raid               1.12    404: no RAID
    GET  /v1/nodes/{n}/bios[/{name}]             1.40    no settings
    GET  /v1/nodes/{n}/firmware                  1.86    no components
    GET  /v1/nodes/{n}/inventory                 1.81    404: never inspected
    GET  /v1/nodes/{n}/history[/{event}]         1.78    no events
    GET  /v1/nodes/{n}/children                  1.83    none

What Ironic's ``fake`` interfaces answer is answered here where nothing
needs storing (the fake management interface supports and reports the
``pxe`` boot device only); the rest is what Ironic answers for a node
that has none of it, or for a driver that does not do it
(UnsupportedDriverExtension, with Ironic's status). VIFs are attached to
ports; a node without any has no free port for one.
"""

import pecan
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

# The boot devices of Ironic's fake management interface.
BOOT_DEVICES = ('pxe',)


def attach(node_controller):
    """Hang these sub-resources under a ``NodeController``."""
    ident = node_controller.ident
    node_controller.management = ManagementController(ident)
    node_controller.vifs = VifsController(ident)
    node_controller.bios = BiosController(ident)
    node_controller.firmware = FirmwareController(ident)
    node_controller.inventory = InventoryController(ident)
    node_controller.history = HistoryController(ident)
    node_controller.children = ChildrenController(ident)
    node_controller.states.console = ConsoleController(ident)
    node_controller.states.raid = RaidController(ident)


def _since(version):
    """404 below ``version``, as Ironic for a path that does not exist
    yet."""
    if not utils.allowed(version):
        raise webob.exc.HTTPNotFound()


def _boolean(name, value):
    if isinstance(value, bool):
        return value
    try:
        return strutils.bool_from_string(value, strict=True)
    except (ValueError, TypeError) as exc:
        raise utils.BadRequest('Invalid %s: %s' % (name, exc))


def _required(body, name):
    if body.get(name) is None:
        raise utils.BadRequest('Missing mandatory parameter: %s' % name)
    return body[name]


class _OneNode(base.Resource):
    _ident = None  # declared here so that routing refuses it (hooks.py)

    def __init__(self, ident):
        self._ident = ident

    def _node(self, action):
        node_common.query_without_arguments()
        return node_common.authorized_node(self._ident, action)


# -- management --------------------------------------------------------------

class ManagementController(_OneNode):
    """``/v1/nodes/{n}/management``: only its boot device."""

    def __init__(self, ident):
        super().__init__(ident)
        self.boot_device = BootDeviceController(ident)

    @pecan.expose('json')
    def index(self, *args, **kwargs):
        raise webob.exc.HTTPNotFound()


class BootDeviceController(_OneNode):
    def __init__(self, ident):
        super().__init__(ident)
        self.supported = SupportedBootDevicesController(ident)

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET, PUT')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        self._node('baremetal:node:get_boot_device')
        return {'boot_device': BOOT_DEVICES[0], 'persistent': False}

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        body = node_common.json_object(body)
        utils.check_arguments(body, ('boot_device', 'persistent'))
        device = _required(body, 'boot_device')
        if not isinstance(device, str):
            raise utils.BadRequest('Expected string for boot_device: %s'
                                   % (device,))
        if body.get('persistent') is not None:
            _boolean('persistent', body['persistent'])
        self._node('baremetal:node:set_boot_device')
        if device not in BOOT_DEVICES:
            raise exception.InvalidParameterValue(
                'Invalid boot device %s specified.' % device)


class SupportedBootDevicesController(_OneNode):
    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        self._node('baremetal:node:get_boot_device')
        return {'supported_boot_devices': list(BOOT_DEVICES)}


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


# -- states: console and RAID ------------------------------------------------

class ConsoleController(_OneNode):
    """``/v1/nodes/{n}/states/console``: the console is never enabled."""

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET, PUT')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        self._node('baremetal:node:get_console')
        return {'console_enabled': False, 'console_info': None}

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=202)
    def _put(self, body=None):
        body = node_common.json_object(body)
        utils.check_arguments(body, ('enabled',))
        enabled = _boolean('enabled', _required(body, 'enabled'))
        node = self._node('baremetal:node:set_console_state')
        if enabled:
            raise exception.UnsupportedDriverExtension(node.driver,
                                                       'console')
        # Already disabled: nothing to do, as Ironic.
        node_common.set_location(self._ident, 'states', 'console')


class RaidController(_OneNode):
    """``PUT /v1/nodes/{n}/states/raid`` (1.12)."""

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('PUT')

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        node_common.json_object(body)
        if not utils.allowed((1, 12)):
            raise utils.NotAcceptable('Request not acceptable.')
        node = self._node('baremetal:node:set_raid_state')
        # Ironic answers a driver without RAID support with a 404.
        raise exception.UnsupportedDriverExtension(node.driver, 'raid',
                                                   status=404)


# -- read-only records: BIOS, firmware, inventory, history, children ---------

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
# /v1/nodes/{n}/children (1.83): nodes here have no parent node.
ChildrenController = _empty_list('children', (1, 83), 'baremetal:node:get')

# Every controller class here (the routing hook reads their attributes).
CONTROLLER_CLASSES = (
    ManagementController, BootDeviceController,
    SupportedBootDevicesController, VifsController, VifController,
    ConsoleController, RaidController, BiosController,
    BiosSettingController, InventoryController, HistoryController,
    HistoryEventController, FirmwareController, ChildrenController,
)
