"""``POST /v1/allocation_preview`` (from 1.52): which nodes an
allocation could take now, and why the other nodes of its class could
not. An allocsvc extension: Ironic has no such resource, and no Ironic
client sends it.

The body takes the fields of ``POST /v1/allocations`` that choose a
node (``resource_class``, ``traits``, ``candidate_nodes``, ``owner``),
read as an allocation's are: the same schema, the same 406 for
``owner`` below 1.60, the owner the caller's allocation would get
(``access.allocation_create_owner``), candidate nodes named by UUID or
name and the same 400 for those the caller cannot name. A live
conductor, picked as for an allocation, answers with its own allocation
back end (``rpcapi.preview_allocation``); nothing is reserved, so the
answer is what an allocation created now would find, not a promise.

The answer (200)::

    {"resource_class": "baremetal", "traits": [...],
     "candidate_nodes": [<UUIDs>], "owner": null,
     "nodes": [{"uuid": ..., "name": ...}, ...],   # <= 100, by UUID
     "node_count": 3,          # how many it could take
     "nodes_of_class": 12,     # nodes of the class (the caller sees)
     "dropped": [{"reason": "maintenance", "count": 2,
                  "detail": "in maintenance"}, ...],
     "last_error": null}       # or the reason an allocation would fail

``dropped`` lists each reason that ruled a node out, in the algorithm's
order, a node counted once; ``last_error`` is what follows "Failed to
process allocation <uuid>: " in the ``last_error`` of an allocation
created now (without the final dot), None when ``node_count`` is not 0.
A caller who may not list every node (``baremetal:node:list_all``) sees
only its project's nodes, listed and counted.
"""

from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import allocation
from allocsvc.api.controllers.v1 import allocation_preview_schema as schema
from allocsvc.api.controllers.v1 import utils

FIRST_VERSION = allocation.FIRST_VERSION


def preview_allocation(body):
    """``POST /v1/allocation_preview``: 200, the preview."""
    body = schema.validate(utils.json_body(body))
    request = allocation.node_choice(body, 'baremetal:allocation:preview')
    return utils.rpcapi().preview_allocation(
        utils.context(), request, access.preview_project())
