"""Schemas for /resource_providers/{uuid}/inventories[/{resource_class}]."""

import copy

MAX_INT = 2147483647
# allocation_ratio lives in MySQL's 4-byte FLOAT column: bounded near the
# largest and the smallest normal single-precision floats, so that every
# backend stores what it is given (MySQL would store 1e-300 as 0).
MAX_FLOAT = 3.40282e+38
MIN_FLOAT = 1.2e-38
RC_PATTERN = '^[A-Z0-9_]+$'

_GENERATION = {'type': 'integer'}


def _int(minimum):
    return {'type': 'integer', 'minimum': minimum, 'maximum': MAX_INT}


_FIELDS = {
    'total': _int(1),
    'reserved': _int(0),
    'min_unit': _int(1),
    'max_unit': _int(1),
    'step_size': _int(1),
    'allocation_ratio': {'type': 'number', 'minimum': MIN_FLOAT,
                         'maximum': MAX_FLOAT},
}

# PUT /resource_providers/{uuid}/inventories/{resource_class}
PUT_ONE = {
    'type': 'object',
    'properties': dict(_FIELDS, resource_provider_generation=_GENERATION),
    'required': ['total', 'resource_provider_generation'],
    'additionalProperties': False,
}

# POST /resource_providers/{uuid}/inventories: the class is in the body and
# no generation is required (one that is sent is ignored, as in Placement).
POST = copy.deepcopy(PUT_ONE)
POST['properties']['resource_class'] = {
    'type': 'string', 'pattern': RC_PATTERN, 'maxLength': 255}
POST['required'] = ['total', 'resource_class']

# One record of PUT /resource_providers/{uuid}/inventories.
_RECORD = copy.deepcopy(PUT_ONE)
_RECORD['required'] = ['total']

PUT_ALL = {
    'type': 'object',
    'properties': {
        'resource_provider_generation': _GENERATION,
        'inventories': {
            'type': 'object',
            'patternProperties': {RC_PATTERN: _RECORD},
            # Placement lets badly named keys through to a failed class
            # lookup; refusing them here gives the same 400, sooner.
            'additionalProperties': False,
        },
    },
    'required': ['resource_provider_generation', 'inventories'],
    'additionalProperties': False,
}
