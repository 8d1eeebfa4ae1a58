"""Node states over ``/v1/nodes/{n}/states...`` and ``/maintenance``,
node locking, and how nodes and allocations interplay, on every
database backend.

Scenarios:
* GET states; power on/off/reboot (soft ones and timeout from 1.27),
  with fake-hardware finishing at once; invalid targets.
* The provision cycle enroll -> manageable -> available -> active ->
  available through the verbs (and their 1.73 aliases), each verb's
  version, invalid transitions (400) and busy nodes (409), maintenance,
  configdrive and the arguments that need another verb.
* Maintenance on (with a reason from the body or the query) and off.
* A node locked by a conductor: every change is a 409 NodeLocked after a
  few retries, and a lock that goes away in time lets the change
  through; the API never leaves a lock behind.
* Allocations: allocation_uuid on the node (list ``fields`` included);
  deploying keeps the allocation; removing instance_uuid deletes it
  (only in allowed states or maintenance); changing the owner of a node
  whose allocation has one is a 409; tear down deletes it; deleting the
  node in maintenance deletes it; /nodes/{n}/allocation is routed to the
  allocation API; a node whose power state was never set is never a
  candidate.
"""

import threading
import uuid

import pytest

from allocsvc.common import states
from allocsvc.conductor import locking
from allocsvc.conductor import mirror
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import candidates
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes as db_nodes
from tests.functional import conductor_harness
from tests.helpers import v1 as api
from tests.helpers.v1 import provision
from tests.helpers.v1 import show

# Nodes change through a conductor (see test_v1_nodes).
pytestmark = pytest.mark.usefixtures('api_conductor')

call = api.call
message = api.message


def power(ident, target, version='latest', **body):
    return call('PUT', '/v1/nodes/%s/states/power' % ident,
                dict(body, target=target), version=version)


@pytest.fixture
def fast_locks(lock_patience):
    lock_patience(2, 0.01)


# -- states and power --------------------------------------------------------

def test_states_document(database):
    node = api.create(name='s')
    resp = call('GET', '/v1/nodes/s/states')
    assert resp.json == {
        'console_enabled': False,
        'last_error': None, 'power_state': None, 'provision_state': 'enroll',
        'provision_updated_at': node['provision_updated_at'],
        'target_power_state': None, 'target_provision_state': None,
        'raid_config': {}, 'target_raid_config': {}, 'boot_mode': None,
        'secure_boot': None}
    # Ironic's: RAID from 1.12, the boot mode from 1.75.
    assert set(call('GET', '/v1/nodes/s/states', version='1.74').json) == \
        set(resp.json) - {'boot_mode', 'secure_boot'}
    assert set(call('GET', '/v1/nodes/s/states', version='1.11').json) == \
        set(resp.json) - {'boot_mode', 'secure_boot', 'raid_config',
                          'target_raid_config'}
    assert call('GET', '/v1/nodes/s/states?x=1').status_int == 400
    assert call('GET', '/v1/nodes/nope/states').status_int == 404
    old = api.create(version='1.1')
    assert call('GET', '/v1/nodes/%s/states' % old['uuid'],
                version='1.1').json['provision_state'] is None


POWER_TARGETS = [
    ('power on', 'power on'), ('power off', 'power off'),
    ('rebooting', 'power on'), ('soft power off', 'power off'),
    ('soft rebooting', 'power on'),
]


def test_power_targets(database):
    api.create(name='p')
    for target, result in POWER_TARGETS:
        resp = power('p', target)
        assert resp.status_int == 202 and resp.body == b''
        assert resp.headers['Location'] == (
            'http://localhost/v1/nodes/p/states')
        node = show('p')
        assert (node['power_state'], node['target_power_state'],
                node['reservation']) == (result, None, None), target


