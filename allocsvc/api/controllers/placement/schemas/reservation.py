"""The bodies and query of ``/reservations``, an allocsvc extension:
capacity held for a project over a window (``allocsvc.placement.
reservations``).

Times are ISO 8601 date-times; one without a UTC offset is UTC.
"""

from allocsvc.api.controllers.placement.schemas import group_claim

_TEXT = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': '^[^\\x00]*$'}
_TIME = {'type': 'string', 'minLength': 1, 'maxLength': 64}
_UUID = {'type': 'string', 'format': 'uuid'}
_CLASS = '^[A-Z0-9_]+$'

CREATE = {
    'type': 'object',
    'properties': {
        # Either what to hold (resources), or a candidates query and how
        # many of its slots (query, count, and a group claim's spread and
        # order).
        'query': group_claim.CLAIM['properties']['query'],
        'count': {'type': 'integer', 'minimum': 1, 'maximum': 1000},
        'spread': group_claim.CLAIM['properties']['spread'],
        'order': group_claim.CLAIM['properties']['order'],
        'uuid': _UUID,
        'project_id': _TEXT,
        'start': _TIME,
        'end': _TIME,
        'resources': {
            'type': 'object',
            'minProperties': 1,
            'maxProperties': 1000,
            'patternProperties': {
                '^[0-9a-fA-F-]{36}$': {
                    'type': 'object',
                    'properties': {
                        'resources': {
                            'type': 'object',
                            'minProperties': 1,
                            'patternProperties': {
                                _CLASS: {'type': 'integer', 'minimum': 1,
                                         'maximum': 2147483647},
                            },
                            'additionalProperties': False,
                        },
                    },
                    'required': ['resources'],
                    'additionalProperties': False,
                },
            },
            'additionalProperties': False,
        },
    },
    'required': ['start', 'end'],
    'oneOf': [
        {'required': ['resources'],
         'not': {'anyOf': [{'required': [name]} for name in
                           ('query', 'count', 'spread', 'order')]}},
        {'required': ['query', 'count'],
         'not': {'required': ['resources']}},
    ],
    'additionalProperties': False,
}

UPDATE = {
    'type': 'object',
    'properties': {
        'start': _TIME,
        'end': _TIME,
    },
    'minProperties': 1,
    'additionalProperties': False,
}

LIST = {
    'type': 'object',
    'properties': {
        'project_id': _TEXT,
        'resource_provider': _UUID,
        'start': _TIME,
        'end': _TIME,
    },
    'additionalProperties': False,
}

AVAILABILITY = {
    'type': 'object',
    'properties': {
        'resources': {'type': 'string', 'minLength': 1, 'maxLength': 4096},
        'resource_provider': _UUID,
        'start': _TIME,
        'end': _TIME,
    },
    'required': ['resources', 'start', 'end'],
    'additionalProperties': False,
}
