"""A node's states (``/v1/nodes/{node}/states`` and everything below
it) and its maintenance flag (``/v1/nodes/{node}/maintenance``).

Routes (``routes.ROUTES``)::

    GET  .../states                 power, provisioning, RAID (1.12),
                                    boot mode (1.75)
    PUT  .../states/power           202
    PUT  .../states/provision       202
    GET  .../states/console         enabled? and info
    PUT  .../states/console         202 (enable or disable)
    PUT  .../states/raid            204, the target RAID config (1.12)
    PUT  .../states/boot_mode       202, outcome in last_error (1.76)
    PUT  .../states/secure_boot     202, outcome in last_error (1.76)
    PUT, DELETE  .../maintenance    202

The requests are checked here as Ironic's API checks them (version of
each verb and argument, body shape, the node's state as read); the
node's conductor then makes the change under the node's lock, checking
the state again. ``fake-hardware`` completes every change at once, so
the 202 Ironic answers comes with the node already in its new state;
what its fake management interface cannot do (a boot mode, secure boot)
is accepted and recorded in the node's ``last_error``, as Ironic records
the failure of the background task it starts.
"""

import jsonschema
import pecan

from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.common import fake_driver
from allocsvc.common import fake_steps
from allocsvc.common import states

# Power targets of API 1.27 (soft power off and reboot, timeout).
_SOFT_TARGETS = (states.SOFT_REBOOT, states.SOFT_POWER_OFF)

# Provisioning verbs and the version each was introduced in (406
# before, checked first, as Ironic does); 'deploy' and 'undeploy' (1.73)
# are other names of 'active' and 'deleted'. 'unhold' (1.85) and
# 'service' (1.87) are checked later, once the node's state allows them.
_VERB_SINCE = {'active': (1, 1), 'deleted': (1, 1), 'rebuild': (1, 1),
               'manage': (1, 4), 'provide': (1, 4), 'inspect': (1, 6),
               'abort': (1, 13), 'clean': (1, 15), 'adopt': (1, 17),
               'rescue': (1, 38), 'unrescue': (1, 38), 'deploy': (1, 73),
               'undeploy': (1, 73)}
_UNHOLD_SINCE = (1, 85)
_SERVICE_SINCE = (1, 87)
# disable_ramdisk: with a manual clean from 1.70, with servicing from
# 1.108.
_DISABLE_RAMDISK_SINCE = {'clean': (1, 70), 'service': (1, 108)}
_VERB_ALIASES = {'deploy': 'active', 'undeploy': 'deleted'}
# The verbs that deploy an instance: refused for a node in maintenance,
# and the ones a config drive goes with (rebuild from 1.35).
_DEPLOYING = ('active', 'rebuild')
# Ironic's default [api]disallow_clean_steps and
# [api]disallow_service_steps: never run, whatever the driver.
_DISALLOWED_STEPS = ('vendor.send_raw',)
_BODY = ('target', 'configdrive', 'clean_steps', 'deploy_steps',
         'rescue_password', 'disable_ramdisk', 'service_steps')


def _list(body, name):
    """``name``'s value if it is a list (or None), else Ironic's 400."""
    value = body.get(name)
    if value is not None and not isinstance(value, list):
        raise utils.BadRequest("Expected types <class 'NoneType'>, "
                               "<class 'list'> for %s: %s" % (name, value))
    return value


def _check_steps(kind, steps):
    """Ironic's API checks of manual clean or service (``kind``) steps:
    their shape (its schema, its words) and the steps no one may run.
    Whether the node's interfaces offer them is the conductor's
    business."""
    # The error jsonschema.validate would raise: the best match.
    error = jsonschema.exceptions.best_match(
        _STEPS_VALIDATOR.iter_errors(steps))
    if error is not None:
        raise utils.BadRequest('Invalid %s_steps: %s' % (kind, error))
    for step in steps:
        step_id = '%s.%s' % (step['interface'], step['step'])
        if step_id in _DISALLOWED_STEPS:
            raise utils.BadRequest(
                "%s step '%s' is not allowed. Disallowed by operator "
                "configuration [api]disallow_%s_steps."
                % (kind, step_id, kind))


