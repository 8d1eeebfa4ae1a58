"""The bare-metal API's writes over versioned RPC (1.1): every method of
``rpcapi.ConductorAPI`` through a real RPC server and client on
``fake://``, on SQLite, MariaDB and PostgreSQL.

Scenarios:

* each method returns what the API needs (``objects.Node``,
  ``objects.Allocation``, the traits, or None) and leaves the database
  as ``allocsvc.conductor.provisioning`` says;
* errors come back as the classes raised in the conductor, with the same
  messages and statuses: NodeLocked 409 (naming the other holder, after
  the request patience), NodeNotFound 404, InvalidState 409, NodeChanged
  409 for a stale ``expected``, InvalidStateRequested 400, NoValidHost
  400, NodeInMaintenance 400, NodeAssociated 409, NodeTraitNotFound 404,
  Conflict 409 to delete the allocation of an active node,
  AllocationNotFound 404, AllocationDuplicateName 409;
* node locks are held under the conductor's host name during the write
  (never ``api@...``) and free afterwards;
* routing: a node's call goes to its conductor (``conductor_affinity``)
  while it is alive, else to a live one; an allocation's deletion to its
  conductor likewise;
* versions: a client capped at 1.0 refuses every 1.1 method with
  ConductorTooOld (503), sending nothing, and still creates and
  backfills allocations; one capped at 1.2 refuses node writes that
  name a chassis (1.3); a 1.1 conductor answers 1.0 messages, and a 1.0
  conductor answers the 1.0 methods of an uncapped client;
* a starting conductor releases the node locks API processes of the
  previous release left behind (``api@...``), and no other.
"""

import datetime

from oslo_utils import timeutils
import oslo_messaging as messaging
import pytest

from allocsvc import objects
from allocsvc.common import exception
from allocsvc.common import rpc
from allocsvc.common import states
from allocsvc.conductor import hash_ring
from allocsvc.conductor import manager
from allocsvc.conductor import mirror
from allocsvc.conductor import rpcapi
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import chassis as db_chassis
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes
from allocsvc.db import models
from allocsvc.objects import base as objects_base
from tests.functional import conductor_harness
from tests.helpers.conductor_rpc import FAST

INSTANCE = '0b4c4f0e-0a4f-4b57-9d0b-3c54f2b8d6a1'
OTHER = '5f7d2f0a-8b4e-4d47-9a55-6b1bb7f6c7e2'


def _node_object(harness, node):
    """The node as the API reads it."""
    return objects.Node.get_by_id(harness.context, node.id)


def _fresh(harness, node):
    return nodes.get_by_id(harness.context, node.id)


def _manageable(harness, name='n', **values):
    return harness.node(name, provision_state=states.MANAGEABLE, **values)


# Each node method with arguments that succeed on a manageable node
# (``_manageable``): (method, keyword arguments).
NODE_CALLS = [
    ('update_node', {'changes': {'description': 'd'}}),
    ('destroy_node', {}),
    ('set_maintenance', {'maintenance': True, 'reason': 'r'}),
    ('change_node_power_state', {'target': states.POWER_ON}),
    ('do_provisioning_action', {'verb': 'provide'}),
    ('set_node_traits', {'traits': ['CUSTOM_A']}),
    ('add_node_trait', {'trait': 'CUSTOM_A'}),
    ('remove_node_traits', {}),
]
# ... and the 1.3 ones (node_actions).
NODE_ACTION_CALLS = [
    ('set_console_mode', {'enabled': True}),
    ('set_target_raid_config', {'target_raid_config': {
        'logical_disks': [{'size_gb': 10, 'raid_level': '1'}]}}),
    ('change_node_boot_mode', {'target': 'uefi'}),
    ('change_node_secure_boot', {'target': True}),
    ('attach_virtual_media', {'device_type': 'cdrom'}),
    ('detach_virtual_media', {'device_types': ['cdrom']}),
]


# -- every node method -------------------------------------------------------

@pytest.mark.parametrize('method, kwargs', NODE_CALLS + NODE_ACTION_CALLS)
def test_node_lock_is_the_conductors_and_released(harness, held, method,
                                                  kwargs):
    node = _manageable(harness)
    getattr(harness.rpcapi, method)(harness.context,
                                    _node_object(harness, node), **kwargs)
    assert held == [harness.conductor.host]
    if method != 'destroy_node':
        assert _fresh(harness, node).reservation is None


