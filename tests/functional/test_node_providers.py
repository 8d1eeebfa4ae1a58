"""Bare-metal nodes as Placement resource providers: the mirror, the
claims of the placement allocation back end, and the rules that keep a
node from being held twice; on SQLite, MariaDB and PostgreSQL.

Scenarios:

* a node's provider has the shape nova's ironic driver reports: uuid and
  name the node's, a root, one unit of CUSTOM_<RC> (normalised as nova
  does), the node's traits; no inventory without a resource class;
* the unit is reserved while the node cannot take an allocation (enroll,
  maintenance, no power state), and follows every change of the node;
  traits and the resource class follow too; deleting the node deletes
  the provider;
* binding a node (each back end): database -- the unit reserved, no
  usage; placement -- a claim of the allocation's uuid, of consumer type
  BAREMETAL_ALLOCATION and the owner's project, the unit not reserved;
  deleting the allocation, removing instance_uuid and tearing down free
  the unit again; backfill claims too;
* a node whose provider a Placement consumer holds is never bound, and
  a bound node's provider cannot be claimed (409);
* Placement refuses to delete a bound node's provider or its inventory
  (409), and allows it for a free node (the next node write recreates
  it).
"""

import pytest

from allocsvc import objects
from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import allocations as conductor_allocations
from allocsvc.conductor import backends
from allocsvc.conductor import locking
from allocsvc.conductor import mirror
from allocsvc.conductor import provisioning
from allocsvc.conductor import verbs
from allocsvc.db.baremetal import candidates as db_candidates
from allocsvc.db.baremetal import nodes
from tests import client
from tests import conftest
from tests.functional import conductor_harness
from tests.helpers import apps

NOVA = '6a8b8c2e-5a3d-4d3c-9b7e-2f0d8f0e7a11'
PROJECT = '0d1c8a51-0f5d-4a0e-8b6c-6f1c1b9b6a4e'


@pytest.fixture
def harness(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        allocation_backend=allocation_backend))
    harness.conductor = harness.start_conductor()
    harness.backend = allocation_backend
    harness.placement = apps.placement(harness.conf)
    yield harness
    harness.stop()


@pytest.fixture
def placement(database):
    harness = conductor_harness.Harness()
    harness.placement = apps.placement(harness.conf)
    return harness


def _get(harness, path, version='1.38'):
    resp = client.placement_request(harness.placement, 'GET', path, version)
    assert resp.status_int == 200, resp.text
    return resp.json


def _inventory(harness, uuid):
    return _get(harness, '/resource_providers/%s/inventories' % uuid)[
        'inventories']


def _reserved(harness, node):
    rc = 'CUSTOM_' + node.resource_class.upper().replace('-', '_')
    return _inventory(harness, node.uuid)[rc]['reserved']


def _usages(harness, uuid):
    return _get(harness, '/resource_providers/%s/usages' % uuid)['usages']


def _claim(harness, node, consumer=NOVA, rc='CUSTOM_BAREMETAL'):
    """A nova-style claim of the node's unit over the Placement API."""
    return client.placement_request(
        harness.placement, 'PUT', '/allocations/%s' % consumer, '1.38', {
            'allocations': {node.uuid: {'resources': {rc: 1}}},
            'project_id': PROJECT, 'user_id': PROJECT,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})


# -- the mirror ---------------------------------------------------------------

def test_a_node_is_a_provider_of_novas_shape(placement):
    node = placement.node('n1', rc='baremetal-gold.large',
                          provision_state=states.ENROLL, power_state=None,
                          traits=['CUSTOM_GOLD', 'HW_CPU_X86_VMX'])
    rp = _get(placement, '/resource_providers/%s' % node.uuid)
    assert rp['name'] == node.uuid
    assert rp['root_provider_uuid'] == node.uuid
    assert rp['parent_provider_uuid'] is None
    assert _inventory(placement, node.uuid) == {
        'CUSTOM_BAREMETAL_GOLD_LARGE': {
            'total': 1, 'reserved': 1, 'min_unit': 1, 'max_unit': 1,
            'step_size': 1, 'allocation_ratio': 1.0}}
    traits = _get(placement, '/resource_providers/%s/traits' % node.uuid)
    assert sorted(traits['traits']) == ['CUSTOM_GOLD', 'HW_CPU_X86_VMX']


