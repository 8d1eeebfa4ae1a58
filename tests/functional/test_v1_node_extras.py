"""What a node's driver does beyond power and provisioning, on every
database backend: boot device, VIFs, console, RAID, BIOS, firmware,
inventory, history and children (``node_extras``).

Scenarios: each documented path answers at its version what Ironic
answers for a fake-hardware node that keeps none of it (or its
UnsupportedDriverExtension, with Ironic's status), never a 404 or 405
there; before its version, a 404; bad input 400 with Ironic's messages;
an unknown node 404; and nothing about the node changes.
"""

import threading

import pytest

from tests.functional import test_v1_nodes as api

pytestmark = pytest.mark.usefixtures('api_conductor')

call = api.call
message = api.message


@pytest.fixture
def node(database):
    return api.create(name='n')


def test_boot_device(node):
    resp = call('GET', '/v1/nodes/n/management/boot_device')
    assert resp.status_int == 200
    assert resp.json == {'boot_device': 'pxe', 'persistent': False}
    resp = call('GET', '/v1/nodes/n/management/boot_device/supported')
    assert resp.json == {'supported_boot_devices': ['pxe']}
    resp = call('PUT', '/v1/nodes/%s/management/boot_device' % node['uuid'],
                {'boot_device': 'pxe', 'persistent': True}, version='1.1')
    assert resp.status_int == 204
    for body, text in [
            ({'boot_device': 'disk'}, 'Invalid boot device disk specified.'),
            ({}, 'Missing mandatory parameter: boot_device'),
            ({'boot_device': 'pxe', 'persistent': 'perhaps'},
             "Invalid persistent: Unrecognized value 'perhaps', acceptable "
             "values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', "
             "'t', 'true', 'y', 'yes'"),
            ({'boot_device': 'pxe', 'bogus': 1},
             'Unexpected arguments: bogus')]:
        resp = call('PUT', '/v1/nodes/n/management/boot_device', body)
        assert resp.status_int == 400, body
        assert message(resp) == text
    # Ironic: the management resource itself takes no method.
    assert call('GET', '/v1/nodes/n/management').status_int == 405
    resp = call('POST', '/v1/nodes/n/management/boot_device')
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'GET, PUT'


def test_vifs_without_ports(node):
    assert call('GET', '/v1/nodes/n/vifs').json == {'vifs': []}
    vif = '5b9a8b08-8f4b-4f63-bd07-7f1ba9cd3bd4'
    resp = call('POST', '/v1/nodes/n/vifs', {'id': vif})
    assert resp.status_int == 400
    assert message(resp) == ('Unable to attach VIF %s, not enough free '
                             'physical ports.' % vif)
    resp = call('POST', '/v1/nodes/n/vifs', {'other': 1})
    assert message(resp).startswith("Schema error for vif: 'id' is a "
                                    "required property")
    resp = call('POST', '/v1/nodes/n/vifs', {'id': 'a b'})
    assert message(resp) == 'Expected UUID or name for id: a b'
    resp = call('DELETE', '/v1/nodes/n/vifs/' + vif)
    assert resp.status_int == 400
    assert message(resp) == ('Unable to detach VIF %s from node %s because '
                             'it is not attached to it.'
                             % (vif, node['uuid']))
    for method, path in (('GET', '/v1/nodes/n/vifs'),
                         ('POST', '/v1/nodes/n/vifs'),
                         ('DELETE', '/v1/nodes/n/vifs/' + vif)):
        resp = call(method, path, {'id': vif}, version='1.27')
        assert resp.status_int == 404, (method, path)


VIFS = ['5b9a8b08-8f4b-4f63-bd07-7f1ba9cd3bd%d' % i for i in range(5)]


def _port(node, mac, **body):
    resp = call('POST', '/v1/ports', dict(body, node_uuid=node['uuid'],
                                          address=mac))
    assert resp.status_int == 201, resp.text
    return resp.json


def _vif_of(path):
    return call('GET', path).json['internal_info'].get('tenant_vif_port_id')


