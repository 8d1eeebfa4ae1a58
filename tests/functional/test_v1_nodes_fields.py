"""The rest of Ironic 39's node over ``/v1/nodes``: driver interfaces,
retirement, protection, shards, parents, instance names and the other
fields, and ``/validate``, on every database backend.

Scenarios:
* POST with every interface (the body gophercloud's and Metal3's fake
  nodes send) keeps them; a node naming none gets fake-hardware's
  defaults; an interface that is not enabled is a 400 with Ironic's
  message; a chassis that does not exist is a 400 (the chassis
  relationship is in test_v1_chassis).
* Each new field: POST and GET round trip, its version gate on POST
  (406), on GET (absent) and in ``fields`` (406), and its list filter
  with the filter's own version gate.
* PATCH: interfaces (checked, reset to their default when removed, only
  in Ironic's states), reset_interfaces (1.45), retirement and
  protection rules (Ironic's messages), a protected node is neither
  torn down nor deleted (403), instance_name follows
  instance_info.display_name.
* GET /v1/nodes/{node}/validate and /v1/nodes/validate?node=.
"""

import uuid

import pytest

from tests.functional.ironic_errors import message
from tests.helpers import v1 as api

pytestmark = pytest.mark.usefixtures('api_conductor')

call = api.call
create = api.create

FAKE_DEFAULTS = {
    'bios_interface': 'fake', 'boot_interface': 'fake',
    'console_interface': 'fake', 'deploy_interface': 'fake',
    'firmware_interface': 'fake', 'inspect_interface': 'fake',
    'management_interface': 'fake', 'network_interface': 'flat',
    'power_interface': 'fake', 'raid_interface': 'fake',
    'rescue_interface': 'fake', 'storage_interface': 'noop',
    'vendor_interface': 'fake',
}

# What gophercloud's CreateFakeNode / Metal3's fake BMC send, plus the
# generic implementations fake-hardware also takes.
EVERY_INTERFACE = {
    'bios_interface': 'no-bios', 'boot_interface': 'ipxe',
    'console_interface': 'no-console', 'deploy_interface': 'direct',
    'firmware_interface': 'no-firmware', 'inspect_interface': 'agent',
    'management_interface': 'fake', 'network_interface': 'noop',
    'power_interface': 'fake', 'raid_interface': 'agent',
    'rescue_interface': 'agent', 'storage_interface': 'cinder',
    'vendor_interface': 'no-vendor',
}


def patch(ident, ops, version='latest', query=''):
    return call('PATCH', '/v1/nodes/%s%s' % (ident, query), ops,
                version=version)


def provision(ident, target):
    resp = call('PUT', '/v1/nodes/%s/states/provision' % ident,
                {'target': target})
    assert resp.status_int == 202, resp.text


def active(**body):
    node = api.available(**body)
    provision(node['uuid'], 'active')
    return call('GET', '/v1/nodes/' + node['uuid']).json


def uuids(query, version='latest'):
    resp = call('GET', '/v1/nodes?' + query, version=version)
    assert resp.status_int == 200, resp.text
    return sorted(node['uuid'] for node in resp.json['nodes'])


# -- interfaces --------------------------------------------------------------

def test_fake_node_gets_fake_hardware_defaults(database):
    doc = create(name='plain')
    assert {key: doc[key] for key in FAKE_DEFAULTS} == FAKE_DEFAULTS
    shown = call('GET', '/v1/nodes/plain').json
    assert {key: shown[key] for key in FAKE_DEFAULTS} == FAKE_DEFAULTS


def test_create_with_every_interface(database):
    doc = create(name='every', driver_info={'ipmi_port': '6230'},
                 **EVERY_INTERFACE)
    assert {key: doc[key] for key in EVERY_INTERFACE} == EVERY_INTERFACE
    # gophercloud's fake node: only the boot interface named.
    doc = create(name='gopher', boot_interface='fake')
    assert doc['boot_interface'] == 'fake'
    assert doc['deploy_interface'] == 'fake'