def test_reserved_follows_the_node(placement):
    node = placement.node('n1', provision_state=states.ENROLL)
    assert _reserved(placement, node) == 1
    mirror.update_node(placement.context, node.id,
                       {'provision_state': states.AVAILABLE})
    assert _reserved(placement, node) == 0
    generation = _get(placement,
                      '/resource_providers/%s' % node.uuid)['generation']
    mirror.update_node(placement.context, node.id, {'maintenance': True})
    assert _reserved(placement, node) == 1
    # Every change of the inventory moves the generation on.
    assert _get(placement, '/resource_providers/%s' % node.uuid)[
        'generation'] > generation
    mirror.update_node(placement.context, node.id, {'maintenance': False})
    assert _reserved(placement, node) == 0
    mirror.update_node(placement.context, node.id, {'power_state': None})
    assert _reserved(placement, node) == 1


def test_traits_follow_the_node(placement):
    node = placement.node('n1', traits=['CUSTOM_A'])
    path = '/resource_providers/%s/traits' % node.uuid
    mirror.set_traits(placement.context, node.id, ['CUSTOM_B', 'CUSTOM_C'])
    assert sorted(_get(placement, path)['traits']) == ['CUSTOM_B',
                                                       'CUSTOM_C']
    mirror.add_trait(placement.context, node.id, 'HW_CPU_X86_AVX2')
    mirror.remove_trait(placement.context, node.id, 'CUSTOM_B')
    assert sorted(_get(placement, path)['traits']) == ['CUSTOM_C',
                                                       'HW_CPU_X86_AVX2']
    mirror.remove_all_traits(placement.context, node.id)
    assert _get(placement, path)['traits'] == []


def test_resource_class_follows_the_node(placement):
    node = placement.node('n1', rc='small')
    mirror.update_node(placement.context, node.id, {'resource_class': 'big'})
    assert list(_inventory(placement, node.uuid)) == ['CUSTOM_BIG']
    mirror.update_node(placement.context, node.id, {'resource_class': None})
    assert _inventory(placement, node.uuid) == {}


def test_deleting_the_node_deletes_its_provider(placement):
    node = placement.node('n1')
    mirror.destroy_node(placement.context, node.id)
    resp = client.placement_request(
        placement.placement, 'GET', '/resource_providers/%s' % node.uuid)
    assert resp.status_int == 404


# -- binding, under each back end -----------------------------------------

def _holders(harness, node):
    return sorted(_get(harness, '/resource_providers/%s/allocations'
                       % node.uuid)['allocations'])


def test_a_bound_node_is_held_in_placement(harness):
    node = harness.node('n1', owner=PROJECT)
    final = harness.final(harness.allocate(owner=PROJECT).id)
    assert final.state == states.ACTIVE
    if harness.backend == backends.PLACEMENT:
        assert _holders(harness, node) == [final.uuid]
        claim = _get(harness, '/allocations/%s' % final.uuid)
        assert claim['consumer_type'] == 'BAREMETAL_ALLOCATION'
        assert claim['project_id'] == PROJECT
        assert claim['allocations'][node.uuid]['resources'] == {
            'CUSTOM_BAREMETAL': 1}
        assert _reserved(harness, node) == 0
        assert _usages(harness, node.uuid) == {'CUSTOM_BAREMETAL': 1}
    else:
        assert _holders(harness, node) == []
        assert _reserved(harness, node) == 1
    # Either way nobody else can claim it.
    resp = _claim(harness, node)
    assert resp.status_int == 409, resp.text
    mirror.destroy_allocation(harness.context, final.id)
    assert _holders(harness, node) == []
    assert _reserved(harness, node) == 0
    assert _claim(harness, node).status_int == 204


@pytest.mark.parametrize('how', ['remove instance_uuid', 'tear down'])
def test_unbinding_a_node_frees_its_unit(harness, how):
    node = harness.node('n1')
    final = harness.final(harness.allocate().id)
    assert final.state == states.ACTIVE
    locker = locking.Locker('api-test')
    if how == 'tear down':
        verbs.provision(harness.context, node.id, 'active', locker)
        verbs.provision(harness.context, node.id, 'deleted', locker)
    else:
        provisioning.update_node(harness.context, node.id,
                                 {'instance_uuid': None}, locker)
    assert _holders(harness, node) == []
    assert _reserved(harness, node) == 0
    assert nodes.get_by_id(harness.context, node.id).allocation_id is None


