"""What a node's management interface does, as allocsvc's
``fake-hardware`` answers it: boot device, NMI, console, RAID, boot mode,
secure boot and vendor methods.

Route table (each from the version it appeared in; 404 before)::

    GET  /v1/nodes/{n}/management/boot_device            {pxe, false}
    PUT  /v1/nodes/{n}/management/boot_device            pxe only (204)
    GET  /v1/nodes/{n}/management/boot_device/supported  [pxe]
    PUT  /v1/nodes/{n}/management/inject_nmi     1.29    400: unsupported
    GET  /v1/nodes/{n}/management/indicators     1.63    the fake LEDs
    GET  /v1/nodes/{n}/management/indicators/{name@component}   ON
    PUT  /v1/nodes/{n}/management/indicators/{name@component}
                                                         400: unsupported
    GET  /v1/nodes/{n}/states/console                    disabled
    PUT  /v1/nodes/{n}/states/console                    202 to disable;
                                                         400 to enable
    PUT  /v1/nodes/{n}/states/raid               1.12    404: unsupported
    PUT  /v1/nodes/{n}/states/boot_mode          1.76    400: unsupported
    PUT  /v1/nodes/{n}/states/secure_boot        1.76    400: unsupported
    GET  /v1/nodes/{n}/vendor_passthru/methods           none
    *    /v1/nodes/{n}/vendor_passthru?method=           400: no handler
    POST /v1/nodes/{n}/vmedia                    1.89    400: unsupported
    DELETE /v1/nodes/{n}/vmedia                  1.89    400: unsupported

What Ironic's fake management interface answers is answered where
nothing needs storing (it supports and reports the ``pxe`` boot device
only); what would need state allocsvc does not keep (an enabled console,
a RAID configuration, a boot mode) is Ironic's UnsupportedDriverExtension
with Ironic's status, and the vendor interface offers no method.
"""

import jsonschema
import pecan
from oslo_utils import strutils
import webob.exc

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

# The boot devices of Ironic's fake management interface.
BOOT_DEVICES = ('pxe',)
# Its indicators: component -> name -> (read only, states).
INDICATORS = {
    'chassis': {'led-0': (True, ['OFF', 'ON'])},
    'system': {'led': (False, ['BLINKING', 'OFF', 'ON'])},
}


def attach(node_controller):
    """Hang these sub-resources under a ``NodeController``."""
    ident = node_controller.ident
    node_controller.management = ManagementController(ident)
    node_controller.vendor_passthru = VendorPassthruController(ident)
    node_controller.vmedia = VmediaController(ident)
    node_controller.states.console = ConsoleController(ident)
    node_controller.states.raid = RaidController(ident)
    node_controller.states.boot_mode = BootModeController(ident)
    node_controller.states.secure_boot = SecureBootController(ident)


def since(version):
    """404 below ``version``, as Ironic for a path that does not exist
    yet."""
    if not utils.allowed(version):
        raise webob.exc.HTTPNotFound()


def boolean(name, value):
    if isinstance(value, bool):
        return value
    try:
        return strutils.bool_from_string(value, strict=True)
    except (ValueError, TypeError) as exc:
        raise utils.BadRequest('Invalid %s: %s' % (name, exc))


def required(body, name):
    if body.get(name) is None:
        raise utils.BadRequest('Missing mandatory parameter: %s' % name)
    return body[name]


class OneNode(base.Resource):
    _ident = None  # declared here so that routing refuses it (hooks.py)

    def __init__(self, ident):
        self._ident = ident

    def _node(self, action):
        node_common.query_without_arguments()
        return node_common.authorized_node(self._ident, action)


# -- management --------------------------------------------------------------

class ManagementController(OneNode):
    """``/v1/nodes/{n}/management``: only its boot device."""

    def __init__(self, ident):
        super().__init__(ident)
        self.boot_device = BootDeviceController(ident)
        self.inject_nmi = InjectNmiController(ident)
        self.indicators = IndicatorsController(ident)

    # Ironic's management resource takes no method itself, nor below it
    # where nothing is: 405, with no Allow.
    @pecan.expose()
    def _lookup(self, *remainder):
        raise webob.exc.HTTPMethodNotAllowed()

    @pecan.expose('json')
    def index(self, *args, **kwargs):
        raise webob.exc.HTTPMethodNotAllowed()


