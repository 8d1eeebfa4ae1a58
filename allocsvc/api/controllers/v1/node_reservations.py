"""``GET /v1/nodes/{node}/reservations``, an allocsvc extension: who
holds the node, and until when.

A node is a resource provider (its uuid is the provider's), and a
Placement reservation on it makes it its project's alone during the
window (``allocsvc.placement.reservations``). The node's own document
keeps Ironic's fields; this path, below the node where no Ironic
resource is and no name can reach, lists the reservations holding it
now or later, oldest window first: ``uuid``, ``project_id``,
``start``, ``end``, ``active``.
"""

from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import utils
from allocsvc.placement import reservations

FIRST_VERSION = (1, 52)


def _iso(moment):
    return moment.isoformat() + 'Z'


def list_node_reservations(node):
    utils.check_arguments(node_common.query(), ())
    found = node_common.node_for(node, 'baremetal:node:reservations:list')
    at = reservations.now()
    held = reservations.list_(utils.context(), provider_uuid=found.uuid,
                              start=at)
    return {'reservations': [
        {'uuid': r.uuid, 'project_id': r.project_id,
         'start': _iso(r.start), 'end': _iso(r.end),
         'active': r.active(at)} for r in held]}
