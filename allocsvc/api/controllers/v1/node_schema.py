"""What a node looks like on the wire: its fields per microversion, the
JSON schema of ``POST /v1/nodes`` and of a patched node, and the checks
that follow the schema, with Ironic's messages.

Every field of Ironic 39's node is served. A node names its chassis by
``chassis_uuid``, checked here as a UUID; the conductor's write looks
the chassis up (400 if there is none, as in Ironic).
"""

import re

import jsonschema
import os_traits

from allocsvc.api.controllers.v1 import utils

# Every field of a node document and the version it appeared in, in the
# order Ironic's documentation lists them.
FIELDS = [
    ('uuid', (1, 1)),
    ('name', (1, 5)),
    ('driver', (1, 1)),
    ('driver_info', (1, 1)),
    ('driver_internal_info', (1, 3)),
    ('properties', (1, 1)),
    ('extra', (1, 1)),
    ('instance_info', (1, 1)),
    ('instance_uuid', (1, 1)),
    ('chassis_uuid', (1, 1)),
    ('power_state', (1, 1)),
    ('target_power_state', (1, 1)),
    ('provision_state', (1, 1)),
    ('target_provision_state', (1, 1)),
    ('provision_updated_at', (1, 1)),
    ('maintenance', (1, 1)),
    ('maintenance_reason', (1, 1)),
    ('fault', (1, 42)),
    ('last_error', (1, 1)),
    ('reservation', (1, 1)),
    ('console_enabled', (1, 1)),
    ('clean_step', (1, 7)),
    ('deploy_step', (1, 44)),
    ('service_step', (1, 87)),
    ('raid_config', (1, 12)),
    ('target_raid_config', (1, 12)),
    ('inspection_started_at', (1, 6)),
    ('inspection_finished_at', (1, 6)),
    ('resource_class', (1, 21)),
    ('bios_interface', (1, 40)),
    ('boot_interface', (1, 31)),
    ('console_interface', (1, 31)),
    ('deploy_interface', (1, 31)),
    ('firmware_interface', (1, 86)),
    ('inspect_interface', (1, 31)),
    ('management_interface', (1, 31)),
    ('network_interface', (1, 20)),
    ('power_interface', (1, 31)),
    ('raid_interface', (1, 31)),
    ('rescue_interface', (1, 38)),
    ('storage_interface', (1, 33)),
    ('vendor_interface', (1, 31)),
    ('traits', (1, 37)),
    ('conductor_group', (1, 46)),
    ('automated_clean', (1, 47)),
    ('protected', (1, 48)),
    ('protected_reason', (1, 48)),
    ('conductor', (1, 49)),
    ('owner', (1, 50)),
    ('description', (1, 51)),
    ('allocation_uuid', (1, 52)),
    ('retired', (1, 61)),
    ('retired_reason', (1, 61)),
    ('lessee', (1, 65)),
    ('network_data', (1, 66)),
    ('boot_mode', (1, 75)),
    ('secure_boot', (1, 75)),
    ('shard', (1, 82)),
    ('parent_node', (1, 83)),
    ('disable_power_off', (1, 95)),
    ('instance_name', (1, 104)),
    ('health', (1, 109)),
    ('created_at', (1, 1)),
    ('updated_at', (1, 1)),
]
SINCE = dict(FIELDS)

# What GET /v1/nodes shows without ``fields`` or ``detail``.
LIST_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
               'provision_state', 'maintenance')

# Columns that cannot order a list (Ironic's list, for the ones stored).
UNSORTABLE = ('properties', 'driver_info', 'extra', 'instance_info',
              'driver_internal_info', 'clean_step', 'deploy_step',
              'service_step', 'raid_config', 'target_raid_config',
              'network_data', 'traits', 'chassis_uuid')

# The node's driver interface fields.
INTERFACES = tuple('%s_interface' % kind for kind in (
    'bios', 'boot', 'console', 'deploy', 'firmware', 'inspect',
    'management', 'network', 'power', 'raid', 'rescue', 'storage',
    'vendor'))

# Timestamps, rendered in ISO 8601.
TIMESTAMPS = ('provision_updated_at', 'inspection_started_at',
              'inspection_finished_at', 'created_at', 'updated_at')

# Booleans Ironic also takes as strings ("true", "off", ...).
_BOOLEANS = ('automated_clean', 'maintenance', 'console_enabled',
             'protected', 'retired', 'disable_power_off')
# JSON objects a null sets to {}.
_OBJECTS = ('driver_info', 'properties', 'extra', 'instance_info',
            'network_data')

# Stored in LONGTEXT on MariaDB (as in Ironic): no 64 KiB limit.
_LONG = ('instance_info',)

# Names a node cannot take: they are paths under /v1/nodes in Ironic.
RESERVED_NAMES = ('detail', 'maintenance', 'management', 'states',
                  'validate', 'vendor_passthru')

DESCRIPTION_MAX_LENGTH = 4096
_CONDUCTOR_GROUP_RE = re.compile(r'^[a-zA-Z0-9_\-\.]*$')


def _nullable(*kinds, **extra):
    return dict(extra, type=list(kinds) + ['null'])