@pytest.mark.parametrize('method, kwargs', NODE_CALLS + NODE_ACTION_CALLS)
def test_node_locked_by_another_holder_is_409(harness, method, kwargs):
    node = _manageable(harness, traits=['CUSTOM_B'])
    obj = _node_object(harness, node)
    node_locks.reserve(harness.context, node.id, 'someone-else')
    with pytest.raises(exception.NodeLocked) as info:
        getattr(harness.rpcapi, method)(harness.context, obj, **kwargs)
    assert info.value.status == 409
    assert info.value.host == 'someone-else'
    assert str(info.value) == (
        'Node %s is locked by host someone-else, please retry after the '
        'current operation is completed.' % node.uuid)
    fresh = _fresh(harness, node)
    assert fresh.reservation == 'someone-else'
    assert (fresh.description, fresh.maintenance, fresh.power_state,
            fresh.provision_state, fresh.traits) == (
        None, False, states.POWER_OFF, states.MANAGEABLE, ['CUSTOM_B'])


@pytest.mark.parametrize('method, kwargs', NODE_CALLS + NODE_ACTION_CALLS)
def test_unknown_node_is_404(harness, method, kwargs):
    node = _manageable(harness)
    obj = _node_object(harness, node)
    mirror.destroy_node(harness.context, node.id)
    with pytest.raises(exception.NodeNotFound) as info:
        getattr(harness.rpcapi, method)(harness.context, obj, **kwargs)
    assert info.value.status == 404
    assert str(info.value) == 'Node %d could not be found.' % node.id


# -- create and update -------------------------------------------------------

@pytest.mark.parametrize('legacy, state', [(False, states.ENROLL),
                                           (True, states.AVAILABLE)])
def test_create_node(harness, legacy, state):
    node = harness.rpcapi.create_node(
        harness.context, {'driver': 'fake-hardware', 'name': 'new',
                          'resource_class': 'gold',
                          'traits': ['CUSTOM_B', 'CUSTOM_A']},
        legacy=legacy)
    assert isinstance(node, objects.Node)
    assert node.provision_state == state
    assert node.traits == ['CUSTOM_A', 'CUSTOM_B']
    assert node.conductor is None and node.reservation is None
    assert _fresh(harness, node).name == 'new'


def test_create_node_errors(harness):
    harness.node('taken')
    with pytest.raises(exception.NoValidHost) as info:
        harness.rpcapi.create_node(harness.context,
                                   {'driver': 'ipmi', 'conductor_group': 'g'})
    assert info.value.status == 400
    assert str(info.value) == (
        'No valid host was found. Reason: No conductor service registered '
        'which supports driver ipmi for conductor group "g".')
    with pytest.raises(exception.DuplicateNodeName) as info:
        harness.rpcapi.create_node(harness.context,
                                   {'driver': 'fake-hardware',
                                    'name': 'taken'})
    assert info.value.status == 409
    assert str(info.value) == 'A node with name taken already exists.'


def test_update_node(harness):
    node = harness.node('n', extra={'a': 1})
    updated = harness.rpcapi.update_node(
        harness.context, _node_object(harness, node),
        {'description': 'new', 'extra': {'b': 2}},
        expected={'description': None, 'extra': {'a': 1}})
    assert isinstance(updated, objects.Node)
    assert (updated.description, updated.extra) == ('new', {'b': 2})
    assert updated.reservation is None


def test_update_node_with_a_stale_expectation_is_409(harness):
    node = harness.node('n')
    read = _node_object(harness, node)
    mirror.update_node(harness.context, node.id, {'description': 'theirs'})
    with pytest.raises(exception.NodeChanged) as info:
        harness.rpcapi.update_node(harness.context, read,
                                   {'description': 'mine'},
                                   expected={'description': None})
    assert info.value.status == 409
    assert str(info.value) == ('Node %s was changed by another request (its '
                               'description differs); please retry.'
                               % node.uuid)
    assert _fresh(harness, node).description == 'theirs'


