"""Schemas for the GET /usages query string."""

import copy

# External ids as the projects and users tables hold them; no NUL byte,
# which no backend can compare (PostgreSQL refuses it outright).
_EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255,
                'pattern': '^[^\x00]*$'}

GET_1_9 = {
    'type': 'object',
    'properties': {
        'project_id': _EXTERNAL_ID,
        'user_id': _EXTERNAL_ID,
    },
    'required': ['project_id'],
    'additionalProperties': False,
}

# 1.38: filter and group by consumer type. A type name, or "all" (one
# group for everything) or "unknown" (only consumers without a type). The
# pattern is Placement's, which lets anything starting with "all" through
# (it then matches no type).
GET_1_38 = copy.deepcopy(GET_1_9)
GET_1_38['properties']['consumer_type'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': '^[A-Z0-9_]+$|^all|^unknown$',
}
