"""What lies under a node's states besides power and provisioning: its
console, target RAID configuration, boot mode and secure boot, as
``fake-hardware``'s fake interfaces answer them.

Route table (each from the version it appeared in)::

    GET  /v1/nodes/{n}/states/console                    enabled? and info
    PUT  /v1/nodes/{n}/states/console                    202 (enable or
                                                         disable)
    PUT  /v1/nodes/{n}/states/raid               1.12    204 (406 before)
    PUT  /v1/nodes/{n}/states/boot_mode          1.76    202, last_error
    PUT  /v1/nodes/{n}/states/secure_boot        1.76    202, last_error

The requests are checked here as Ironic's API checks them; each change
is then made by the node's conductor under its lock
(``allocsvc.conductor.node_actions``): the console state and the target
RAID configuration are kept, and what the fake management interface
cannot do (a boot mode, secure boot) is accepted and recorded in the
node's ``last_error``, as Ironic records the failure of the background
task it starts.
"""

import pecan

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.common import fake_driver

OneNode = node_common.OneNode


def attach(states_controller):
    """Hang these under a node's ``NodeStatesController``."""
    ident = states_controller.ident
    states_controller.console = ConsoleController(ident)
    states_controller.raid = RaidController(ident)
    states_controller.boot_mode = BootModeController(ident)
    states_controller.secure_boot = SecureBootController(ident)


class ConsoleController(OneNode):
    """``/v1/nodes/{n}/states/console``."""

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('GET, PUT')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        node = self._node('baremetal:node:get_console')
        if not node.console_enabled:
            return {'console_enabled': False, 'console_info': None}
        fake_driver.check_console(node)
        return {'console_enabled': True,
                'console_info': dict(fake_driver.CONSOLE_INFO)}

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=202)
    def _put(self, body=None):
        body = node_common.json_object(body, required='enabled')
        utils.check_arguments(body, ('enabled',))
        enabled = node_common.boolean(
            'enabled', node_common.required(body, 'enabled'))
        node = self._node('baremetal:node:set_console_state')
        utils.rpcapi().set_console_mode(utils.context(), node, enabled)
        node_common.set_location(self._ident, 'states', 'console')


class RaidController(OneNode):
    """``PUT /v1/nodes/{n}/states/raid`` (1.12): the node's target RAID
    configuration (an empty one clears it)."""

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('PUT')

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        # Ironic reads a missing body as an empty configuration.
        config = {} if not pecan.request.body else body
        if not isinstance(config, dict):
            raise utils.BadRequest("Expected types <class 'dict'> for "
                                   "target_raid_config: %s" % (config,))
        utils.check_stored_size('target_raid_config', config)
        node = self._node('baremetal:node:set_raid_state')
        if not utils.allowed((1, 12)):
            raise utils.NotAcceptable('Request not acceptable.')
        utils.rpcapi().set_target_raid_config(utils.context(), node,
                                              config)


class _BootSetting(OneNode):
    """``PUT`` of a boot setting (1.76): 202, the outcome in the node's
    ``last_error`` (``_rpc``: the conductor's method)."""

    _action = _rpc = None

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('PUT')

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=202)
    def _put(self, body=None):
        body = node_common.json_object(body, required='target')
        utils.check_arguments(body, ('target',))
        target = self._target(node_common.required(body, 'target'))
        node = self._node(self._action)
        if not utils.allowed((1, 76)):
            raise exception.NotFound('This endpoint is supported starting '
                                     'with the API version 1.76')
        self._check(target)
        getattr(utils.rpcapi(), self._rpc)(utils.context(), node, target)
        node_common.set_location(self._ident, 'states')

    @staticmethod
    def _target(value):
        return value

    @staticmethod
    def _check(target):
        pass


class BootModeController(_BootSetting):
    """``PUT /v1/nodes/{n}/states/boot_mode``."""

    _action = 'baremetal:node:set_boot_mode'
    _rpc = 'change_node_boot_mode'

    @staticmethod
    def _target(value):
        if not isinstance(value, str):
            raise utils.BadRequest('Expected string for target: %s'
                                   % (value,))
        return value

    @staticmethod
    def _check(target):
        if target not in ('bios', 'uefi'):
            raise exception.InvalidParameterValue(
                'Invalid boot mode %s requested for node. Allowed boot '
                'modes are: bios, uefi' % (target,))


class SecureBootController(_BootSetting):
    """``PUT /v1/nodes/{n}/states/secure_boot``."""

    _action = 'baremetal:node:set_secure_boot'
    _rpc = 'change_node_secure_boot'

    @staticmethod
    def _target(value):
        return node_common.boolean('target', value)


# Every controller class here (the routing hook reads their attributes).
CONTROLLER_CLASSES = (ConsoleController, RaidController, BootModeController,
                      SecureBootController)
