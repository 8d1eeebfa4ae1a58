"""What a port or port group document may hold, at which version, and
how its values are checked (Ironic's messages)."""

import copy
import re

import jsonschema

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

# A port's local link connection, as Ironic checks it: one of these
# forms (a switch port, a Smart NIC's host, an unmanaged link, an OVN
# VTEP switch -- 1.90 to 1.104 -- or nothing), "Schema error for
# local_link_connection: ..." otherwise.
_LINK_BASE = {
    'type': 'object',
    'properties': {
        'port_id': {'type': 'string'},
        'switch_id': {'type': 'string'},
        'hostname': {'type': 'string'},
        'switch_info': {'type': 'string'},
        'network_type': {'type': 'string', 'enum': ['managed', 'unmanaged']},
        'vtep-logical-switch': {'type': 'string'},
        'vtep-physical-switch': {'type': 'string'},
    },
    'additionalProperties': False,
    'dependentRequired': {
        'vtep-logical-switch': ['vtep-physical-switch'],
        'vtep-physical-switch': ['vtep-logical-switch'],
    },
}


def _link(required, **properties):
    schema = copy.deepcopy(_LINK_BASE)
    schema['properties'].update(properties)
    schema['required'] = required
    return schema


_SMART_NIC_LINK = _link(['port_id', 'hostname'])
LOCAL_LINK = {'anyOf': [
    _link(['port_id', 'switch_id']),
    _SMART_NIC_LINK,
    _link(['network_type'], network_type={'type': 'string',
                                          'enum': ['unmanaged']}),
    _link(['port_id', 'vtep-logical-switch', 'vtep-physical-switch']),
    {'type': 'object', 'additionalProperties': False},
]}
_LINK_VALIDATORS = {
    name: jsonschema.validators.validator_for(schema)(schema)
    for name, schema in (('link', LOCAL_LINK),
                         ('smart_nic', _SMART_NIC_LINK))}
VTEP_KEYS = ('vtep-logical-switch', 'vtep-physical-switch')
_DATAPATH_ID_RE = re.compile(r'^[0-9a-f]{16}$')


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
        'local_link_connection': {'type': ['null', 'object']},
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


def check_name(value):
    if not utils.is_valid_logical_name(value):
        raise utils.BadRequest('Expected a logical name but received %s.'
                               % value)
    return value


_boolean = utils.strict_bool


def _checked(name, check, value):
    """``value`` of field ``name`` after Ironic's argument check."""
    if value is None:
        return None
    if check == 'boolean':
        return _boolean(name, value)
    if check == 'uuid':
        if not utils.FORMATS.conforms(value, 'uuid'):
            raise utils.BadRequest('Expected UUID for %s: %s'
                                   % (name, value))
        return value
    if not _MAC_RE.match(value.lower()):
        raise utils.BadRequest('Expected valid MAC address for %s: %s'
                               % (name, value))
    return value.lower()


def _check_local_link(value):
    """Ironic's check of a local link connection: its schema, then a
    switch_id that is a MAC address or an OpenFlow datapath ID (lower
    case)."""
    if value is None:
        return {}
    utils.args_schema_error('local_link_connection',
                            _LINK_VALIDATORS['link'], value)
    value = dict(value)
    switch_id = value.get('switch_id')
    if switch_id is not None:
        if not (_MAC_RE.match(switch_id.lower())
                or _DATAPATH_ID_RE.match(switch_id.lower())):
            raise utils.BadRequest('Expected a MAC address or OpenFlow '
                                   'datapath ID but received %s.'
                                   % switch_id)
        value['switch_id'] = switch_id.lower()
    return value


def check_link_versions(link):
    """406 for a key of a local link connection (in a POST body) that
    the request's version does not take: network_type before 1.64, the
    OVN VTEP switch outside 1.90 to 1.104."""
    link = link or {}
    if 'network_type' in link and not utils.allowed((1, 64)):
        raise utils.NotAcceptable('Request not acceptable.')
    if VTEP_KEYS[0] in link and not vtep_allowed():
        raise utils.NotAcceptable('Request not acceptable.')


def vtep_allowed():
    """An OVN VTEP switch in a local link: 1.90 to 1.104."""
    return utils.allowed((1, 90)) and not utils.allowed((1, 105))


def check_smart_nic(values, link):
    """A Smart NIC port names its port and host in its link (400), if
    it has one (``link``: the link as given, None for none)."""
    if not values.get('is_smartnic') or link is None:
        return
    if next(iter(_LINK_VALIDATORS['smart_nic'].iter_errors(link)),
            None) is not None:
        raise utils.BadRequest('Smart NIC port must have port_id and '
                               'hostname in local_link_connection')


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
        if key == 'is_smartnic' and 'local_link_connection' in values:
            # Checked next, in Ironic's order.
            values['local_link_connection'] = _check_local_link(
                values['local_link_connection'])
    for key, value in values.items():
        node_schema.check_text(key, value)
        utils.check_stored_size(key, value)
    for key in ('extra', 'properties'):
        if key in values and values[key] is None:
            values[key] = {}
    check_smart_nic(values, document.get('local_link_connection'))
    return values
