"""Schemas for /resource_providers."""

import copy

_UUID = {'type': 'string', 'format': 'uuid'}
# Any text but a NUL byte, which PostgreSQL cannot store or compare.
_NAME = {'type': 'string', 'maxLength': 200, 'pattern': r'^[^\x00]*$'}

POST_1_0 = {
    'type': 'object',
    'properties': {'name': _NAME, 'uuid': _UUID},
    'required': ['name'],
    'additionalProperties': False,
}
# 1.14: nested providers.
POST_1_14 = copy.deepcopy(POST_1_0)
POST_1_14['properties']['parent_provider_uuid'] = {
    'anyOf': [_UUID, {'type': 'null'}]}

PUT_1_0 = copy.deepcopy(POST_1_0)
del PUT_1_0['properties']['uuid']
PUT_1_14 = copy.deepcopy(PUT_1_0)
PUT_1_14['properties']['parent_provider_uuid'] = {
    'anyOf': [_UUID, {'type': 'null'}]}

# Query strings. Values are strings, or lists of strings for parameters
# that may be repeated at the request's microversion.
_STR = {'type': 'string'}
_STR_LIST = {'type': 'array', 'items': _STR}

LIST_1_0 = {
    'type': 'object',
    'properties': {'name': _NAME, 'uuid': _UUID},
    'additionalProperties': False,
}
# 1.3: member_of (repeatable from 1.24: parsed as a list, checked later).
LIST_1_3 = copy.deepcopy(LIST_1_0)
LIST_1_3['properties']['member_of'] = _STR_LIST
# 1.4: resources.
LIST_1_4 = copy.deepcopy(LIST_1_3)
LIST_1_4['properties']['resources'] = _STR
# 1.14: in_tree.
LIST_1_14 = copy.deepcopy(LIST_1_4)
LIST_1_14['properties']['in_tree'] = _UUID
# 1.18: required (repeatable from 1.39).
LIST_1_18 = copy.deepcopy(LIST_1_14)
LIST_1_18['properties']['required'] = _STR_LIST


def list_schema(want):
    for version, schema in (((1, 18), LIST_1_18), ((1, 14), LIST_1_14),
                            ((1, 4), LIST_1_4), ((1, 3), LIST_1_3)):
        if want >= version:
            return schema
    return LIST_1_0
