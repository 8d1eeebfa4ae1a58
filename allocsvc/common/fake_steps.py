"""The clean and service steps of ``fake-hardware``'s interfaces: how a
manual clean's steps are checked against them, and what a service's
steps come to, with Ironic 39's words.

Nothing here touches the database: ``allocsvc.conductor.verbs`` asks
``clean_errors`` (``service_plan``) under the node's lock, and a clean
whose steps do not check out fails the node into ``clean failed`` with
the text as its ``last_error`` (Ironic finds out in its conductor's
background work, not in the API; the API only checks the shape of the
steps).

Ironic's fake interfaces offer these clean steps (every implementation
other than a ``no-*`` one behaves as the fake one here; the power,
management, deploy and RAID interfaces offer none):

* ``vendor.log_passthrough`` (priority 1);
* ``bios.apply_configuration`` (``settings`` required),
  ``bios.factory_reset``, ``bios.cache_bios_settings``;
* ``firmware.update`` (``settings`` required).

None of them can run without a ramdisk. Steps named ``power_on``,
``power_off``, ``reboot``, ``hold`` or ``wait`` (on any interface) are
flow steps Ironic's conductor handles itself: they are dropped without
a check, so with ``fake-hardware`` they do nothing, and a clean never
holds or waits.
"""

import collections

# One offered step: its interface implementation's kind (the node field
# naming it), priority, whether it may be aborted, and its arguments
# ({name: (description, required)}).
_Step = collections.namedtuple('_Step', 'field priority abortable args')

_SETTINGS = 'settings'
CLEAN_STEPS = {
    'vendor.log_passthrough': _Step('vendor_interface', 1, False, {}),
    'bios.apply_configuration': _Step('bios_interface', 0, False, {
        _SETTINGS: ('List of BIOS settings, each item needs to contain a '
                    'dictionary with name/value pairs', True)}),
    'bios.factory_reset': _Step('bios_interface', 0, False, {}),
    'bios.cache_bios_settings': _Step('bios_interface', 0, False, {}),
    'firmware.update': _Step('firmware_interface', 0, False, {
        _SETTINGS: ('List of Firmware components, each item needs to '
                    'contain a dictionary with name/value pairs', True)}),
}

# Steps Ironic's conductor resolves itself, whatever their interface.
FLOW_STEPS = ('power_on', 'power_off', 'reboot', 'hold', 'wait')

# The interfaces a step may name (Ironic's order, which its schema
# error quotes).
STEP_INTERFACES = ['vendor', 'power', 'management', 'firmware', 'deploy',
                   'bios', 'raid']

# The shape of user steps (Ironic's schema: jsonschema words its errors
# from it, schema excerpts included, so it is kept as Ironic has it).
STEPS_SCHEMA = {
    "$schema": "http://json-schema.org/schema#",
    "title": "Steps schema",
    "type": "array",
    "items": {
        "type": "object",
        "required": ["interface", "step"],
        "properties": {
            "interface": {
                "description": "driver interface",
                "enum": STEP_INTERFACES,
            },
            "step": {
                "description": "name of clean step",
                "type": "string",
                "minLength": 1,
            },
            "args": {
                "description": "additional args",
                "type": "object",
                "properties": {},
            },
            'order': {'anyOf': [
                {'type': 'integer', 'minimum': 0},
                {'type': 'string', 'minLength': 1, 'pattern': '^[0-9]+$'},
            ]},
            "execute_on_child_nodes": {
                "description": "Boolean if the step should be executed "
                               "on child nodes.",
                "type": "boolean",
            },
            "limit_child_node_execution": {
                "description": "List of nodes upon which to execute child "
                               "node steps on.",
                "type": "array",
            },
        },
        "additionalProperties": False,
    },
}


def _offered(node, step_id):
    step = CLEAN_STEPS.get(step_id)
    if step is None:
        return None
    implementation = getattr(node, step.field) or ''
    return None if implementation.startswith('no-') else step