class BootDeviceController(OneNode):
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
        device = required(body, 'boot_device')
        if not isinstance(device, str):
            raise utils.BadRequest('Expected string for boot_device: %s'
                                   % (device,))
        if body.get('persistent') is not None:
            boolean('persistent', body['persistent'])
        self._node('baremetal:node:set_boot_device')
        if device not in BOOT_DEVICES:
            raise exception.InvalidParameterValue(
                'Invalid boot device %s specified.' % device)


class SupportedBootDevicesController(OneNode):
    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        self._node('baremetal:node:get_boot_device')
        return {'supported_boot_devices': list(BOOT_DEVICES)}


class InjectNmiController(OneNode):
    """``PUT /v1/nodes/{n}/management/inject_nmi`` (1.29): the fake
    management interface cannot."""

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('PUT')

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        since((1, 29))
        node_common.json_object(body, allow_empty=True)
        node = self._node('baremetal:node:inject_nmi')
        raise exception.UnsupportedDriverExtension(node.driver,
                                                   'inject_nmi')


class IndicatorsController(OneNode):
    """``/v1/nodes/{n}/management/indicators`` (1.63)."""

    @pecan.expose()
    def _lookup(self, indicator, *remainder):
        since((1, 63))
        if remainder:
            raise webob.exc.HTTPNotFound()
        return IndicatorController(self._ident, indicator), []

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        since((1, 63))
        self._node('baremetal:node:get_indicator_state')
        indicators = []
        for component, names in INDICATORS.items():
            for name, (readonly, states) in names.items():
                unique = '%s@%s' % (name, component)
                indicators.append({
                    'name': unique, 'component': component,
                    'readonly': readonly, 'states': list(states),
                    'links': base.resource_links(
                        'nodes', '/%s/management/indicators/%s'
                        % (self._ident, unique))})
        return {'indicators': indicators}


class IndicatorController(OneNode):
    """``/v1/nodes/{n}/management/indicators/{name@component}``."""

    _indicator = None

    def __init__(self, ident, indicator):
        super().__init__(ident)
        self._indicator = indicator

    def _check(self):
        name, at, component = self._indicator.partition('@')
        if not at:
            raise exception.InvalidParameterValue(
                'Malformed indicator name "%s"' % self._indicator)
        if component not in INDICATORS:
            raise exception.InvalidParameterValue(
                'Invalid component %s specified.' % component)
        if name not in INDICATORS[component]:
            raise exception.InvalidParameterValue(
                'Invalid indicator %s specified.' % name)

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET, PUT')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        self._node('baremetal:node:get_indicator_state')
        self._check()
        return {'state': 'ON'}

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        body = node_common.json_object(body)
        utils.check_arguments(body, ('state',))
        state = required(body, 'state')
        if not isinstance(state, str):
            raise utils.BadRequest('Expected string for state: %s'
                                   % (state,))
        node = self._node('baremetal:node:set_indicator_state')
        self._check()
        raise exception.UnsupportedDriverExtension(node.driver,
                                                   'set_indicator_state')