def test_update_node_rules(harness):
    busy = harness.node('busy', provision_state=states.DEPLOYING,
                        target_provision_state=states.ACTIVE)
    with pytest.raises(exception.InvalidState) as info:
        harness.rpcapi.update_node(harness.context,
                                   _node_object(harness, busy),
                                   {'description': 'x'})
    assert info.value.status == 409
    assert str(info.value) == ('Node %s can not be updated while a state '
                               'transition is in progress.' % busy.uuid)
    used = harness.node('used', instance_uuid=INSTANCE)
    with pytest.raises(exception.NodeAssociated) as info:
        harness.rpcapi.update_node(harness.context,
                                   _node_object(harness, used),
                                   {'instance_uuid': OTHER})
    assert info.value.status == 409
    assert str(info.value) == ('Node %s is associated with instance %s.'
                               % (used.uuid, INSTANCE))
    with pytest.raises(exception.NoValidHost) as info:
        harness.rpcapi.update_node(harness.context,
                                   _node_object(harness, used),
                                   {'driver': 'ipmi'})
    assert info.value.status == 400


# -- destroy, maintenance, power, provisioning -------------------------------

def test_destroy_node(harness):
    node = harness.node('n', provision_state=states.MANAGEABLE)
    assert harness.rpcapi.destroy_node(
        harness.context, _node_object(harness, node)) is None
    with pytest.raises(exception.NodeNotFound):
        _fresh(harness, node)


def test_destroy_node_rules(harness):
    node = harness.node('n')
    harness.conf.set_override('allow_deleting_available_nodes', False,
                              group='conductor')
    try:
        with pytest.raises(exception.InvalidState) as info:
            harness.rpcapi.destroy_node(harness.context,
                                        _node_object(harness, node))
    finally:
        harness.conf.clear_override('allow_deleting_available_nodes',
                                    group='conductor')
    assert info.value.status == 409
    assert str(info.value) == (
        'Can not delete node "%s" while it is in provision state '
        '"available". Valid provision states to perform deletion are: '
        '"(\'manageable\', \'enroll\', \'adopt failed\')", or set the node '
        'into maintenance mode' % node.uuid)
    used = harness.node('used', provision_state=states.MANAGEABLE,
                        instance_uuid=INSTANCE)
    with pytest.raises(exception.NodeAssociated):
        harness.rpcapi.destroy_node(harness.context,
                                    _node_object(harness, used))
    assert _fresh(harness, node).reservation is None
    assert _fresh(harness, used).reservation is None
    # By default, as Ironic's, an available node may be deleted.
    harness.rpcapi.destroy_node(harness.context, _node_object(harness, node))
    with pytest.raises(exception.NodeNotFound):
        _fresh(harness, node)


def test_set_maintenance(harness):
    node = harness.node('n')
    obj = _node_object(harness, node)
    on = harness.rpcapi.set_maintenance(harness.context, obj, True, 'fan')
    assert isinstance(on, objects.Node)
    assert (on.maintenance, on.maintenance_reason) == (True, 'fan')
    off = harness.rpcapi.set_maintenance(harness.context, obj, False)
    assert (off.maintenance, off.maintenance_reason) == (False, None)


def test_change_node_power_state(harness):
    node = harness.node('n')
    obj = _node_object(harness, node)
    changed = harness.rpcapi.change_node_power_state(
        harness.context, obj, states.REBOOT)
    assert isinstance(changed, objects.Node)
    assert changed.power_state == states.POWER_ON
    with pytest.raises(exception.InvalidStateRequested) as info:
        harness.rpcapi.change_node_power_state(harness.context, obj,
                                               'explode')
    assert info.value.status == 400
    assert str(info.value) == (
        'The requested action "explode" can not be performed on node "%s" '
        'while it is in state "power on".' % node.uuid)


def test_do_provisioning_action(harness):
    node = harness.node('n', instance_uuid=INSTANCE)
    obj = _node_object(harness, node)
    deployed = harness.rpcapi.do_provisioning_action(
        harness.context, obj, 'active', configdrive={'user_data': 'x'})
    assert isinstance(deployed, objects.Node)
    assert deployed.provision_state == states.ACTIVE
    assert deployed.instance_info['configdrive'] == {'user_data': 'x'}
    with pytest.raises(exception.InvalidStateRequested) as info:
        harness.rpcapi.do_provisioning_action(harness.context, obj,
                                              'manage')
    assert info.value.status == 400
    assert str(info.value) == (
        'The requested action "manage" can not be performed on node "%s" '
        'while it is in state "active".' % node.uuid)
    torn_down = harness.rpcapi.do_provisioning_action(harness.context, obj,
                                                      'deleted')
    assert torn_down.provision_state == states.AVAILABLE
    assert torn_down.instance_uuid is None
    harness.rpcapi.set_maintenance(harness.context, obj, True)
    with pytest.raises(exception.NodeInMaintenance) as info:
        harness.rpcapi.do_provisioning_action(harness.context, obj,
                                              'active')
    assert info.value.status == 400
    assert str(info.value) == (
        "The provisioning operation can't be performed on node %s because "
        "it's in maintenance mode." % node.uuid)


