"""Allocation groups and single allocations racing on a small fleet,
through two conductors (in-process, ``inproc://`` RPC), on SQLite,
MariaDB and PostgreSQL, with each allocation back end.

8 groups of 3 and 12 single allocations, each from its own client
thread, on 16 nodes: more is asked for (36) than there is. Afterwards:
nothing is left allocating; every group is either active with 3 members
on 3 nodes or in error with no member holding a node (no partial
group); no node is in two allocations; every active allocation's node
points back at it; no node lock is left behind; under the placement
back end each bound node has exactly its allocation's claim and no
other consumer holds a unit.
"""

import concurrent.futures
import threading

import sqlalchemy as sa

from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import allocation_groups as db_groups
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import nodes as db_nodes
from allocsvc.db import models
from tests.functional import conductor_harness
from tests.helpers import waiting

GROUPS = 8
SIZE = 3
SINGLES = 12
NODES = 16


def test_groups_and_singles_race(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        allocation_backend=allocation_backend))
    clients = GROUPS + SINGLES
    try:
        harness.start_conductor('one')
        harness.start_conductor('two')
        made = harness.nodes(NODES)
        barrier = threading.Barrier(clients)

        def group_client(index):
            barrier.wait()
            conductor = harness.rpcapi.pick_conductor(harness.context)
            group = db_groups.create_group(harness.context, {
                'resource_class': 'baremetal', 'traits': [],
                'candidate_nodes': [], 'count': SIZE,
                'name': 'g-%d' % index,
                'conductor_affinity': conductor.id})
            harness.rpcapi.create_allocation_group(
                harness.context, group, conductor.hostname)

            def done():
                found = db_groups.get_by_id(harness.context, group.id)
                return found if found.state != states.ALLOCATING else None
            return waiting.wait_for(done)

        def single_client(index):
            barrier.wait()
            allocation = harness.allocate(name='s-%d' % index)
            return harness.final(allocation.id)

        with concurrent.futures.ThreadPoolExecutor(clients) as pool:
            groups = [pool.submit(group_client, i) for i in range(GROUPS)]
            singles = [pool.submit(single_client, i)
                       for i in range(SINGLES)]
            groups = [f.result() for f in groups]
            singles = [f.result() for f in singles]
    finally:
        harness.stop()

    ctx = harness.context
    rows = db_allocations.list_allocations(ctx)
    assert len(rows) == GROUPS * SIZE + SINGLES
    assert not [r for r in rows if r.state == states.ALLOCATING]
    by_id = {r.id: r for r in rows}
    for group in groups:
        members = [by_id[m.id] for m in group.members]
        assert len(members) == SIZE
        if group.state == states.ACTIVE:
            assert all(m.state == states.ACTIVE for m in members)
            assert len({m.node_id for m in members}) == SIZE
        else:
            assert group.state == states.ERROR
            assert all(m.state == states.ERROR and m.node_id is None
                       for m in members), group.last_error
    active = [r for r in rows if r.state == states.ACTIVE]
    held = [r.node_id for r in active]
    assert len(held) == len(set(held))
    for allocation in active:
        node = db_nodes.get_by_id(ctx, allocation.node_id)
        assert node.allocation_id == allocation.id
        assert node.instance_uuid == allocation.uuid
    for node in made:
        assert db_nodes.get_by_id(ctx, node.id).reservation is None
    # Something was won by both kinds, and the fleet was used up.
    assert len(active) <= NODES
    claims = models.allocations
    with db_api.get_engine().connect() as conn:
        consumers = [row.consumer_id for row in conn.execute(
            sa.select(claims.c.consumer_id))]
    if allocation_backend == 'placement':
        assert sorted(consumers) == sorted(r.uuid for r in active)
    else:
        assert consumers == []
