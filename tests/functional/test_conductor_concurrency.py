"""Many clients allocating at once from few nodes, through two
conductors (in-process, fake:// RPC), on SQLite, MariaDB and PostgreSQL.

50 client threads each write an allocation as the API does, cast it,
and wait for it; 20 nodes. Afterwards: every allocation is active or
error (none left allocating), error only because nodes ran out (with
Ironic's words), each node in at most one allocation and every node
taken, each active allocation's node pointing back at it, no node lock
left behind. On SQLite this is the embedded default's load: writers
queue on the database lock instead of failing.
"""

import concurrent.futures
import threading

from allocsvc.common import states
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import nodes
from tests.functional import conductor_harness
from tests.helpers import waiting

CLIENTS = 50
NODES = 20
NOTHING_LEFT = ('no available nodes match', 'could not reserve any of',
                'all nodes were filtered out during reservation')


def test_many_clients_few_nodes(database):
    harness = conductor_harness.Harness()
    try:
        harness.start_conductor('one')
        harness.start_conductor('two')
        made = harness.nodes(NODES, traits=['CUSTOM_RACE'])
        barrier = threading.Barrier(CLIENTS)

        def client(index):
            barrier.wait()
            allocation = harness.allocate(traits=['CUSTOM_RACE'],
                                          name='race-%d' % index)
            return harness.final(allocation.id)

        with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
            finals = list(pool.map(client, range(CLIENTS)))
    finally:
        harness.stop()

    rows = db_allocations.list_allocations(harness.context)
    assert len(rows) == CLIENTS
    assert not [r for r in rows if r.state == states.ALLOCATING]
    active = [f for f in finals if f.state == states.ACTIVE]
    errors = [f for f in finals if f.state == states.ERROR]
    assert len(active) + len(errors) == CLIENTS
    for failed in errors:
        assert any(sign in failed.last_error for sign in NOTHING_LEFT), \
            failed.last_error
    holders = {}
    for allocation in active:
        assert allocation.node_id not in holders
        holders[allocation.node_id] = allocation
    assert set(holders) == {n.id for n in made}
    # Locks are given back just after each bind commits.
    waiting.wait_for(lambda: not nodes.list_nodes(
        harness.context, filters={'reserved': True}))
    for node in nodes.list_nodes(harness.context):
        assert node.instance_uuid == holders[node.id].uuid
        assert node.allocation_id == holders[node.id].id
