"""The body of ``POST /v1/allocations``: its JSON schema per microversion
and the checks that follow it, with Ironic's messages.

The 1.52 schema is Ironic's (every key nullable, ``additionalProperties``
false); 1.58 adds ``node`` (backfill). ``owner`` is in the schema at
every version so that a client asking for it too early gets Ironic's 406
rather than a schema error. Unlike Ironic, ``uuid`` must be a UUID (it
accepts anything, and the allocation then stays ``allocating`` forever)
and ``owner`` fits its column.
"""

import copy
import re

import jsonschema
import os_traits

from allocsvc.api.controllers.v1 import utils

# Ironic's trait rule: a custom name, or a standard one from os-traits.
CUSTOM_TRAIT_PATTERN = r'^%s[A-Z0-9_]+$' % re.escape(
    os_traits.CUSTOM_NAMESPACE)
TRAIT = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'anyOf': [{'pattern': CUSTOM_TRAIT_PATTERN},
              {'enum': sorted(os_traits.get_traits())}],
}


def _nullable(kind, **extra):
    return dict(extra, type=[kind, 'null'])


# Text that goes into a column as is: PostgreSQL stores no NUL character.
NO_NUL = '^[^\u0000]*$'
# JSON columns are TEXT, which holds 64 KiB on MariaDB.
MAX_JSON_BYTES = utils.MAX_TEXT_BYTES


POST_1_52 = {
    'type': 'object',
    'properties': {
        'candidate_nodes': _nullable('array', items={'type': 'string'}),
        'extra': _nullable('object'),
        'name': _nullable('string'),
        # Checked against the version after the schema (406 below 1.60).
        'owner': _nullable('string', maxLength=255, pattern=NO_NUL),
        'resource_class': _nullable('string', maxLength=80,
                                    pattern=NO_NUL),
        'traits': _nullable('array', items=TRAIT),
        'uuid': _nullable('string'),
    },
    'additionalProperties': False,
}

# 1.58: backfill an allocation for an active node.
POST_1_58 = copy.deepcopy(POST_1_52)
POST_1_58['properties']['node'] = _nullable('string')

# The draft of Ironic's request schemas.
_VALIDATORS = {
    (1, 52): jsonschema.Draft202012Validator(POST_1_52),
    (1, 58): jsonschema.Draft202012Validator(POST_1_58),
}


_UUIDS = utils.format_validator('uuid', 'uuid')


def _validator():
    if utils.allowed((1, 58)):
        return _VALIDATORS[(1, 58)]
    return _VALIDATORS[(1, 52)]


def validate_post(body):
    """400 unless ``body`` fits the schema of the request's version and
    its ``uuid`` (when given) is a UUID; return it."""
    utils.request_schema_error(_validator(), body)
    utils.check_formats(_UUIDS, body,
                        'Expected a UUID but received %(value)s.')
    for field in ('extra', 'traits', 'candidate_nodes'):
        check_json_size(field, body.get(field))
    return body


def check_json_size(field, value):
    """400 for a value too large for its JSON column, rather than a
    database error (MariaDB's TEXT holds 64 KiB)."""
    utils.check_stored_size(field, value)


def check_name(name, action='create'):
    """An allocation name (or None) must be a logical name. Unlike Ironic,
    the empty string is refused too: it is not a name anyone can use."""
    if name is not None and not utils.is_valid_logical_name(name):
        raise utils.BadRequest("Cannot %s allocation with invalid name '%s'"
                               % (action, name))
    return name


# PATCH /v1/allocations/{ident}: the fields that may change.
PATCHABLE = ('name', 'extra')

# Ironic's request schema of that PATCH ("Schema error: ...").
PATCH = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'op': {'enum': ['add', 'replace', 'remove']},
            'path': {'type': 'string'},
            'value': {
                'type': ['string', 'object', 'null', 'integer', 'boolean']},
        },
        'required': ['op', 'path'],
        'additionalProperties': False,
    },
}
_PATCH_VALIDATOR = jsonschema.Draft202012Validator(PATCH)


def check_patch(patch):
    """Ironic's request schema of an allocation PATCH, then the rest of
    what a JSON patch must be."""
    utils.request_schema_error(_PATCH_VALIDATOR, patch)
    utils.check_patch(patch)


def check_patch_paths(patch):
    """400 for an operation outside ``/name`` and ``/extra``."""
    for op in patch:
        if utils.patch_root(op) not in PATCHABLE:
            raise utils.BadRequest(
                'Cannot patch %s. Only the following can be updated: %s'
                % (op['path'], ', '.join(PATCHABLE)))


def check_patched(document):
    """The patched ``{name, extra}`` document must still be valid; return
    it with a removed member back at its default (None / {})."""
    name = document.get('name')
    check_name(name, action='update')
    extra = document.get('extra')
    if extra is None:
        extra = {}
    if not isinstance(extra, dict):
        raise utils.BadRequest("Schema error for patch: %r is not of type "
                               "'object', 'null'" % (extra,))
    check_json_size('extra', extra)
    return {'name': name, 'extra': extra}