def test_a_held_node_is_never_bound(harness):
    held = harness.node('held')
    assert _claim(harness, held).status_int == 204
    final = harness.final(harness.allocate().id)
    assert final.state == states.ERROR
    assert 'no available nodes match' in final.last_error
    free = harness.node('free')
    final = harness.final(harness.allocate().id)
    assert final.node_uuid == free.uuid
    assert _holders(harness, held) == [NOVA]


def test_an_available_node_a_consumer_holds_is_not_deleted(harness):
    """Available nodes may be deleted (as Ironic), but not from under a
    Placement consumer: 409, and the node and the claim stay."""
    held = harness.node('held')
    assert _claim(harness, held).status_int == 204
    with pytest.raises(exception.ProviderInUse) as info:
        harness.rpcapi.destroy_node(harness.context,
                                    objects.Node.get(harness.context,
                                                     held.id))
    assert info.value.status == 409
    assert 'has allocations of consumer(s) %s' % NOVA in str(info.value)
    assert nodes.get_by_id(harness.context, held.id).reservation is None
    assert _holders(harness, held) == [NOVA]
    free = harness.node('free')
    harness.rpcapi.destroy_node(harness.context,
                                objects.Node.get(harness.context, free.id))
    with pytest.raises(exception.NodeNotFound):
        nodes.get_by_id(harness.context, free.id)


def test_database_batches_leave_held_nodes_out(placement):
    # The batch is drawn among the free nodes, then its rows are checked
    # for a Placement consumer; one held sends the query to draw again
    # among the nodes nobody holds.
    made = placement.nodes(12)
    found = db_candidates.find_candidates(placement.context, 'baremetal',
                                          batch=8)
    assert len({row.uuid for row in found}) == 8
    assert {row.uuid for row in found} <= {node.uuid for node in made}
    for index, node in enumerate(made[:9]):
        consumer = '00000000-0000-4000-8000-%012d' % index
        assert _claim(placement, node, consumer).status_int == 204
    free = {node.uuid for node in made[9:]}
    for _ in range(10):
        found = db_candidates.find_candidates(placement.context,
                                              'baremetal', batch=8)
        assert {row.uuid for row in found} == free
    assert _claim(placement, made[9], NOVA).status_int == 204
    found = db_candidates.find_candidates(placement.context, 'baremetal',
                                          batch=8)
    assert {row.uuid for row in found} == free - {made[9].uuid}


def test_a_node_claimed_after_it_was_chosen_is_skipped(harness):
    # The claim lands between the candidate query and the bind: the bind
    # re-checks the provider under its row lock.
    node = harness.node('only')
    allocation = harness.write_allocation(harness.conductor.conductor_id)
    backend = backends.from_conf(harness.conf)
    real = conductor_allocations.order_candidates

    def claim_then_order(candidates, name, rng):
        assert [c.uuid for c in candidates] == [node.uuid]
        assert _claim(harness, node).status_int == 204
        return real(candidates, name, rng)

    conductor_allocations.order_candidates = claim_then_order
    try:
        final = conductor_allocations.allocate(
            harness.context, allocation.id, harness.conductor.host,
            harness.conductor.conductor_id, retry_attempts=0,
            retry_interval=0, backend=backend)
    finally:
        conductor_allocations.order_candidates = real
    assert final.state == states.ERROR
    assert 'all nodes were filtered out' in final.last_error
    assert _holders(harness, node) == [NOVA]
    assert nodes.get_by_id(harness.context, node.id).instance_uuid is None


def test_backfill_holds_the_node(harness):
    node = harness.node('n1', provision_state=states.ACTIVE)
    assert _reserved(harness, node) == 1
    backfilled = conductor_allocations.backfill(
        harness.context, {'resource_class': 'baremetal'}, node.id,
        harness.conductor.host, harness.conductor.conductor_id,
        backend=backends.from_conf(harness.conf))
    if harness.backend == backends.PLACEMENT:
        assert _holders(harness, node) == [backfilled.uuid]
        assert _reserved(harness, node) == 0
    else:
        assert _holders(harness, node) == []
        assert _reserved(harness, node) == 1
    assert _claim(harness, node).status_int == 409


# -- what Placement may not do to a bound node's provider ------------------

