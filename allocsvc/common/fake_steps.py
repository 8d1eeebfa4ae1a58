"""The clean steps of ``fake-hardware``'s interfaces and how a manual
clean's steps are checked against them, with Ironic 39's words.

Nothing here touches the database: ``allocsvc.db.baremetal.provisioning``
asks ``clean_errors`` under the node's lock, and a clean whose steps do
not check out fails the node into ``clean failed`` with the text as its
``last_error`` (Ironic finds out in its conductor's background work, not
in the API; the API only checks the shape of the steps).

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
