"""The body of POST /allocation_candidates/claim, an allocsvc extension:
a group claim (``allocsvc.placement.group_claims``).

``query`` holds the parameters of a GET /allocation_candidates query (a
string, or a list of strings for a repeated parameter), checked as that
query's at the request's microversion; ``consumers`` the N consumers,
each as POST /allocations takes one without its allocations; ``spread``
and ``order`` how the candidates are chosen.
"""

_TEXT = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': '^[^\\x00]*$'}

CLAIM = {
    'type': 'object',
    'properties': {
        'query': {
            'type': 'object',
            'minProperties': 1,
            'additionalProperties': {
                'anyOf': [
                    {'type': 'string'},
                    {'type': 'array', 'items': {'type': 'string'},
                     'minItems': 1},
                ],
            },
        },
        'consumers': {
            'type': 'object',
            'minProperties': 1,
            'maxProperties': 1000,
            'patternProperties': {
                '^[0-9a-fA-F-]{36}$': {
                    'type': 'object',
                    'properties': {
                        'project_id': _TEXT,
                        'user_id': _TEXT,
                        'consumer_generation': {
                            'type': ['integer', 'null']},
                        'consumer_type': {
                            'type': 'string', 'pattern': '^[A-Z0-9_]+$',
                            'minLength': 1, 'maxLength': 255},
                    },
                    'required': ['project_id', 'user_id',
                                 'consumer_generation'],
                    'additionalProperties': False,
                },
            },
            'additionalProperties': False,
        },
        'spread': {
            'type': 'object',
            'properties': {
                'by': {'type': 'string',
                       'pattern': '^(root|aggregate|trait:[A-Z0-9_]+)$'},
                'max_per_domain': {'type': 'integer', 'minimum': 1,
                                   'maximum': 1000},
                'strict': {'type': 'boolean'},
            },
            'required': ['by'],
            'additionalProperties': False,
        },
        'order': {'type': 'string', 'enum': ['pack', 'spread', 'random']},
    },
    'required': ['query', 'consumers'],
    'additionalProperties': False,
}
