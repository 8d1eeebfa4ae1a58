"""A node's management and vendor resources, as ``fake-hardware``'s fake
interfaces answer them (``allocsvc.common.fake_driver``).

Route table (each from the version it appeared in; 404 before)::

    GET  /v1/nodes/{n}/management/boot_device            {pxe, false}
    PUT  /v1/nodes/{n}/management/boot_device            pxe only (204)
    GET  /v1/nodes/{n}/management/boot_device/supported  [pxe]
    PUT  /v1/nodes/{n}/management/inject_nmi     1.29    400: unsupported
    GET  /v1/nodes/{n}/management/indicators             the fake LEDs
    GET  /v1/nodes/{n}/management/indicators/{name@component}   on
    PUT  /v1/nodes/{n}/management/indicators/{name@component}
                                                         400: unsupported
    GET  /v1/nodes/{n}/vendor_passthru/methods           the fake vendor's
    *    /v1/nodes/{n}/vendor_passthru?method=           its methods

Nothing here changes a node: the fake management interface stores
nothing (its boot device is always ``pxe``), and the fake vendor
methods only answer. Ironic checks no version for the indicators (the
API reference says 1.63); neither does allocsvc.
"""

import pecan
import webob.exc
from wsme import api as wsme_api

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.common import fake_driver

OneNode = node_common.OneNode


def attach(node_controller):
    """Hang these sub-resources under a ``NodeController``."""
    ident = node_controller.ident
    node_controller.management = ManagementController(ident)
    node_controller.vendor_passthru = VendorPassthruController(ident)


# -- management --------------------------------------------------------------

class ManagementController(OneNode):
    """``/v1/nodes/{n}/management``: its boot device, NMI and
    indicators."""

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
        return {'boot_device': fake_driver.BOOT_DEVICES[0],
                'persistent': False}

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        body = node_common.json_object(body, required='boot_device')
        utils.check_arguments(body, ('boot_device', 'persistent'))
        device = node_common.required(body, 'boot_device')
        if not isinstance(device, str):
            raise utils.BadRequest('Expected string for boot_device: %s'
                                   % (device,))
        if body.get('persistent') is not None:
            node_common.boolean('persistent', body['persistent'])
        self._node('baremetal:node:set_boot_device')
        if device not in fake_driver.BOOT_DEVICES:
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
        return {'supported_boot_devices': list(fake_driver.BOOT_DEVICES)}


class InjectNmiController(OneNode):
    """``PUT /v1/nodes/{n}/management/inject_nmi`` (1.29): the fake
    management interface cannot."""

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('PUT')

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        if not utils.allowed((1, 29)):
            raise exception.NotFound('Resource could not be found.')
        node_common.json_object(body, allow_empty=True)
        node = self._node('baremetal:node:inject_nmi')
        raise fake_driver.unsupported(node.driver, 'inject_nmi')


class IndicatorsController(OneNode):
    """``/v1/nodes/{n}/management/indicators``."""

    @pecan.expose()
    def _lookup(self, indicator, *remainder):
        if remainder:
            raise webob.exc.HTTPNotFound()
        return IndicatorController(self._ident, indicator), []

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        self._node('baremetal:node:get_indicator_state')
        indicators = []
        for component, names in fake_driver.INDICATORS.items():
            for name, (readonly, states) in names.items():
                unique = '%s@%s' % (name, component)
                indicators.append({
                    'name': unique, 'component': component,
                    'readonly': readonly, 'states': list(states),
                    'links': base.resource_links(
                        'nodes', '/%s/management/indicators/%s'
                        % (self._ident, unique))})
        return {'indicators': indicators}

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype)
    def _put(self, body=None):
        raise utils.BadRequest('Missing mandatory parameter: indicator')


class IndicatorController(OneNode):
    """``/v1/nodes/{n}/management/indicators/{name@component}``."""

    _indicator = None

    def __init__(self, ident, indicator):
        super().__init__(ident)
        self._indicator = indicator

    def _parse(self):
        """``(component, name)``; 400 for a name without a component."""
        name, at, component = self._indicator.partition('@')
        if not at:
            raise exception.InvalidParameterValue(
                'Malformed indicator name "%s"' % self._indicator)
        return component, name

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET, PUT')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        self._node('baremetal:node:get_indicator_state')
        fake_driver.check_indicator(*self._parse())
        return {'state': fake_driver.INDICATOR_STATE}

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        body = node_common.json_object(body, required='state')
        utils.check_arguments(body, ('state',))
        state = node_common.required(body, 'state')
        if not isinstance(state, str):
            raise utils.BadRequest('Expected string for state: %s'
                                   % (state,))
        node = self._node('baremetal:node:set_indicator_state')
        self._parse()
        # The fake management interface sets no indicator, whichever.
        raise fake_driver.unsupported(node.driver, 'set_indicator_state')


# -- vendor passthru ---------------------------------------------------------

class VendorPassthruController(OneNode):
    """``/v1/nodes/{n}/vendor_passthru?method=``: the methods of the
    node's vendor interface (``fake_driver.vendor_passthru``); an
    asynchronous one answers 202 with no body, a synchronous one 200 with
    its result."""

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
        args = {} if body is None else body
        if not isinstance(args, dict):
            raise utils.BadRequest('The request body must be a JSON '
                                   'object.')
        node = node_common.authorized_node(self._ident,
                                           'baremetal:node:vendor_passthru')
        is_async, result = fake_driver.vendor_passthru(
            node, method, pecan.request.method, args)
        if is_async:
            # Accepted, and nothing to show (Ironic's empty body).
            return wsme_api.Response(None, status_code=202,
                                     return_type=None)
        return result

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
        node = self._node('baremetal:node:vendor_passthru')
        return fake_driver.vendor_methods(node)


# Every controller class here (the routing hook reads their attributes).
CONTROLLER_CLASSES = (
    ManagementController, BootDeviceController,
    SupportedBootDevicesController, InjectNmiController,
    IndicatorsController, IndicatorController,
    VendorPassthruController, VendorMethodsController,
)
