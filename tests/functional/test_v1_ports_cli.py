"""Real Ironic clients against ``allocsvc-all`` over HTTP, unchanged:
``openstack baremetal port ...`` and ``port group ...``
(python-ironicclient's OSC plugin, negotiating the latest version), and
openstacksdk's baremetal proxy.

Scenarios: a port group and its ports through the CLI (create with
every option, list, list --long and by node, show, set, unset, delete)
and the CLI's error output for a duplicate MAC and an unknown port; the
same life through openstacksdk.
"""

import openstack

from tests.helpers.cli import cli
from tests.helpers.cli import endpoint_fixture


endpoint = endpoint_fixture('ports-cli')


def test_ports_through_the_cli(endpoint):
    bm = 'baremetal'
    rc, made, err = cli(endpoint, [bm, 'node', 'create', '--driver',
                                   'fake-hardware', '--name', 'pnode',
                                   '-f', 'json'])[0]
    assert rc == 0, err
    # The CLI passes --node as node_uuid: a UUID, as its help says.
    node = made['uuid']
    rc, group, err = cli(endpoint, [
        bm, 'port', 'group', 'create', '--node', node, '--name', 'bond0',
        '--address', 'AA:BB:CC:DD:EE:01', '--mode', '802.3ad',
        '--property', 'miimon=100', '-f', 'json'])[0]
    assert rc == 0, err
    results = cli(
        endpoint,
        [bm, 'node', 'show', 'pnode', '-f', 'json'],
        [bm, 'port', 'group', 'show', 'bond0', '-f', 'json'],
        [bm, 'port', 'create', 'aa:bb:cc:dd:ee:02', '--node', node,
         '--port-group', group['uuid'], '--name', 'eth0', '--physical-network',
         'physnet1', '--local-link-connection', 'switch_id=0a:1b:2c:3d:4e:5f',
         '--local-link-connection', 'port_id=Gig0/1', '--extra', 'a=b',
         '--description', 'first', '--vendor', 'acme', '--category', 'fast',
         '-f', 'json'],
        [bm, 'port', 'list', '-f', 'json'],
        [bm, 'port', 'list', '--long', '--node', 'pnode', '-f', 'json'],
        [bm, 'port', 'list', '--port-group', 'bond0', '--fields', 'uuid',
         'name', '-f', 'json'],
        [bm, 'port', 'set', 'eth0', '--extra', 'c=d', '--pxe-disabled'],
        [bm, 'port', 'unset', 'eth0', '--extra', 'a'],
        [bm, 'port', 'show', 'eth0', '-f', 'json'],
        [bm, 'port', 'group', 'list', '-f', 'json'],
        [bm, 'port', 'group', 'show', 'bond0', '-f', 'json'],
        [bm, 'port', 'create', 'aa:bb:cc:dd:ee:02', '--node', node],
        [bm, 'port', 'show', 'nope'],
        [bm, 'port', 'group', 'delete', 'bond0'],
        [bm, 'port', 'delete', 'eth0'],
        [bm, 'port', 'group', 'delete', 'bond0'],
        [bm, 'port', 'list', '-f', 'json'],
    )
    for rc, _out, err in results[:11]:
        assert rc == 0, err
    assert results[1][1]['uuid'] == group['uuid']
    created = results[2][1]
    assert group['address'] == 'aa:bb:cc:dd:ee:01'
    assert group['mode'] == '802.3ad'
    assert group['properties'] == {'miimon': 100}
    assert created['portgroup_uuid'] == group['uuid']
    assert created['local_link_connection'] == {
        'switch_id': '0a:1b:2c:3d:4e:5f', 'port_id': 'Gig0/1'}
    # (The CLI sends --description but does not show the field.)
    assert (created['name'], created['vendor'], created['category']) == (
        'eth0', 'acme', 'fast')
    assert results[3][1] == [{'uuid': created['uuid'],
                              'address': 'aa:bb:cc:dd:ee:02'}]
    assert len(results[4][1]) == 1
    assert results[5][1] == [{'uuid': created['uuid'], 'name': 'eth0'}]
    shown = results[8][1]
    assert shown['extra'] == {'c': 'd'} and shown['pxe_enabled'] is False
    assert [g['uuid'] for g in results[9][1]] == [group['uuid']]
    assert results[10][1]['name'] == 'bond0'
    rc, _out, err = results[11]
    assert rc == 1 and ('A port with MAC address aa:bb:cc:dd:ee:02 already '
                        'exists.' in err), err
    rc, _out, err = results[12]
    assert rc == 1 and 'Port nope could not be found.' in err, err
    rc, _out, err = results[13]
    assert rc == 1 and 'contains ports' in err, err
    assert [rc for rc, _out, _err in results[14:]] == [0, 0, 0]
    assert results[16][1] == []


def test_ports_through_openstacksdk(endpoint):
    conn = openstack.connect(auth_type='none', baremetal_endpoint_override=(
        endpoint), baremetal_api_version='1.115')
    bm = conn.baremetal
    node = bm.create_node(driver='fake-hardware', name='sdk-node')
    group = bm.create_port_group(node_id=node.id, name='sdk-bond')
    port = bm.create_port(node_id=node.id, address='52:54:00:12:34:56',
                          port_group_id=group.id, name='sdk-eth0')
    assert port.port_group_id == group.id and port.name == 'sdk-eth0'
    assert [p.id for p in bm.ports(node=node.id)] == [port.id]
    assert [p.id for p in bm.ports(details=True)][0] == port.id
    port = bm.update_port(port, extra={'x': 'y'})
    assert bm.get_port(port.id).extra == {'x': 'y'}
    assert [g.id for g in bm.port_groups(node=node.id)] == [group.id]
    bm.delete_port(port, ignore_missing=False)
    bm.delete_port_group(group, ignore_missing=False)
    assert list(bm.ports()) == []
    bm.delete_node(node)
