"""What the interfaces of ``fake-hardware`` answer, as Ironic 39's fake
interfaces do (``ironic/drivers/modules/fake.py``), and what its ``no-*``
implementations refuse.

Nothing here reads or writes the database: the API asks what a read
answers, and the conductor (``allocsvc.conductor.management``) what
a change writes, under the node's lock. Every implementation a node may
name other than a ``no-*`` one behaves as Ironic's ``fake`` one (see
``allocsvc.common.hardware``); the texts are Ironic's, which clients
show or compare.

* console: enabling and disabling work; its information is empty;
* RAID: a target configuration is checked against Ironic's RAID schema
  (``validate_raid_config``) and kept; ``LOGICAL_DISK_PROPERTIES`` are
  what the driver says a logical disk takes;
* management: the ``pxe`` boot device; two indicators, read ``on``;
  setting an indicator, a boot mode or secure boot, injecting an NMI and
  virtual media are not implemented: the indicator and NMI requests are
  refused at once, the others are accepted and fail as Ironic's fail
  once started, in ``last_error`` (``*_error``);
* vendor: Ironic's fake vendor interface (``VENDOR_METHODS``,
  ``vendor_passthru``).
"""

import jsonschema

from allocsvc.common import exception

# -- what a node's interfaces support -----------------------------------------


def supports(interface):
    """Whether the implementation ``interface`` does what its type does:
    all but the ``no-*`` ones, which implement nothing."""
    return not (interface or '').startswith('no-')


def unsupported(driver, extension, status=None):
    return exception.UnsupportedDriverExtension(driver, extension, status)


def check_console(node):
    """UnsupportedDriverExtension (400) unless the node's console
    interface validates (Ironic's ``console.validate``)."""
    if not supports(node.console_interface):
        raise unsupported(node.driver, 'console')


# What Ironic's fake console reports of an enabled console.
CONSOLE_INFO = {}

# -- RAID --------------------------------------------------------------------

RAID_LEVELS = ['JBOD', '0', '1', '2', '5', '6', '1+0', '5+0', '6+0']

# What a logical disk takes, in Ironic's words (GET /v1/drivers/{driver}/
# raid/logical_disk_properties).
LOGICAL_DISK_PROPERTIES = {
    'raid_level': "RAID level for the logical disk. Valid values are "
                  "'JBOD', '0', '1', '2', '5', '6', '1+0', '5+0' and "
                  "'6+0'. Required.",
    'size_gb': "Size in GiB (Integer) for the logical disk. Use 'MAX' as "
               "size_gb if this logical disk is supposed to use the rest "
               "of the space available. Required.",
    'volume_name': "Name of the volume to be created. If this is not "
                   "specified, it will be auto-generated. Optional.",
    'is_root_volume': "Specifies whether this disk is a root volume. By "
                      "default, this is False. Optional.",
    'share_physical_disks': "Specifies whether other logical disks can "
                            "share physical disks with this logical disk. "
                            "By default, this is False. Optional.",
    'disk_type': "The type of disk preferred. Valid values are 'hdd' and "
                 "'ssd'. If this is not specified, disk type will not be a "
                 "selection criterion for choosing backing physical disks. "
                 "Optional.",
    'interface_type': "The interface type of disk. Valid values are "
                      "'sata', 'scsi' and 'sas'. If this is not specified, "
                      "interface type will not be a selection criterion "
                      "for choosing backing physical disks. Optional.",
    'number_of_physical_disks': "Number of physical disks to use for this "
                                "logical disk. By default, the driver uses "
                                "the minimum number of disks required for "
                                "that RAID level. Optional.",
    'controller': "Controller to use for this logical disk. If not "
                  "specified, the driver will choose a suitable RAID "
                  "controller on the bare metal node. Optional.",
    'physical_disks': "The physical disks to use for this logical disk. "
                      "If not specified, the driver will choose suitable "
                      "physical disks to use. Optional.",
}

_STRING = {'type': 'string'}
_BOOLEAN = {'type': 'boolean'}
# One logical disk: the constraints Ironic's RAID schema puts on it, so
# that jsonschema words an error as it does for Ironic.
_LOGICAL_DISK = {
    'type': 'object',
    'properties': {
        'raid_level': {'type': 'string', 'enum': RAID_LEVELS},
        'size_gb': {'anyOf': [{'type': 'integer', 'minimum': 0},
                              {'type': 'string', 'enum': ['MAX']}]},
        'volume_name': _STRING,
        'is_root_volume': _BOOLEAN,
        'share_physical_disks': _BOOLEAN,
        'disk_type': {'type': 'string', 'enum': ['hdd', 'ssd']},
        'interface_type': {'type': 'string',
                           'enum': ['sata', 'scsi', 'sas']},
        'number_of_physical_disks': {'type': 'integer', 'minimum': 0,
                                     'exclusiveMinimum': True},
        'controller': _STRING,
        'physical_disks': {'anyOf': [
            {'type': 'array', 'items': _STRING},
            {'type': 'array', 'items': {'type': 'object'}, 'minItems': 2}]},
    },
    'required': ['raid_level', 'size_gb'],
    'additionalProperties': False,
    'dependencies': {'physical_disks': ['controller']},
}
_RAID_CONFIG = jsonschema.Draft4Validator({
    'type': 'object',
    'properties': {'logical_disks': {'type': 'array',
                                     'items': _LOGICAL_DISK,
                                     'minItems': 1}},
    'required': ['logical_disks'],
    'additionalProperties': False,
})


