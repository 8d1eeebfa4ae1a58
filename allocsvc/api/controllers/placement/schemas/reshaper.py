"""Schema for POST /reshaper (microversion 1.30).

Inventories as PUT /resource_providers/{uuid}/inventories, keyed by
provider uuid (at least one); allocations as POST /allocations at the
same microversion, except that there may be none at all.
"""

import copy

from allocsvc.api.controllers.placement.schemas import allocation
from allocsvc.api.controllers.placement.schemas import inventory


def _schema(allocations):
    allocations = copy.deepcopy(allocations)
    allocations['minProperties'] = 0
    return {
        'type': 'object',
        'properties': {
            'inventories': {
                'type': 'object',
                'minProperties': 1,
                'patternProperties': {
                    allocation.UUID_PATTERN: inventory.PUT_ALL,
                },
                'additionalProperties': False,
            },
            'allocations': allocations,
        },
        'required': ['inventories', 'allocations'],
        'additionalProperties': False,
    }


POST_1_30 = _schema(allocation.POST_1_28)
POST_1_34 = _schema(allocation.POST_1_34)
POST_1_38 = _schema(allocation.POST_1_38)


def post_schema(want):
    if want >= (1, 38):
        return POST_1_38
    if want >= (1, 34):
        return POST_1_34
    return POST_1_30
