"""Schemas of GET /allocation_candidates' query string.

Every parameter reaches the schema as the list of its values (any may be
repeated on the wire; the request parser decides which repeats count).
Each microversion's schema derives from the previous one.
"""

import copy

_LIST = {'type': 'array', 'items': {'type': 'string'}}
_LIMIT = {'type': 'array',
          'items': {'type': 'string', 'pattern': '^[1-9][0-9]*$'}}
_POLICY = {'type': 'array',
           'items': {'type': 'string', 'enum': ['none', 'isolate']}}
_GROUPED = ('resources', 'required', 'member_of')

GET_1_10 = {
    'type': 'object',
    'properties': {'resources': _LIST},
    'required': ['resources'],
    'additionalProperties': False,
}
# 1.16: limit.
GET_1_16 = copy.deepcopy(GET_1_10)
GET_1_16['properties']['limit'] = _LIMIT
# 1.17: required.
GET_1_17 = copy.deepcopy(GET_1_16)
GET_1_17['properties']['required'] = _LIST
# 1.21: member_of.
GET_1_21 = copy.deepcopy(GET_1_17)
GET_1_21['properties']['member_of'] = _LIST
# 1.25: granular groups (numbered suffixes) and group_policy; resources
# is no longer required (a granular group may carry them all).
GET_1_25 = copy.deepcopy(GET_1_21)
for _name in _GROUPED:
    del GET_1_25['properties'][_name]
del GET_1_25['required']
GET_1_25['patternProperties'] = {
    '^%s([1-9][0-9]*)?$' % name: _LIST for name in _GROUPED}
GET_1_25['properties']['group_policy'] = _POLICY
# 1.31: in_tree and in_treeN.
GET_1_31 = copy.deepcopy(GET_1_25)
GET_1_31['patternProperties']['^in_tree([1-9][0-9]*)?$'] = _LIST
# 1.33: suffixes of 1-64 characters [a-zA-Z0-9_-].
GET_1_33 = copy.deepcopy(GET_1_31)
GET_1_33['patternProperties'] = {
    '^%s([a-zA-Z0-9_-]{1,64})?$' % name: _LIST
    for name in _GROUPED + ('in_tree',)}
# 1.35: root_required.
GET_1_35 = copy.deepcopy(GET_1_33)
GET_1_35['properties']['root_required'] = _LIST
# 1.36: same_subtree.
GET_1_36 = copy.deepcopy(GET_1_35)
GET_1_36['properties']['same_subtree'] = _LIST


def get_schema(want):
    for version, schema in (((1, 36), GET_1_36), ((1, 35), GET_1_35),
                            ((1, 33), GET_1_33), ((1, 31), GET_1_31),
                            ((1, 25), GET_1_25), ((1, 21), GET_1_21),
                            ((1, 17), GET_1_17), ((1, 16), GET_1_16)):
        if want >= version:
            return schema
    return GET_1_10
