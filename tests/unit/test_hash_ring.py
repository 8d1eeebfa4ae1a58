"""``allocsvc.conductor.hash_ring``: a node's conductor among the live
ones, as pure functions of what the caller read."""

import collections
import uuid

from tooz import hashring

from allocsvc.conductor import hash_ring

C = collections.namedtuple('C', 'id hostname conductor_group drivers')
N = collections.namedtuple('N', 'uuid driver conductor_group '
                                'conductor_affinity')


def _node(group='', affinity=None, driver='fake-hardware'):
    return N(str(uuid.uuid4()), driver, group, affinity)


def _conductors(count, group='', drivers=('fake-hardware',), first=1):
    return [C(first + i, 'c%d%s' % (first + i, group), group, list(drivers))
            for i in range(count)]


def test_no_live_conductor_no_conductor():
    assert hash_ring.conductor_for([], _node()) is None


def test_one_conductor_serves_its_group():
    [only] = _conductors(1)
    assert hash_ring.conductor_for([only], _node()) is only
    # Another group, or a driver it does not have: nobody.
    assert hash_ring.conductor_for([only], _node(group='g')) is None
    assert hash_ring.conductor_for([only], _node(driver='ipmi')) is None


def test_the_ring_is_tooz_on_the_node_uuid():
    alive = _conductors(3)
    ring = hashring.HashRing([c.hostname for c in alive],
                             partitions=hash_ring.PARTITIONS)
    for _ in range(50):
        node = _node()
        [host] = ring.get_nodes(node.uuid.encode())
        assert hash_ring.conductor_for(alive, node).hostname == host
        # The order the caller read them in does not matter.
        assert hash_ring.conductor_for(alive[::-1], node).hostname == host


def test_nodes_spread_and_only_a_dead_conductors_move():
    alive = _conductors(3)
    nodes = [_node() for _ in range(300)]
    before = {n.uuid: hash_ring.conductor_for(alive, n).hostname
              for n in nodes}
    assert set(before.values()) == {c.hostname for c in alive}
    after = {n.uuid: hash_ring.conductor_for(alive[:2], n).hostname
             for n in nodes}
    for node in nodes:
        if before[node.uuid] != alive[2].hostname:
            assert after[node.uuid] == before[node.uuid]


def test_groups_and_drivers_choose_the_candidates():
    plain = _conductors(2)
    rack = _conductors(2, group='rack', first=10)
    other = _conductors(1, group='rack', drivers=('ipmi',), first=20)
    alive = plain + rack + other
    for _ in range(30):
        assert hash_ring.conductor_for(alive, _node()) in plain
        assert hash_ring.conductor_for(alive, _node('rack')) in rack
        assert hash_ring.conductor_for(
            alive, _node('rack', driver='ipmi')) == other[0]


def test_a_live_owner_keeps_its_node():
    alive = _conductors(3)
    for owner in alive:
        for _ in range(10):
            assert hash_ring.conductor_for(
                alive, _node(affinity=owner.id)) is owner
    # Even out of its group: the owner is alive and has the node.
    odd = _conductors(1, group='elsewhere', first=7)
    assert hash_ring.conductor_for(alive + odd,
                                   _node(affinity=7)) is odd[0]
    # A dead owner (not in the list): the ring decides.
    node = _node(affinity=99)
    assert hash_ring.conductor_for(alive, node) is \
        hash_ring.conductor_for(alive, node._replace(conductor_affinity=None))
