"""What a node's driver does beyond power and provisioning, on every
database backend: boot device, VIFs, console, RAID, boot mode, secure
boot, vmedia, vendor methods, indicators, BIOS, firmware, inventory,
history and children (``node_extras`` and the modules it hangs).

Scenarios: each documented path answers at its version what Ironic 39
answers for a fake-hardware node with its fake interfaces: the console
is enabled and disabled, a target RAID configuration is checked and
kept, the fake vendor methods answer, and what the fake management
interface cannot do is refused (NMI, indicators) or accepted and its
failure left in ``last_error`` (boot mode, secure boot, vmedia); a
``no-*`` interface refuses with Ironic's UnsupportedDriverExtension and
status; before its version, a 404; bad input 400 with Ironic's
messages; an unknown node 404.
"""

import threading

import pytest

from tests.helpers import v1 as api

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
    statuses, answers = [], []

    def attach(vif):
        start.wait()
        resp = call('POST', '/v1/nodes/n/vifs', {'id': vif})
        statuses.append(resp.status_int)
        answers.append((resp.status_int, resp.text))

    threads = [threading.Thread(target=attach, args=(vif,))
               for vif in VIFS[:4]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [204, 204, 400, 400], answers
    taken = [_vif_of('/v1/ports/' + port['uuid']) for port in ports]
    assert None not in taken and len(set(taken)) == 2


def test_console(node):
    # The fake console: enabled and disabled at once, its information
    # empty (TestNodes.test_set_console_mode, test_get_console).
    resp = call('GET', '/v1/nodes/n/states/console')
    assert resp.json == {'console_enabled': False, 'console_info': None}
    resp = call('PUT', '/v1/nodes/n/states/console', {'enabled': True})
    assert resp.status_int == 202
    assert resp.headers['Location'] == (
        'http://localhost/v1/nodes/n/states/console')
    resp = call('GET', '/v1/nodes/n/states/console')
    assert resp.json == {'console_enabled': True, 'console_info': {}}
    assert call('GET', '/v1/nodes/n').json['console_enabled'] is True
    assert call('GET', '/v1/nodes/n/states').json['console_enabled'] is True
    # Enabling it again changes nothing, and is no error.
    assert call('PUT', '/v1/nodes/n/states/console',
                {'enabled': 'true'}).status_int == 202
    resp = call('PUT', '/v1/nodes/n/states/console', {'enabled': False})
    assert resp.status_int == 202
    assert call('GET', '/v1/nodes/n/states/console').json == {
        'console_enabled': False, 'console_info': None}
    resp = call('PUT', '/v1/nodes/n/states/console', {})
    assert message(resp) == 'Missing mandatory parameter: enabled'


def test_console_of_a_node_without_one(database):
    api.create(name='nc', console_interface='no-console')
    for enabled in (True, False):
        resp = call('PUT', '/v1/nodes/nc/states/console',
                    {'enabled': enabled})
        assert resp.status_int == 400
        assert message(resp) == ('Driver fake-hardware does not support '
                                 'console (disabled or not implemented).')
    assert call('GET', '/v1/nodes/nc/states/console').json == {
        'console_enabled': False, 'console_info': None}


RAID = {'logical_disks': [{'size_gb': 100, 'raid_level': '1'}]}


def test_raid(node):
    # TestNodeStatesV1_12.test_set_node_raid_config.
    resp = call('PUT', '/v1/nodes/n/states/raid', RAID, version='1.12')
    assert resp.status_int == 204, resp.text
    shown = call('GET', '/v1/nodes/n', version='1.12').json
    assert shown['target_raid_config'] == RAID
    assert shown['raid_config'] == {}
    assert call('GET', '/v1/nodes/n/states').json['target_raid_config'] == \
        RAID
    # An empty configuration clears it, so does no body.
    assert call('PUT', '/v1/nodes/n/states/raid', {}).status_int == 204
    assert call('GET', '/v1/nodes/n').json['target_raid_config'] == {}
    resp = call('PUT', '/v1/nodes/n/states/raid', RAID, version='1.11')
    assert resp.status_int == 406
    resp = call('PUT', '/v1/nodes/ghost/states/raid', RAID)
    assert resp.status_int == 404


@pytest.mark.parametrize('body,text', [
    ({'logical_disks': [{'size_gb': 100, 'raid_level': '3'}]},
     "RAID config validation error: '3' is not one of ['JBOD', '0', '1', "
     "'2', '5', '6', '1+0', '5+0', '6+0']"),
    ({'logical_disks': []},
     'RAID config validation error: [] should be non-empty'),
    ({'logical_disks': [{'size_gb': 'MAX'}]},
     "RAID config validation error: 'raid_level' is a required property"),
    ({'logical_disks': [{'size_gb': -1, 'raid_level': '1'}]},
     'RAID config validation error: -1 is less than the minimum of 0'),
    ({'logical_disks': [{'size_gb': 1.5, 'raid_level': '1'}]},
     'RAID config validation error: 1.5 is not valid under any of the '
     'given schemas'),
    ({'foo': 1}, "RAID config validation error: 'logical_disks' is a "
                 "required property"),
    ({'logical_disks': [{'size_gb': 1, 'raid_level': '1',
                         'physical_disks': ['a']}]},
     "RAID config validation error: 'controller' is a dependency of "
     "'physical_disks'"),
    ({'logical_disks': [{'size_gb': 1, 'raid_level': '1',
                         'number_of_physical_disks': 0}]},
     'RAID config validation error: 0 is less than or equal to the '
     'minimum of 0'),
    ({'logical_disks': [{'size_gb': 1, 'raid_level': '1',
                         'is_root_volume': True},
                        {'size_gb': 2, 'raid_level': '0',
                         'is_root_volume': True}]},
     'Raid config cannot have more than one root volume. 2 root volumes '
     'were specified'),
    ([], "Expected types <class 'dict'> for target_raid_config: []"),
])
def test_raid_validation(node, body, text):
    resp = call('PUT', '/v1/nodes/n/states/raid', body)
    assert resp.status_int == 400
    assert message(resp) == text
    assert call('GET', '/v1/nodes/n').json['target_raid_config'] == {}


def test_raid_of_a_node_without_raid(database):
    api.create(name='nr', raid_interface='no-raid')
    resp = call('PUT', '/v1/nodes/nr/states/raid', RAID)
    assert resp.status_int == 404
    assert message(resp) == ('Driver fake-hardware does not support raid '
                             '(disabled or not implemented).')
    # An empty configuration needs no RAID interface.
    assert call('PUT', '/v1/nodes/nr/states/raid', {}).status_int == 204


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


def last_error(ident='n'):
    return call('GET', '/v1/nodes/%s/states' % ident).json['last_error']


def test_boot_mode_and_secure_boot(node):
    # Accepted, and the fake management interface's failure recorded, as
    # Ironic's background task records it.
    resp = call('PUT', '/v1/nodes/n/states/boot_mode', {'target': 'uefi'})
    assert resp.status_int == 202
    assert resp.headers['Location'] == 'http://localhost/v1/nodes/n/states'
    assert last_error() == (
        "Failed to change boot mode to 'uefi: Driver fake-hardware does not "
        "support set_boot_mode (disabled or not implemented).")
    resp = call('PUT', '/v1/nodes/n/states/secure_boot', {'target': 'off'})
    assert resp.status_int == 202
    assert last_error() == (
        "Failed to change secure_boot state to 'False': Driver "
        "fake-hardware does not support set_secure_boot_state (disabled or "
        "not implemented).")
    states = call('GET', '/v1/nodes/n/states').json
    assert (states['boot_mode'], states['secure_boot']) == (None, None)
    # A power action that works clears the error, as in Ironic.
    call('PUT', '/v1/nodes/n/states/power', {'target': 'power on'})
    assert last_error() is None
    resp = call('PUT', '/v1/nodes/n/states/boot_mode', {'target': 'dos'})
    assert resp.status_int == 400
    assert message(resp) == ('Invalid boot mode dos requested for node. '
                             'Allowed boot modes are: bios, uefi')
    resp = call('PUT', '/v1/nodes/n/states/boot_mode', {'target': 'uefi'},
                version='1.75')
    assert resp.status_int == 404
    assert message(resp) == ('This endpoint is supported starting with the '
                             'API version 1.76')
    resp = call('PUT', '/v1/nodes/n/states/secure_boot', {'target': 'x'})
    assert message(resp).startswith("Invalid target: Unrecognized value")
    resp = call('PUT', '/v1/nodes/n/states/secure_boot', {})
    assert message(resp) == 'Missing mandatory parameter: target'
    assert last_error() is None


def test_vendor_passthru(node):
    # Ironic's fake vendor interface.
    methods = call('GET', '/v1/nodes/n/vendor_passthru/methods').json
    assert sorted(methods) == ['fourth_method_shared_lock',
                               'log_passthrough', 'second_method',
                               'third_method_sync']
    assert methods['third_method_sync'] == {
        'http_methods': ['POST'], 'async': False, 'attach': False,
        'description': 'Test if the value of bar is meow',
        'require_exclusive_lock': True}
    path = '/v1/nodes/n/vendor_passthru?method='
    resp = call('POST', path + 'third_method_sync', {'bar': 'meow'})
    assert resp.status_int == 200 and resp.json is True
    resp = call('POST', path + 'third_method_sync', {'bar': 'woof'})
    assert resp.status_int == 200 and resp.json is False
    for method, body in (('second_method', {'bar': 'kazoo'}),
                         ('fourth_method_shared_lock', {'bar': 'x'}),
                         ('log_passthrough', {'anything': 1}),
                         ('log_passthrough', None)):
        resp = call('POST', path + method, body)
        assert resp.status_int == 202, method
        assert resp.body == b''
    for method, http, body, text in (
            ('first', 'POST', {}, 'No handler for method first'),
            ('second_method', 'GET', None,
             'The method second_method does not support HTTP GET'),
            ('second_method', 'POST', {},
             "Parameter 'bar' not passed to method 'second_method'.")):
        resp = call(http, path + method, body)
        assert resp.status_int == 400, method
        assert message(resp) == text
    resp = call('POST', '/v1/nodes/n/vendor_passthru', {})
    assert message(resp) == 'Method not specified'
    resp = call('POST', '/v1/nodes/ghost/vendor_passthru?method=x', {})
    assert resp.status_int == 404


def test_vendor_passthru_without_a_vendor_interface(database):
    api.create(name='nv', vendor_interface='no-vendor')
    assert call('GET', '/v1/nodes/nv/vendor_passthru/methods').json == {}
    resp = call('POST', '/v1/nodes/nv/vendor_passthru?method=second_method',
                {'bar': 'kazoo'})
    assert message(resp) == 'No handler for method second_method'


def test_vmedia(node):
    # Accepted; the fake management interface has no virtual media, and
    # the failure is recorded as Ironic's background task records it.
    body = {'device_type': 'cdrom', 'image_url': 'http://image'}
    assert call('POST', '/v1/nodes/n/vmedia', body).status_int == 204
    assert last_error() == (
        'Could not attach device cdrom to node %s: Publishing images is '
        'not supported for driver fake-hardware' % node['uuid'])
    assert call('DELETE', '/v1/nodes/n/vmedia').status_int == 204
    assert last_error() == (
        'Could not detach device(s) None from node %s: Driver fake-hardware '
        'does not support detach_virtual_media (disabled or not '
        'implemented).' % node['uuid'])
    assert call('DELETE', '/v1/nodes/n/vmedia?device_types=cdrom,floppy'
                ).status_int == 204
    assert last_error().startswith(
        "Could not detach device(s) ['cdrom', 'floppy'] from node ")
    for bad, text in (
            ({'image_url': 'http://image'},
             "Schema error for vmedia: 'device_type' is a required "
             "property"),
            ({'device_type': 'tape', 'image_url': 'http://image'},
             "Schema error for vmedia: 'tape' is not one of ['disk', "
             "'cdrom', 'floppy']"),
            (dict(body, color='red'),
             "Schema error for vmedia: Additional properties are not "
             "allowed ('color' was unexpected)"),
            ([], "Schema error for vmedia: [] is not of type 'object'"),
            (dict(body, image_url='ftp://image'),
             'Unsupported or missing URL scheme: ftp'),
            (dict(body, image_url='image'),
             'Unsupported or missing URL scheme: ')):
        resp = call('POST', '/v1/nodes/n/vmedia', bad)
        assert resp.status_int == 400, bad
        assert message(resp) == text
    resp = call('DELETE', '/v1/nodes/n/vmedia?device_types=tape')
    assert resp.status_int == 400
    assert message(resp) == ('Invalid device type(s) tape (valid are disk, '
                             'cdrom, floppy)')
    resp = call('GET', '/v1/nodes/n/vmedia')
    assert resp.status_int == 400
    assert message(resp) == ('Driver fake-hardware does not support '
                             'get_virtual_media (disabled or not '
                             'implemented).')
    assert call('GET', '/v1/nodes/n/vmedia', version='1.92').status_int == \
        404
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
    assert system['states'] == ['blinking', 'off', 'on']
    assert system['links'][0]['href'] == (
        'http://localhost/v1/nodes/n/management/indicators/led@system')
    assert indicators['led-0@chassis']['readonly'] is True
    assert indicators['led-0@chassis']['states'] == ['off', 'on']
    resp = call('GET', '/v1/nodes/n/management/indicators/led@system')
    assert resp.json == {'state': 'on'}
    for name, text in (('led', 'Malformed indicator name "led"'),
                       ('led@disk', 'Invalid component disk specified.'),
                       ('x@system', 'Invalid indicator x specified.')):
        resp = call('GET', '/v1/nodes/n/management/indicators/' + name)
        assert resp.status_int == 400
        assert message(resp) == text
    # The fake management interface sets no indicator, whichever it is.
    for name in ('led@system', 'x@disk'):
        resp = call('PUT', '/v1/nodes/n/management/indicators/' + name,
                    {'state': 'off'})
        assert resp.status_int == 400
        assert message(resp) == ('Driver fake-hardware does not support '
                                 'set_indicator_state (disabled or not '
                                 'implemented).')
    resp = call('PUT', '/v1/nodes/n/management/indicators', {'state': 'on'})
    assert resp.status_int == 400
    assert message(resp) == 'Missing mandatory parameter: indicator'
    # Ironic checks no version here.
    resp = call('GET', '/v1/nodes/%s/management/indicators' % node['uuid'],
                version='1.1')
    assert resp.status_int == 200