def clean_errors(node, steps, disable_ramdisk=False):
    """What is wrong with the manual clean ``steps`` (schema-checked
    dicts) for ``node``, as Ironic's conductor says it (its messages
    joined by ``; ``), or None. Ironic checks the steps twice unless the
    ramdisk is disabled, and the first pass adds ``abortable`` and
    ``priority`` to each step it knows: the second pass's messages,
    which it reports, show them."""
    errors = []
    # Ironic's first pass, whose errors it ignores, only completes the
    # steps it knows.
    shown = []
    for step in steps:
        offered = None
        if not _skipped(step):
            offered = _offered(node, '%s.%s' % (step['interface'],
                                                step['step']))
        if offered is not None and not disable_ramdisk:
            step = dict(step, abortable=offered.abortable,
                        priority=offered.priority)
        shown.append((step, offered))
    for step, offered in shown:
        if _skipped(step):
            continue
        if offered is None:
            errors.append('node does not support this clean step: %r'
                          % (step,))
            continue
        given = step.get('args') or {}
        unexpected = sorted(set(given) - set(offered.args))
        if unexpected:
            errors.append('clean step %r has these unexpected arguments: '
                          '%s' % (step, ', '.join(unexpected)))
        missing = ['%s (%s)' % (name, description)
                   for name, (description, required) in offered.args.items()
                   if required and name not in given]
        if missing:
            errors.append('clean step %r is missing these required '
                          'arguments: %s' % (step, ', '.join(missing)))
        if disable_ramdisk:
            errors.append('clean step %r requires booting a ramdisk'
                          % (step,))
    return '; '.join(errors) or None


def _skipped(step):
    """Steps Ironic's conductor does not check: flow steps, and steps
    for child nodes (whose execution allocsvc does not do either)."""
    return step.get('execute_on_child_nodes') or \
        step.get('step') in FLOW_STEPS


# -- servicing ---------------------------------------------------------------

# The service steps Ironic's fake vendor interface offers (priority 0,
# not abortable, no arguments declared) and whether each needs a
# ramdisk. trigger_servicewait parks the node in ``service wait``.
SERVICE_STEPS = {'vendor.log_passthrough': False,
                 'vendor.trigger_servicewait': True}
_PARKING = ('vendor.trigger_servicewait',)

# What Ironic's conductor does with a step it runs without a check (see
# ``service_plan``): the class of each interface implementation, and the
# methods of it a step may name ({name: required arguments, or None for
# any keyword arguments}; every interface also has ``validate`` and
# ``get_properties``, a step may name them too; any other of their
# methods is taken as missing, see doc/source/deviations.rst).
_CLASSES = {'vendor': 'FakeVendorB', 'power': 'FakePower',
            'management': 'FakeManagement', 'deploy': 'FakeDeploy',
            'bios': 'FakeBIOS', 'raid': 'FakeRAID',
            'firmware': 'FakeFirmware'}
_NO_CLASSES = {'vendor': 'NoVendor', 'bios': 'NoBIOS', 'raid': 'NoRAID',
               'firmware': 'NoFirmware'}
_METHODS = {
    'vendor': {'log_passthrough': None, 'trigger_servicewait': None},
    'bios': {'apply_configuration': (_SETTINGS,), 'factory_reset': (),
             'cache_bios_settings': ()},
    'firmware': {'update': (_SETTINGS,), 'cache_firmware_components': ()},
}
# The no-* ones have none but these, and refuse all but the caches.
_NO_METHODS = {'bios': {'apply_configuration': (_SETTINGS,),
                        'factory_reset': (), 'cache_bios_settings': ()},
               'firmware': {'update': (_SETTINGS,),
                            'cache_firmware_components': ()}}
_NO_REFUSING = ('apply_configuration', 'factory_reset', 'update')
_POWER_STEPS = {'power_on': 'power on', 'power_off': 'power off',
                'reboot': 'power on'}