_STEPS_VALIDATOR = jsonschema.validators.validator_for(
    fake_steps.STEPS_SCHEMA)(fake_steps.STEPS_SCHEMA)


def _string(body, name, required=False):
    value = body.get(name)
    if value is None:
        if required:
            raise utils.BadRequest('Missing mandatory parameter: %s' % name)
        return None
    if not isinstance(value, str):
        raise utils.BadRequest('Expected string for %s: %s'
                               % (name, value))
    return node_schema.check_text(name, value)


def _check_state(node, target, verb):
    """Ironic's API checks of the node for a verb: a node in maintenance
    is not deployed (checked for the names active and rebuild only: its
    conductor refuses 'deploy' once the state allows it); the machine
    must accept the verb in the node's state, and a node busy with
    something else is locked (409) rather than in the wrong state
    (400)."""
    if target in _DEPLOYING and node.maintenance:
        raise exception.NodeInMaintenance('provisioning', node.uuid)
    event = states.PROVISION_VERBS.get(verb)
    if event is None or not states.node_accepts(node.provision_state,
                                                event):
        if node.reservation:
            raise exception.NodeLocked(node.uuid, node.reservation)
        raise exception.InvalidStateRequested(
            target, node.uuid, node.provision_state)


class _Arguments:
    """The body of a provisioning request, its types checked (Ironic
    checks them before it looks the node up)."""

    __slots__ = ('body', 'target', 'clean_steps', 'rescue_password',
                 'disable_ramdisk', 'service_steps')

    def __init__(self, body):
        utils.check_arguments(body, _BODY)
        self.body = body
        self.target = _string(body, 'target', required=True)
        self.clean_steps = _list(body, 'clean_steps')
        self.rescue_password = _string(body, 'rescue_password')
        self.disable_ramdisk = utils.strict_bool(
            'disable_ramdisk', body.get('disable_ramdisk'))
        self.service_steps = _list(body, 'service_steps')

    def check_for(self, verb):
        """The arguments that need another verb or version (400, 406),
        then what ``verb`` itself needs, as Ironic checks them once the
        node's state allows the verb."""
        if self.disable_ramdisk is not None:
            if verb not in _DISABLE_RAMDISK_SINCE:
                raise utils.BadRequest('disable_ramdisk is supported only '
                                       'with manual cleaning or servicing')
            if not utils.allowed(_DISABLE_RAMDISK_SINCE[verb]):
                raise utils.NotAcceptable('disable_ramdisk is not '
                                          'acceptable in this API version')
        _only_with(verb, 'clean', 'clean_steps', self.clean_steps)
        if self.body.get('deploy_steps') is not None:
            # Deploy steps are what a real deploy interface runs;
            # fake-hardware has none to run them with.
            raise utils.BadRequest('"deploy_steps" are not supported by '
                                   'the fake-hardware driver')
        _only_with(verb, 'rescue', 'rescue_password',
                   self.rescue_password is not None)
        if verb == 'unhold' and not utils.allowed(_UNHOLD_SINCE):
            raise utils.NotAcceptable('Request not acceptable.')
        _only_with(verb, 'service', 'service_steps', self.service_steps)
        if verb == 'service' and not utils.allowed(_SERVICE_SINCE):
            raise utils.NotAcceptable('Request not acceptable.')
        if verb == 'rescue':
            if not (self.rescue_password and self.rescue_password.strip()):
                raise utils.BadRequest('A non-empty "rescue_password" is '
                                       'required when setting target '
                                       'provision state to rescue')
            utils.check_stored_size('rescue_password',
                                    self.rescue_password)
        for kind, steps in (('clean', self.clean_steps),
                            ('service', self.service_steps)):
            if verb == kind:
                if not steps:
                    raise utils.BadRequest(
                        '"%s_steps" is required when setting target '
                        'provision state to %s' % (kind, kind))
                _check_steps(kind, steps)


def _only_with(verb, only, name, given):
    if given and verb != only:
        raise utils.BadRequest('"%s" is only valid when setting target '
                               'provision state to %s' % (name, only))