@pytest.mark.parametrize('field,value,entrypoint,valid', [
    ('power_interface', 'ipmitool', 'power', "['fake']"),
    ('boot_interface', 'redfish-virtual-media', 'boot',
     "['fake', 'ipxe', 'pxe', 'http-ipxe', 'http']"),
])
def test_interface_not_enabled_is_400(database, field, value, entrypoint,
                                      valid):
    resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                      field: value})
    assert resp.status_int == 400, resp.text
    assert message(resp) == (
        "Could not find the following interface in the "
        "'ironic.hardware.interfaces.%s' entrypoint: %s. Valid interfaces "
        "are %s." % (entrypoint, value, valid))
    assert call('GET', '/v1/nodes').json['nodes'] == []


def test_unknown_driver_and_chassis_are_400(database):
    resp = call('POST', '/v1/nodes', {'driver': 'ipmi'})
    assert resp.status_int == 400
    assert message(resp).startswith('No valid host was found.')
    chassis = str(uuid.uuid4())
    resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                      'chassis_uuid': chassis})
    assert resp.status_int == 400
    assert message(resp) == 'Chassis %s could not be found.' % chassis
    doc = create(chassis_uuid=None)
    assert doc['chassis_uuid'] is None
    resp = call('GET', '/v1/nodes?chassis_uuid=' + chassis)
    assert resp.status_int == 404
    assert message(resp) == 'Chassis %s could not be found.' % chassis
    assert call('GET', '/v1/nodes?chassis_uuid=x').status_int == 400


def test_patch_interfaces(database):
    node = create(name='pi')
    resp = patch('pi', [{'op': 'replace', 'path': '/boot_interface',
                         'value': 'pxe'}])
    assert resp.status_int == 200, resp.text
    assert resp.json['boot_interface'] == 'pxe'
    resp = patch('pi', [{'op': 'replace', 'path': '/deploy_interface',
                         'value': 'nope'}])
    assert resp.status_int == 400
    assert "entrypoint: nope. Valid interfaces are" in message(resp)
    # Removing one brings back its default.
    resp = patch('pi', [{'op': 'remove', 'path': '/boot_interface'}])
    assert resp.json['boot_interface'] == 'fake'
    # ... also when it already had it (TestHardwareInterfaces.
    # test_reset_interfaces), at once, and so does a null.
    for op in ({'op': 'remove', 'path': '/management_interface'},
               {'op': 'replace', 'path': '/raid_interface', 'value': None}):
        resp = patch('pi', [op])
        assert resp.status_int == 200, resp.text
        field = op['path'][1:]
        assert resp.json[field] == 'fake'
        assert call('GET', '/v1/nodes/pi').json[field] == 'fake'
    # Not on a deployed node out of maintenance.
    provision(node['uuid'], 'manage')
    provision(node['uuid'], 'provide')
    provision(node['uuid'], 'active')
    resp = patch('pi', [{'op': 'replace', 'path': '/rescue_interface',
                         'value': 'agent'}])
    assert resp.status_int == 409
    assert message(resp) == (
        'Node %s can not have rescue_interface updated unless it is in one '
        'of allowed (enroll, inspecting, inspect wait, manageable, '
        'available) states or in maintenance mode.' % node['uuid'])
    call('PUT', '/v1/nodes/pi/maintenance', {})
    resp = patch('pi', [{'op': 'replace', 'path': '/rescue_interface',
                         'value': 'agent'}])
    assert resp.status_int == 200, resp.text
    # Before 1.31 the interfaces do not exist.
    resp = patch('pi', [{'op': 'replace', 'path': '/boot_interface',
                         'value': 'pxe'}], version='1.30')
    assert resp.status_int == 406


def test_reset_interfaces(database):
    create(name='ri', boot_interface='pxe')
    resp = patch('ri', [{'op': 'replace', 'path': '/boot_interface',
                         'value': 'ipxe'}], query='?reset_interfaces=true')
    assert resp.status_int == 400
    assert message(resp) == ("The reset_interfaces parameter can only be "
                             "used when changing the node's driver.")
    resp = patch('ri', [{'op': 'replace', 'path': '/driver',
                         'value': 'fake-hardware'}],
                 query='?reset_interfaces=true', version='1.44')
    assert resp.status_int == 406
    resp = patch('ri', [{'op': 'replace', 'path': '/driver',
                         'value': 'fake-hardware'}],
                 query='?reset_interfaces=maybe')
    assert resp.status_int == 400
    # The same driver is no change: the interfaces stay.
    resp = patch('ri', [{'op': 'replace', 'path': '/driver',
                         'value': 'fake-hardware'}],
                 query='?reset_interfaces=true')
    assert resp.status_int == 200, resp.text
    assert resp.json['boot_interface'] == 'pxe'
    resp = patch('ri', [{'op': 'replace', 'path': '/driver',
                         'value': 'ipmi'}], query='?reset_interfaces=true')
    assert resp.status_int == 400
    assert message(resp).startswith('No valid host was found.')


