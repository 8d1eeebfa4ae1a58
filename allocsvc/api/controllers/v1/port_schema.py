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
]
PORT_SINCE = dict(PORT_FIELDS, links=(1, 1))

PORTGROUP_FIELDS = [
    ('uuid', (1, 23)), ('name', (1, 23)), ('address', (1, 23)),
    ('node_uuid', (1, 23)), ('extra', (1, 23)), ('internal_info', (1, 23)),
    ('standalone_ports_supported', (1, 23)),
    ('created_at', (1, 23)), ('updated_at', (1, 23)),
    ('mode', (1, 26)), ('properties', (1, 26)),
    ('category', (1, 101)),
]
PORTGROUP_SINCE = dict(PORTGROUP_FIELDS, links=(1, 23), ports=(1, 24))

# What a list shows without ``fields`` or ``detail``.
PORT_LIST_FIELDS = ('uuid', 'address')
PORTGROUP_LIST_FIELDS = ('uuid', 'address', 'name')

# The fields a client sets (POST) or changes (PATCH).
PORT_WRITABLE = ('address', 'node_uuid', 'portgroup_uuid', 'extra',
                 'local_link_connection', 'pxe_enabled', 'physical_network',
                 'is_smartnic', 'name', 'description', 'vendor', 'category')
PORTGROUP_WRITABLE = ('address', 'node_uuid', 'name', 'extra',
                      'standalone_ports_supported', 'mode', 'properties',
                      'category')
# Fields that are there but only the service writes.
INTERNAL = ('uuid', 'id', 'created_at', 'updated_at', 'links',
            'internal_info', 'ports')
PORT_MANDATORY = ('address', 'node_uuid')
PORTGROUP_MANDATORY = ('node_uuid',)
# Columns that cannot be sorted on (JSON documents).
PORT_UNSORTABLE = ('extra', 'internal_info', 'local_link_connection')
PORTGROUP_UNSORTABLE = ('extra', 'internal_info', 'properties')

_MAC_RE = re.compile(r'^[0-9a-f]{2}(:[0-9a-f]{2}){5}$')

# Ironic's local link connection keys (network_type from 1.64).
LOCAL_LINK_KEYS = ('switch_id', 'port_id', 'switch_info', 'hostname',
                   'network_type')


def _nullable(*kinds, **extra):
    return dict(extra, type=list(kinds) + ['null'])


PORT = {
    'type': 'object',
    'properties': {
        'uuid': _nullable('string'),
        'address': _nullable('string'),
        'node_uuid': _nullable('string'),
        'portgroup_uuid': _nullable('string'),
        'extra': _nullable('object'),
        'local_link_connection': _nullable('object'),
        'pxe_enabled': _nullable('string', 'boolean'),
        'physical_network': _nullable('string', maxLength=64),
        'is_smartnic': _nullable('string', 'boolean'),
        'name': _nullable('string', maxLength=255),
        'description': _nullable('string', maxLength=255),
        'vendor': _nullable('string', maxLength=255),
        'category': _nullable('string', maxLength=80),
    },
    'additionalProperties': False,
}
PORTGROUP = {
    'type': 'object',
    'properties': {
        'uuid': _nullable('string'),
        'address': _nullable('string'),
        'node_uuid': _nullable('string'),
        'name': _nullable('string', maxLength=255),
        'extra': _nullable('object'),
        'standalone_ports_supported': _nullable('string', 'boolean'),
        'mode': _nullable('string', maxLength=255),
        'properties': _nullable('object'),
        'category': _nullable('string', maxLength=80),
    },
    'additionalProperties': False,
}
_VALIDATORS = {'port': jsonschema.Draft4Validator(PORT),
               'portgroup': jsonschema.Draft4Validator(PORTGROUP)}


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
    except ValueError:
        raise utils.BadRequest('Invalid input for field/attribute %s. '
                               'Value: %s. Wrong type. Expected a boolean.'
                               % (name, value))


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


def check_document(kind, document):
    """Validate a port or port group document (a POST body, or one after
    a patch; ``kind``: 'port' or 'portgroup') and return its values
    normalised: MAC lower-cased, booleans parsed, UUIDs and names checked,
    empty dicts for null ones."""
    if not isinstance(document, dict):
        raise utils.BadRequest('The request body must be a JSON object.')
    error = next(iter(sorted(_VALIDATORS[kind].iter_errors(document),
                             key=lambda e: list(e.path))), None)
    if error is not None:
        raise utils.BadRequest('Schema error for %s: %s'
                               % (kind, error.message))
    values = dict(document)
    for key, value in values.items():
        node_schema.check_text(key, value)
        utils.check_stored_size(key, value)
    mandatory = PORT_MANDATORY if kind == 'port' else PORTGROUP_MANDATORY
    for key in mandatory:
        if values.get(key) is None:
            raise utils.BadRequest('Invalid input for field/attribute %s. '
                                   'Value: None. Mandatory field missing.'
                                   % key)
    if values.get('address') is not None:
        values['address'] = normalize_mac(values['address'])
    for key in ('uuid', 'node_uuid', 'portgroup_uuid'):
        if values.get(key) is not None:
            check_uuid(values[key])
    if values.get('name') is not None:
        check_name(values['name'])
    for key in ('pxe_enabled', 'is_smartnic', 'standalone_ports_supported'):
        if key in values:
            values[key] = _boolean(key, values[key])
    for key in ('extra', 'properties'):
        if key in values and values[key] is None:
            values[key] = {}
    if 'local_link_connection' in values:
        values['local_link_connection'] = _check_local_link(
            values['local_link_connection'], values.get('is_smartnic'))
    elif values.get('is_smartnic'):
        _check_local_link({}, True)
    return values
