"""Backfill through the RPC client (a call over fake://) and errors coming
back over RPC as the allocsvc exceptions the conductor raised; on
SQLite, MariaDB and PostgreSQL.

Scenarios:

* success: an active allocation bound to the deployed node, with the
  node's resource class by default, the node's instance UUID as its
  UUID when given so, and the node pointing back at it;
* every mismatch (not active, maintenance, resource class, traits,
  candidate nodes) is AllocationFailed, 400, with a message naming the
  node and the reason, and leaves no allocation row behind (upstream:
  500 and an ``error`` row);
* clashes are 409 and leave no row: the node runs another instance,
  the UUID is another node's instance, the UUID or the name is taken,
  the node is locked (after the retries);
* an unknown node is NodeNotFound, 404;
* each error arrives as the same class with the same message and
  status as raised in the conductor.
"""

import pytest

from allocsvc import objects
from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import mirror
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes
from tests.functional import conductor_harness

INSTANCE = '0b4c4f0e-0a4f-4b57-9d0b-3c54f2b8d6a1'
OTHER = '5f7d2f0a-8b4e-4d47-9a55-6b1bb7f6c7e2'


@pytest.fixture
def harness(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        node_locked_retry_attempts=1, allocation_backend=allocation_backend))
    harness.conductor = harness.start_conductor()
    yield harness
    harness.stop()


def _deployed(harness, name='deployed', **values):
    values.setdefault('provision_state', states.ACTIVE)
    values.setdefault('traits', ['CUSTOM_A', 'CUSTOM_B'])
    return harness.node(name, **values)


def _backfill(harness, node, **values):
    return harness.rpcapi.backfill_allocation(
        harness.context, values, node.id, harness.conductor.host)


def _rows(harness):
    return db_allocations.list_allocations(harness.context)


def test_backfill(harness):
    node = _deployed(harness, instance_uuid=INSTANCE)
    allocation = _backfill(harness, node, uuid=INSTANCE, name='bf',
                           traits=['CUSTOM_A'], extra={'x': 1},
                           candidate_nodes=[node.uuid])
    assert isinstance(allocation, objects.Allocation)
    assert allocation.state == states.ACTIVE
    assert allocation.uuid == INSTANCE
    assert allocation.node_uuid == node.uuid
    assert allocation.resource_class == 'baremetal'
    assert allocation.extra == {'x': 1}
    assert allocation.conductor_affinity == harness.conductor.conductor_id
    fresh = nodes.get_by_id(harness.context, node.id)
    assert fresh.allocation_uuid == INSTANCE
    assert fresh.instance_uuid == INSTANCE
    assert fresh.reservation is None
    assert fresh.provision_state == states.ACTIVE


def test_backfill_node_without_instance_gets_a_new_uuid(harness):
    node = _deployed(harness)
    allocation = _backfill(harness, node, resource_class='baremetal')
    assert allocation.state == states.ACTIVE
    assert nodes.get_by_id(harness.context, node.id).instance_uuid == \
        allocation.uuid


@pytest.mark.parametrize('node_values, values, reason', [
    ({'provision_state': states.AVAILABLE}, {},
     'its provision state is available, not active'),
    ({'maintenance': True}, {}, 'it is in maintenance'),
    ({}, {'resource_class': 'gpu'},
     'its resource class baremetal is not the requested gpu'),
    ({}, {'traits': ['CUSTOM_A', 'CUSTOM_Z']},
     'it lacks the requested traits CUSTOM_Z'),
    ({}, {'candidate_nodes': [OTHER]},
     'it is not one of the candidate nodes'),
])
def test_mismatch_is_400_and_leaves_no_row(harness, node_values, values,
                                           reason):
    node = _deployed(harness, **node_values)
    with pytest.raises(exception.AllocationFailed) as info:
        _backfill(harness, node, uuid=OTHER, **values)
    assert info.value.status == 400
    assert str(info.value) == (
        'Failed to process allocation %s: Cannot backfill an allocation '
        'for node %s: %s.' % (OTHER, node.uuid, reason))
    assert _rows(harness) == []
    fresh = nodes.get_by_id(harness.context, node.id)
    assert fresh.reservation is None and fresh.allocation_id is None


def test_node_with_another_instance_is_409(harness):
    node = _deployed(harness, instance_uuid=INSTANCE)
    with pytest.raises(exception.NodeAssociated) as info:
        _backfill(harness, node, uuid=OTHER)
    assert info.value.status == 409
    assert str(info.value) == ('Node %s is associated with instance %s.'
                               % (node.uuid, INSTANCE))
    assert _rows(harness) == []


def test_uuid_is_another_nodes_instance_is_409(harness):
    _deployed(harness, 'elsewhere', instance_uuid=INSTANCE)
    node = _deployed(harness)
    with pytest.raises(exception.InstanceAssociated) as info:
        _backfill(harness, node, uuid=INSTANCE)
    assert info.value.status == 409
    assert _rows(harness) == []
    assert nodes.get_by_id(harness.context, node.id).instance_uuid is None


def test_same_node_twice_is_409(harness):
    node = _deployed(harness, instance_uuid=INSTANCE)
    first = _backfill(harness, node, uuid=INSTANCE)
    with pytest.raises(exception.AllocationAlreadyExists) as info:
        _backfill(harness, node, uuid=INSTANCE)
    assert info.value.status == 409
    assert str(info.value) == ('An allocation with UUID %s already exists.'
                               % INSTANCE)
    assert [a.uuid for a in _rows(harness)] == [first.uuid]


def test_duplicate_name_is_409(harness):
    harness.write_allocation(harness.conductor.conductor_id, name='taken')
    node = _deployed(harness)
    with pytest.raises(exception.AllocationDuplicateName) as info:
        _backfill(harness, node, name='taken')
    assert info.value.status == 409
    assert len(_rows(harness)) == 1
    assert nodes.get_by_id(harness.context, node.id).instance_uuid is None


def test_locked_node_is_409(harness):
    node = _deployed(harness)
    node_locks.reserve(harness.context, node.id, 'someone-else')
    with pytest.raises(exception.NodeLocked) as info:
        _backfill(harness, node)
    assert info.value.status == 409
    assert info.value.host == 'someone-else'
    assert _rows(harness) == []


def test_unknown_node_is_404(harness):
    node = _deployed(harness)
    mirror.destroy_node(harness.context, node.id)
    with pytest.raises(exception.NodeNotFound) as info:
        _backfill(harness, node)
    assert info.value.status == 404
    assert str(info.value) == 'Node %d could not be found.' % node.id