def test_power_versions_and_errors(database):
    api.create(name='p')
    assert power('p', 'soft rebooting', version='1.26').status_int == 406
    assert power('p', 'power on', version='1.26',
                 timeout=10).status_int == 406
    assert power('p', 'power on', timeout=10).status_int == 202
    for timeout in (0, -1, 'x', True, 1.5):
        resp = power('p', 'power off', timeout=timeout)
        assert resp.status_int == 400
        assert message(resp) == 'timeout has to be positive integer'
    resp = power('p', 'sideways')
    assert resp.status_int == 400
    assert message(resp) == ('The requested action "sideways" can not be '
                             'performed on node "p" while it is in state '
                             '"power on".')
    resp = call('PUT', '/v1/nodes/p/states/power', {})
    assert message(resp) == 'Missing mandatory parameter: target'
    assert power('p', 'power on', bogus=1).status_int == 400
    assert call('PUT', '/v1/nodes/p/states/power',
                {'target': 1}).status_int == 400
    assert call('PUT', '/v1/nodes/p/states/power',
                raw=b'[]').status_int == 400
    assert call('PUT', '/v1/nodes/p/states/power',
                raw=b'{').status_int == 400
    assert power('nope', 'power on').status_int == 404
    assert show('p')['power_state'] == 'power on'


# -- provisioning ------------------------------------------------------------

def test_provision_cycle(database):
    node = api.create(name='c', instance_info={'image_source': 'img'})
    assert node['provision_updated_at'] is None
    steps = [('manage', 'manageable'), ('provide', 'available'),
             ('manage', 'manageable'), ('provide', 'available'),
             ('active', 'active'), ('deleted', 'available'),
             ('deploy', 'active'), ('undeploy', 'available')]
    for target, state in steps:
        resp = provision('c', target)
        assert resp.status_int == 202, resp.text
        assert resp.headers['Location'] == (
            'http://localhost/v1/nodes/c/states')
        doc = show('c')
        assert (doc['provision_state'], doc['target_provision_state'],
                doc['reservation']) == (state, None, None), target
    assert doc['provision_updated_at'].endswith('+00:00')
    # Tear down forgot the instance.
    assert doc['instance_info'] == {}


TOO_NEW_VERBS = [
    ('manage', '1.3'), ('provide', '1.3'), ('deploy', '1.72'),
    ('undeploy', '1.72'), ('inspect', '1.5'), ('abort', '1.12'),
    ('clean', '1.14'), ('adopt', '1.16'), ('rescue', '1.37'),
    ('unrescue', '1.37')]


def test_inspection_with_the_fake_inspect_interface(database):
    # TestNodeStatesV1_6/V1_11: manage, inspect, provide, active, deleted.
    node = api.create(name='i', inspect_interface='fake')
    steps = [('manage', 'manageable'), ('inspect', 'manageable'),
             ('provide', 'available'), ('active', 'active'),
             ('deleted', 'available')]
    for target, state in steps:
        resp = provision('i', target, version='1.11')
        assert resp.status_int == 202, (target, resp.text)
        doc = show('i')
        assert (doc['provision_state'],
                doc['target_provision_state']) == (state, None), target
        if target == 'inspect':
            # Ironic stamps its end and forgets its start.
            assert doc['inspection_finished_at'] is not None
            assert doc['inspection_started_at'] is None
    assert node['inspection_finished_at'] is None


def test_inspection_needs_an_inspect_interface(database):
    node = api.create(name='ni', inspect_interface='no-inspect')
    assert provision('ni', 'manage').status_int == 202
    resp = provision('ni', 'inspect')
    assert resp.status_int == 400
    assert message(resp) == ('Driver fake-hardware does not support '
                             'inspect (disabled or not implemented).')
    doc = show('ni')
    assert (doc['provision_state'], doc['inspection_finished_at']) == (
        'manageable', None)
    assert node['uuid'] == doc['uuid']


def test_rebuild(database):
    api.available(name='r', instance_info={'image_source': 'img'})
    assert provision('r', 'active').status_int == 202
    resp = provision('r', 'rebuild', configdrive='http://cd/1')
    assert resp.status_int == 202, resp.text
    doc = show('r')
    assert (doc['provision_state'], doc['target_provision_state']) == (
        'active', None)
    node = db_nodes.get(api.ctx(), 'r')
    assert node.instance_info == {'image_source': 'img',
                                  'configdrive': 'http://cd/1'}
    resp = provision('r', 'rebuild', configdrive='x', version='1.34')
    assert resp.status_int == 400


