"""Schemas for PUT /allocations/{consumer_uuid} and POST /allocations.

Each microversion's schema is derived from the one before it:

1.0   PUT: a list of {resource_provider: {uuid}, resources}
1.8   PUT: project_id and user_id required
1.12  PUT: allocations keyed by provider uuid (as GET shows them)
1.13  POST: several consumers, each as PUT 1.12; empty allocations allowed
1.28  consumer_generation required (null: "I expect a new consumer"),
      and PUT may send empty allocations too
1.34  mappings accepted (at least one group; otherwise ignored)
1.38  consumer_type required
"""

import copy

# Placement's loose uuid pattern for keys (36 hex digits and dashes).
UUID_PATTERN = '^[0-9a-fA-F-]{36}$'
RC_PATTERN = '^[A-Z0-9_]+$'
CONSUMER_TYPE_PATTERN = '^[A-Z0-9_]+$'
GROUP_PATTERN = '^[a-zA-Z0-9_-]{1,64}$'

# Project and user external ids; no NUL byte, which PostgreSQL refuses.
_EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255,
                'pattern': '^[^\x00]*$'}

_RESOURCES = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        RC_PATTERN: {'type': 'integer', 'minimum': 1,
                     'maximum': 2147483647},
    },
    'additionalProperties': False,
}

PUT_1_0 = {
    'type': 'object',
    'properties': {
        'allocations': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'resource_provider': {
                        'type': 'object',
                        'properties': {
                            'uuid': {'type': 'string', 'format': 'uuid',
                                     'maxLength': 36},
                        },
                        'required': ['uuid'],
                        'additionalProperties': False,
                    },
                    'resources': _RESOURCES,
                },
                'required': ['resource_provider', 'resources'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['allocations'],
    'additionalProperties': False,
}

PUT_1_8 = copy.deepcopy(PUT_1_0)
PUT_1_8['properties']['project_id'] = _EXTERNAL_ID
PUT_1_8['properties']['user_id'] = _EXTERNAL_ID
PUT_1_8['required'].extend(['project_id', 'user_id'])

PUT_1_12 = {
    'type': 'object',
    'properties': {
        'allocations': {
            'type': 'object',
            'minProperties': 1,
            'patternProperties': {
                UUID_PATTERN: {
                    'type': 'object',
                    'properties': {
                        # Shown by GET; accepted and ignored for symmetry.
                        'generation': {'type': 'integer'},
                        'resources': _RESOURCES,
                    },
                    'required': ['resources'],
                    'additionalProperties': False,
                },
            },
            'additionalProperties': False,
        },
        'project_id': _EXTERNAL_ID,
        'user_id': _EXTERNAL_ID,
    },
    'required': ['allocations', 'project_id', 'user_id'],
    'additionalProperties': False,
}

# One consumer of POST /allocations: its allocations may be empty (they
# are then removed).
_DELETABLE = copy.deepcopy(PUT_1_12)
_DELETABLE['properties']['allocations']['minProperties'] = 0


def _post(consumer_schema):
    return {
        'type': 'object',
        'minProperties': 1,
        'patternProperties': {UUID_PATTERN: consumer_schema},
        'additionalProperties': False,
    }


POST_1_13 = _post(_DELETABLE)

PUT_1_28 = copy.deepcopy(_DELETABLE)
# Compared in Python only: any integer is allowed (a wrong one is a 409).
PUT_1_28['properties']['consumer_generation'] = {
    'type': ['integer', 'null']}
PUT_1_28['required'].append('consumer_generation')
POST_1_28 = _post(PUT_1_28)

# At least one request group; Placement lets any suffix through (no
# additionalProperties, and the unsuffixed group is ''), but a value
# must be a non-empty list of provider uuids.
_MAPPINGS = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        GROUP_PATTERN: {
            'type': 'array',
            'minItems': 1,
            'items': {'type': 'string', 'format': 'uuid'},
        },
    },
}
PUT_1_34 = copy.deepcopy(PUT_1_28)
PUT_1_34['properties']['mappings'] = _MAPPINGS
POST_1_34 = _post(PUT_1_34)

PUT_1_38 = copy.deepcopy(PUT_1_34)
PUT_1_38['properties']['consumer_type'] = {
    'type': 'string', 'pattern': CONSUMER_TYPE_PATTERN, 'minLength': 1,
    'maxLength': 255}
PUT_1_38['required'].append('consumer_type')
POST_1_38 = _post(PUT_1_38)


def put_schema(want):
    """The PUT /allocations/{consumer_uuid} schema for microversion
    ``want``."""
    for version, schema in (((1, 38), PUT_1_38), ((1, 34), PUT_1_34),
                            ((1, 28), PUT_1_28), ((1, 12), PUT_1_12),
                            ((1, 8), PUT_1_8)):
        if want >= version:
            return schema
    return PUT_1_0


def post_schema(want):
    """The POST /allocations schema for microversion ``want`` (1.13+)."""
    for version, schema in (((1, 38), POST_1_38), ((1, 34), POST_1_34),
                            ((1, 28), POST_1_28)):
        if want >= version:
            return schema
    return POST_1_13