def get_states(node):
    """``GET /v1/nodes/{node}/states``."""
    found = node_common.node_for(node, 'baremetal:node:get_states')
    document = {
        'console_enabled': found.console_enabled,
        'last_error': found.last_error,
        'power_state': found.power_state,
        'provision_state': node_common.provision_state(
            found.provision_state),
        'provision_updated_at': utils.isotime(found.provision_updated_at),
        'target_power_state': found.target_power_state,
        'target_provision_state': found.target_provision_state,
    }
    # Ironic adds the RAID configurations from 1.12 and the boot mode
    # from 1.75.
    if utils.allowed((1, 12)):
        document.update(raid_config=found.raid_config,
                        target_raid_config=found.target_raid_config)
    if utils.allowed((1, 75)):
        document.update(boot_mode=found.boot_mode,
                        secure_boot=found.secure_boot)
    return document


def _accepted(node, *below):
    """202, pointing to where the change shows."""
    return dispatch.Reply(202, location=node_common.location(
        node, 'states', *below))


def set_power_state(node, body):
    """``PUT /v1/nodes/{node}/states/power``."""
    body = node_common.json_object(body, required='target')
    utils.check_arguments(body, ('target', 'timeout'))
    target = _string(body, 'target', required=True)
    timeout = body.get('timeout')
    found = node_common.authorized_node(node,
                                        'baremetal:node:set_power_state')
    if (target in _SOFT_TARGETS or timeout is not None) and \
            not utils.allowed((1, 27)):
        raise utils.NotAcceptable('Request not acceptable.')
    if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int)
            or timeout < 1):
        raise utils.BadRequest('timeout has to be positive integer')
    if target not in states.POWER_RESULTS:
        raise exception.InvalidStateRequested(target, node,
                                              found.power_state)
    # fake-hardware changes the power state at once: the timeout, how
    # long to wait for the hardware, never matters.
    utils.rpcapi().change_node_power_state(utils.context(), found, target)
    return _accepted(node)


def set_provision_state(node, body):
    """``PUT /v1/nodes/{node}/states/provision``, in Ironic's order: the
    arguments' types, the node, the verb's version and the steps' rules,
    the node's state, then the arguments that need another verb or
    version, then what the verb itself needs."""
    body = node_common.json_object(body, required='target')
    args = _Arguments(body)
    found = node_common.authorized_node(
        node, 'baremetal:node:set_provision_state')
    target = args.target
    since = _VERB_SINCE.get(target)
    if since is not None and not utils.allowed(since):
        raise utils.NotAcceptable('Request not acceptable.')
    # Steps of the caller's choice need their own rule (403), with any
    # verb.
    for name, steps in (('clean_steps', args.clean_steps),
                        ('service_steps', args.service_steps)):
        if steps:
            access.authorize_node(
                'baremetal:node:set_provision_state:' + name, found)
    verb = _VERB_ALIASES.get(target, target)
    _check_state(found, target, verb)
    configdrive = _configdrive(body, verb)
    args.check_for(verb)
    utils.rpcapi().do_provisioning_action(
        utils.context(), found, verb, configdrive=configdrive,
        clean_steps=args.clean_steps, rescue_password=args.rescue_password,
        disable_ramdisk=bool(args.disable_ramdisk),
        service_steps=args.service_steps)
    return _accepted(node)


def _configdrive(body, verb):
    configdrive = body.get('configdrive')
    if configdrive is None:
        return None
    if not isinstance(configdrive, (str, dict)):
        raise utils.BadRequest('Expected a string or an object for '
                               'configdrive')
    allowed = ['active']
    if utils.allowed((1, 35)):
        allowed.append('rebuild')
    if verb not in allowed:
        raise utils.BadRequest('Adding a config drive is only supported '
                               'when setting provision state to %s'
                               % ', '.join(allowed))
    if isinstance(configdrive, dict) and not utils.allowed((1, 56)):
        raise utils.BadRequest('Providing a JSON object for configdrive is '
                               'only supported starting with API version '
                               '1.56')
    return configdrive