class VendorPassthruController(OneNode):
    """``/v1/nodes/{n}/vendor_passthru``: the node's vendor interface
    offers no method."""

    def __init__(self, ident):
        super().__init__(ident)
        self.methods = VendorMethodsController(ident)

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('DELETE, GET, PATCH, POST, PUT')

    def _passthru(self, body):
        params = node_common.query()
        utils.check_arguments(params, ('method',))
        method = params.get('method')
        if not method:
            raise utils.BadRequest('Method not specified')
        node_common.authorized_node(self._ident,
                                    'baremetal:node:vendor_passthru')
        raise exception.InvalidParameterValue('No handler for method %s'
                                              % method)

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        return self._passthru(None)

    @index.when(method='POST', **base.WSME_JSON)
    @base.expose(types.jsontype, body=types.jsontype)
    def _post(self, body=None):
        return self._passthru(body)

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(types.jsontype, body=types.jsontype)
    def _put(self, body=None):
        return self._passthru(body)

    @index.when(method='PATCH', **base.WSME_JSON)
    @base.expose(types.jsontype, body=types.jsontype)
    def _patch(self, body=None):
        return self._passthru(body)

    @index.when(method='DELETE', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _delete(self):
        return self._passthru(None)


class VendorMethodsController(OneNode):
    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        self._node('baremetal:node:vendor_passthru')
        return {}


# What POST /v1/nodes/{n}/vmedia takes (Ironic's schema).
VMEDIA_DEVICES = ('cdrom', 'disk', 'floppy')
_VMEDIA = jsonschema.Draft4Validator({
    'type': 'object',
    'properties': {
        'device_type': {'type': 'string', 'enum': list(VMEDIA_DEVICES)},
        'image_url': {'type': 'string'},
        'image_download_source': {'type': 'string',
                                  'enum': ['http', 'local', 'swift']},
    },
    'required': ['device_type', 'image_url'],
    'additionalProperties': False,
})


class VmediaController(OneNode):
    """``/v1/nodes/{n}/vmedia`` (1.89): fake-hardware's management
    interface (``fake``, its only one) attaches and detaches virtual media
    as Ironic's does: it checks the request and does nothing, there being
    no machine."""

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('DELETE, POST')

    @index.when(method='POST', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _post(self, body=None):
        since((1, 89))
        body = node_common.json_object(body)
        node_schema.validate(_VMEDIA, 'vmedia', body)
        self._node('baremetal:node:vmedia:attach')

    @index.when(method='DELETE', **base.WSME_JSON)
    @base.expose(None, status_code=204)
    def _delete(self):
        since((1, 89))
        params = node_common.query()
        utils.check_arguments(params, ('device_types',))
        wanted = [name.strip() for name in
                  params.get('device_types', '').split(',') if name.strip()]
        unknown = sorted(set(wanted) - set(VMEDIA_DEVICES))
        if unknown:
            raise utils.BadRequest(
                'Invalid device_types: %s. Valid values are %s.'
                % (', '.join(unknown), ', '.join(VMEDIA_DEVICES)))
        node_common.authorized_node(self._ident,
                                    'baremetal:node:vmedia:detach')


# -- states: console and RAID ------------------------------------------------

class ConsoleController(OneNode):
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
        enabled = boolean('enabled', required(body, 'enabled'))
        node = self._node('baremetal:node:set_console_state')
        if enabled:
            raise exception.UnsupportedDriverExtension(node.driver,
                                                       'console')
        # Already disabled: nothing to do, as Ironic.
        node_common.set_location(self._ident, 'states', 'console')


class RaidController(OneNode):
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


class _BootSetting(OneNode):
    """``PUT`` of a boot setting (1.76), which the fake management
    interface does not change."""

    _extension = _action = None

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('PUT')

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=202)
    def _put(self, body=None):
        body = node_common.json_object(body)
        utils.check_arguments(body, ('target',))
        target = required(body, 'target')
        node = self._node(self._action)
        if not utils.allowed((1, 76)):
            raise exception.NotFound('This endpoint is supported starting '
                                     'with the API version 1.76')
        self._check(target)
        raise exception.UnsupportedDriverExtension(node.driver,
                                                   self._extension)


class BootModeController(_BootSetting):
    """``PUT /v1/nodes/{n}/states/boot_mode``."""

    _extension = 'set_boot_mode'
    _action = 'baremetal:node:set_boot_mode'

    @staticmethod
    def _check(target):
        if target not in ('bios', 'uefi'):
            raise exception.InvalidParameterValue(
                'Invalid boot mode %s requested for node. Allowed boot '
                'modes are: bios, uefi' % (target,))


class SecureBootController(_BootSetting):
    """``PUT /v1/nodes/{n}/states/secure_boot``."""

    _extension = 'set_secure_boot_state'
    _action = 'baremetal:node:set_secure_boot'

    @staticmethod
    def _check(target):
        boolean('target', target)


# Every controller class here (the routing hook reads their attributes).
CONTROLLER_CLASSES = (
    ManagementController, BootDeviceController,
    SupportedBootDevicesController, InjectNmiController,
    IndicatorsController, IndicatorController,
    VendorPassthruController, VendorMethodsController, ConsoleController,
    RaidController, BootModeController, SecureBootController,
    VmediaController,
)
