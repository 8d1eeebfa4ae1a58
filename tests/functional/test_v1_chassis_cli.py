"""Real Ironic clients against ``allocsvc-all`` over HTTP, unchanged:
``openstack baremetal chassis ...`` (python-ironicclient's OSC plugin,
negotiating the latest version), python-ironicclient's chassis manager
and openstacksdk's baremetal proxy.

Scenarios: a chassis through the CLI (create with every option, list,
list --long, show, set, unset), a node created in it and listed by it
(``node list --chassis``), moved out of it (``node unset
--chassis-uuid``), the CLI's error output for a chassis with nodes and
an unknown one, delete; the nodes of a chassis through ironicclient's
``list_nodes`` (which follows ``next`` links); the same life through
openstacksdk.
"""

import uuid

from ironicclient import client as ironic_client
import openstack

from tests.helpers.cli import cli
from tests.helpers.cli import endpoint_fixture


endpoint = endpoint_fixture('chassis-cli')


def test_chassis_through_the_cli(endpoint):
    bm = 'baremetal'
    given = str(uuid.uuid4())
    rc, made, err = cli(endpoint, [
        bm, 'chassis', 'create', '--description', 'rack 1', '--extra',
        'row=a', '--uuid', given, '-f', 'json'])[0]
    assert rc == 0, err
    assert made['uuid'] == given and made['extra'] == {'row': 'a'}
    results = cli(
        endpoint,
        [bm, 'node', 'create', '--driver', 'fake-hardware', '--name',
         'in-rack', '--chassis-uuid', given, '-f', 'json'],
        [bm, 'node', 'create', '--driver', 'fake-hardware', '--name',
         'elsewhere', '-f', 'json'],
        [bm, 'chassis', 'list', '-f', 'json'],
        [bm, 'chassis', 'list', '--long', '-f', 'json'],
        [bm, 'chassis', 'show', given, '-f', 'json'],
        [bm, 'chassis', 'set', given, '--description', 'rack 2',
         '--extra', 'u=4'],
        [bm, 'chassis', 'unset', given, '--extra', 'row'],
        [bm, 'chassis', 'show', given, '--fields', 'uuid', 'description',
         'extra', '-f', 'json'],
        [bm, 'node', 'list', '--chassis', given, '-f', 'json'],
        [bm, 'node', 'show', 'in-rack', '-f', 'json'],
        [bm, 'chassis', 'delete', given],
        [bm, 'chassis', 'show', str(uuid.uuid4())],
        [bm, 'node', 'unset', 'in-rack', '--chassis-uuid'],
        [bm, 'node', 'list', '--chassis', given, '-f', 'json'],
        [bm, 'chassis', 'delete', given],
        [bm, 'chassis', 'list', '-f', 'json'],
    )
    for index in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15):
        assert results[index][0] == 0, (index, results[index][2])
    assert results[2][1] == [{'uuid': given, 'description': 'rack 1'}]
    [long] = results[3][1]
    assert long['uuid'] == given and long['extra'] == {'row': 'a'}
    assert results[4][1]['description'] == 'rack 1'
    assert results[7][1] == {'uuid': given, 'description': 'rack 2',
                             'extra': {'u': 4}}
    assert [n['name'] for n in results[8][1]] == ['in-rack']
    assert results[9][1]['chassis_uuid'] == given
    rc, _out, err = results[10]
    assert rc != 0
    assert ('Cannot complete the requested action because chassis %s '
            'contains nodes.' % given) in err
    rc, _out, err = results[11]
    assert rc != 0 and 'could not be found' in err
    assert results[13][1] == []
    assert results[15][1] == []


def test_the_nodes_of_a_chassis_through_ironicclient(endpoint):
    ironic = ironic_client.get_client(1, endpoint=endpoint,
                                      auth_type='none',
                                      os_ironic_api_version='latest')
    rack = ironic.chassis.create(description='ic')
    made = [ironic.node.create(driver='fake-hardware',
                               chassis_uuid=rack.uuid) for _i in range(3)]
    # Pages of one, each page's next link followed by the client.
    listed = ironic.chassis.list_nodes(rack.uuid, limit=0)
    assert sorted(n.uuid for n in listed) == sorted(n.uuid for n in made)
    paged = ironic.chassis.list_nodes(rack.uuid, limit=2, detail=True)
    assert len(paged) == 2 and paged[0].chassis_uuid == rack.uuid
    assert ironic.chassis.get(rack.uuid).description == 'ic'
    updated = ironic.chassis.update(rack.uuid, [
        {'op': 'add', 'path': '/extra/k', 'value': 'v'}])
    assert updated.extra == {'k': 'v'}
    for node in made:
        ironic.node.delete(node.uuid)
    ironic.chassis.delete(rack.uuid)
    assert rack.uuid not in [c.uuid for c in ironic.chassis.list()]


def test_chassis_through_openstacksdk(endpoint):
    conn = openstack.connection.Connection(
        auth_type='none', baremetal_endpoint_override=endpoint,
        baremetal_api_version='1')
    bm = conn.baremetal
    rack = bm.create_chassis(description='sdk', extra={'a': 1})
    assert rack.description == 'sdk' and rack.extra == {'a': 1}
    assert [c.id for c in bm.chassis()] == [rack.id]
    [detailed] = bm.chassis(details=True)
    assert detailed.extra == {'a': 1} and detailed.created_at
    node = bm.create_node(driver='fake-hardware', chassis_id=rack.id)
    assert node.chassis_id == rack.id
    rack = bm.update_chassis(rack, description='sdk 2')
    assert bm.get_chassis(rack.id).description == 'sdk 2'
    rack = bm.patch_chassis(rack, [{'op': 'remove', 'path': '/extra/a'}])
    assert rack.extra == {}
    bm.delete_node(node)
    bm.delete_chassis(rack)
    assert list(bm.chassis()) == []