# -- traits ------------------------------------------------------------------

def test_traits(harness):
    node = harness.node('n')
    obj = _node_object(harness, node)
    assert harness.rpcapi.set_node_traits(
        harness.context, obj, ['CUSTOM_B', 'CUSTOM_A']) == \
        ['CUSTOM_A', 'CUSTOM_B']
    assert harness.rpcapi.add_node_trait(harness.context, obj,
                                         'CUSTOM_C') is None
    assert harness.rpcapi.remove_node_traits(harness.context, obj,
                                             'CUSTOM_A') is None
    assert _fresh(harness, node).traits == ['CUSTOM_B', 'CUSTOM_C']
    with pytest.raises(exception.NodeTraitNotFound) as info:
        harness.rpcapi.remove_node_traits(harness.context, obj, 'CUSTOM_A')
    assert info.value.status == 404
    assert str(info.value) == ("Node %s doesn't have a trait CUSTOM_A"
                               % node.uuid)
    harness.rpcapi.remove_node_traits(harness.context, obj)
    assert _fresh(harness, node).traits == []
    with pytest.raises(exception.TooManyTraits) as info:
        harness.rpcapi.set_node_traits(
            harness.context, obj, ['CUSTOM_%d' % i for i in range(51)])
    assert info.value.status == 400


# -- allocations -------------------------------------------------------------

def test_update_allocation(harness):
    harness.write_allocation(harness.conductor.conductor_id, name='taken')
    allocation = harness.write_allocation(harness.conductor.conductor_id,
                                          name='a')
    updated = harness.rpcapi.update_allocation(
        harness.context, allocation.id, {'name': 'b', 'extra': {'k': 1}})
    assert isinstance(updated, objects.Allocation)
    assert (updated.uuid, updated.name, updated.extra) == (
        allocation.uuid, 'b', {'k': 1})
    with pytest.raises(exception.AllocationDuplicateName) as info:
        harness.rpcapi.update_allocation(harness.context, allocation.id,
                                         {'name': 'taken'})
    assert info.value.status == 409
    assert str(info.value) == 'An allocation with name taken already exists.'
    with pytest.raises(exception.InvalidParameterValue) as info:
        harness.rpcapi.update_allocation(harness.context, allocation.id,
                                         {'node_id': 1})
    assert info.value.status == 400
    with pytest.raises(exception.AllocationNotFound) as info:
        harness.rpcapi.update_allocation(harness.context,
                                         allocation.id + 100, {'name': 'c'})
    assert info.value.status == 404


@pytest.fixture
def backend_harness(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        allocation_backend=allocation_backend, **FAST))
    harness.conductor = harness.start_conductor()
    yield harness
    harness.stop()


def _active(harness, name='n', **node_values):
    """An allocation a conductor finished, and its node (``node_values``
    then written to the node)."""
    node = harness.node(name)
    allocation = harness.allocate()
    assert harness.final(allocation.id).state == states.ACTIVE
    if node_values:
        mirror.update_node(harness.context, node.id, node_values)
    return objects.Allocation.get_by_id(harness.context, allocation.id), node


def test_destroy_allocation_frees_the_node(backend_harness, held):
    harness = backend_harness
    allocation, node = _active(harness)
    assert harness.rpcapi.destroy_allocation(harness.context,
                                             allocation) is None
    assert held[-1] == harness.conductor.host
    fresh = _fresh(harness, node)
    assert (fresh.instance_uuid, fresh.allocation_uuid, fresh.reservation) \
        == (None, None, None)
    with pytest.raises(exception.AllocationNotFound):
        db_allocations.get_by_id(harness.context, allocation.id)
    # Its unit is free again: another allocation gets the node.
    again = harness.allocate()
    assert harness.final(again.id).node_id == node.id