def test_protected_node_is_403_before_its_state(database):
    # TestNodeProtected.test_node_protected: Ironic's conductor checks
    # protection before the state machine.
    node = api.available(name='p')
    assert provision('p', 'active').status_int == 202
    resp = call('PATCH', '/v1/nodes/p', [{'op': 'replace',
                                          'path': '/protected',
                                          'value': True}])
    assert resp.status_int == 200
    for target in ('rebuild', 'deleted', 'undeploy'):
        resp = provision('p', target)
        assert resp.status_int == 403, target
        assert message(resp) == ('Node %s is protected and cannot be '
                                 'undeployed, rebuilt or deleted'
                                 % node['uuid'])
    assert show('p')['provision_state'] == 'active'
    # In maintenance, a rebuild is refused for that first.
    call('PUT', '/v1/nodes/p/maintenance', {})
    resp = provision('p', 'rebuild')
    assert resp.status_int == 400
    assert message(resp) == ("The provisioning operation can't be performed "
                             "on node %s because it's in maintenance mode."
                             % node['uuid'])


def test_verbs_newer_than_version_are_406(database):
    node = api.create()
    for target, version in TOO_NEW_VERBS:
        assert provision(node['uuid'], target,
                         version=version).status_int == 406, target


def test_invalid_transitions_are_400(database):
    node = api.create(name='t')
    for target in ('provide', 'active', 'deleted', 'inspect', 'rebuild',
                   'bogus'):
        resp = provision('t', target)
        assert resp.status_int == 400, target
        assert message(resp) == (
            'The requested action "%s" can not be performed on node "%s" '
            'while it is in state "enroll".' % (target, node['uuid']))
    resp = call('PUT', '/v1/nodes/t/states/provision', {})
    assert message(resp) == 'Missing mandatory parameter: target'
    assert provision('t', 'manage', bogus=1).status_int == 400
    assert show('t')['provision_state'] == 'enroll'


def test_provision_arguments(database):
    api.available(name='a')
    resp = provision('a', 'manage', configdrive='abc')
    assert resp.status_int == 400
    assert message(resp) == ('Adding a config drive is only supported when '
                             'setting provision state to active, rebuild')
    resp = provision('a', 'manage', configdrive='abc', version='1.34')
    assert message(resp) == ('Adding a config drive is only supported when '
                             'setting provision state to active')
    resp = provision('a', 'active', configdrive={'meta_data': {}},
                     version='1.55')
    assert resp.status_int == 400
    assert provision('a', 'active', configdrive=5).status_int == 400
    resp = provision('a', 'active', clean_steps=[{'interface': 'deploy'}])
    assert message(resp) == ('"clean_steps" is only valid when setting '
                             'target provision state to clean')
    assert provision('a', 'active', rescue_password='x').status_int == 400
    assert provision('a', 'active', deploy_steps=[]).status_int == 400
    assert show('a')['provision_state'] == 'available'
    resp = provision('a', 'active', configdrive={'meta_data': {}})
    assert resp.status_int == 202
    node = db_nodes.get(api.ctx(), 'a')
    assert node.instance_info['configdrive'] == {'meta_data': {}}
    assert show('a')['instance_info'] == {'configdrive': '******'}


def test_deploy_in_maintenance_is_400(database):
    node = api.available(name='m')
    call('PUT', '/v1/nodes/m/maintenance')
    resp = provision('m', 'active')
    assert resp.status_int == 400
    assert message(resp) == ("The provisioning operation can't be performed "
                             "on node %s because it's in maintenance mode."
                             % node['uuid'])
    # Other verbs work in maintenance.
    assert provision('m', 'manage').status_int == 202
    # Ironic's API refuses the name 'deploy' for the node's state first
    # (its conductor for maintenance).
    resp = provision('m', 'deploy')
    assert message(resp) == ('The requested action "deploy" can not be '
                             'performed on node "%s" while it is in state '
                             '"manageable".' % node['uuid'])
    provision('m', 'provide')
    resp = provision('m', 'deploy')
    assert resp.status_int == 400
    assert message(resp) == ("The provisioning operation can't be performed "
                             "on node %s because it's in maintenance mode."
                             % node['uuid'])


def test_busy_node_is_409_not_400(database, fast_locks):
    node = api.create(name='b')
    node_locks.reserve(api.ctx(), db_nodes.get(api.ctx(), 'b').id, 'cond-1')
    resp = provision('b', 'provide')
    assert resp.status_int == 409
    assert message(resp) == (
        'Node %s is locked by host cond-1, please retry after the current '
        'operation is completed.' % node['uuid'])


