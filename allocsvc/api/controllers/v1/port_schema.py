"""What a port or port group document may hold, at which version, and
how its values are checked (Ironic's messages)."""

import re

import jsonschema
from oslo_utils import strutils

from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

# (field, first version) of a port, in Ironic's order.
PORT_FIELDS = [
    ('uuid', (1, 1)), ('address', (1, 1)), ('node_uuid', (1, 1)),
    ('extra', (1, 1)), ('created_at', (1, 1)), ('updated_at', (1, 1)),
    ('internal_info', (1, 18)),
    ('local_link_connection', (1, 19)), ('pxe_enabled', (1, 19)),
    ('portgroup_uuid', (1, 24)),
    ('physical_network', (1, 34)),
    ('is_smartnic', (1, 53)),
    ('name', (1, 88)),
    ('description', (1, 97)),
    ('vendor', (1, 100)),
    ('category', (1, 101)),
    ('available_for_dynamic_portgroup', (1, 111)),
]
PORT_SINCE = dict(PORT_FIELDS, links=(1, 1))

PORTGROUP_FIELDS = [
    ('uuid', (1, 23)), ('name', (1, 23)), ('address', (1, 23)),
    ('node_uuid', (1, 23)), ('extra', (1, 23)), ('internal_info', (1, 23)),
    ('standalone_ports_supported', (1, 23)),
    ('created_at', (1, 23)), ('updated_at', (1, 23)),
    ('mode', (1, 26)), ('properties', (1, 26)),
    ('physical_network', (1, 102)),
    ('category', (1, 103)),
    ('dynamic_portgroup', (1, 111)),
]
PORTGROUP_SINCE = dict(PORTGROUP_FIELDS, links=(1, 23), ports=(1, 24))

# The version a field needs to be named in ``fields``, ``sort_key`` or
# a request body (406 below it); Ironic checks fewer fields than it
# shows by version: a port's internal_info (1.18) and a port group's
# category and physical_network are accepted at any version.
PORT_GATES = dict(PORT_SINCE, internal_info=(1, 1))
PORTGROUP_GATES = dict(PORTGROUP_SINCE, physical_network=(1, 23),
                       category=(1, 23))
# ... and the fields a PATCH of those versions may not change (Ironic
# checks only these for a port).
PORT_PATCH_GATES = {name: PORT_SINCE[name] for name in (
    'pxe_enabled', 'local_link_connection', 'portgroup_uuid',
    'physical_network', 'is_smartnic')}
PORTGROUP_PATCH_GATES = {'mode': (1, 26), 'properties': (1, 26)}

# What a list shows without ``fields`` or ``detail``.
PORT_LIST_FIELDS = ('uuid', 'address')
PORTGROUP_LIST_FIELDS = ('uuid', 'address', 'name')

# The fields a client sets (POST) or changes (PATCH), in the order
# Ironic names them when it refuses a PATCH of another.
PORT_WRITABLE = ('address', 'extra', 'is_smartnic', 'local_link_connection',
                 'node_ident', 'node_uuid', 'physical_network',
                 'portgroup_uuid', 'pxe_enabled', 'name', 'description',
                 'vendor', 'category', 'available_for_dynamic_portgroup')
PORTGROUP_WRITABLE = ('address', 'extra', 'mode', 'name', 'node_uuid',
                      'properties', 'standalone_ports_supported',
                      'physical_network', 'category')
# Columns that cannot be sorted on (JSON documents).
PORT_UNSORTABLE = ('extra', 'internal_info', 'local_link_connection')
PORTGROUP_UNSORTABLE = ('extra', 'internal_info', 'properties')

_MAC_RE = re.compile(r'^[0-9a-f]{2}(:[0-9a-f]{2}){5}$')

# Ironic's local link connection keys (network_type from 1.64).
LOCAL_LINK_KEYS = ('switch_id', 'port_id', 'switch_info', 'hostname',
                   'network_type')


def _nullable(*kinds, **extra):
    return dict(extra, type=list(kinds) + ['null'])


# Ironic's schemas of a port and a port group, for a POST body and for
# the document a PATCH makes ("Schema error for port: ..." or "...
# patch: ..."). A port names its node by UUID or (1.94) by UUID or name.
PORT = {
    'type': 'object',
    'properties': {
        'address': {'type': 'string'},
        'extra': _nullable('object'),
        'is_smartnic': _nullable('string', 'boolean'),
        'local_link_connection': _nullable('object'),
        'node_ident': {'type': 'string'},
        'node_uuid': {'type': 'string'},
        'physical_network': _nullable('string', maxLength=64),
        'portgroup_uuid': _nullable('string'),
        'pxe_enabled': _nullable('string', 'boolean'),
        'uuid': _nullable('string'),
        'name': _nullable('string'),
        'description': _nullable('string', maxLength=255),
        'vendor': _nullable('string', maxLength=32),
        'category': _nullable('string', maxLength=80),
        'available_for_dynamic_portgroup': {'type': 'boolean'},
    },
    'required': ['address'],
    'oneOf': [{'required': ['node_ident']}, {'required': ['node_uuid']}],
    'additionalProperties': False,
}
PORTGROUP = {
    'type': 'object',
    'properties': {
        'address': _nullable('string'),
        'category': _nullable('string', maxLength=80),
        'extra': _nullable('object'),
        # Ironic sets no bound; the column has one.
        'mode': _nullable('string', maxLength=255),
        'name': _nullable('string'),
        'node_uuid': {'type': 'string'},
        'physical_network': _nullable('string', maxLength=64),
        'properties': _nullable('object'),
        'standalone_ports_supported': _nullable('string', 'boolean'),
        'uuid': _nullable('string'),
    },
    'required': ['node_uuid'],
    'additionalProperties': False,
}
_VALIDATORS = {
    kind: jsonschema.validators.validator_for(schema)(schema)
    for kind, schema in (('port', PORT), ('portgroup', PORTGROUP))}