# -- the other fields: round trip, versions, filters -------------------------

NEW_FIELDS = [
    # field, value to send, value shown, first version
    ('retired', True, True, '1.61'),
    ('retired_reason', 'old', 'old', '1.61'),
    ('network_data', {'links': []}, {'links': []}, '1.66'),
    ('shard', 'shard-1', 'shard-1', '1.82'),
    ('disable_power_off', 'true', True, '1.95'),
    ('instance_name', 'vm-1', 'vm-1', '1.104'),
    ('firmware_interface', 'no-firmware', 'no-firmware', '1.86'),
    ('console_enabled', False, False, '1.1'),
]


def _previous(version):
    major, minor = version.split('.')
    return '%s.%d' % (major, int(minor) - 1)


def test_new_fields_round_trip_and_versions(database):
    body = {field: sent for field, sent, _shown, _v in NEW_FIELDS}
    doc = create(name='rt', **body)
    shown = call('GET', '/v1/nodes/rt').json
    for field, _sent, expected, since in NEW_FIELDS:
        assert doc[field] == expected, field
        assert shown[field] == expected, field
        if since == '1.1':
            continue
        before = _previous(since)
        old = call('GET', '/v1/nodes/' + doc['uuid'], version=before).json
        assert field not in old, field
        resp = call('GET', '/v1/nodes/%s?fields=%s' % (doc['uuid'], field),
                    version=before)
        assert resp.status_int == 406, field
        resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                          field: body[field]},
                    version=before)
        assert resp.status_int == 406, (field, resp.text)
    selected = call('GET', '/v1/nodes/rt?fields=shard,retired').json
    assert set(selected) == {'shard', 'retired', 'links'}
    for field in ('protected', 'protected_reason', 'fault', 'parent_node',
                  'boot_mode', 'secure_boot', 'health', 'chassis_uuid',
                  'inspection_started_at', 'service_step'):
        assert field in shown
    assert shown['protected'] is False and shown['fault'] is None
    assert shown['driver_internal_info'] == {}
    assert shown['clean_step'] == {} and shown['raid_config'] == {}
    # protected is set by PATCH only.
    resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                      'protected': True})
    assert resp.status_int == 400


def test_filters(database):
    plain = create(name='f-plain')['uuid']
    retired = create(name='f-retired', retired=True, shard='s1')['uuid']
    sharded = create(name='f-sharded', shard='s2',
                     instance_name='vm-x')['uuid']
    child = create(name='f-child', parent_node='f-plain')['uuid']
    everything = sorted([plain, retired, sharded])
    assert uuids('') == everything
    assert uuids('include_children=true') == sorted(everything + [child])
    assert uuids('parent_node=f-plain') == [child]
    assert uuids('parent_node=%s' % plain) == [child]
    assert uuids('retired=true') == [retired]
    assert uuids('retired=false') == sorted([plain, sharded])
    assert uuids('shard=s1,s2') == sorted([retired, sharded])
    assert uuids('shard=s2') == [sharded]
    assert uuids('sharded=false') == [plain]
    assert uuids('instance_name=vm-x') == [sharded]
    assert uuids('fault=power%20failure') == []
    resp = call('GET', '/v1/nodes?fault=bad')
    assert resp.status_int == 400
    assert message(resp).startswith('Unrecognized fault "bad" is specified')
    for query, before in (('retired=true', '1.60'), ('shard=s1', '1.81'),
                          ('sharded=true', '1.81'),
                          ('parent_node=f-plain', '1.82'),
                          ('include_children=true', '1.82'),
                          ('fault=power%20failure', '1.41'),
                          ('instance_name=vm-x', '1.103')):
        resp = call('GET', '/v1/nodes?' + query, version=before)
        assert resp.status_int == 406, query
    # Sorting: by a stored scalar, not by a JSON field.
    resp = call('GET', '/v1/nodes?sort_key=shard')
    assert resp.status_int == 200
    resp = call('GET', '/v1/nodes?sort_key=network_data')
    assert resp.status_int == 400
    resp = call('GET', '/v1/nodes/f-plain/children')
    assert resp.status_int == 200, resp.text
    assert resp.json == {'children': [child]}
    assert call('GET', '/v1/nodes/f-child/children').json == {
        'children': []}
    assert call('GET', '/v1/nodes/f-plain/children',
                version='1.82').status_int == 404
    # The parent must exist, and not be the node itself.
    resp = patch('f-child', [{'op': 'replace', 'path': '/parent_node',
                              'value': child}])
    assert resp.status_int == 400
    assert message(resp) == 'Node %s can not be its own parent node.' % child
    resp = patch('f-child', [{'op': 'remove', 'path': '/parent_node'}])
    assert resp.json['parent_node'] is None
    resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                      'parent_node': 'nowhere'})
    assert resp.status_int == 400
    assert message(resp) == 'Node nowhere could not be found.'


