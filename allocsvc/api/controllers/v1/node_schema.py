"""What a node looks like on the wire: its fields per microversion, the
JSON schema of ``POST /v1/nodes`` and of a patched node, and the checks
that follow the schema, with Ironic's messages.

Only the fields allocsvc stores are served; Ironic's others (ports,
interfaces, RAID, BIOS, retirement, ...) are unknown here, so a request
naming one is a 400 (schema) rather than silently ignored.
"""

import re

import jsonschema
import os_traits
from oslo_utils import strutils
from oslo_utils import uuidutils

from allocsvc.api.controllers.v1 import utils

# Every field of a node document and the version it appeared in, in the
# order Ironic's documentation lists them.
FIELDS = [
    ('uuid', (1, 1)),
    ('name', (1, 5)),
    ('driver', (1, 1)),
    ('driver_info', (1, 1)),
    ('properties', (1, 1)),
    ('extra', (1, 1)),
    ('instance_info', (1, 1)),
    ('instance_uuid', (1, 1)),
    ('power_state', (1, 1)),
    ('target_power_state', (1, 1)),
    ('provision_state', (1, 1)),
    ('target_provision_state', (1, 1)),
    ('provision_updated_at', (1, 1)),
    ('maintenance', (1, 1)),
    ('maintenance_reason', (1, 1)),
    ('last_error', (1, 1)),
    ('reservation', (1, 1)),
    ('resource_class', (1, 21)),
    ('traits', (1, 37)),
    ('conductor_group', (1, 46)),
    ('automated_clean', (1, 47)),
    ('conductor', (1, 49)),
    ('owner', (1, 50)),
    ('description', (1, 51)),
    ('allocation_uuid', (1, 52)),
    ('lessee', (1, 65)),
    ('created_at', (1, 1)),
    ('updated_at', (1, 1)),
]
SINCE = dict(FIELDS)

# What GET /v1/nodes shows without ``fields`` or ``detail``.
LIST_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
               'provision_state', 'maintenance')

# Columns that cannot order a list (Ironic's list, for the ones stored).
UNSORTABLE = ('properties', 'driver_info', 'extra', 'instance_info',
              'traits')

# Names a node cannot take: they are paths under /v1/nodes in Ironic.
RESERVED_NAMES = ('detail', 'maintenance', 'management', 'states',
                  'validate', 'vendor_passthru')

DESCRIPTION_MAX_LENGTH = 4096
_CONDUCTOR_GROUP_RE = re.compile(r'^[a-zA-Z0-9_\-\.]*$')


def _nullable(*kinds, **extra):
    return dict(extra, type=list(kinds) + ['null'])


# Ironic's node schema, restricted to the fields stored here.
NODE = {
    'type': 'object',
    'properties': {
        'automated_clean': _nullable('string', 'boolean'),
        'conductor_group': _nullable('string', maxLength=255),
        'description': _nullable('string',
                                 maxLength=DESCRIPTION_MAX_LENGTH),
        'driver': {'type': 'string', 'maxLength': 255},
        'driver_info': _nullable('object'),
        'extra': _nullable('object'),
        'instance_info': _nullable('object'),
        'instance_uuid': _nullable('string'),
        'lessee': _nullable('string', maxLength=255),
        'maintenance': _nullable('string', 'boolean'),
        'name': _nullable('string'),
        'owner': _nullable('string', maxLength=255),
        'properties': _nullable('object'),
        'resource_class': _nullable('string', maxLength=80),
        'uuid': _nullable('string'),
    },
    'required': ['driver'],
    'additionalProperties': False,
}
_NODE_VALIDATOR = jsonschema.Draft4Validator(NODE)

# The fields PATCH may change (Ironic's list, for the fields stored here).
PATCHABLE = ('automated_clean', 'conductor_group', 'description', 'driver',
             'driver_info', 'extra', 'instance_info', 'instance_uuid',
             'lessee', 'maintenance', 'name', 'owner', 'properties',
             'resource_class')

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


def _validate(validator, name, document):
    utils.schema_error(name, validator, document)


def check_text(name, value):
    """400 for a string with a NUL character: no column can store one
    (PostgreSQL refuses it), so it cannot be a value or match one."""
    if isinstance(value, str) and '\x00' in value:
        raise utils.BadRequest('Invalid value for %s: it contains a NUL '
                               'character.' % name)
    return value


def check_uuid(name, value):
    if value is not None and not uuidutils.is_uuid_like(value):
        raise utils.BadRequest('Expected UUID for %s: %s' % (name, value))
    return value


def _boolean(name, value):
    if value is None or isinstance(value, bool):
        return value
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise utils.BadRequest('Invalid %s: %s' % (name, exc))


def check_node(document, name='node'):
    """Validate a node document (a POST body, or a node after a patch)
    and return its values normalised: booleans parsed, UUIDs checked,
    the conductor group lower-cased, empty dicts for null ones."""
    _validate(_NODE_VALIDATOR, name, document)
    values = dict(document)
    for key, value in values.items():
        check_text(key, value)
    for key in ('uuid', 'instance_uuid'):
        if key in values:
            check_uuid(key, values[key])
    for key in ('automated_clean', 'maintenance'):
        if key in values:
            values[key] = _boolean(key, values[key])
    if values.get('maintenance') is None and 'maintenance' in values:
        values['maintenance'] = False
    group = values.get('conductor_group')
    if group is not None:
        if not _CONDUCTOR_GROUP_RE.match(group):
            raise utils.BadRequest('Invalid conductor group %s.' % group)
        values['conductor_group'] = group.lower()
    elif 'conductor_group' in values:
        values['conductor_group'] = ''
    for key in ('driver_info', 'properties', 'extra', 'instance_info'):
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
    _validate(_TRAIT_VALIDATOR, 'trait', trait)


def check_traits_body(body):
    _validate(_TRAITS_VALIDATOR, 'body', body)