# Ironic's node schema (POST); a patched node also has PATCH_ONLY.
NODE = {
    'type': 'object',
    'properties': dict({
        'automated_clean': _nullable('string', 'boolean'),
        'chassis_uuid': _nullable('string'),
        'conductor_group': _nullable('string', maxLength=255),
        'console_enabled': _nullable('string', 'boolean'),
        'description': _nullable('string',
                                 maxLength=DESCRIPTION_MAX_LENGTH),
        'disable_power_off': _nullable('string', 'boolean'),
        'driver': {'type': 'string', 'maxLength': 255},
        'driver_info': _nullable('object'),
        'extra': _nullable('object'),
        'instance_info': _nullable('object'),
        'instance_name': _nullable('string', maxLength=255),
        'instance_uuid': _nullable('string'),
        'lessee': _nullable('string', maxLength=255),
        'maintenance': _nullable('string', 'boolean'),
        'name': _nullable('string'),
        'network_data': _nullable('object'),
        'owner': _nullable('string', maxLength=255),
        'parent_node': _nullable('string', maxLength=255),
        'properties': _nullable('object'),
        'resource_class': _nullable('string', maxLength=80),
        'retired': _nullable('string', 'boolean'),
        'retired_reason': _nullable('string'),
        'shard': _nullable('string', maxLength=255),
        'uuid': _nullable('string'),
    }, **{field: _nullable('string', maxLength=255)
          for field in INTERFACES}),
    'required': ['driver'],
    'additionalProperties': False,
}
_NODE_VALIDATOR = jsonschema.Draft4Validator(NODE)

# Fields only PATCH sets (Ironic's node patch schema adds them).
PATCH_ONLY = {
    'protected': _nullable('string', 'boolean'),
    'protected_reason': _nullable('string'),
}
NODE_PATCH = dict(NODE, properties=dict(NODE['properties'], **PATCH_ONLY))
_NODE_PATCH_VALIDATOR = jsonschema.Draft4Validator(NODE_PATCH)

# The fields PATCH may change (Ironic's list).
PATCHABLE = tuple(sorted(set(NODE_PATCH['properties']) - {'uuid'}))

# Ironic's trait rule: a custom name, or a standard one from os-traits.
TRAIT = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'anyOf': [{'pattern': r'^%s[A-Z0-9_]+$'
                          % re.escape(os_traits.CUSTOM_NAMESPACE)},
              {'enum': sorted(os_traits.get_traits())}],
}
_TRAIT_VALIDATOR = jsonschema.Draft4Validator(TRAIT)
TRAITS_BODY = {
    'type': 'object',
    'properties': {'traits': {'type': 'array', 'items': TRAIT}},
    'additionalProperties': False,
}
_TRAITS_VALIDATOR = jsonschema.Draft4Validator(TRAITS_BODY)


def validate(validator, name, document):
    """400 with Ironic's text unless ``document`` fits ``validator``."""
    utils.args_schema_error(name, validator, document)


def check_text(name, value):
    """400 for a string with a NUL character: no column can store one
    (PostgreSQL refuses it), so it cannot be a value or match one."""
    if isinstance(value, str) and '\x00' in value:
        raise utils.BadRequest('Invalid value for %s: it contains a NUL '
                               'character.' % name)
    return value


_UUIDS = utils.format_validator('uuid', 'uuid', 'instance_uuid',
                                'chassis_uuid')


_boolean = utils.strict_bool


def check_node(document, name='node', patched=False):
    """Validate a node document (a POST body, or a node after a patch if
    ``patched``) and return its values normalised: booleans parsed,
    UUIDs checked, the conductor group lower-cased, empty dicts for null
    ones."""
    validate(_NODE_PATCH_VALIDATOR if patched else _NODE_VALIDATOR, name,
             document)
    values = dict(document)
    for key, value in values.items():
        check_text(key, value)
        if key not in _LONG:
            utils.check_stored_size(key, value)
    utils.check_formats(_UUIDS, values, 'Expected UUID for %(name)s: '
                                        '%(value)s')
    for key in _BOOLEANS:
        if key in values:
            values[key] = _boolean(key, values[key])
    for key in ('maintenance', 'console_enabled', 'protected', 'retired',
                'disable_power_off'):
        if key in values and values[key] is None:
            values[key] = False
    group = values.get('conductor_group')
    if group is not None:
        if not _CONDUCTOR_GROUP_RE.match(group):
            raise utils.BadRequest('Invalid conductor group %s.' % group)
        values['conductor_group'] = group.lower()
    elif 'conductor_group' in values:
        values['conductor_group'] = ''
    for key in _OBJECTS:
        if key in values and values[key] is None:
            values[key] = {}
    return values


def check_name(name, message):
    """400 with ``message`` (a ``%s`` for the name) unless ``name`` is a
    logical name at the request's version and not a reserved word; 406
    before names exist (1.5)."""
    if not utils.allowed(SINCE['name']):
        raise utils.NotAcceptable('Request not acceptable.')
    if not utils.is_valid_logical_name(name):
        raise utils.BadRequest(message % name)
    if name in RESERVED_NAMES:
        raise utils.BadRequest(
            'The word "%s" is reserved and can not be used as a node name. '
            'Reserved words are: %s.' % (name, ', '.join(RESERVED_NAMES)))


def check_trait(trait):
    validate(_TRAIT_VALIDATOR, 'trait', trait)


def check_traits_body(body):
    validate(_TRAITS_VALIDATOR, 'body', body)