class ServicePlan:
    """What servicing a node with some steps comes to under
    fake-hardware: ``power`` (the power state the flow steps leave, or
    None), then ``failure`` (Ironic's message; the node fails into
    ``service failed``) or ``parks`` (the step that would leave the node
    waiting or held: not done here) or neither (back to active);
    ``failed_step`` is the step that failed."""

    def __init__(self):
        self.power = None
        self.failure = None
        self.failed_step = None
        self.parks = None


def _service_errors(node, steps, disable_ramdisk):
    """Ironic's check of service steps against the driver's (as
    ``clean_errors``, with the service steps): its messages."""
    errors = []
    for step in steps:
        if _skipped(step):
            continue
        step_id = '%s.%s' % (step['interface'], step['step'])
        needs_ramdisk = SERVICE_STEPS.get(step_id)
        if needs_ramdisk is None or not _implemented(node, 'vendor'):
            errors.append('node does not support this service step: %r'
                          % (step,))
            continue
        if step.get('args'):
            errors.append('service step %r has these unexpected arguments: '
                          '%s' % (step, ', '.join(sorted(step['args']))))
        if disable_ramdisk and needs_ramdisk:
            errors.append('service step %r requires booting a ramdisk'
                          % (step,))
    return errors


def _implemented(node, interface):
    implementation = getattr(node, '%s_interface' % interface, None) or ''
    return not implementation.startswith('no-')


def service_plan(node, steps, disable_ramdisk=False):
    """What Ironic 39's conductor does with ``steps`` (schema-checked)
    on ``node``. Steps that all check out against the driver's service
    steps run (flow steps dropped). Otherwise, with the ramdisk, Ironic
    runs them as given, one by one, until one fails: a flow step acts
    (power on, off, reboot; hold and wait park the node), a step names a
    method of the interface it is called with ``args`` (a missing
    method or a wrong argument fails with Python's words); without the
    ramdisk the check's message is the failure (Ironic leaves the node
    in ``servicing`` for ever: see doc/source/deviations.rst)."""
    plan = ServicePlan()
    errors = _service_errors(node, steps, disable_ramdisk)
    if errors and disable_ramdisk:
        plan.failure = ('Async execution of do_node_service failed with '
                        'error: %s' % '; '.join(errors))
        return plan
    for step in steps:
        if step.get('execute_on_child_nodes'):
            continue
        name = step['step']
        if name in FLOW_STEPS:
            if errors and name in _POWER_STEPS:
                plan.power = _POWER_STEPS[name]
            elif errors:
                plan.parks = step
                return plan
            continue
        if '%s.%s' % (step['interface'], name) in _PARKING:
            plan.parks = step
            return plan
        if errors:
            failure = _call_error(node, step)
            if failure is not None:
                plan.failure, plan.failed_step = failure, step
                return plan
    return plan


def _call_error(node, step):
    """Python's words for calling the method ``step`` names on the
    node's interface with the step's ``args``, or None if the call
    works."""
    interface, name = step['interface'], step['step']
    implemented = _implemented(node, interface)
    if implemented:
        cls, methods = _CLASSES[interface], _METHODS.get(interface, {})
    else:
        cls = _NO_CLASSES.get(interface, _CLASSES[interface])
        methods = _NO_METHODS.get(interface, {})
    refusal = ('Driver %s does not support %s (disabled or not '
               'implemented).' % (node.driver, interface))
    if name == 'validate':
        # Every interface validates; a no-* one refuses.
        return None if implemented else refusal
    if name == 'get_properties':
        return ('%s.get_properties() takes 1 positional argument but 2 '
                'were given' % cls)
    if name not in methods:
        return "'%s' object has no attribute '%s'" % (cls, name)
    required = methods[name]
    if required is None:
        return None
    args = step.get('args') or {}
    for arg in args:
        if arg not in required:
            return ("%s.%s() got an unexpected keyword argument '%s'"
                    % (cls, name, arg))
    missing = [arg for arg in required if arg not in args]
    if missing:
        return ('%s.%s() missing 1 required positional argument: %r'
                % (cls, name, missing[0]))
    if not implemented and name in _NO_REFUSING:
        return refusal
    return None
