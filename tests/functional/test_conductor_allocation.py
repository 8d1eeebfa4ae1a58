"""The allocation algorithm end to end: an allocation written as the API
writes it, cast over the fake:// transport to a real conductor service,
finished in its worker pool; on SQLite, MariaDB and PostgreSQL, with
each allocation back end (database and placement).

Scenarios:

* success: the node gets instance_uuid, allocation_id and the traits in
  instance_info, stays available; the allocation is active on it;
* no candidates, with Ironic's messages and the counts of why (see
  test_conductor_explain.py for each reason): no node of the class;
  none of the requested candidate nodes; no node with the traits;
* traits (superset), candidate_nodes, owner/lessee choose the node;
* a node named like the allocation is preferred;
* locked nodes are retried, then "could not reserve"; a lock released
  between retries is taken; nodes that stop fitting under the lock:
  "all nodes were filtered out during reservation";
* the allocation taken over by another conductor, or deleted, while it
  waits for a locked node: the work stops, nothing is written, no lock
  is kept;
* an unexpected exception: error "Unexpected exception during
  allocation: ...", never left allocating;
* the API's client: pick_conductor chooses a live conductor, 503 with
  none.
"""

import pytest

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import allocations
from allocsvc.conductor import backends
from allocsvc.conductor import mirror
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import conductors
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes
from tests.functional import conductor_harness
from tests.helpers import waiting


@pytest.fixture
def harness(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        allocation_backend=allocation_backend))
    harness.conductor = harness.start_conductor()
    yield harness
    harness.stop()


def test_allocates_a_node(harness):
    made = harness.nodes(3)
    allocation = harness.allocate(traits=[], extra={'k': 'v'})
    final = harness.final(allocation.id)
    assert final.state == states.ACTIVE
    assert final.last_error is None
    assert final.node_uuid in {n.uuid for n in made}
    node = nodes.get_by_uuid(harness.context, final.node_uuid)
    assert node.instance_uuid == final.uuid
    assert node.allocation_id == final.id
    assert node.allocation_uuid == final.uuid
    assert node.instance_info['traits'] == []
    assert node.provision_state == states.AVAILABLE
    # The lock is given back just after the bind commits.
    waiting.wait_for(lambda: nodes.get_by_uuid(
        harness.context, final.node_uuid).reservation is None)
    assert final.conductor_affinity == harness.conductor.conductor_id


def test_no_node_of_the_class(harness):
    harness.nodes(2, rc='other')
    allocation = harness.allocate(rc='gpu')
    final = harness.final(allocation.id)
    assert final.state == states.ERROR
    assert final.node_id is None
    assert final.last_error == (
        'Failed to process allocation %s: no available nodes match the '
        'resource class gpu (no node has resource class gpu).' % final.uuid)


def test_none_of_the_candidates(harness):
    busy = harness.node('busy', provision_state=states.MANAGEABLE)
    harness.node('free')
    allocation = harness.allocate(candidate_nodes=[busy.uuid])
    final = harness.final(allocation.id)
    assert final.state == states.ERROR
    assert final.last_error == (
        'Failed to process allocation %s: none of the requested nodes are '
        'available and match the resource class baremetal (2 nodes have '
        'resource class baremetal: 1 not available, 1 not among the '
        'candidate nodes).' % final.uuid)


def test_nodes_never_allocated(harness):
    # Each is excluded for one reason: maintenance, no power state, an
    # instance, not available.
    harness.node('m', maintenance=True)
    harness.node('p', power_state=None)
    harness.node('i', instance_uuid='3e6ab1b4-3f5e-4b0c-8a5c-b3c9d5b0c9a1')
    harness.node('e', provision_state=states.ENROLL)
    final = harness.final(harness.allocate().id)
    assert final.state == states.ERROR
    assert final.last_error == (
        'Failed to process allocation %s: no available nodes match the '
        'resource class baremetal (4 nodes have resource class baremetal: '
        '1 not available, 1 in maintenance, 1 with no power state, 1 '
        'already allocated).' % final.uuid)


def test_traits_select_the_superset(harness):
    harness.node('a', traits=['CUSTOM_A'])
    both = harness.node('ab', traits=['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'])
    final = harness.final(harness.allocate(
        traits=['CUSTOM_B', 'CUSTOM_A']).id)
    assert final.state == states.ACTIVE
    assert final.node_uuid == both.uuid
    node = nodes.get_by_uuid(harness.context, both.uuid)
    assert sorted(node.instance_info['traits']) == ['CUSTOM_A', 'CUSTOM_B']