def test_destroy_allocation_of_an_active_node_is_409(harness):
    allocation, node = _active(harness, provision_state=states.ACTIVE)
    with pytest.raises(exception.Conflict) as info:
        harness.rpcapi.destroy_allocation(harness.context, allocation)
    assert info.value.status == 409
    assert str(info.value) == (
        'Cannot remove allocation %s for node %s, because the node is '
        'active (and maintenance mode is off)'
        % (allocation.uuid, node.uuid))
    mirror.update_node(harness.context, node.id,
                       {'provision_state': states.DEPLOYING,
                        'target_provision_state': states.ACTIVE})
    with pytest.raises(exception.Conflict) as info:
        harness.rpcapi.destroy_allocation(harness.context, allocation)
    assert str(info.value) == (
        'Cannot remove allocation %s for node %s, because the node is in '
        'state deploying where updates are not allowed (and maintenance '
        'mode is off)' % (allocation.uuid, node.uuid))
    assert _fresh(harness, node).reservation is None
    # In maintenance it goes.
    mirror.update_node(harness.context, node.id, {'maintenance': True})
    harness.rpcapi.destroy_allocation(harness.context, allocation)
    assert _fresh(harness, node).allocation_uuid is None


def test_destroy_allocation_errors(harness):
    allocation, node = _active(harness)
    node_locks.reserve(harness.context, node.id, 'someone-else')
    with pytest.raises(exception.NodeLocked) as info:
        harness.rpcapi.destroy_allocation(harness.context, allocation)
    assert info.value.status == 409
    assert info.value.host == 'someone-else'
    assert _fresh(harness, node).allocation_uuid == allocation.uuid
    node_locks.release(harness.context, node.id, 'someone-else')
    # The node (and its allocation with it) deleted meanwhile.
    mirror.destroy_node(harness.context, node.id)
    with pytest.raises(exception.AllocationNotFound) as info:
        harness.rpcapi.destroy_allocation(harness.context, allocation)
    assert info.value.status == 404
    assert str(info.value) == ('Allocation %s could not be found.'
                               % allocation.uuid)


def test_destroy_allocation_without_node_takes_no_lock(harness, held):
    allocation = harness.write_allocation(harness.conductor.conductor_id)
    harness.rpcapi.destroy_allocation(harness.context, allocation)
    assert held == []
    with pytest.raises(exception.AllocationNotFound):
        db_allocations.get_by_id(harness.context, allocation.id)


# -- routing -----------------------------------------------------------------

@db_api.writer
def _silence(context, conductor_id):
    """The conductor's heartbeat is an hour old: it is taken for dead
    (its RPC server still answers, so a call sent to it would succeed)."""
    past = timeutils.utcnow() - datetime.timedelta(hours=1)
    context.session.execute(
        models.conductors.update().where(models.conductors.c.id ==
                                         conductor_id)
        .values(heartbeat_at=past))


@pytest.fixture
def two(harness, monkeypatch):
    """A second conductor; the client reads the live ones every time."""
    monkeypatch.setattr(rpcapi, 'ALIVE_CACHE_S', 0)
    return harness.conductor, harness.start_conductor('other')


def test_node_call_goes_to_the_nodes_conductor(harness, held, two):
    first, second = two
    for owner, other in ((first, second), (second, first)):
        node = harness.node('n-' + owner.host,
                            conductor_affinity=owner.conductor_id)
        obj = _node_object(harness, node)
        assert obj.conductor == owner.host
        del held[:]
        for _ in range(4):
            harness.rpcapi.set_maintenance(harness.context, obj, True)
        assert held == [owner.host] * 4
        _silence(harness.context, owner.conductor_id)
        harness.rpcapi.set_maintenance(harness.context, obj, False)
        assert held[-1] == other.host
        owner.heartbeat()


def test_node_call_without_live_owner_goes_to_a_live_one(harness, held,
                                                         two):
    first, second = two
    node = harness.node('n', conductor_affinity=first.conductor_id)
    first.stop()
    harness.rpcapi.change_node_power_state(
        harness.context, _node_object(harness, node), states.POWER_ON)
    assert held == [second.host]
    second.stop()
    with pytest.raises(exception.NoConductorAvailable) as info:
        harness.rpcapi.change_node_power_state(
            harness.context, _node_object(harness, node), states.POWER_ON)
    assert info.value.status == 503


