"""The body of ``POST /v1/allocation_preview``: the four fields of
``POST /v1/allocations`` that choose a node, with their schemas
(``allocation_schema``), ``resource_class`` required, nothing else.

Unlike an allocation's, the preview's schema does not change with the
microversion: ``owner`` is in it at every version, and given below
1.60 it is the 406 an allocation gets (``allocation_preview``).
"""

import copy

import jsonschema

from allocsvc.api.controllers.v1 import allocation_schema
from allocsvc.api.controllers.v1 import utils

FIELDS = ('resource_class', 'traits', 'candidate_nodes', 'owner')

PREVIEW = {
    'type': 'object',
    'properties': {
        name: copy.deepcopy(allocation_schema.POST_1_52['properties'][name])
        for name in FIELDS},
    'required': ['resource_class'],
    'additionalProperties': False,
}
# A preview is of some class: no backfill defaults it to a node's.
PREVIEW['properties']['resource_class'].update(type='string', minLength=1)

_VALIDATOR = jsonschema.Draft202012Validator(PREVIEW)


def validate(body):
    """400 unless ``body`` fits the schema (Ironic's "Schema error: ..."),
    or one of its lists is too large to have been stored; return it."""
    utils.request_schema_error(_VALIDATOR, body)
    for field in ('traits', 'candidate_nodes'):
        allocation_schema.check_json_size(field, body.get(field))
    return body