def test_vifs_take_free_ports_and_groups(node):
    group = call('POST', '/v1/portgroups', {
        'node_uuid': node['uuid'], 'address': '52:54:00:00:01:00'}).json
    member = _port(node, '52:54:00:00:01:01', portgroup_uuid=group['uuid'])
    plain = _port(node, '52:54:00:00:01:02', pxe_enabled=False)
    pxe = _port(node, '52:54:00:00:01:03')
    # A free port group first, then a port with PXE enabled, then the
    # others; a port group's member is never taken on its own.
    for vif in VIFS[:3]:
        resp = call('POST', '/v1/nodes/n/vifs', {'id': vif})
        assert resp.status_int == 204, resp.text
    assert _vif_of('/v1/portgroups/' + group['uuid']) == VIFS[0]
    assert _vif_of('/v1/ports/' + pxe['uuid']) == VIFS[1]
    assert _vif_of('/v1/ports/' + plain['uuid']) == VIFS[2]
    assert _vif_of('/v1/ports/' + member['uuid']) is None
    assert sorted(v['id'] for v in call('GET', '/v1/nodes/n/vifs').json[
        'vifs']) == VIFS[:3]
    resp = call('POST', '/v1/nodes/n/vifs', {'id': VIFS[3]})
    assert resp.status_int == 400
    assert message(resp) == ('Unable to attach VIF %s, not enough free '
                             'physical ports.' % VIFS[3])
    resp = call('POST', '/v1/nodes/n/vifs', {'id': VIFS[1]})
    assert resp.status_int == 409
    assert message(resp) == ('Unable to attach VIF because VIF %s is '
                             'already attached to Ironic Port %s'
                             % (VIFS[1], pxe['uuid']))
    resp = call('DELETE', '/v1/nodes/n/vifs/' + VIFS[1])
    assert resp.status_int == 204
    assert _vif_of('/v1/ports/' + pxe['uuid']) is None
    # A freed port can be asked for by name (1.67).
    resp = call('POST', '/v1/nodes/n/vifs',
                {'id': VIFS[3], 'port_uuid': pxe['uuid']})
    assert resp.status_int == 204, resp.text
    assert _vif_of('/v1/ports/' + pxe['uuid']) == VIFS[3]
    resp = call('POST', '/v1/nodes/n/vifs',
                {'id': VIFS[4], 'port_uuid': pxe['uuid']})
    assert resp.status_int == 400
    for body, version in (({'port_uuid': pxe['uuid'],
                            'portgroup_uuid': group['uuid']}, 'latest'),
                          ({'port_uuid': pxe['uuid']}, '1.66')):
        resp = call('POST', '/v1/nodes/n/vifs', dict(body, id=VIFS[4]),
                    version=version)
        assert resp.status_int == 400, body
    # Deleting a port forgets its VIF.
    assert call('DELETE', '/v1/ports/' + plain['uuid']).status_int == 204
    assert VIFS[2] not in [v['id'] for v in call(
        'GET', '/v1/nodes/n/vifs').json['vifs']]


def test_noop_network_keeps_no_vifs(database):
    node = api.create(name='quiet', network_interface='noop')
    _port(node, '52:54:00:00:02:01')
    assert call('POST', '/v1/nodes/quiet/vifs',
                {'id': VIFS[0]}).status_int == 204
    assert call('GET', '/v1/nodes/quiet/vifs').json == {'vifs': []}
    assert call('DELETE', '/v1/nodes/quiet/vifs/' + VIFS[0]).status_int == 204
    resp = call('POST', '/v1/nodes/quiet/vifs', {'id': 'a b'})
    assert resp.status_int == 400