def test_node_call_without_owner_goes_to_the_ring(harness, held, two):
    # What the API shows as the node's conductor is where its writes go.
    first, second = two
    hosts = set()
    for i in range(40):
        if len(hosts) == 2 and i >= 6:
            break
        obj = _node_object(harness, harness.node('ring-%d' % i))
        assert obj.conductor_affinity is None
        chosen = harness.rpcapi.conductor_for_node(harness.context, obj)
        expected = hash_ring.conductor_for(
            harness.rpcapi.live_conductors(harness.context), obj)
        assert chosen.hostname == expected.hostname
        harness.rpcapi.set_maintenance(harness.context, obj, True)
        assert held[-1] == chosen.hostname
        hosts.add(chosen.hostname)
    # The ring spreads nodes over both conductors.
    assert hosts == {first.host, second.host}


def test_node_call_outside_any_conductors_group_goes_to_a_live_one(
        harness, held, two):
    obj = _node_object(harness, harness.node('lonely',
                                             conductor_group='nowhere'))
    assert harness.rpcapi.conductor_for_node(harness.context, obj) is None
    harness.rpcapi.set_maintenance(harness.context, obj, True)
    assert held[-1] in {c.host for c in two}


def test_destroy_allocation_goes_to_the_allocations_conductor(harness, held,
                                                              two):
    first, second = two
    for owner, other in ((first, second), (second, first)):
        node = harness.node('n-' + owner.host)
        allocation = harness.write_allocation(owner.conductor_id)
        mirror.bind(harness.context, allocation.id, node.id,
                    owner.conductor_id)
        allocation.refresh()
        harness.rpcapi.destroy_allocation(harness.context, allocation)
        assert held[-1] == owner.host
        allocation = harness.write_allocation(owner.conductor_id)
        mirror.bind(harness.context, allocation.id, node.id,
                    owner.conductor_id)
        allocation.refresh()
        _silence(harness.context, owner.conductor_id)
        harness.rpcapi.destroy_allocation(harness.context, allocation)
        assert held[-1] == other.host
        owner.heartbeat()


def test_a_conductor_that_does_not_answer_is_503(harness):
    node = harness.node('n')
    # Alive by its heartbeat, deaf on RPC.
    harness.conductor.rpcserver.stop()
    harness.conductor.rpcserver.wait()
    harness.conductor.rpcserver = None
    harness.conf.set_override('rpc_response_timeout', 1)
    with pytest.raises(exception.NoConductorAvailable) as info:
        harness.rpcapi.update_node(harness.context,
                                   _node_object(harness, node), {})
    assert info.value.status == 503
    assert str(info.value) == (
        'No conductor can process the request: conductor %s did not answer '
        'in time.' % harness.conductor.host)


# -- versions ----------------------------------------------------------------

def _capped(harness, cap):
    conf = harness.make_conf(rpc_version_cap=cap, **FAST)
    return rpcapi.ConductorAPI(conf, harness.transport)


def _one_point_one_calls(node, allocation):
    """(method, positional arguments, keyword arguments) of every 1.1
    method."""
    return [
        ('destroy_allocation', (allocation,), {}),
        ('update_allocation', (allocation.id, {'name': 'x'}), {}),
        ('create_node', ({'driver': 'fake-hardware', 'name': 'x'},), {}),
    ] + [(method, (node,), kwargs) for method, kwargs in NODE_CALLS]


def test_capped_client_refuses_1_1_and_sends_nothing(harness, held):
    node = _manageable(harness)
    obj = _node_object(harness, node)
    allocation = harness.write_allocation(harness.conductor.conductor_id)
    capped = _capped(harness, '1.0')
    for method, args, kwargs in _one_point_one_calls(obj, allocation):
        with pytest.raises(exception.ConductorTooOld) as info:
            getattr(capped, method)(harness.context, *args, **kwargs)
        assert info.value.status == 503
        assert str(info.value) == (
            'The conductors do not support %s yet (it needs conductor RPC '
            'API 1.1); finish upgrading them.' % method)
    assert held == []
    assert _fresh(harness, node).description is None
    assert db_allocations.get_by_id(harness.context,
                                    allocation.id).name is None
    assert [n.name for n in nodes.list_nodes(harness.context)] == ['n']


