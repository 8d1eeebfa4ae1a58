"""``/v1/shards`` (1.82): the shards nodes are in, with how many nodes
each has, most populated first.

Routes (``routes.ROUTES``)::

    GET /v1/shards    list (no paging: one row per shard)

As Ironic's, the query string is ignored. Ironic lists the nodes without
a shard under the name "None" (a string its own response schema cannot
tell from a shard so named); here they are left out: they are in no
shard.
"""

import webob.exc

from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import utils
from allocsvc import objects

FIRST_VERSION = (1, 82)


def gate():
    """404 before 1.82, as a resource that does not exist yet."""
    if not base.api_version() >= FIRST_VERSION:
        raise webob.exc.HTTPNotFound()


def list_shards():
    access.authorize('baremetal:shards:get')
    return {'shards': [
        {'name': name, 'count': count}
        for name, count in objects.Node.shard_counts(utils.context())
        if name is not None]}
