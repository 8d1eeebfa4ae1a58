"""What a chassis document holds and how a chassis request is checked,
with Ironic 39's messages.

Ironic checks a chassis request in layers, each with its own wording,
and a client sees the first that fails, so they are kept apart here in
that order:

1. the arguments (``ironic.common.args``): unknown query parameters,
   then each parameter's type ("Expected UUID for marker: x", "Expected
   an integer for limit: x", "Invalid detail: ..."), and the body
   against the chassis schema ("Schema error for chassis: ..." -- the
   most relevant error, jsonschema's ``best_match``) or the JSON patch
   schema ("Schema error for patch: ...");
2. the request schemas of its OpenAPI work (``ironic.api.validation``):
   "Schema error: ..." with the first error found (the enums of
   ``fields`` and ``sort_dir``, the UUID of the path);
3. the handler's own checks (versions, ``detail``, limits, sort keys).

UUIDs are checked as the rest of allocsvc checks them (``utils.is_uuid``:
36 characters at most, hex digits and dashes), not as loosely as Ironic
(which stores ``{...}`` and ``urn:uuid:`` forms as given).
"""

import jsonschema

from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import utils

# A chassis document's fields, in the order Ironic renders them.
FIELDS = ('uuid', 'created_at', 'updated_at', 'description', 'extra',
          'links', 'nodes')
# What a list shows without ``fields`` or ``detail``.
LIST_FIELDS = ('uuid', 'description')
# What PATCH may change, as Ironic names them when it refuses another.
PATCHABLE = ('uuid', 'extra', 'description')
# A field that exists but cannot order a list (Ironic's list).
UNSORTABLE = ('extra',)

DESCRIPTION_MAX_LENGTH = 255

# The chassis schema of a POST body and of a patched chassis.
CHASSIS = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']},
        'extra': {'type': ['object', 'null']},
        'description': {'type': ['string', 'null'],
                        'maxLength': DESCRIPTION_MAX_LENGTH},
    },
    'additionalProperties': False,
}

# A JSON patch (Ironic's ``args.patch``): only add, replace and remove,
# paths of word characters and dashes.
PATCH = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'path': {'type': 'string', 'pattern': '^(/[\\w-]+)+$'},
            'op': {'type': 'string', 'enum': ['add', 'replace', 'remove']},
            'value': {},
        },
        'additionalProperties': False,
        'required': ['op', 'path'],
    },
}

_QUERY_FIELDS = {'type': 'array', 'items': {'enum': sorted(FIELDS)}}
_SORT_DIR = {'type': 'string', 'enum': ['asc', 'desc']}
_UUID = {'type': 'string', 'format': 'uuid'}

# The request schemas, in Ironic's property order (the first error found
# is the one reported).
LIST_QUERY = {
    'type': 'object',
    'properties': {
        'detail': {'type': 'boolean'},
        'fields': _QUERY_FIELDS,
        'limit': {'type': 'integer'},
        'marker': _UUID,
        'sort_dir': _SORT_DIR,
        'sort_key': {'type': 'string'},
    },
    'additionalProperties': False,
}
DETAIL_QUERY = {
    'type': 'object',
    'properties': {
        'limit': {'type': 'integer'},
        'marker': _UUID,
        'sort_dir': _SORT_DIR,
        'sort_key': {'type': 'string'},
    },
    'additionalProperties': False,
}
SHOW_QUERY = {
    'type': 'object',
    'properties': {'fields': _QUERY_FIELDS},
    'additionalProperties': False,
}
PATH = {
    'type': 'object',
    'properties': {'chassis_uuid': _UUID},
    'required': ['chassis_uuid'],
    'additionalProperties': False,
}
CREATE_BODY = {
    'type': 'object',
    'properties': {
        'description': {'type': ['string', 'null'],
                        'maxLength': DESCRIPTION_MAX_LENGTH},
        'extra': {'type': ['object', 'null']},
        'uuid': {'type': ['string', 'null'], 'format': 'uuid'},
    },
    'additionalProperties': False,
}
UPDATE_BODY = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'op': {'type': 'string', 'enum': ['add', 'replace', 'remove']},
            'path': {'type': 'string', 'pattern': '^(/[\\w-]+)+$'},
            'value': {},
        },
        'required': ['op', 'path'],
        'additionalProperties': False,
    },
}

_LATEST = jsonschema.Draft202012Validator
_UUIDS = utils.format_validator('uuid', 'uuid')
_ARGUMENT_VALIDATORS = {id(schema): _LATEST(schema)
                        for schema in (CHASSIS, PATCH)}
_REQUEST_VALIDATORS = {
    id(schema): _LATEST(schema, format_checker=utils.FORMATS)
    for schema in (LIST_QUERY, DETAIL_QUERY, SHOW_QUERY, PATH,
                   CREATE_BODY, UPDATE_BODY)}


def _report(prefix, error):
    """Ironic's wording of a schema error: its message and, for an error
    among choices, the most relevant cause."""
    message = prefix + error.message
    cause = None
    while error.context:
        error = jsonschema.exceptions.best_match(error.context)
        cause = error.message
    if cause is not None:
        message += '. Possible root cause: %s' % cause
    return message


def check_argument(name, schema, value):
    """Layer 1: ``value`` (not None) against ``schema`` (CHASSIS or
    PATCH), the most relevant error as "Schema error for <name>: ..."."""
    if value is None:
        return
    error = jsonschema.exceptions.best_match(
        _ARGUMENT_VALIDATORS[id(schema)].iter_errors(value))
    if error is not None:
        raise utils.BadRequest(_report('Schema error for %s: ' % name,
                                       error))


def check_request(schema, value):
    """Layer 2: ``value`` against a request schema, the first error as
    "Schema error: ..."."""
    error = next(iter(_REQUEST_VALIDATORS[id(schema)].iter_errors(value)),
                 None)
    if error is not None:
        raise utils.BadRequest(_report('Schema error: ', error))


# -- layer 1: Ironic's argument validators -----------------------------------

def integer(name, value):
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise utils.BadRequest('Expected an integer for %s: %s'
                               % (name, value))


boolean = utils.strict_bool


def string_list(value):
    """A comma-separated list: its items lower-cased, each once, in
    order (Ironic's ``string_list``)."""
    if value is None:
        return None
    items = []
    for item in value.split(','):
        item = item.strip().lower()
        if item and item not in items:
            items.append(item)
    return items


def check_document(name, document):
    """A chassis document (a POST body, or a chassis after a patch) as
    Ironic checks it: the schema, then the UUID. Beyond Ironic, a value
    with a NUL character or too large for its column is refused (400)
    rather than stored differently by each database."""
    check_argument(name, CHASSIS, document)
    if document is None:
        return None
    utils.check_formats(_UUIDS, document,
                        'Expected UUID for %(name)s: %(value)s')
    for key, value in document.items():
        node_schema.check_text(key, value)
        utils.check_stored_size(key, value)
    return document