def get_console(node):
    """``GET /v1/nodes/{node}/states/console``."""
    found = node_common.node_for(node, 'baremetal:node:get_console')
    if not found.console_enabled:
        return {'console_enabled': False, 'console_info': None}
    fake_driver.check_console(found)
    return {'console_enabled': True,
            'console_info': dict(fake_driver.CONSOLE_INFO)}


def set_console(node, body):
    """``PUT /v1/nodes/{node}/states/console``: enable or disable."""
    body = node_common.json_object(body, required='enabled')
    utils.check_arguments(body, ('enabled',))
    enabled = utils.strict_bool(
        'enabled', node_common.required(body, 'enabled'))
    found = node_common.node_for(node, 'baremetal:node:set_console_state')
    utils.rpcapi().set_console_mode(utils.context(), found, enabled)
    return _accepted(node, 'console')


def set_raid(node, body):
    """``PUT /v1/nodes/{node}/states/raid`` (1.12): the node's target
    RAID configuration (an empty one clears it)."""
    # Ironic reads a missing body as an empty configuration.
    config = {} if not pecan.request.body else body
    if not isinstance(config, dict):
        raise utils.BadRequest("Expected types <class 'dict'> for "
                               "target_raid_config: %s" % (config,))
    utils.check_stored_size('target_raid_config', config)
    found = node_common.node_for(node, 'baremetal:node:set_raid_state')
    if not utils.allowed((1, 12)):
        raise utils.NotAcceptable('Request not acceptable.')
    utils.rpcapi().set_target_raid_config(utils.context(), found, config)
    return dispatch.Reply(204)


def _boot_setting(node, body, action, check):
    """``PUT`` of a boot setting (1.76): the ``target`` (``check``
    reads it, before the node is found), then 202 and the outcome in
    the node's ``last_error``."""
    body = node_common.json_object(body, required='target')
    utils.check_arguments(body, ('target',))
    target = node_common.required(body, 'target')
    target = check(target, before_node=True)
    found = node_common.node_for(node, action)
    if not utils.allowed((1, 76)):
        raise exception.NotFound('This endpoint is supported starting '
                                 'with the API version 1.76')
    check(target, before_node=False)
    return found, target


def set_boot_mode(node, body):
    """``PUT /v1/nodes/{node}/states/boot_mode``."""
    def check(target, before_node):
        if before_node and not isinstance(target, str):
            raise utils.BadRequest('Expected string for target: %s'
                                   % (target,))
        if not before_node and target not in ('bios', 'uefi'):
            raise exception.InvalidParameterValue(
                'Invalid boot mode %s requested for node. Allowed boot '
                'modes are: bios, uefi' % (target,))
        return target

    found, target = _boot_setting(node, body, 'baremetal:node:set_boot_mode',
                                  check)
    utils.rpcapi().change_node_boot_mode(utils.context(), found, target)
    return _accepted(node)


def set_secure_boot(node, body):
    """``PUT /v1/nodes/{node}/states/secure_boot``."""
    def check(target, before_node):
        return utils.strict_bool('target', target) if before_node \
            else target

    found, target = _boot_setting(node, body,
                                  'baremetal:node:set_secure_boot', check)
    utils.rpcapi().change_node_secure_boot(utils.context(), found, target)
    return _accepted(node)


def set_maintenance(node, body):
    """``PUT /v1/nodes/{node}/maintenance``: with a ``reason`` in the
    body or the query."""
    body = node_common.json_object(body, allow_empty=True)
    params = node_common.query()
    utils.check_arguments(body, ('reason',))
    utils.check_arguments(params, ('reason',))
    reason = _string(body, 'reason')
    if reason is None:
        reason = params.get('reason')
    utils.check_stored_size('reason', reason)
    found = node_common.authorized_node(node,
                                        'baremetal:node:set_maintenance')
    utils.rpcapi().set_maintenance(utils.context(), found, True, reason)
    return dispatch.Reply(202)


def clear_maintenance(node):
    """``DELETE /v1/nodes/{node}/maintenance``."""
    found = node_common.node_for(node, 'baremetal:node:clear_maintenance')
    utils.rpcapi().set_maintenance(utils.context(), found, False)
    return dispatch.Reply(202)