def test_no_node_has_the_traits(harness):
    harness.node('a', traits=['CUSTOM_A'])
    final = harness.final(harness.allocate(
        traits=['CUSTOM_Z', 'CUSTOM_A']).id)
    assert final.state == states.ERROR
    assert final.last_error == (
        'Failed to process allocation %s: no suitable nodes have the '
        'requested traits CUSTOM_A, CUSTOM_Z (1 node has resource class '
        'baremetal: 1 missing trait CUSTOM_Z).' % final.uuid)


def test_candidate_nodes(harness):
    made = harness.nodes(6)
    chosen = {made[1].uuid, made[4].uuid}
    got = set()
    for _ in range(2):
        final = harness.final(harness.allocate(
            candidate_nodes=sorted(chosen)).id)
        assert final.state == states.ACTIVE
        got.add(final.node_uuid)
    assert got == chosen
    final = harness.final(harness.allocate(candidate_nodes=sorted(chosen)).id)
    assert final.state == states.ERROR
    assert 'none of the requested nodes' in final.last_error


def test_owner_or_lessee(harness):
    harness.node('theirs', owner='other')
    owned = harness.node('owned', owner='p1')
    leased = harness.node('leased', owner='other', lessee='p1')
    got = {harness.final(harness.allocate(owner='p1').id).node_uuid
           for _ in range(2)}
    assert got == {owned.uuid, leased.uuid}
    final = harness.final(harness.allocate(owner='p1').id)
    assert final.state == states.ERROR


def test_node_named_like_the_allocation_first(harness):
    made = harness.nodes(20)
    for index in (3, 11, 17):
        final = harness.final(harness.allocate(name='node-%d' % index).id)
        assert final.node_uuid == made[index].uuid


# -- locks -------------------------------------------------------------------

def _run(harness, allocation, sleep, attempts=2):
    svc = harness.conductor
    return allocations.allocate(
        harness.context, allocation.id, svc.host, svc.conductor_id,
        retry_attempts=attempts, retry_interval=0, sleep=sleep,
        backend=backends.from_conf(harness.conf))


def test_returns_the_allocation_as_bound(harness):
    # The record the algorithm returns is built from its conditional
    # writes, not read back: it must be what the database now holds.
    harness.nodes(2, traits=['CUSTOM_A'])
    allocation = harness.write_allocation(harness.conductor.conductor_id,
                                          traits=['CUSTOM_A'])
    bound = _run(harness, allocation, lambda seconds: None)
    stored = db_allocations.get_by_id(harness.context, allocation.id)
    assert bound.state == states.ACTIVE
    for name in stored.__slots__:
        assert getattr(bound, name) == getattr(stored, name), name


def test_returns_the_allocation_as_failed(harness):
    harness.nodes(1, rc='other')
    allocation = harness.write_allocation(harness.conductor.conductor_id)
    failed = _run(harness, allocation, lambda seconds: None)
    stored = db_allocations.get_by_id(harness.context, allocation.id)
    assert failed.state == states.ERROR
    assert 'no available nodes match' in failed.last_error
    for name in stored.__slots__:
        assert getattr(failed, name) == getattr(stored, name), name


def test_locked_nodes_retried_then_error(harness):
    made = harness.nodes(2)
    for node in made:
        node_locks.reserve(harness.context, node.id, 'someone-else')
    sleeps = []
    allocation = harness.write_allocation(harness.conductor.conductor_id)
    final = _run(harness, allocation, sleeps.append, attempts=3)
    assert len(sleeps) == 3
    assert final.state == states.ERROR
    assert final.last_error == (
        'Failed to process allocation %s: could not reserve any of 2 '
        'suitable nodes (2 nodes have resource class baremetal: 2 locked '
        'or changed while being reserved).' % final.uuid)
    for node in made:
        assert nodes.get_by_id(harness.context, node.id).reservation == \
            'someone-else'


def test_locked_nodes_retried_through_the_pool(harness):
    node = harness.node('only')
    node_locks.reserve(harness.context, node.id, 'someone-else')
    final = harness.final(harness.allocate().id)
    assert final.state == states.ERROR
    assert 'could not reserve any of 1 suitable nodes' in final.last_error


def test_lock_released_between_retries_is_taken(harness):
    node = harness.node('only')
    node_locks.reserve(harness.context, node.id, 'someone-else')
    allocation = harness.write_allocation(harness.conductor.conductor_id)

    def sleep(_interval):
        node_locks.release(harness.context, node.id, 'someone-else')

    final = _run(harness, allocation, sleep)
    assert final.state == states.ACTIVE
    assert final.node_uuid == node.uuid
    assert nodes.get_by_id(harness.context, node.id).reservation is None