# -- maintenance -------------------------------------------------------------

def test_maintenance_on_and_off(database):
    api.create(name='m')
    resp = call('PUT', '/v1/nodes/m/maintenance', {'reason': 'broken fan'})
    assert resp.status_int == 202 and resp.body == b''
    node = show('m')
    assert (node['maintenance'], node['maintenance_reason']) == (
        True, 'broken fan')
    resp = call('DELETE', '/v1/nodes/m/maintenance')
    assert resp.status_int == 202
    node = show('m')
    assert (node['maintenance'], node['maintenance_reason']) == (False, None)
    # No body, a null reason, a reason in the query.
    assert call('PUT', '/v1/nodes/m/maintenance').status_int == 202
    assert show('m')['maintenance_reason'] is None
    assert call('PUT', '/v1/nodes/m/maintenance',
                {'reason': None}).status_int == 202
    assert call('PUT', '/v1/nodes/m/maintenance?reason=q').status_int == 202
    assert show('m')['maintenance_reason'] == 'q'
    for body in ({'reason': 1}, {'bogus': 'x'}, ['x']):
        assert call('PUT', '/v1/nodes/m/maintenance',
                    body).status_int == 400
    assert call('PUT', '/v1/nodes/m/maintenance?bogus=1').status_int == 400
    assert call('DELETE', '/v1/nodes/m/maintenance?x=1').status_int == 400
    assert call('PUT', '/v1/nodes/nope/maintenance').status_int == 404


# -- locking -----------------------------------------------------------------

CHANGES = [
    ('PATCH', '', [{'op': 'add', 'path': '/extra/a', 'value': 1}]),
    ('DELETE', '', None),
    ('PUT', '/maintenance', {'reason': 'x'}),
    ('DELETE', '/maintenance', None),
    ('PUT', '/states/power', {'target': 'power on'}),
    ('PUT', '/states/provision', {'target': 'manage'}),
    ('PUT', '/traits', {'traits': ['CUSTOM_A']}),
    ('PUT', '/traits/CUSTOM_A', None),
    ('DELETE', '/traits/CUSTOM_A', None),
    ('DELETE', '/traits', None),
]


def test_locked_node_refuses_every_change(database, fast_locks):
    node = api.create(name='l')
    node_id = db_nodes.get(api.ctx(), 'l').id
    node_locks.reserve(api.ctx(), node_id, 'cond-1')
    for method, path, body in CHANGES:
        resp = call(method, '/v1/nodes/l' + path, body)
        assert resp.status_int == 409, (method, path, resp.text)
        assert 'is locked by host cond-1' in message(resp)
    node_locks.release(api.ctx(), node_id, 'cond-1')
    assert show('l') == node