def validate_raid_config(config):
    """InvalidParameterValue (400) unless ``config`` is a target RAID
    configuration Ironic's RAID interfaces take: its schema, and at most
    one root volume."""
    # jsonschema.validate's choice among the errors, as Ironic's.
    error = jsonschema.exceptions.best_match(_RAID_CONFIG.iter_errors(config))
    if error is not None:
        raise exception.InvalidParameterValue(
            'RAID config validation error: %s' % error.message)
    roots = [disk for disk in config['logical_disks']
             if disk.get('is_root_volume')]
    if len(roots) > 1:
        raise exception.InvalidParameterValue(
            'Raid config cannot have more than one root volume. %d root '
            'volumes were specified' % len(roots))


def check_target_raid_config(node, config):
    """What setting ``config`` as the node's target RAID configuration
    checks (Ironic's conductor): an empty one is always taken; another
    needs a RAID interface (UnsupportedDriverExtension, which the API
    answers with a 404, as Ironic) and a valid configuration."""
    if not config:
        return
    if not supports(node.raid_interface):
        raise unsupported(node.driver, 'raid', status=404)
    validate_raid_config(config)


# -- management --------------------------------------------------------------

# The boot devices of the fake management interface.
BOOT_DEVICES = ('pxe',)
# Its indicators: component -> name -> (read only, states), and the state
# it reads for each.
INDICATORS = {
    'chassis': {'led-0': (True, ['off', 'on'])},
    'system': {'led': (False, ['blinking', 'off', 'on'])},
}
INDICATOR_STATE = 'on'


def check_indicator(component, name):
    """InvalidParameterValue (400) unless the fake management interface
    has indicator ``name`` on ``component``."""
    if component not in INDICATORS:
        raise exception.InvalidParameterValue(
            'Invalid component %s specified.' % component)
    if name not in INDICATORS[component]:
        raise exception.InvalidParameterValue(
            'Invalid indicator %s specified.' % name)


def boot_mode_error(driver, target):
    """The ``last_error`` changing the boot mode to ``target`` leaves
    (the fake management interface cannot; Ironic's text, its missing
    quote included)."""
    return "Failed to change boot mode to '%s: %s" % (
        target, unsupported(driver, 'set_boot_mode').message)


def secure_boot_error(driver, target):
    """The ``last_error`` turning secure boot on or off (``target``, a
    boolean) leaves."""
    return "Failed to change secure_boot state to '%s': %s" % (
        target, unsupported(driver, 'set_secure_boot_state').message)


def attach_error(node_uuid, driver, device_type):
    """The ``last_error`` attaching virtual media leaves: Ironic cannot
    publish the image for a fake-hardware node."""
    return ('Could not attach device %s to node %s: Publishing images is '
            'not supported for driver %s' % (device_type, node_uuid, driver))


def detach_error(node_uuid, driver, device_types):
    """The ``last_error`` detaching virtual media leaves; ``device_types``
    is a list, or None for every device (Ironic prints either as
    Python does)."""
    return 'Could not detach device(s) %s from node %s: %s' % (
        device_types, node_uuid,
        unsupported(driver, 'detach_virtual_media').message)


# -- vendor ------------------------------------------------------------------

def _method(description, is_async=True, exclusive=True, needs_bar=True):
    return {'http_methods': ['POST'], 'async': is_async,
            'description': description, 'attach': False,
            'require_exclusive_lock': exclusive, '_needs_bar': needs_bar}


# The methods of Ironic's fake vendor interface (fake-hardware's), as
# GET .../vendor_passthru/methods lists them.
_VENDOR = {
    'second_method': _method('Test if the value of bar is kazoo'),
    'third_method_sync': _method('Test if the value of bar is meow',
                                 is_async=False),
    'fourth_method_shared_lock': _method('Test if the value of bar is woof',
                                         exclusive=False),
    'log_passthrough': _method('Test pass-through to wait.',
                               needs_bar=False),
}
# What the synchronous method answers: whether ``bar`` is its word.
_SYNC_WORD = {'third_method_sync': 'meow'}


def vendor_methods(node):
    """The vendor methods of ``node`` (none for ``no-vendor``)."""
    if not supports(node.vendor_interface):
        return {}
    return {name: {key: value for key, value in meta.items()
                   if not key.startswith('_')}
            for name, meta in _VENDOR.items()}


def vendor_passthru(node, method, http_method, args):
    """Call vendor ``method`` of ``node`` with ``args`` (the request's
    JSON object) over ``http_method``: ``(is_async, result)``, the result
    None for an asynchronous method (the fake ones change nothing).
    InvalidParameterValue (400) for a method the node has not, or not
    over that HTTP method; Ironic's MissingParameterValue text (400)
    without ``bar``."""
    meta = _VENDOR.get(method) if supports(node.vendor_interface) else None
    if meta is None:
        raise exception.InvalidParameterValue('No handler for method %s'
                                              % method)
    if http_method not in meta['http_methods']:
        raise exception.InvalidParameterValue(
            'The method %s does not support HTTP %s' % (method, http_method))
    if meta['_needs_bar'] and not args.get('bar'):
        raise exception.InvalidParameterValue(
            "Parameter 'bar' not passed to method '%s'." % method)
    unexpected = sorted(set(args) - {'bar'})
    if unexpected and meta['_needs_bar']:
        # Ironic calls the method with them, which fails (a 500 there).
        raise exception.InvalidParameterValue(
            'Unexpected arguments for method %s: %s'
            % (method, ', '.join(unexpected)))
    if meta['async']:
        return True, None
    return False, args['bar'] == _SYNC_WORD[method]