def test_capped_client_still_allocates_and_backfills(harness):
    capped = _capped(harness, '1.0')
    harness.node('free')
    conductor = capped.pick_conductor(harness.context)
    allocation = harness.write_allocation(conductor.id)
    capped.create_allocation(harness.context, allocation, conductor.hostname)
    assert harness.final(allocation.id).state == states.ACTIVE
    deployed = harness.node('deployed', provision_state=states.ACTIVE)
    backfilled = capped.backfill_allocation(harness.context, {}, deployed.id,
                                            conductor.hostname)
    assert backfilled.state == states.ACTIVE


def test_client_capped_at_1_1_writes(harness):
    node = harness.node('n')
    capped = _capped(harness, '1.1')
    updated = capped.update_node(harness.context, _node_object(harness, node),
                                 {'description': 'd'})
    assert updated.description == 'd'


def test_client_capped_at_1_1_refuses_the_1_2_calls(harness, held):
    node = harness.node('n')
    obj = _node_object(harness, node)
    capped = _capped(harness, '1.1')
    for call in (
            lambda: capped.validate_driver_interfaces(harness.context, obj),
            lambda: capped.update_node(harness.context, obj,
                                       {'driver': 'fake-hardware'},
                                       reset_interfaces=True)):
        with pytest.raises(exception.ConductorTooOld) as info:
            call()
        assert 'conductor RPC API 1.2' in str(info.value)
    assert held == []
    # At 1.2 both are answered.
    report = harness.rpcapi.validate_driver_interfaces(harness.context, obj)
    assert report['power'] == {'result': True}
    assert 'vendor' not in report


def test_client_capped_at_1_2_refuses_node_writes_naming_a_chassis(
        harness, held):
    node = harness.node('n')
    obj = _node_object(harness, node)
    chassis = db_chassis.create_chassis(harness.context, {})
    capped = _capped(harness, '1.2')
    for call in (
            lambda: capped.create_node(harness.context, {
                'driver': 'fake-hardware', 'chassis_uuid': chassis.uuid}),
            lambda: capped.update_node(harness.context, obj,
                                       {'chassis_uuid': chassis.uuid}),
            lambda: capped.update_node(harness.context, obj,
                                       {'chassis_uuid': None})):
        with pytest.raises(exception.ConductorTooOld) as info:
            call()
        assert 'conductor RPC API 1.3' in str(info.value)
    assert held == []
    assert [n.name for n in nodes.list_nodes(harness.context)] == ['n']
    # Other node writes are still sent, at their own version.
    assert capped.update_node(harness.context, obj,
                              {'description': 'd'}).description == 'd'
    # At 1.3 the conductor looks the chassis up in the node's write.
    updated = harness.rpcapi.update_node(harness.context, obj,
                                         {'chassis_uuid': chassis.uuid})
    assert (updated.chassis_uuid, updated.chassis_id) == (chassis.uuid,
                                                          chassis.id)
    with pytest.raises(exception.InvalidParameterValue) as info:
        harness.rpcapi.create_node(harness.context, {
            'driver': 'fake-hardware',
            'chassis_uuid': '11111111-2222-3333-4444-555555555555'})
    assert info.value.status == 400
    assert str(info.value) == ('Chassis 11111111-2222-3333-4444-555555555555 '
                               'could not be found.')


def test_node_actions(harness):
    # 1.3: what fake-hardware's interfaces leave on the node.
    node = harness.node('n')
    obj = _node_object(harness, node)
    done = harness.rpcapi.set_console_mode(harness.context, obj, True)
    assert isinstance(done, objects.Node) and done.console_enabled is True
    config = {'logical_disks': [{'size_gb': 10, 'raid_level': '1'}]}
    done = harness.rpcapi.set_target_raid_config(harness.context, obj,
                                                 config)
    assert done.target_raid_config == config
    with pytest.raises(exception.InvalidParameterValue) as info:
        harness.rpcapi.set_target_raid_config(
            harness.context, obj, {'logical_disks': []})
    assert info.value.status == 400
    assert str(info.value) == ('RAID config validation error: [] should '
                               'be non-empty')
    done = harness.rpcapi.change_node_boot_mode(harness.context, obj,
                                                'bios')
    assert done.last_error.startswith("Failed to change boot mode to 'bios")
    assert done.boot_mode is None
    done = harness.rpcapi.detach_virtual_media(harness.context, obj)
    assert done.last_error.startswith('Could not detach device(s) None')
    fresh = _fresh(harness, node)
    assert (fresh.console_enabled, fresh.target_raid_config,
            fresh.reservation) == (True, config, None)


