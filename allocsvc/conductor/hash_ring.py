"""Which conductor a node belongs to.

As in Ironic, a node is served by a conductor of its conductor group that
has the node's driver (hardware type), chosen by a consistent hash ring
of those conductors on the node's UUID (``tooz.hashring``): the choice is
the same in every process that sees the same live conductors, and moves
only the nodes of a conductor that comes or goes. allocsvc adds one rule
before the ring: a node whose owner (``conductor_affinity``) is alive
belongs to its owner.

``conductor_for`` is what the API shows as a node's ``conductor`` (API
1.49), what its ``conductor`` filter matches, and where the RPC client
(``rpcapi``) sends the node's writes, so the field tells the truth. It
takes the live conductors as read by the caller, who caches them briefly
(``rpcapi.ConductorAPI.live_conductors``).
"""

import threading

from tooz import hashring

# Ironic's default: 2 ** [DEFAULT] hash_partition_exponent (5).
PARTITIONS = 2 ** 5

# Rings kept, by their sorted host names; a new set of live conductors
# builds a new ring. Bounded: the sets seen come and go with conductors.
_MAX_RINGS = 64
_rings = {}
_rings_lock = threading.Lock()


def _ring(hosts):
    with _rings_lock:
        ring = _rings.get(hosts)
        if ring is None:
            if len(_rings) >= _MAX_RINGS:
                _rings.clear()
            ring = _rings[hosts] = hashring.HashRing(hosts,
                                                     partitions=PARTITIONS)
        return ring


def candidates(alive, conductor_group, driver):
    """The conductors of ``alive`` that may serve a node of
    ``conductor_group`` and ``driver``."""
    group = conductor_group or ''
    return [c for c in alive
            if (c.conductor_group or '') == group and driver in (c.drivers
                                                                 or ())]


def conductor_for(alive, node):
    """The conductor (one of ``alive``, the live conductors) of ``node``
    (anything with ``uuid``, ``driver``, ``conductor_group`` and
    ``conductor_affinity``): its owner if alive, else the ring's choice
    among the candidates; None if there is none."""
    for conductor in alive:
        if conductor.id == node.conductor_affinity:
            return conductor
    by_host = {c.hostname: c
               for c in candidates(alive, node.conductor_group, node.driver)}
    if not by_host:
        return None
    ring = _ring(tuple(sorted(by_host)))
    [host] = ring.get_nodes(node.uuid.encode('utf-8'))
    return by_host[host]