# -- retirement and protection -----------------------------------------------

def test_retire_rules(database):
    node = api.available(name='ret')
    resp = patch('ret', [{'op': 'add', 'path': '/retired', 'value': True}])
    assert resp.status_int == 409
    assert message(resp) == (
        "Node %s can not have 'retired' set in provision state 'available', "
        "the current state is 'available'" % node['uuid'])
    resp = patch('ret', [{'op': 'add', 'path': '/retired_reason',
                          'value': 'why'}])
    assert resp.status_int == 400
    assert message(resp) == ('The retired_reason field can only be set when '
                             'retired is True')
    provision(node['uuid'], 'manage')
    resp = patch('ret', [{'op': 'add', 'path': '/retired', 'value': True},
                         {'op': 'add', 'path': '/retired_reason',
                          'value': 'old'}])
    assert resp.status_int == 200, resp.text
    assert resp.json['retired'] is True
    assert resp.json['retired_reason'] == 'old'
    assert uuids('retired=true') == [node['uuid']]
    resp = call('PUT', '/v1/nodes/ret/states/provision',
                {'target': 'provide'})
    assert resp.status_int == 400
    assert message(resp) == ("The providing operation can't be performed on "
                             "node %s because it is retired." % node['uuid'])
    # Unsetting retired with a reason: the reason goes too (Ironic's).
    resp = patch('ret', [{'op': 'replace', 'path': '/retired',
                          'value': False},
                         {'op': 'replace', 'path': '/retired_reason',
                          'value': 'new'}])
    assert resp.status_int == 200, resp.text
    assert resp.json['retired'] is False
    assert resp.json['retired_reason'] is None
    resp = patch('ret', [{'op': 'add', 'path': '/retired', 'value': True}],
                 version='1.60')
    assert resp.status_int == 406


def test_retired_node_torn_down_rests_in_manageable(database):
    node = active(name='old')
    resp = patch('old', [{'op': 'add', 'path': '/retired', 'value': True}])
    assert resp.status_int == 200, resp.text
    provision(node['uuid'], 'deleted')
    shown = call('GET', '/v1/nodes/old').json
    assert shown['provision_state'] == 'manageable'
    assert shown['target_provision_state'] is None
    assert shown['instance_uuid'] is None


def test_protect_rules(database):
    node = api.available(name='prot')
    resp = patch('prot', [{'op': 'add', 'path': '/protected',
                           'value': True}])
    assert resp.status_int == 409
    assert message(resp) == (
        "Node %s can only be made protected in provision states 'active' "
        "or 'rescue', the current state is 'available'" % node['uuid'])
    provision(node['uuid'], 'active')
    resp = patch('prot', [{'op': 'add', 'path': '/protected_reason',
                           'value': 'x'}])
    assert resp.status_int == 400
    assert message(resp) == ('The protected_reason field can only be set '
                             'when protected is True')
    resp = patch('prot', [{'op': 'add', 'path': '/protected',
                           'value': 'yes'},
                          {'op': 'add', 'path': '/protected_reason',
                           'value': 'prod'}])
    assert resp.status_int == 200, resp.text
    assert resp.json['protected'] is True
    assert resp.json['protected_reason'] == 'prod'
    protected = 'Node %s is protected and cannot be undeployed, rebuilt ' \
        'or deleted' % node['uuid']
    resp = call('PUT', '/v1/nodes/prot/states/provision',
                {'target': 'deleted'})
    assert resp.status_int == 403 and message(resp) == protected
    call('PUT', '/v1/nodes/prot/maintenance', {})
    resp = call('DELETE', '/v1/nodes/prot')
    assert resp.status_int == 403 and message(resp) == protected
    resp = patch('prot', [{'op': 'replace', 'path': '/protected',
                           'value': False}])
    assert resp.json['protected'] is False
    assert resp.json['protected_reason'] is None
    assert call('DELETE', '/v1/nodes/prot').status_int == 204
    resp = patch(create()['uuid'], [{'op': 'add', 'path': '/protected',
                                     'value': True}], version='1.47')
    assert resp.status_int == 406


