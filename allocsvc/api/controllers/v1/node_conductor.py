"""A node's ``conductor`` (API 1.49) and the ``conductor`` list filter.

The conductor of a node is the one its writes are sent to
(``allocsvc.conductor.rpcapi.conductor_for``): its owner while alive,
else the hash ring's choice among the live conductors of its conductor
group that have its driver; null only when there is none. The live
conductors are read once per request, from the conductor client's short
cache when the API has one.
"""

import pecan

from allocsvc import objects
from allocsvc.api.controllers.v1 import conductor as conductor_api
from allocsvc.api.controllers.v1 import utils
from allocsvc.api.middleware import auth
from allocsvc.conductor import rpcapi

_ENV_ALIVE = 'allocsvc.live_conductors'


def live_conductors(fresh=False):
    """The live conductors, as this request sees them (``fresh``: read
    again, past the client's cache)."""
    environ = pecan.request.environ
    alive = environ.get(_ENV_ALIVE)
    if alive is None or fresh:
        client = environ.get(auth.ENV_RPCAPI)
        if client is not None:
            alive = client.live_conductors(utils.context(), fresh=fresh)
        else:
            alive = [c for c in objects.Conductor.list(
                utils.context(),
                conductor_api.heartbeat_timeout(utils.conf())) if c.alive]
        environ[_ENV_ALIVE] = alive
    return alive


def host(node):
    """The host name of the node's conductor, or None."""
    conductor = rpcapi.conductor_for(live_conductors(), node)
    return conductor.hostname if conductor is not None else None


def list_nodes(filters, limit, marker, sort_key, sort_dir):
    """``objects.Node.list`` with the ``conductor`` filter (a host name)
    meaning the node's conductor as ``host`` shows it. The database
    narrows the nodes to the ones that conductor may serve; the ring
    decides among them, page after page until ``limit`` are found."""
    hostname = filters.pop('conductor', None)
    context = utils.context()
    if hostname is None:
        return objects.Node.list(context, filters, limit, marker, sort_key,
                                 sort_dir)
    alive = live_conductors()
    if hostname not in [c.hostname for c in alive]:
        # Perhaps a conductor that came up since the client's cache was
        # filled.
        alive = live_conductors(fresh=True)
    target = [c for c in alive if c.hostname == hostname]
    if not target:
        return []
    target = target[0]
    filters['conductor_candidate'] = {
        'conductor_id': target.id,
        'alive_ids': [c.id for c in alive],
        'conductor_group': target.conductor_group,
        'drivers': list(target.drivers or ()),
    }
    found = []
    while True:
        page = objects.Node.list(context, filters, limit, marker, sort_key,
                                 sort_dir)
        for node in page:
            if rpcapi.conductor_for(alive, node) is target:
                found.append(node)
                if len(found) == limit:
                    return found
        if not limit or len(page) < limit:
            return found
        marker = page[-1].uuid
