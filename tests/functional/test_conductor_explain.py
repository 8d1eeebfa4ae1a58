"""Why an allocation found no node, counted, and the preview of what one
would find: through a real conductor (cast or RPC call over
``inproc://``), on SQLite, MariaDB and PostgreSQL, with each allocation
back end (database and placement).

Scenarios:

* for each reason a node can be dropped, a fleet where that reason alone
  empties the answer: the allocation's last_error is Ironic's sentence,
  then the count of that reason (not available, maintenance, no power
  state, an instance, an allocation, a Placement consumer, the owner,
  each missing trait, the candidate nodes, no node of the class; and
  the reservation stage: a node locked through every retry);
* the preview of the same request says the same: ``last_error`` is what
  follows "Failed to process allocation <uuid>: ", ``dropped`` the same
  counts; the locked node it lists (locks are the reservation's);
* a node counts once, under the first reason in the algorithm's order;
* the placement back end: a node the nodes table finds fitting whose
  unit Placement does not offer is "refused by Placement";
* a preview lists at most 100 nodes, by UUID, and counts them all; it
  lists and counts only a project's nodes when asked to; it reserves
  nothing;
* a client capped below RPC API 1.6 gets ConductorTooOld (503).
"""

import pytest

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import allocations
from allocsvc.conductor import backends
from allocsvc.conductor import rpcapi
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes
from tests import client
from tests.functional import conductor_harness
from tests.helpers import apps

OTHER_CONSUMER = '6a8b8c2e-5a3d-4d3c-9b7e-2f0d8f0e7a11'
INSTANCE = '3e6ab1b4-3f5e-4b0c-8a5c-b3c9d5b0c9a1'
CLASS = 'no available nodes match the resource class baremetal'
CANDIDATES = ('none of the requested nodes are available and match the '
              'resource class baremetal')


@pytest.fixture
def harness(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        allocation_backend=allocation_backend))
    harness.conductor = harness.start_conductor()
    harness.backend = allocation_backend
    yield harness
    harness.stop()