# What Ironic checks after the schema, in its order: MAC addresses,
# UUIDs, booleans.
_CHECKS = {
    'port': (('address', 'mac'), ('node_uuid', 'uuid'),
             ('is_smartnic', 'boolean'), ('portgroup_uuid', 'uuid'),
             ('pxe_enabled', 'boolean'), ('uuid', 'uuid')),
    'portgroup': (('address', 'mac'), ('node_uuid', 'uuid'),
                  ('standalone_ports_supported', 'boolean'),
                  ('uuid', 'uuid')),
}


def normalize_mac(address):
    """``address`` lower-cased; InvalidMAC (400) unless it is a MAC
    address (six octets, colon separated)."""
    if not isinstance(address, str) or not _MAC_RE.match(address.lower()):
        raise exception.InvalidMAC(address)
    return address.lower()


def check_uuid(value):
    if not isinstance(value, str) or not utils.is_uuid(value):
        raise utils.BadRequest('Expected a UUID but received %s.' % value)
    return value


def check_name(value):
    if not utils.is_valid_logical_name(value):
        raise utils.BadRequest('Expected a logical name but received %s.'
                               % value)
    return value


def _boolean(name, value):
    if value is None or isinstance(value, bool):
        return value
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise utils.BadRequest('Invalid %s: %s' % (name, exc))


def _checked(name, check, value):
    """``value`` of field ``name`` after Ironic's argument check."""
    if value is None:
        return None
    if check == 'boolean':
        return _boolean(name, value)
    if check == 'uuid':
        if not utils.is_uuid(value):
            raise utils.BadRequest('Expected UUID for %s: %s'
                                   % (name, value))
        return value
    if not _MAC_RE.match(value.lower()):
        raise utils.BadRequest('Expected valid MAC address for %s: %s'
                               % (name, value))
    return value.lower()


def _check_local_link(value, smartnic):
    value = value or {}
    if not value and not smartnic:
        return {}
    invalid = sorted(set(value) - set(LOCAL_LINK_KEYS))
    if invalid:
        raise utils.BadRequest(
            'Invalid local_link_connection: unknown key(s) %s. Valid keys '
            'are: %s.' % (', '.join(invalid), ', '.join(LOCAL_LINK_KEYS)))
    if 'network_type' in value and not utils.allowed((1, 64)):
        raise utils.NotAcceptable('Request not acceptable.')
    for key, item in value.items():
        if not isinstance(item, str):
            raise utils.BadRequest('Invalid local_link_connection: the '
                                   'value of %s must be a string.' % key)
    network_type = value.get('network_type', 'managed')
    if network_type not in ('managed', 'unmanaged'):
        raise utils.BadRequest('Invalid local_link_connection: '
                               'network_type must be managed or unmanaged.')
    if smartnic:
        if not value.get('port_id') or not value.get('hostname'):
            raise utils.BadRequest('Smart NIC port must have port_id and '
                                   'hostname in local_link_connection')
    elif network_type == 'managed' and not (
            value.get('switch_id') and value.get('port_id')):
        raise utils.BadRequest(
            'Missing mandatory keys. Required keys are switch_id, port_id. '
            'Or in case of Smart NIC port, required keys are port_id, '
            'hostname.')
    return value


def check_document(kind, document, name=None):
    """Validate a port or port group document (``kind``: 'port' or
    'portgroup'): a POST body, or (``name`` 'patch') one after a patch,
    as Ironic does, and return its values normalised: MAC lower-cased,
    booleans parsed, UUIDs and names checked, empty dicts for null
    ones."""
    if not isinstance(document, dict):
        raise utils.BadRequest('The request body must be a JSON object.')
    utils.args_schema_error(name or kind, _VALIDATORS[kind], document)
    values = dict(document)
    for key, check in _CHECKS[kind]:
        if key in values:
            values[key] = _checked(key, check, values[key])
    for key, value in values.items():
        node_schema.check_text(key, value)
        utils.check_stored_size(key, value)
    for key in ('extra', 'properties'):
        if key in values and values[key] is None:
            values[key] = {}
    if 'local_link_connection' in values:
        values['local_link_connection'] = _check_local_link(
            values['local_link_connection'], values.get('is_smartnic'))
    elif values.get('is_smartnic'):
        _check_local_link({}, True)
    return values
