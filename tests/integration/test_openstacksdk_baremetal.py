"""A real bare-metal client against the real service: openstacksdk's
baremetal proxy (``conn.baremetal``), talking to ``allocsvc-all`` over
HTTP with a noauth token and the microversion it negotiates, unchanged.

The walk is the one openstacksdk's own functional tests take: enrol a
fake-hardware node with its interfaces, give it ports (and a port group),
manage and provide it, power it off, allocate it, and take it all down
again; a chassis's life, with a node in it; each step checked the way
a client reads it.
(``tools/baremetal-conformance.sh`` runs the SDK's own test files.)
"""

from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
import openstack
from openstack import exceptions
import pytest

from tests.helpers import processes

# One worker runs the module, on its one service (a module fixture).
pytestmark = pytest.mark.xdist_group(__name__)


@pytest.fixture(scope='module')
def endpoint(tmp_path_factory):
    yield from processes.serve_all_in_one(
        tmp_path_factory.mktemp('sdk-baremetal'))


@pytest.fixture
def baremetal(endpoint):
    auth = token_endpoint.Token(endpoint, 'admin')
    conn = openstack.connection.Connection(
        session=ks_session.Session(auth=auth),
        baremetal_endpoint_override=endpoint)
    return conn.baremetal


def test_enrol_ports_provide_allocate_delete(baremetal):
    node = baremetal.create_node(
        driver='fake-hardware', name='sdk-node-1',
        resource_class='baremetal-sdk', network_interface='noop',
        deploy_interface='fake', boot_interface='fake',
        driver_info={'ipmi_address': '192.0.2.1', 'ipmi_password': 's3cr3t'},
        properties={'cpu_arch': 'x86_64'})
    assert node.provision_state == 'enroll'
    assert (node.network_interface, node.deploy_interface) == \
        ('noop', 'fake')
    # Interfaces not given take the fake-hardware defaults.
    assert node.power_interface == 'fake'
    assert node.management_interface == 'fake'
    assert node.driver_info['ipmi_password'] == '******'
    assert node.conductor, 'a node always shows a live conductor'

    group = baremetal.create_port_group(node_uuid=node.id,
                                        address='52:54:00:00:00:10',
                                        name='sdk-bond0')
    port = baremetal.create_port(node_uuid=node.id,
                                 address='52:54:00:00:00:01',
                                 port_group_id=group.id,
                                 pxe_enabled=True,
                                 physical_network='physnet1')
    baremetal.create_port(node_uuid=node.id, address='52:54:00:00:00:02')
    assert port.node_id == node.id and port.port_group_id == group.id
    assert sorted(p.address for p in baremetal.ports(node=node.id)) == \
        ['52:54:00:00:00:01', '52:54:00:00:00:02']
    assert [p.id for p in baremetal.ports(
        details=True, address='52:54:00:00:00:01')] == [port.id]
    # The same MAC address twice is a conflict.
    with pytest.raises(exceptions.ConflictException):
        baremetal.create_port(node_uuid=node.id,
                              address='52:54:00:00:00:01')
    port = baremetal.patch_port(port, [{'op': 'add', 'path': '/extra/slot',
                                        'value': 3}])
    assert port.extra == {'slot': 3}

    validation = baremetal.validate_node(node, required=('power',
                                                         'management'))
    assert validation['power'].result and validation['management'].result

    baremetal.set_node_provision_state(node, 'manage', wait=True,
                                       timeout=60)
    baremetal.set_node_provision_state(node, 'provide', wait=True,
                                       timeout=60)
    baremetal.set_node_power_state(node, 'power off', wait=True, timeout=60)
    node = baremetal.get_node(node.id)
    assert (node.provision_state, node.power_state) == \
        ('available', 'power off')

    allocation = baremetal.create_allocation(resource_class='baremetal-sdk')
    allocation = baremetal.wait_for_allocation(allocation, timeout=60)
    assert (allocation.state, allocation.node_id) == ('active', node.id)
    assert baremetal.get_node(node.id).allocation_id == allocation.id

    baremetal.delete_allocation(allocation, ignore_missing=False)
    assert baremetal.get_node(node.id).allocation_id is None

    # An available node may be deleted (Ironic's default); its ports and
    # port group go with it.
    baremetal.delete_node(node, ignore_missing=False)
    with pytest.raises(exceptions.NotFoundException):
        baremetal.get_node(node.id)
    with pytest.raises(exceptions.NotFoundException):
        baremetal.get_port(port.id)
    with pytest.raises(exceptions.NotFoundException):
        baremetal.get_port_group(group.id)
    assert list(baremetal.ports(address='52:54:00:00:00:02')) == []


def test_chassis_as_the_sdks_functional_tests_use_them(baremetal):
    chassis = baremetal.create_chassis(description='sdk', extra={'a': 1})
    assert baremetal.get_chassis(chassis.id).description == 'sdk'
    assert chassis.id in [c.id for c in baremetal.chassis()]
    [shown] = [c for c in baremetal.chassis(fields=['uuid', 'extra'])
               if c.id == chassis.id]
    assert shown.extra == {'a': 1} and shown.description is None
    chassis.extra = {'b': 2}
    chassis = baremetal.update_chassis(chassis)
    assert baremetal.get_chassis(chassis.id).extra == {'b': 2}
    chassis = baremetal.patch_chassis(
        chassis, [dict(path='/extra/c', op='add', value='d')])
    assert chassis.extra == {'b': 2, 'c': 'd'}
    node = baremetal.create_node(driver='fake-hardware',
                                 chassis_id=chassis.id)
    assert baremetal.get_node(node.id).chassis_id == chassis.id
    # A chassis with a node stays.
    with pytest.raises(exceptions.BadRequestException):
        baremetal.delete_chassis(chassis, ignore_missing=False)
    baremetal.delete_node(node, ignore_missing=False)
    baremetal.delete_chassis(chassis, ignore_missing=False)
    with pytest.raises(exceptions.NotFoundException):
        baremetal.get_chassis(chassis.id)
    with pytest.raises(exceptions.NotFoundException):
        baremetal.delete_chassis(chassis.id, ignore_missing=False)
    assert baremetal.delete_chassis(chassis.id) is None


def test_drivers_describe_fake_hardware(baremetal):
    drivers = {d.name: d for d in baremetal.drivers(details=True)}
    fake = drivers['fake-hardware']
    assert fake.hosts, 'a live conductor serves fake-hardware'
    assert fake.default_power_interface == 'fake'
    assert 'fake' in fake.enabled_deploy_interfaces
    with pytest.raises(exceptions.NotFoundException):
        baremetal.get_driver('no-such-driver')