def _claim(harness, node):
    """A nova-style claim of the node's unit over the Placement API."""
    resp = client.placement_request(
        apps.placement(harness.conf), 'PUT',
        '/allocations/%s' % OTHER_CONSUMER, '1.38', {
            'allocations': {node.uuid: {
                'resources': {'CUSTOM_BAREMETAL': 1}}},
            'project_id': OTHER_CONSUMER, 'user_id': OTHER_CONSUMER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    assert resp.status_int == 204, resp.text


def _request(**asked):
    return dict({'resource_class': 'baremetal', 'traits': [],
                 'candidate_nodes': [], 'owner': None}, **asked)


def _preview(harness, visible_to=None, **asked):
    return harness.rpcapi.preview_allocation(
        harness.context, _request(**asked), visible_to)


def _fail(harness, **asked):
    """The last_error of an allocation asking for ``asked``, which must
    fail."""
    final = harness.final(harness.allocate(
        rc=asked.pop('resource_class', 'baremetal'), **asked).id)
    assert final.state == states.ERROR, final.node_uuid
    return final


# -- one reason at a time ---------------------------------------------------
# Each fleet returns what the allocation asks for (beside the class) and
# the reason it must fail with.

def _not_available(harness):
    harness.node('e', provision_state=states.ENROLL)
    harness.node('m', provision_state=states.MANAGEABLE)
    return {}, CLASS + ' (2 nodes have resource class baremetal: 2 not ' \
        'available)'


def _maintenance(harness):
    harness.node('m', maintenance=True)
    return {}, CLASS + ' (1 node has resource class baremetal: 1 in ' \
        'maintenance)'


def _no_power_state(harness):
    harness.node('p', power_state=None)
    return {}, CLASS + ' (1 node has resource class baremetal: 1 with no ' \
        'power state)'


def _instance(harness):
    harness.node('i', instance_uuid=INSTANCE)
    return {}, CLASS + ' (1 node has resource class baremetal: 1 already ' \
        'allocated)'


def _allocation(harness):
    harness.node('only')
    assert harness.final(harness.allocate().id).state == states.ACTIVE
    return {}, CLASS + ' (1 node has resource class baremetal: 1 already ' \
        'allocated)'


def _held(harness):
    _claim(harness, harness.node('held'))
    return {}, CLASS + ' (1 node has resource class baremetal: 1 held by ' \
        'a Placement consumer)'


def _owner(harness):
    harness.node('theirs', owner='p2')
    harness.node('lent', owner='p2', lessee='p3')
    return {'owner': 'p1'}, CLASS + ' (2 nodes have resource class ' \
        'baremetal: 2 neither owned nor leased by p1)'


def _traits(harness):
    harness.node('a', traits=['CUSTOM_A'])
    harness.node('b', traits=['CUSTOM_B', 'CUSTOM_C'])
    harness.node('c', traits=['CUSTOM_C'])
    # Each node counts under its first missing trait, sorted.
    return {'traits': ['CUSTOM_C', 'CUSTOM_A', 'CUSTOM_B']}, (
        'no suitable nodes have the requested traits CUSTOM_A, CUSTOM_B, '
        'CUSTOM_C (3 nodes have resource class baremetal: 2 missing trait '
        'CUSTOM_A, 1 missing trait CUSTOM_B)')


def _candidates(harness):
    harness.node('a')
    other = harness.node('x', rc='other')
    return {'candidate_nodes': [other.uuid]}, CANDIDATES + ' (1 node has ' \
        'resource class baremetal: 1 not among the candidate nodes)'


def _no_node(harness):
    harness.node('x', rc='other')
    return {}, CLASS + ' (no node has resource class baremetal)'


def _every_reason_once(harness):
    """Nodes that fail several conditions each, and one that fits: what
    it asks for."""
    harness.node('1', provision_state=states.MANAGEABLE, maintenance=True,
                 power_state=None)
    harness.node('2', maintenance=True, power_state=None, owner='p2')
    harness.node('3', power_state=None, instance_uuid=INSTANCE,
                 owner='p2')
    harness.node('4', owner='p2',
                 instance_uuid='0d1c8a51-0f5d-4a0e-8b6c-6f1c1b9b6a4e')
    harness.node('5', owner='p2', traits=['CUSTOM_B'])
    harness.node('6', owner='p1', traits=['CUSTOM_B'])
    harness.node('7', owner='p1', traits=['CUSTOM_A'])
    return {'owner': 'p1', 'traits': ['CUSTOM_A']}


FLEETS = [_not_available, _maintenance, _no_power_state, _instance,
          _allocation, _held, _owner, _traits, _candidates, _no_node]


@pytest.mark.parametrize('fleet', FLEETS, ids=lambda f: f.__name__[1:])
def test_the_reason_is_counted(harness, fleet):
    asked, reason = fleet(harness)
    preview = _preview(harness, **asked)
    final = _fail(harness, **asked)
    assert final.last_error == 'Failed to process allocation %s: %s.' % (
        final.uuid, reason)
    assert preview['last_error'] == reason
    assert preview['nodes'] == [] and preview['node_count'] == 0
    assert ', '.join('%(count)d %(detail)s' % entry
                     for entry in preview['dropped']) in reason


def test_a_node_counts_under_its_first_reason(harness):
    asked = _every_reason_once(harness)
    preview = _preview(harness, **asked)
    assert [(e['reason'], e['count']) for e in preview['dropped']] == [
        ('not_available', 1), ('maintenance', 1), ('no_power_state', 1),
        ('allocated', 1), ('not_owner', 1), ('missing_trait', 1)]
    assert preview['dropped'][-1]['trait'] == 'CUSTOM_A'
    assert preview['node_count'] == 1 and preview['nodes_of_class'] == 7
    assert preview['nodes'] == [{'uuid': nodes.get(harness.context,
                                                   '7').uuid, 'name': '7'}]
    assert preview['last_error'] is None
    final = harness.final(harness.allocate(**asked).id)
    assert final.node_uuid == preview['nodes'][0]['uuid']
    # Now that node 7 is taken, the reason says all of it.
    assert _fail(harness, **asked).last_error.endswith(
        ': no suitable nodes have the requested traits CUSTOM_A (7 nodes '
        'have resource class baremetal: 1 not available, 1 in '
        'maintenance, 1 with no power state, 2 already allocated, 1 '
        'neither owned nor leased by p1, 1 missing trait CUSTOM_A).')


def test_the_counts_are_cut_to_fit_the_column(harness):
    from allocsvc.conductor import explain
    counted = _preview(harness, **_every_reason_once(harness))['dropped']
    whole = explain.reason('s', 'baremetal', 7, counted)
    assert whole == (
        's (7 nodes have resource class baremetal: 1 not available, 1 in '
        'maintenance, 1 with no power state, 1 already allocated, 1 '
        'neither owned nor leased by p1, 1 missing trait CUSTOM_A)')
    cut = explain.reason('s', 'baremetal', 7, counted, limit=97)
    assert cut == ('s (7 nodes have resource class baremetal: 1 not '
                   'available, 1 in maintenance, 4 for other reasons)')
    assert explain.reason('s', 'baremetal', 7, counted, limit=20) == 's'
    assert explain.reason('s' * 30, 'baremetal', 7, counted,
                          limit=20) == 's' * 17 + '...'


# -- the reservation stage ------------------------------------------------

def test_locked_through_every_retry_is_lost_to_the_race(harness):
    node = harness.node('only')
    node_locks.reserve(harness.context, node.id, 'someone-else')
    # The lock is the reservation stage's business: the preview lists
    # the node.
    preview = _preview(harness)
    assert preview['nodes'] == [{'uuid': node.uuid, 'name': 'only'}]
    assert preview['dropped'] == [] and preview['last_error'] is None
    final = _fail(harness)
    assert final.last_error == (
        'Failed to process allocation %s: could not reserve any of 1 '
        'suitable nodes (1 node has resource class baremetal: 1 locked or '
        'changed while being reserved).' % final.uuid)


def test_counting_failure_keeps_the_sentence(harness, monkeypatch):
    from allocsvc.conductor import explain
    node = harness.node('only')
    node_locks.reserve(harness.context, node.id, 'someone-else')

    def broken(*args, **kwargs):
        raise RuntimeError('no counts today')

    monkeypatch.setattr(explain, 'reservation_failed', broken)
    allocation = harness.write_allocation(harness.conductor.conductor_id)
    final = allocations.allocate(
        harness.context, allocation.id, harness.conductor.host,
        harness.conductor.conductor_id, retry_attempts=0,
        retry_interval=0, sleep=lambda _: None,
        backend=backends.from_conf(harness.conf))
    assert final.last_error == (
        'Failed to process allocation %s: could not reserve any of 1 '
        'suitable nodes.' % final.uuid)


# -- the placement back end --------------------------------------------------

# The database back end does not ask Placement: this back end alone.
@pytest.mark.parametrize('allocation_backend', [backends.PLACEMENT])
def test_placement_refuses_a_unit_it_has_not(harness):
    node = harness.node('only')
    # The unit reserved behind the mirror's back: the nodes table finds
    # the node fitting, the engine does not offer it.
    app = apps.placement(harness.conf)
    rp = client.ok(client.placement_request(
        app, 'GET', '/resource_providers/%s' % node.uuid, '1.38'))
    client.ok(client.placement_request(
        app, 'PUT', '/resource_providers/%s/inventories' % node.uuid,
        '1.38', {'resource_provider_generation': rp['generation'],
                 'inventories': {'CUSTOM_BAREMETAL': {
                     'total': 1, 'reserved': 1}}}))
    reason = CLASS + ' (1 node has resource class baremetal: 1 refused ' \
        'by Placement (no free unit on their resource provider))'
    preview = _preview(harness)
    assert preview['dropped'] == [{
        'reason': 'refused', 'count': 1,
        'detail': 'refused by Placement (no free unit on their resource '
                  'provider)'}]
    assert preview['last_error'] == reason
    final = _fail(harness)
    assert final.last_error == 'Failed to process allocation %s: %s.' % (
        final.uuid, reason)


# -- the preview --------------------------------------------------------------

def test_preview_lists_a_hundred_by_uuid_and_counts_all(harness):
    made = harness.nodes(103)
    harness.node('m', maintenance=True)
    preview = _preview(harness)
    uuids = sorted(node.uuid for node in made)
    assert [n['uuid'] for n in preview['nodes']] == uuids[:100]
    names = {node.uuid: node.name for node in made}
    assert all(n['name'] == names[n['uuid']] for n in preview['nodes'])
    assert preview['node_count'] == 103
    assert preview['nodes_of_class'] == 104
    assert preview['dropped'] == [{'reason': 'maintenance', 'count': 1,
                                   'detail': 'in maintenance'}]
    # Nothing was reserved.
    for node in made:
        fresh = nodes.get_by_id(harness.context, node.id)
        assert fresh.reservation is None and fresh.instance_uuid is None


def test_preview_echoes_the_request(harness):
    a = harness.node('a', traits=['CUSTOM_A'], owner='p1')
    preview = _preview(harness, traits=['CUSTOM_A'], owner='p1',
                       candidate_nodes=[a.uuid])
    assert preview == {
        'resource_class': 'baremetal', 'traits': ['CUSTOM_A'],
        'candidate_nodes': [a.uuid], 'owner': 'p1',
        'nodes': [{'uuid': a.uuid, 'name': 'a'}], 'node_count': 1,
        'nodes_of_class': 1, 'dropped': [], 'last_error': None}


def test_preview_of_one_project_counts_its_nodes_only(harness):
    mine = harness.node('mine', owner='p1')
    leased = harness.node('leased', owner='p2', lessee='p1',
                          maintenance=True)
    harness.node('theirs', owner='p2')
    harness.node('theirs-too', owner='p2', maintenance=True)
    harness.node('nobodys')
    preview = _preview(harness, visible_to='p1')
    assert preview['nodes'] == [{'uuid': mine.uuid, 'name': 'mine'}]
    assert preview['nodes_of_class'] == 2
    assert preview['dropped'] == [{'reason': 'maintenance', 'count': 1,
                                   'detail': 'in maintenance'}]
    assert leased.uuid not in [n['uuid'] for n in preview['nodes']]
    # The same request for everybody's eyes.
    preview = _preview(harness)
    assert preview['node_count'] == 3 and preview['nodes_of_class'] == 5


def test_capped_client_refuses_the_preview(harness):
    conf = harness.make_conf(rpc_version_cap='1.5')
    capped = rpcapi.ConductorAPI(conf, harness.transport)
    with pytest.raises(exception.ConductorTooOld) as info:
        capped.preview_allocation(harness.context, _request())
    assert info.value.status == 503
    assert 'RPC API 1.6' in str(info.value)