def test_node_actions_of_no_interfaces(harness):
    node = harness.node('n', console_interface='no-console',
                        raid_interface='no-raid')
    obj = _node_object(harness, node)
    with pytest.raises(exception.UnsupportedDriverExtension) as info:
        harness.rpcapi.set_console_mode(harness.context, obj, True)
    assert info.value.status == 400
    with pytest.raises(exception.UnsupportedDriverExtension) as info:
        harness.rpcapi.set_target_raid_config(
            harness.context, obj,
            {'logical_disks': [{'size_gb': 1, 'raid_level': '0'}]})
    assert info.value.status == 404


def test_client_capped_at_1_2_refuses_the_1_3_calls(harness, held):
    node = harness.node('n')
    obj = _node_object(harness, node)
    capped = _capped(harness, '1.2')
    with pytest.raises(exception.ConductorTooOld) as info:
        capped.set_console_mode(harness.context, obj, True)
    assert 'conductor RPC API 1.3' in str(info.value)
    assert held == []
    assert _fresh(harness, node).console_enabled is False


def test_client_capped_at_1_3_refuses_the_1_4_verbs(harness, held):
    node = _manageable(harness)
    obj = _node_object(harness, node)
    capped = _capped(harness, '1.3')
    for verb, kwargs in (('adopt', {}), ('clean', {'clean_steps': [
            {'interface': 'bios', 'step': 'factory_reset'}]})):
        with pytest.raises(exception.ConductorTooOld) as info:
            capped.do_provisioning_action(harness.context, obj, verb,
                                          **kwargs)
        assert 'conductor RPC API 1.4' in str(info.value)
    assert held == []
    assert _fresh(harness, node).provision_state == states.MANAGEABLE
    # The verbs of 1.1 are still sent, at 1.1.
    provided = capped.do_provisioning_action(harness.context, obj,
                                             'provide')
    assert provided.provision_state == states.AVAILABLE


def test_conductor_answers_1_0_messages(harness):
    client = rpc.get_client(harness.transport, '1.0',
                            objects_base.rpc_serializer())
    cctxt = client.prepare(server=harness.conductor.host)
    harness.node('free')
    allocation = harness.write_allocation(harness.conductor.conductor_id)
    cctxt.cast(harness.context, 'create_allocation', allocation=allocation)
    assert harness.final(allocation.id).state == states.ACTIVE
    deployed = harness.node('deployed', provision_state=states.ACTIVE)
    backfilled = cctxt.call(harness.context, 'backfill_allocation',
                            values={}, node_id=deployed.id)
    assert backfilled.state == states.ACTIVE
    assert backfilled.node_id == deployed.id


def test_conductor_of_1_0_answers_an_uncapped_client(database, monkeypatch):
    """The 1.0 methods are sent as 1.0: a new API works with conductors
    of the previous release for them."""
    monkeypatch.setattr(manager.ConductorManager, 'target',
                        messaging.Target(version='1.0'))
    harness = conductor_harness.Harness()
    try:
        old = harness.start_conductor('old')
        harness.node('free')
        allocation = harness.allocate()
        assert harness.final(allocation.id).state == states.ACTIVE
        deployed = harness.node('deployed', provision_state=states.ACTIVE)
        backfilled = harness.rpcapi.backfill_allocation(
            harness.context, {}, deployed.id, old.host)
        assert backfilled.state == states.ACTIVE
    finally:
        harness.stop()


# -- start-up clean-up of the previous release's API locks -------------------

def test_start_releases_the_api_locks_left_behind(database):
    harness = conductor_harness.Harness()
    try:
        left, other, theirs, free = harness.nodes(4)
        node_locks.reserve(harness.context, left.id,
                           node_locks.API_HOLDER_PREFIX + 'gone:4242')
        node_locks.reserve(harness.context, other.id,
                           node_locks.API_HOLDER_PREFIX + 'elsewhere:1')
        node_locks.reserve(harness.context, theirs.id, 'another-conductor')
        harness.start_conductor()
        assert [_fresh(harness, n).reservation
                for n in (left, other, theirs, free)] == \
            [None, None, 'another-conductor', None]
    finally:
        harness.stop()
