"""The body of ``POST /v1/allocation_groups`` (an allocsvc extension):
the fields of ``POST /v1/allocations`` that choose a node, with their
schemas (``allocation_schema``), plus the group's own: ``count``,
``member_names`` and ``spread``. ``resource_class`` and ``count`` are
required; nothing else is allowed.

Like the preview's, this schema does not change with the microversion:
``owner`` given below 1.60 is the 406 an allocation gets.
"""

import copy

import jsonschema

from allocsvc.api.controllers.v1 import allocation_schema
from allocsvc.api.controllers.v1 import utils

# The most nodes one group asks for: one request's work stays bounded.
MAX_COUNT = 100
# What ``spread.by`` names: a column, Placement aggregates, or a prefix
# of node traits (``trait:CUSTOM_RACK_``).
SPREAD_BY = '^(conductor_group|aggregate|trait:[A-Z0-9_]+)$'

_ALLOCATION = allocation_schema.POST_1_52['properties']
_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}

POST = {
    'type': 'object',
    'properties': dict(
        {name: copy.deepcopy(_ALLOCATION[name])
         for name in ('resource_class', 'traits', 'candidate_nodes',
                      'owner', 'name')},
        count={'type': 'integer', 'minimum': 1, 'maximum': MAX_COUNT},
        member_names={'type': ['array', 'null'], 'items': _NAME,
                      'maxItems': MAX_COUNT},
        spread={
            'type': ['object', 'null'],
            'properties': {
                'by': {'type': 'string', 'pattern': SPREAD_BY,
                       'maxLength': 255},
                'max_per_domain': {'type': 'integer', 'minimum': 1,
                                   'maximum': MAX_COUNT},
                'strict': {'type': 'boolean'},
            },
            'required': ['by'],
            'additionalProperties': False,
        },
    ),
    'required': ['resource_class', 'count'],
    'additionalProperties': False,
}
# A group is of some class: there is no backfill to default it.
POST['properties']['resource_class'].update(type='string', minLength=1)

_VALIDATOR = jsonschema.Draft202012Validator(POST)


def validate(body):
    """400 unless ``body`` fits the schema (Ironic's "Schema error:
    ..."), its names are logical names, its member names are as many as
    ``count`` at most and all different, and its lists fit their
    columns; return it."""
    utils.request_schema_error(_VALIDATOR, body)
    allocation_schema.check_name(body.get('name'))
    names = body.get('member_names') or []
    for name in names:
        allocation_schema.check_name(name)
    if len(names) > body['count']:
        raise utils.BadRequest('member_names names %d members of a group '
                               'of %d' % (len(names), body['count']))
    if len(set(names)) != len(names):
        raise utils.BadRequest('member_names repeats a name')
    for field in ('traits', 'candidate_nodes'):
        allocation_schema.check_json_size(field, body.get(field))
    return body