def test_out_of_maintenance_forgets_reason_and_fault(database):
    create(name='mnt')
    resp = call('PUT', '/v1/nodes/mnt/maintenance', {'reason': 'broken'})
    assert resp.status_int == 202, resp.text
    resp = patch('mnt', [{'op': 'replace', 'path': '/maintenance',
                          'value': False}])
    assert resp.json['maintenance'] is False
    assert resp.json['maintenance_reason'] is None
    assert resp.json['fault'] is None


def test_instance_name_follows_display_name(database):
    create(name='in')
    resp = patch('in', [{'op': 'add', 'path': '/instance_info',
                         'value': {'display_name': 'server-1'}}])
    assert resp.json['instance_name'] == 'server-1'
    resp = patch('in', [{'op': 'replace', 'path': '/instance_name',
                         'value': 'mine'}])
    assert resp.json['instance_name'] == 'mine'
    # A name set explicitly stays (openstacksdk's functional test).
    resp = patch('in', [{'op': 'replace', 'path': '/instance_info',
                         'value': {'display_name': 'server-2'}}])
    assert resp.json['instance_name'] == 'mine'
    resp = patch('in', [{'op': 'remove', 'path': '/instance_name'}])
    assert resp.json['instance_name'] is None
    # Tearing the instance down forgets its name.
    node = active(instance_name='deployed')
    assert node['instance_name'] == 'deployed'
    provision(node['uuid'], 'deleted')
    assert call('GET', '/v1/nodes/' + node['uuid']).json[
        'instance_name'] is None
    resp = patch('in', [{'op': 'replace', 'path': '/instance_name',
                         'value': 'old'}], version='1.103')
    assert resp.status_int == 406


# -- validate ----------------------------------------------------------------

def test_validate(database):
    node = create(name='val', rescue_interface='no-rescue')
    resp = call('GET', '/v1/nodes/val/validate')
    assert resp.status_int == 200, resp.text
    report = resp.json
    assert set(report) == {'bios', 'boot', 'console', 'deploy', 'firmware',
                           'inspect', 'management', 'network', 'power',
                           'raid', 'rescue', 'storage'}
    assert report['power'] == {'result': True}
    assert report['rescue'] == {
        'result': False,
        'reason': 'Driver fake-hardware does not support rescue (disabled '
                  'or not implemented).'}
    assert call('GET', '/v1/nodes/%s/validate' % node['uuid']).json == \
        report
    assert call('GET', '/v1/nodes/validate?node=val').json == report
    assert call('GET', '/v1/nodes/validate?node_uuid=%s'
                % node['uuid']).json == report
    assert call('GET', '/v1/nodes/nowhere/validate').status_int == 404
    assert call('GET', '/v1/nodes/val/validate',
                version='1.4').status_int == 406
    assert call('POST', '/v1/nodes/val/validate', {}).status_int == 405


# -- shards ------------------------------------------------------------------

def test_shards(database):
    assert call('GET', '/v1/shards').json == {'shards': []}
    for shard in ('s1', 's2', 's2', None):
        create(shard=shard)
    resp = call('GET', '/v1/shards')
    assert resp.status_int == 200, resp.text
    assert resp.json == {'shards': [{'name': 's2', 'count': 2},
                                    {'name': 's1', 'count': 1}]}
    assert call('GET', '/v1/shards', version='1.81').status_int == 404
    # Ironic ignores the query string here.
    assert call('GET', '/v1/shards?x=1').json == resp.json
    assert call('POST', '/v1/shards', {}).status_int == 405