def test_node_changed_under_the_lock_is_skipped(harness):
    node = harness.node('only')
    node_locks.reserve(harness.context, node.id, 'someone-else')
    allocation = harness.write_allocation(harness.conductor.conductor_id)

    def sleep(_interval):
        # The holder put the node in maintenance, then let it go.
        mirror.update_node(harness.context, node.id, {'maintenance': True})
        node_locks.release(harness.context, node.id, 'someone-else')

    final = _run(harness, allocation, sleep)
    assert final.state == states.ERROR
    # Counted now, under what changed.
    assert final.last_error == (
        'Failed to process allocation %s: all nodes were filtered out '
        'during reservation (1 node has resource class baremetal: 1 in '
        'maintenance).' % final.uuid)


def test_taken_over_while_waiting_stops(harness):
    node = harness.node('only')
    node_locks.reserve(harness.context, node.id, 'someone-else')
    me = harness.conductor.conductor_id
    other = conductors.register(harness.context, 'other-' + harness.tag)
    allocation = harness.write_allocation(me)

    def sleep(_interval):
        assert db_allocations.take_over(harness.context, allocation.id, me,
                                        other.id)
        node_locks.release(harness.context, node.id, 'someone-else')

    assert _run(harness, allocation, sleep) is None
    record = harness.get(allocation.id)
    assert record.state == states.ALLOCATING
    assert record.conductor_affinity == other.id
    assert record.last_error is None
    fresh = nodes.get_by_id(harness.context, node.id)
    assert fresh.reservation is None and fresh.instance_uuid is None


def test_not_owner_does_nothing(harness):
    harness.node('only')
    other = conductors.register(harness.context, 'other-' + harness.tag)
    allocation = harness.write_allocation(other.id)
    assert _run(harness, allocation, lambda _: None) is None
    assert harness.get(allocation.id).state == states.ALLOCATING


def test_deleted_while_waiting_stops(harness):
    node = harness.node('only')
    node_locks.reserve(harness.context, node.id, 'someone-else')
    allocation = harness.write_allocation(harness.conductor.conductor_id)

    def sleep(_interval):
        mirror.destroy_allocation(harness.context, allocation.id)
        node_locks.release(harness.context, node.id, 'someone-else')

    assert _run(harness, allocation, sleep) is None
    with pytest.raises(exception.AllocationNotFound):
        harness.get(allocation.id)
    fresh = nodes.get_by_id(harness.context, node.id)
    assert fresh.reservation is None and fresh.instance_uuid is None


def test_deleted_before_it_runs(harness):
    harness.node('only')
    allocation = harness.write_allocation(harness.conductor.conductor_id)
    mirror.destroy_allocation(harness.context, allocation.id)
    assert _run(harness, allocation, lambda _: None) is None


def test_finished_allocation_is_not_run_again(harness):
    harness.nodes(2)
    final = harness.final(harness.allocate().id)
    again = _run(harness, final, lambda _: None)
    assert again is None
    assert harness.get(final.id).node_id == final.node_id


# -- failures ----------------------------------------------------------------

def test_unexpected_exception_is_an_error(harness, monkeypatch):
    harness.nodes(1)

    def broken(*args, **kwargs):
        raise RuntimeError('the database caught fire')

    monkeypatch.setattr(backends, 'find', broken)
    final = harness.final(harness.allocate().id)
    assert final.state == states.ERROR
    # The exception's own text is for the log, not for the user.
    assert final.last_error == (
        'Unexpected exception during allocation: an internal error '
        '(RuntimeError) that the conductor logged; delete the allocation '
        'and create it again')


def test_instance_uuid_in_use_elsewhere_fails(harness):
    harness.node('free')
    allocation = harness.write_allocation(harness.conductor.conductor_id)
    # Another node already runs an instance with the allocation's UUID.
    harness.node('busy', provision_state=states.ACTIVE,
                 instance_uuid=allocation.uuid)
    final = _run(harness, allocation, lambda _: None)
    assert final.state == states.ERROR
    assert 'is already associated with a node' in final.last_error


# -- the API's client --------------------------------------------------------

def test_pick_conductor_chooses_a_live_one(harness):
    conductors.register(harness.context, 'dead-' + harness.tag)
    conductors.unregister(harness.context, 'dead-' + harness.tag)
    for _ in range(5):
        picked = harness.rpcapi.pick_conductor(harness.context)
        assert picked.hostname == harness.conductor.host
        assert picked.alive


def test_no_conductor_is_503(harness):
    harness.conductor.stop()
    with pytest.raises(exception.NoConductorAvailable) as info:
        harness.rpcapi.pick_conductor(harness.context)
    assert info.value.status == 503