def test_lock_released_in_time_lets_the_change_through(
        database, monkeypatch, lock_patience):
    lock_patience(40, 0.05)
    api.create(name='w')
    node_id = db_nodes.get(api.ctx(), 'w').id
    node_locks.reserve(api.ctx(), node_id, 'cond-1')
    released = threading.Event()
    reserved_seen = threading.Event()

    def conductor():
        # The request has started waiting once it cannot take the lock.
        reserved_seen.wait(10)
        node_locks.release(api.ctx(), node_id, 'cond-1')
        released.set()

    original = locking.take

    def watching_reserve(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except Exception:
            reserved_seen.set()
            raise

    monkeypatch.setattr(locking, 'take', watching_reserve)
    thread = threading.Thread(target=conductor)
    thread.start()
    resp = call('PUT', '/v1/nodes/w/maintenance', {'reason': 'later'})
    thread.join()
    assert released.is_set()
    assert resp.status_int == 202, resp.text
    assert show('w')['maintenance_reason'] == 'later'


def test_failed_changes_leave_no_lock(database):
    api.create(name='f')
    for method, path, body in [
            ('PUT', '/states/provision', {'target': 'active'}),
            ('PATCH', '', [{'op': 'add', 'path': '/name', 'value': 'x y'}]),
            ('DELETE', '/traits/CUSTOM_MISSING', None)]:
        assert call(method, '/v1/nodes/f' + path, body).status_int >= 400
        assert show('f')['reservation'] is None


# -- allocations -------------------------------------------------------------

def _allocate(node_uuid, owner=None):
    """What a conductor does: an allocation bound to the node."""
    ctx = api.ctx()
    conductor = conductor_harness.api_conductor()[0].conductor
    allocation = db_allocations.create_allocation(ctx, {
        'resource_class': 'baremetal', 'owner': owner,
        'conductor_affinity': conductor.id})
    node = db_nodes.get_by_uuid(ctx, node_uuid)
    return mirror.bind(ctx, allocation.id, node.id, conductor.id)


def _allocated(name, owner=None):
    node = api.available(name=name, resource_class='baremetal')
    power(name, 'power on')
    return node, _allocate(node['uuid'], owner)


def _allocation_exists(allocation):
    try:
        db_allocations.get_by_uuid(api.ctx(), allocation.uuid)
    except Exception:
        return False
    return True


def test_allocation_uuid_on_the_node(database):
    node, allocation = _allocated('a')
    doc = show('a')
    assert (doc['allocation_uuid'], doc['instance_uuid']) == (
        allocation.uuid, allocation.uuid)
    listed = call('GET', '/v1/nodes?fields=uuid,allocation_uuid').json
    assert listed['nodes'][0]['allocation_uuid'] == allocation.uuid
    assert call('GET', '/v1/nodes?associated=true').json['nodes'][0][
        'uuid'] == node['uuid']
    resp = call('GET', '/v1/nodes/a/allocation')
    assert resp.status_int == 200 and resp.json['uuid'] == allocation.uuid
    assert call('GET', '/v1/nodes/a/allocation',
                version='1.51').status_int == 404
    assert call('GET', '/v1/nodes/ba!na/allocation').status_int == 400


def test_node_without_allocation_routes_to_allocation_api(database):
    api.create(name='free')
    resp = call('GET', '/v1/nodes/free/allocation')
    assert resp.status_int == 404
    assert message(resp) == 'Allocation for node free was not found'


def test_deploy_keeps_the_allocation_and_tear_down_deletes_it(database):
    node, allocation = _allocated('d')
    assert provision('d', 'active').status_int == 202
    doc = show('d')
    assert (doc['provision_state'], doc['allocation_uuid'],
            doc['instance_uuid']) == ('active', allocation.uuid,
                                      allocation.uuid)
    assert provision('d', 'deleted').status_int == 202
    doc = show('d')
    assert (doc['provision_state'], doc['allocation_uuid'],
            doc['instance_uuid'], doc['instance_info']) == (
        'available', None, None, {})
    assert not _allocation_exists(allocation)
    # The node can be allocated again.
    ids = [c.uuid for c in candidates.find_candidates(api.ctx(),
                                                      'baremetal')]
    assert ids == [node['uuid']]


REMOVE_INSTANCE = [{'op': 'remove', 'path': '/instance_uuid'}]


def test_removing_instance_uuid_deletes_the_allocation(database):
    node, allocation = _allocated('r')
    resp = api.patch('r', REMOVE_INSTANCE)
    assert resp.status_int == 200, resp.text
    assert (resp.json['instance_uuid'], resp.json['allocation_uuid']) == (
        None, None)
    assert not _allocation_exists(allocation)


def test_removing_instance_uuid_of_deployed_node_needs_maintenance(
        database):
    node, allocation = _allocated('r')
    provision('r', 'active')
    resp = api.patch('r', REMOVE_INSTANCE)
    assert resp.status_int == 409
    assert message(resp) == (
        'Node %s with an allocation can not have instance_uuid removed '
        'unless it is in one of allowed (enroll, manageable, available) '
        'states or in maintenance mode.' % node['uuid'])
    assert _allocation_exists(allocation)
    call('PUT', '/v1/nodes/r/maintenance')
    resp = api.patch('r', REMOVE_INSTANCE)
    assert resp.status_int == 200
    assert resp.json['provision_state'] == 'active'
    assert not _allocation_exists(allocation)


def test_replacing_instance_uuid_of_allocated_node_is_409(database):
    _allocated('x')
    resp = api.patch('x', [{'op': 'replace', 'path': '/instance_uuid',
                            'value': str(uuid.uuid4())}])
    assert resp.status_int == 409


def test_owner_of_node_allocated_with_owner_is_fixed(database):
    node, allocation = _allocated('o', owner='p1')
    resp = api.patch('o', [{'op': 'add', 'path': '/owner', 'value': 'p2'}])
    assert resp.status_int == 409
    assert message(resp) == ('Cannot update owner of node "%s" while it is '
                             'allocated to an allocation with an owner.'
                             % node['uuid'])
    # Other fields may change.
    assert api.patch('o', [{'op': 'add', 'path': '/extra/a',
                            'value': 1}]).status_int == 200
    _node, _alloc = _allocated('o2')
    assert api.patch('o2', [{'op': 'add', 'path': '/owner',
                             'value': 'p2'}]).status_int == 200


def test_delete_allocated_node_in_maintenance(database):
    node, allocation = _allocated('del')
    resp = call('DELETE', '/v1/nodes/del')
    assert resp.status_int == 409
    call('PUT', '/v1/nodes/del/maintenance')
    assert call('DELETE', '/v1/nodes/del').status_int == 204
    assert not _allocation_exists(allocation)
    assert call('GET', '/v1/allocations/' + allocation.uuid).status_int \
        == 404


def test_only_powered_available_nodes_are_candidates(database):
    node = api.available(name='cand', resource_class='baremetal')
    assert candidates.find_candidates(api.ctx(), 'baremetal') == []
    power('cand', 'power off')
    found = candidates.find_candidates(api.ctx(), 'baremetal')
    assert [c.uuid for c in found] == [node['uuid']]
    call('PUT', '/v1/nodes/cand/maintenance')
    assert candidates.find_candidates(api.ctx(), 'baremetal') == []
    call('DELETE', '/v1/nodes/cand/maintenance')
    provision('cand', 'manage')
    assert candidates.find_candidates(api.ctx(), 'baremetal') == []


def test_states_of_the_machine_only(database):
    # Every provision state a node reaches through the API is one the
    # machine knows, and stable.
    api.create(name='s')
    for target in ('manage', 'inspect', 'provide', 'active', 'rebuild',
                   'deleted'):
        provision('s', target)
        assert states.node_is_stable(show('s')['provision_state'])


def test_patch_of_a_node_changed_meanwhile_is_409(database, monkeypatch):
    node = api.create(name='race', extra={'a': 1})
    node_id = db_nodes.get(api.ctx(), 'race').id
    original = locking.take

    def another_writer_first(*args, **kwargs):
        # Another request changes extra after this one read the node.
        mirror.update_node(api.ctx(), node_id, {'extra': {'a': 2}})
        return original(*args, **kwargs)

    monkeypatch.setattr(locking, 'take', another_writer_first)
    resp = api.patch('race', [{'op': 'add', 'path': '/extra/b',
                               'value': 3}])
    assert resp.status_int == 409
    assert message(resp) == ('Node %s was changed by another request (its '
                             'extra differs); please retry.' % node['uuid'])
    monkeypatch.setattr(locking, 'take', original)
    doc = show('race')
    assert (doc['extra'], doc['reservation']) == ({'a': 2}, None)
    # A change of another field does not conflict.
    resp = api.patch('race', [{'op': 'add', 'path': '/owner', 'value': 'p'}])
    assert resp.status_int == 200 and resp.json['extra'] == {'a': 2}


def test_a_retired_node_torn_down_rests_in_manageable(database):
    # Ironic's cleaning ends a retired node in manageable, not
    # available; a node with automated cleaning off skips cleaning and
    # goes to available as any other.
    for name, clean, rests in (('ret-a', None, 'manageable'),
                               ('ret-b', False, 'available')):
        api.create(name=name, automated_clean=clean)
        for target in ('manage', 'provide', 'active'):
            assert provision(name, target).status_int == 202
        resp = call('PATCH', '/v1/nodes/' + name,
                    [{'op': 'replace', 'path': '/retired', 'value': True}],
                    version='latest')
        assert resp.status_int == 200, resp.text
        assert provision(name, 'deleted').status_int == 202
        doc = show(name)
        assert (doc['provision_state'], doc['retired']) == (rests, True)
    resp = provision('ret-a', 'provide')
    assert resp.status_int == 400
    uuid_a = show('ret-a')['uuid']
    assert message(resp) == ("The providing operation can't be performed "
                             "on node %s because it is retired." % uuid_a)