def test_concurrent_attachments_share_out_the_free_ports(node):
    """Four VIFs race for two free ports: the node's lock lets exactly
    two in, each on its own port."""
    ports = [_port(node, '52:54:00:00:03:0%d' % i) for i in range(2)]
    start = threading.Barrier(4)
    statuses = []

    def attach(vif):
        start.wait()
        statuses.append(call('POST', '/v1/nodes/n/vifs',
                             {'id': vif}).status_int)

    threads = [threading.Thread(target=attach, args=(vif,))
               for vif in VIFS[:4]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [204, 204, 400, 400], statuses
    taken = [_vif_of('/v1/ports/' + port['uuid']) for port in ports]
    assert None not in taken and len(set(taken)) == 2


def test_console(node):
    resp = call('GET', '/v1/nodes/n/states/console')
    assert resp.json == {'console_enabled': False, 'console_info': None}
    resp = call('PUT', '/v1/nodes/n/states/console', {'enabled': False})
    assert resp.status_int == 202
    resp = call('PUT', '/v1/nodes/n/states/console', {'enabled': True})
    assert resp.status_int == 400
    assert message(resp) == ('Driver fake-hardware does not support console '
                             '(disabled or not implemented).')
    resp = call('PUT', '/v1/nodes/n/states/console', {})
    assert message(resp) == 'Missing mandatory parameter: enabled'


def test_raid(node):
    body = {'logical_disks': [{'size_gb': 10, 'raid_level': '1'}]}
    resp = call('PUT', '/v1/nodes/n/states/raid', body)
    assert resp.status_int == 404
    assert message(resp) == ('Driver fake-hardware does not support raid '
                             '(disabled or not implemented).')
    resp = call('PUT', '/v1/nodes/n/states/raid', body, version='1.11')
    assert resp.status_int == 406


def test_records(node):
    assert call('GET', '/v1/nodes/n/bios').json == {'bios': []}
    assert call('GET', '/v1/nodes/n/bios?detail=true').json == {'bios': []}
    resp = call('GET', '/v1/nodes/n/bios/virtualization')
    assert resp.status_int == 404
    assert message(resp) == ("Node %s doesn't have a BIOS setting "
                             "'virtualization'" % node['uuid'])
    assert call('GET', '/v1/nodes/n/firmware').json == {'firmware': []}
    assert call('GET', '/v1/nodes/n/history').json == {'history': []}
    resp = call('GET', '/v1/nodes/n/history/e1')
    assert message(resp) == 'Node history record e1 could not be found.'
    assert call('GET', '/v1/nodes/n/children').json == {'children': []}
    resp = call('GET', '/v1/nodes/n/inventory')
    assert resp.status_int == 404
    assert message(resp) == ('Node inventory record for node %s could not '
                             'be found.' % node['uuid'])


@pytest.mark.parametrize('path,first', [
    ('bios', '1.40'), ('firmware', '1.86'), ('history', '1.78'),
    ('children', '1.83'), ('inventory', '1.81'), ('vifs', '1.28')])
def test_versions(node, path, first):
    minor = int(first.split('.')[1])
    resp = call('GET', '/v1/nodes/n/' + path, version='1.%d' % (minor - 1))
    assert resp.status_int == 404
    resp = call('GET', '/v1/nodes/n/' + path, version=first)
    assert resp.status_int in (200, 404)
    if path != 'inventory':
        assert resp.status_int == 200


def test_unknown_node(database):
    for path in ('management/boot_device', 'vifs', 'states/console',
                 'bios', 'firmware', 'history', 'children', 'inventory'):
        resp = call('GET', '/v1/nodes/ghost/' + path)
        assert resp.status_int == 404, path
        assert message(resp) == 'Node ghost could not be found.'


def test_nothing_changes(node):
    call('PUT', '/v1/nodes/n/management/boot_device', {'boot_device': 'pxe'})
    call('PUT', '/v1/nodes/n/states/console', {'enabled': False})
    call('POST', '/v1/nodes/n/vifs', {'id': 'v'})
    after = call('GET', '/v1/nodes/n').json
    assert after == node


def test_inject_nmi(node):
    resp = call('PUT', '/v1/nodes/n/management/inject_nmi', {})
    assert resp.status_int == 400
    assert message(resp) == ('Driver fake-hardware does not support '
                             'inject_nmi (disabled or not implemented).')
    resp = call('PUT', '/v1/nodes/n/management/inject_nmi', {},
                version='1.28')
    assert resp.status_int == 404


def test_boot_mode_and_secure_boot(node):
    resp = call('PUT', '/v1/nodes/n/states/boot_mode', {'target': 'uefi'})
    assert resp.status_int == 400
    assert message(resp) == ('Driver fake-hardware does not support '
                             'set_boot_mode (disabled or not implemented).')
    resp = call('PUT', '/v1/nodes/n/states/boot_mode', {'target': 'dos'})
    assert message(resp) == ('Invalid boot mode dos requested for node. '
                             'Allowed boot modes are: bios, uefi')
    resp = call('PUT', '/v1/nodes/n/states/boot_mode', {'target': 'uefi'},
                version='1.75')
    assert resp.status_int == 404
    assert message(resp) == ('This endpoint is supported starting with the '
                             'API version 1.76')
    resp = call('PUT', '/v1/nodes/n/states/secure_boot', {'target': True})
    assert message(resp) == (
        'Driver fake-hardware does not support set_secure_boot_state '
        '(disabled or not implemented).')
    resp = call('PUT', '/v1/nodes/n/states/secure_boot', {'target': 'x'})
    assert message(resp).startswith("Invalid target: Unrecognized value")
    resp = call('PUT', '/v1/nodes/n/states/secure_boot', {})
    assert message(resp) == 'Missing mandatory parameter: target'


def test_vendor_passthru(node):
    assert call('GET', '/v1/nodes/n/vendor_passthru/methods').json == {}
    for method in ('GET', 'POST', 'PUT', 'PATCH', 'DELETE'):
        resp = call(method, '/v1/nodes/n/vendor_passthru?method=first',
                    {'bar': 'baz'} if method in ('POST', 'PUT') else None)
        assert resp.status_int == 400, method
        assert message(resp) == 'No handler for method first'
    resp = call('POST', '/v1/nodes/n/vendor_passthru', {})
    assert message(resp) == 'Method not specified'
    resp = call('POST', '/v1/nodes/ghost/vendor_passthru?method=x', {})
    assert resp.status_int == 404


def test_vmedia(node):
    # The fake management interface takes virtual media and keeps none.
    body = {'device_type': 'cdrom', 'image_url': 'http://image'}
    assert call('POST', '/v1/nodes/n/vmedia', body).status_int == 204
    assert call('DELETE', '/v1/nodes/n/vmedia').status_int == 204
    assert call('DELETE', '/v1/nodes/n/vmedia?device_types=cdrom,floppy'
                ).status_int == 204
    for bad in ({'image_url': 'http://image'},
                {'device_type': 'tape', 'image_url': 'http://image'},
                dict(body, color='red')):
        resp = call('POST', '/v1/nodes/n/vmedia', bad)
        assert resp.status_int == 400, bad
        assert message(resp).startswith('Schema error for vmedia: ')
    resp = call('DELETE', '/v1/nodes/n/vmedia?device_types=tape')
    assert resp.status_int == 400
    assert call('POST', '/v1/nodes/n/vmedia', body,
                version='1.88').status_int == 404
    assert call('DELETE', '/v1/nodes/n/vmedia',
                version='1.88').status_int == 404
    assert call('POST', '/v1/nodes/ghost/vmedia', body).status_int == 404


def test_volume_is_not_provided(node):
    for method, path in (('GET', '/v1/nodes/n/volume'),
                         ('GET', '/v1/nodes/n/volume/connectors'),
                         ('POST', '/v1/nodes/n/volume/targets')):
        resp = call(method, path)
        assert resp.status_int == 404
        assert message(resp) == ('This service does not provide the volume '
                                 'resource of the Bare Metal API.')


def test_indicators(node):
    resp = call('GET', '/v1/nodes/n/management/indicators')
    assert resp.status_int == 200
    indicators = {i['name']: i for i in resp.json['indicators']}
    assert set(indicators) == {'led-0@chassis', 'led@system'}
    system = indicators['led@system']
    assert system['component'] == 'system' and system['readonly'] is False
    assert system['states'] == ['BLINKING', 'OFF', 'ON']
    assert system['links'][0]['href'] == (
        'http://localhost/v1/nodes/n/management/indicators/led@system')
    assert indicators['led-0@chassis']['readonly'] is True
    resp = call('GET', '/v1/nodes/n/management/indicators/led@system')
    assert resp.json == {'state': 'ON'}
    for name, text in (('led', 'Malformed indicator name "led"'),
                       ('led@disk', 'Invalid component disk specified.'),
                       ('x@system', 'Invalid indicator x specified.')):
        resp = call('GET', '/v1/nodes/n/management/indicators/' + name)
        assert resp.status_int == 400
        assert message(resp) == text
    resp = call('PUT', '/v1/nodes/n/management/indicators/led@system',
                {'state': 'OFF'})
    assert resp.status_int == 400
    assert 'set_indicator_state' in message(resp)
    resp = call('GET', '/v1/nodes/n/management/indicators', version='1.62')
    assert resp.status_int == 404
