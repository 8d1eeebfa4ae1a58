"""Schemas of GET /allocation_candidates/explanation, an allocsvc
extension: the query string it takes and the document it answers.

The query is the one GET /allocation_candidates takes at the request's
microversion (an operator pastes the query a scheduler sent), so its
schema is that one's, version for version. The answer's schema is
written down here for clients and tests to check documents against.
"""

import copy

from allocsvc.api.controllers.placement.schemas import allocation_candidate


_QUERIES = {}


def get_schema(want):
    """The query string's schema at microversion ``want``: a copy of
    the query's, made once (the validator of a schema is kept for as
    long as the schema is the same object)."""
    query = allocation_candidate.get_schema(want)
    found = _QUERIES.get(id(query))
    if found is None:
        found = _QUERIES[id(query)] = copy.deepcopy(query)
    return found


_COUNT = {'type': 'integer', 'minimum': 0}
_TEXT_OR_NULL = {'type': ['string', 'null']}

_STEP = {
    'type': 'object',
    'properties': {
        # The query parameter ('resources', 'required', 'member_of',
        # 'in_tree', 'root_required') or, in the combination, the stage
        # ('groups', 'required', 'group_policy', 'search').
        'filter': {'type': 'string'},
        # The parameter's value as the query gave it, or null.
        'value': _TEXT_OR_NULL,
        # What a provider (or tree) left after the step has, in words.
        'description': {'type': 'string'},
        'providers': _COUNT,
        'trees': _COUNT,
        # The search stage of a query that stopped at its limit: at
        # least that many trees have a candidate.
        'partial': {'type': 'boolean', 'enum': [True]},
    },
    'required': ['filter', 'value', 'description', 'trees'],
    'additionalProperties': False,
}

_EXAMPLE = {
    'type': 'object',
    'properties': {
        'provider': {'type': 'string', 'format': 'uuid'},
        'root_provider': {'type': 'string', 'format': 'uuid'},
        'name': _TEXT_OR_NULL,
        'reason': {'type': 'string'},
    },
    'required': ['name', 'reason'],
    'oneOf': [{'required': ['provider']}, {'required': ['root_provider']}],
    'additionalProperties': False,
}

_BLOCKED = {
    'type': ['object', 'null'],
    'properties': {
        # The index of the blocking step in its list of steps.
        'step': _COUNT,
        'message': {'type': 'string'},
        # How many providers (or trees) the step dropped.
        'dropped': _COUNT,
        'examples': {'type': 'array', 'items': _EXAMPLE, 'maxItems': 5},
    },
    'required': ['step', 'message', 'dropped', 'examples'],
    'additionalProperties': False,
}

RESPONSE = {
    'type': 'object',
    'properties': {
        # How many candidates GET /allocation_candidates returns for
        # the same query (within its limit).
        'allocation_candidates': _COUNT,
        'limit': {'type': ['integer', 'null'], 'minimum': 1},
        # The first blocking step in words, or null when nothing
        # blocked.
        'reason': _TEXT_OR_NULL,
        'request_groups': {
            'type': 'array',
            'items': {
                'type': 'object',
                'properties': {
                    'suffix': {'type': 'string'},
                    'steps': {'type': 'array', 'items': _STEP},
                    'trees': _COUNT,
                    'blocked_by': _BLOCKED,
                },
                'required': ['suffix', 'steps', 'trees', 'blocked_by'],
                'additionalProperties': False,
            },
        },
        'combination': {
            'type': 'object',
            'properties': {
                'steps': {'type': 'array', 'items': _STEP},
                'blocked_by': _BLOCKED,
            },
            'required': ['steps', 'blocked_by'],
            'additionalProperties': False,
        },
    },
    'required': ['allocation_candidates', 'limit', 'reason',
                 'request_groups', 'combination'],
    'additionalProperties': False,
}