def test_placement_cannot_remove_a_bound_nodes_unit(harness):
    node = harness.node('n1')
    assert harness.final(harness.allocate().id).state == states.ACTIVE
    app = harness.placement
    for method, path in [
            ('DELETE', '/resource_providers/%s' % node.uuid),
            ('DELETE', '/resource_providers/%s/inventories' % node.uuid),
            ('DELETE', '/resource_providers/%s/inventories/CUSTOM_BAREMETAL'
             % node.uuid)]:
        resp = client.placement_request(app, method, path, '1.38')
        assert resp.status_int == 409, (path, resp.text)
        assert 'bare-metal node %s' % node.uuid in \
            resp.json['errors'][0]['detail']
    generation = _get(harness, '/resource_providers/%s' % node.uuid)[
        'generation']
    resp = client.placement_request(
        app, 'PUT', '/resource_providers/%s/inventories' % node.uuid,
        '1.38', {'resource_provider_generation': generation,
                 'inventories': {'VCPU': {'total': 4}}})
    assert resp.status_int == 409, resp.text
    assert list(_inventory(harness, node.uuid)) == ['CUSTOM_BAREMETAL']


def test_a_free_nodes_provider_may_go_and_comes_back(placement):
    node = placement.node('n1')
    resp = client.placement_request(
        placement.placement, 'DELETE', '/resource_providers/%s' % node.uuid)
    assert resp.status_int == 204
    mirror.update_node(placement.context, node.id, {'description': 'x'})
    assert list(_inventory(placement, node.uuid)) == ['CUSTOM_BAREMETAL']


def test_every_backend_is_offered():
    conf = conftest.make_conf()
    assert conf.conductor.allocation_backend == backends.DATABASE
    assert isinstance(backends.from_conf(conf), backends.Database)
    conf.set_override('allocation_backend', 'placement', group='conductor')
    assert isinstance(backends.from_conf(conf), backends.Placement)


def test_a_claim_changes_only_with_its_allocation(harness):
    # Placement clients cannot move, replace or delete the claim of a
    # bare-metal allocation: the node would stay bound with its unit free.
    node = harness.node('n1')
    final = harness.final(harness.allocate().id)
    other = harness.node('n2')
    app = harness.placement
    path = '/allocations/%s' % final.uuid
    assert client.placement_request(app, 'DELETE', path).status_int == 409
    resp = client.placement_request(app, 'PUT', path, '1.38', {
        'allocations': {other.uuid: {'resources': {'CUSTOM_BAREMETAL': 1}}},
        'project_id': PROJECT, 'user_id': PROJECT,
        'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    assert resp.status_int == 409, resp.text
    assert 'bare-metal allocation' in resp.json['errors'][0]['detail']
    resp = client.placement_request(app, 'POST', '/allocations', '1.38', {
        final.uuid: {
            'allocations': {other.uuid: {
                'resources': {'CUSTOM_BAREMETAL': 1}}},
            'project_id': PROJECT, 'user_id': PROJECT,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}})
    assert resp.status_int == 409, resp.text
    expected = [final.uuid] if harness.backend == backends.PLACEMENT else []
    assert _holders(harness, node) == expected
    assert _holders(harness, other) == []


@pytest.mark.parametrize('kind', backends.NAMES)
def test_a_batch_taken_meanwhile_is_asked_again(placement, kind):
    # A back end reads a batch of candidates; when others took every
    # node of it before the bind, it asks for the nodes left.
    made = placement.nodes(5)
    svc = placement.start_conductor()
    try:
        allocation = placement.write_allocation(svc.conductor_id)
        if kind == backends.PLACEMENT:
            backend = backends.Placement(PROJECT, PROJECT, batch=2)
        else:
            backend = backends.Database(batch=2)
        real = conductor_allocations.order_candidates
        taken = []

        def take_the_batch(candidates, name, rng):
            if not taken:
                assert len(candidates) == 2
                for number, candidate in enumerate(candidates):
                    node = nodes.get_by_uuid(placement.context,
                                             candidate.uuid)
                    consumer = '%s%d' % (NOVA[:-1], number)
                    assert _claim(placement, node, consumer).status_int == \
                        204
                    taken.append(candidate.uuid)
            return real(candidates, name, rng)

        conductor_allocations.order_candidates = take_the_batch
        try:
            final = conductor_allocations.allocate(
                placement.context, allocation.id, svc.host,
                svc.conductor_id, retry_attempts=0, retry_interval=0,
                backend=backend)
        finally:
            conductor_allocations.order_candidates = real
    finally:
        placement.stop()
    assert final.state == states.ACTIVE, final.last_error
    assert final.node_uuid in {n.uuid for n in made} - set(taken)
