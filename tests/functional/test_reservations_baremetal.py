"""A reservation on node providers, seen by the bare-metal allocation
algorithm: during its window the node is its project's alone, under
either allocation back end (database, Placement), on every database;
another project's allocation takes another node, or fails saying the
node is reserved, and the holder gets it as if it were leased to it;
after the window anyone gets it. ``GET /v1/nodes/{node}/reservations``
shows who holds a node and until when, the node's own document
unchanged.

Nodes are their resource providers (a node's uuid is its provider's),
so the reservation is made on the engine with the node's class as nova
names it. The window starts a minute ago and is ended by shortening it
to a second from now: the conductor runs in this process, but moving
the clock would move its heartbeats too.
"""

import datetime
import time

from oslo_utils import timeutils
import pytest

from allocsvc.common import context as context_mod
from allocsvc.common import states
from allocsvc.db.baremetal import nodes
from allocsvc import objects
from allocsvc.placement import node_providers
from allocsvc.placement import reservations
from tests.functional import conductor_harness


@pytest.fixture
def harness(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        allocation_backend=allocation_backend))
    harness.conductor = harness.start_conductor()
    yield harness
    harness.stop()


def test_a_reserved_node_is_its_holders_during_the_window(harness):
    # Both leased to p2; p1 neither owns nor leases either.
    reserved = harness.node('reserved', lessee='p2')
    spare = harness.node('spare', lessee='p2')
    now = timeutils.utcnow()
    made = reservations.create(
        harness.context, 'p1', now - datetime.timedelta(minutes=1),
        now + datetime.timedelta(hours=1),
        {reserved.uuid: {node_providers.resource_class('baremetal'): 1}})

    other = harness.final(harness.allocate(owner='p2').id)
    assert other.state == states.ACTIVE
    assert other.node_uuid == spare.uuid
    refused = harness.final(harness.allocate(owner='p2').id)
    assert refused.state == states.ERROR
    assert 'reserved for another project now' in refused.last_error
    # Without an owner, nobody's reservation is the allocation's either.
    anonymous = harness.final(harness.allocate().id)
    assert anonymous.state == states.ERROR

    mine = harness.final(harness.allocate(owner='p1').id)
    assert mine.state == states.ACTIVE, mine.last_error
    assert mine.node_uuid == reserved.uuid
    assert nodes.get_by_uuid(harness.context,
                             reserved.uuid).allocation_id == mine.id

    # After the window, anyone gets it.
    harness.rpcapi.destroy_allocation(
        harness.context, objects.Allocation.get_by_id(harness.context,
                                                      mine.id))
    reservations.update(harness.context, made.uuid,
                        end=timeutils.utcnow() + datetime.timedelta(
                            seconds=1))
    time.sleep(1.2)
    after = harness.final(harness.allocate(owner='p2').id)
    assert after.state == states.ACTIVE, after.last_error
    assert after.node_uuid == reserved.uuid


def test_a_node_shows_who_holds_it(database, api_conductor):
    from tests.helpers import v1 as api
    node = api.available(name='held-node', resource_class='baremetal')
    # With a power state, its unit is free to hold.
    assert api.call('PUT', '/v1/nodes/held-node/states/power',
                    {'target': 'power off'}).status_int == 202
    rc = node_providers.resource_class('baremetal')
    ctx = context_mod.get_admin_context()
    now = timeutils.utcnow()
    later = reservations.create(
        ctx, 'p2', now + datetime.timedelta(hours=2),
        now + datetime.timedelta(hours=3), {node['uuid']: {rc: 1}})
    current = reservations.create(
        ctx, 'p1', now - datetime.timedelta(minutes=1),
        now + datetime.timedelta(hours=1), {node['uuid']: {rc: 1}})
    resp = api.call('GET', '/v1/nodes/held-node/reservations')
    assert resp.status_int == 200, resp.text
    found = resp.json['reservations']
    assert [(r['uuid'], r['project_id'], r['active']) for r in found] == [
        (current.uuid, 'p1', True), (later.uuid, 'p2', False)]
    assert found[0]['end'] == current.end.isoformat() + 'Z'
    # Ironic's own document of the node is unchanged.
    shown = api.call('GET', '/v1/nodes/held-node').json
    assert 'reservations' not in shown
    assert api.call('GET', '/v1/nodes/held-node/reservations?x=1'
                    ).status_int == 400
    assert api.call('GET', '/v1/nodes/nope/reservations').status_int == 404
    assert api.call('GET', '/v1/nodes/held-node/reservations',
                    version='1.51').status_int == 404
    assert api.call('POST', '/v1/nodes/held-node/reservations'
                    ).status_int == 405
