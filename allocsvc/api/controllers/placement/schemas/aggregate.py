"""Schemas for /resource_providers/{uuid}/aggregates."""

import copy

_AGGREGATES = {
    'type': 'array',
    # maxLength: uuid-like strings can be longer than the 36 characters
    # the table holds ("{...}" with dashes).
    'items': {'type': 'string', 'format': 'uuid', 'maxLength': 36},
    'uniqueItems': True,
}

# 1.1 - 1.18: the body is the bare list of aggregate uuids.
PUT_1_1 = copy.deepcopy(_AGGREGATES)

# 1.19: an object carrying the provider generation too.
PUT_1_19 = {
    'type': 'object',
    'properties': {
        'aggregates': copy.deepcopy(_AGGREGATES),
        'resource_provider_generation': {'type': 'integer'},
    },
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}
