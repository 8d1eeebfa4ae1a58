"""``/v1/portgroups`` (1.23): port groups as an Ironic client uses them,
on every database backend.

Scenarios:
* below 1.23 there are no port groups (404, any method);
* POST: the document (mode and properties from 1.26, category from
  1.101, the ``ports`` link from 1.24), defaults, validation, 409 on a
  duplicate MAC (the port group's own message), name or UUID;
* GET one by UUID and name; ``fields``; lists with filters, ``detail``,
  paging; ``/v1/nodes/{node}/portgroups`` (1.24) and
  ``/v1/portgroups/{pg}/ports`` (1.24);
* ports in port groups: same node only, standalone ports, one physical
  network;
* PATCH; DELETE refused while the group has ports.
"""

import uuid

import pytest

from tests.helpers.v1 import call
from tests.helpers.v1 import error
from tests.helpers.v1 import mac
from tests.helpers.v1 import node
from tests.helpers.v1 import port

pytestmark = pytest.mark.usefixtures('api_conductor')

FULL_KEYS = {'uuid', 'name', 'address', 'node_uuid', 'extra',
             'internal_info', 'standalone_ports_supported', 'created_at',
             'updated_at', 'mode', 'properties', 'category', 'links',
             'ports', 'physical_network', 'dynamic_portgroup'}


def portgroup(node_uuid, version='latest', **body):
    body['node_uuid'] = node_uuid
    resp = call('POST', '/v1/portgroups', body, version=version)
    assert resp.status_int == 201, resp.text
    return resp.json


def test_no_portgroups_before_1_23(database):
    n = node()
    for method, body in (('GET', None), ('POST', {'node_uuid': n['uuid']})):
        assert call(method, '/v1/portgroups', body,
                    version='1.22').status_int == 404
    assert call('GET', '/v1/nodes/%s/portgroups' % n['uuid'],
                version='1.23').status_int == 404


def test_create_answers_the_whole_portgroup(database):
    n = node()
    resp = call('POST', '/v1/portgroups', {
        'node_uuid': n['uuid'], 'address': 'AA:BB:CC:00:00:01',
        'name': 'bond0', 'extra': {'a': 1}, 'mode': '802.3ad',
        'properties': {'miimon': 100},
        'standalone_ports_supported': 'false', 'category': 'fast'})
    assert resp.status_int == 201, resp.text
    doc = resp.json
    assert set(doc) == FULL_KEYS
    assert doc['address'] == 'aa:bb:cc:00:00:01'
    assert doc['standalone_ports_supported'] is False
    assert doc['mode'] == '802.3ad' and doc['properties'] == {'miimon': 100}
    assert doc['ports'] == [
        {'href': 'http://localhost/v1/portgroups/%s/ports' % doc['uuid'],
         'rel': 'self'},
        {'href': 'http://localhost/portgroups/%s/ports' % doc['uuid'],
         'rel': 'bookmark'}]
    assert resp.headers['Location'] == (
        'http://localhost/v1/portgroups/%s' % doc['uuid'])
    assert call('GET', '/v1/portgroups/bond0').json == doc
    assert call('GET', '/v1/portgroups/' + doc['uuid']).json == doc


def test_create_defaults(database):
    n = node()
    doc = portgroup(n['uuid'])
    assert doc['address'] is None and doc['name'] is None
    assert doc['standalone_ports_supported'] is True
    assert doc['mode'] == 'active-backup'
    assert doc['properties'] == {} and doc['extra'] == {}


_NEWER = {'physical_network', 'category', 'dynamic_portgroup'}


@pytest.mark.parametrize('version, absent', [
    ('1.23', {'mode', 'properties', 'ports'} | _NEWER),
    ('1.24', {'mode', 'properties'} | _NEWER),
    ('1.26', _NEWER),
    ('1.101', _NEWER),
    ('1.102', {'category', 'dynamic_portgroup'}),
    ('1.103', {'dynamic_portgroup'}),
    ('1.110', {'dynamic_portgroup'}),
    ('1.111', set()),
])
def test_fields_by_version(database, version, absent):
    n = node()
    doc = portgroup(n['uuid'])
    shown = set(call('GET', '/v1/portgroups/' + doc['uuid'],
                     version=version).json)
    assert shown == FULL_KEYS - absent


@pytest.mark.parametrize('body, status, text', [
    ({'address': 'bogus'}, 400, 'Expected valid MAC address for address: '
                                'bogus'),
    ({'name': 'a b'}, 400, "Cannot create portgroup with invalid name "
                           "'a b'"),
    ({'node_uuid': None}, 400, "Schema error for portgroup: None is not "
                               "of type 'string'"),
    ({'node_uuid': 'x'}, 400, 'Expected UUID for node_uuid: x'),
    ({'standalone_ports_supported': 'maybe'}, 400,
     "Invalid standalone_ports_supported: Unrecognized value 'maybe', "
     "acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', "
     "'on', 't', 'true', 'y', 'yes'"),
    ({'physical_network': 'p' * 65}, 400,
     "Schema error for portgroup: '%s' is too long" % ('p' * 65)),
    ({'dynamic_portgroup': True}, 400,
     "Schema error for portgroup: Additional properties are not allowed "
     "('dynamic_portgroup' was unexpected)"),
    ({'mode': 'x'}, 406, None),
])
def test_create_refuses(database, body, status, text):
    n = node()
    full = dict({'node_uuid': n['uuid']}, **body)
    version = '1.25' if 'mode' in body else 'latest'
    got = error(call('POST', '/v1/portgroups', full, version=version),
                status)
    if text is not None:
        assert got == text


def test_duplicates_are_409(database):
    n = node()
    first = portgroup(n['uuid'], address=mac(1), name='pg1')
    # A port may have the MAC of a port group: they are apart.
    port(n['uuid'], mac(1))
    resp = call('POST', '/v1/portgroups', {'node_uuid': n['uuid'],
                                           'address': mac(1)})
    assert error(resp, 409) == ('A portgroup with MAC address %s already '
                                'exists.' % mac(1))
    resp = call('POST', '/v1/portgroups', {'node_uuid': n['uuid'],
                                           'name': 'pg1'})
    assert error(resp, 409) == 'A portgroup with name pg1 already exists.'
    resp = call('POST', '/v1/portgroups', {'node_uuid': n['uuid'],
                                           'uuid': first['uuid']})
    assert error(resp, 409) == ('A portgroup with UUID %s already exists.'
                                % first['uuid'])


def test_lists(database):
    a, b = node(name='node-a'), node()
    ga = portgroup(a['uuid'], name='ga', address=mac(2))
    gb = portgroup(b['uuid'], name='gb')
    listed = call('GET', '/v1/portgroups').json['portgroups']
    assert listed == [
        {'uuid': ga['uuid'], 'address': mac(2), 'name': 'ga',
         'links': ga['links']},
        {'uuid': gb['uuid'], 'address': None, 'name': 'gb',
         'links': gb['links']}]
    assert call('GET', '/v1/portgroups/detail').json['portgroups'] == \
        [ga, gb]
    assert call('GET', '/v1/portgroups?node=node-a').json['portgroups'][
        0]['uuid'] == ga['uuid']
    assert call('GET', '/v1/portgroups?address=%s' % mac(2).upper()
                ).json['portgroups'][0]['uuid'] == ga['uuid']
    assert call('GET', '/v1/portgroups?fields=mode').json['portgroups'][
        0] == {'mode': 'active-backup', 'links': ga['links']}
    assert call('GET', '/v1/portgroups?fields=mode',
                version='1.25').status_int == 406
    page = call('GET', '/v1/portgroups?limit=1').json
    assert len(page['portgroups']) == 1 and 'marker=' in page['next']
    nested = call('GET', '/v1/nodes/node-a/portgroups').json['portgroups']
    assert [g['uuid'] for g in nested] == [ga['uuid']]
    nested = call('GET', '/v1/nodes/node-a/portgroups/detail').json
    assert nested['portgroups'] == [ga]
    assert error(call('POST', '/v1/nodes/node-a/portgroups', {}), 403) == \
        'Operation not permitted.'
    assert error(call('GET', '/v1/portgroups?node_uuid=%s' % a['uuid']),
                 400) == 'Unexpected arguments: node_uuid'


def test_ports_of_a_portgroup(database):
    n = node()
    pg = portgroup(n['uuid'], name='bond0')
    member = port(n['uuid'], mac(3), portgroup_uuid=pg['uuid'])
    port(n['uuid'], mac(4))
    listed = call('GET', '/v1/portgroups/bond0/ports').json['ports']
    assert [p['uuid'] for p in listed] == [member['uuid']]
    detail = call('GET', '/v1/portgroups/%s/ports/detail'
                  % pg['uuid']).json['ports']
    assert detail[0]['portgroup_uuid'] == pg['uuid']
    assert call('GET', '/v1/portgroups/bond0/ports',
                version='1.23').status_int == 404
    assert error(call('GET', '/v1/portgroups/bond0/ports/' +
                      member['uuid']), 403) == 'Operation not permitted.'
    missing = str(uuid.uuid4())
    assert error(call('GET', '/v1/portgroups/%s/ports' % missing), 404) \
        == 'Portgroup %s could not be found.' % missing


def test_port_joins_only_a_portgroup_of_its_node(database):
    a, b = node(), node()
    pg = portgroup(b['uuid'])
    resp = call('POST', '/v1/ports', {'node_uuid': a['uuid'],
                                      'address': mac(5),
                                      'portgroup_uuid': pg['uuid']})
    assert error(resp, 400) == ('Port can not be added to a portgroup '
                                'belonging to a different node.')


def test_standalone_ports(database):
    n = node()
    pg = portgroup(n['uuid'], standalone_ports_supported=False)
    resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                      'address': mac(6), 'pxe_enabled': True,
                                      'portgroup_uuid': pg['uuid']})
    assert error(resp, 409) == (
        "Port group %s doesn't support standalone ports. This port cannot "
        "be created as a member of that port group because either "
        "'extra/vif_port_id' was specified or 'pxe_enabled' was set to "
        "True." % pg['uuid'])
    member = port(n['uuid'], mac(6), pxe_enabled=False,
                  portgroup_uuid=pg['uuid'])
    resp = call('PATCH', '/v1/ports/' + member['uuid'], [
        {'op': 'replace', 'path': '/pxe_enabled', 'value': True}])
    assert error(resp, 409).startswith(
        "Port group %s doesn't support standalone ports." % pg['uuid'])
    open_pg = portgroup(n['uuid'])
    port(n['uuid'], mac(7), portgroup_uuid=open_pg['uuid'])
    resp = call('PATCH', '/v1/portgroups/' + open_pg['uuid'], [
        {'op': 'replace', 'path': '/standalone_ports_supported',
         'value': False}])
    assert resp.status_int == 409


def test_one_physical_network_per_portgroup(database):
    n = node()
    pg = portgroup(n['uuid'])
    port(n['uuid'], mac(8), portgroup_uuid=pg['uuid'],
         physical_network='physnet1')
    resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                      'address': mac(9),
                                      'portgroup_uuid': pg['uuid'],
                                      'physical_network': 'physnet2'})
    assert error(resp, 409) == (
        'Port with physical network physnet2 cannot become a member of '
        'port group %s which has ports in physical network physnet1.'
        % pg['uuid'])
    other = port(n['uuid'], mac(9))
    resp = call('PATCH', '/v1/ports/' + other['uuid'], [
        {'op': 'add', 'path': '/portgroup_uuid', 'value': pg['uuid']}])
    assert error(resp, 409) == (
        'Port with physical network None cannot become a member of port '
        'group %s which has ports in physical network physnet1.'
        % pg['uuid'])
    resp = call('PATCH', '/v1/ports/' + other['uuid'], [
        {'op': 'add', 'path': '/portgroup_uuid', 'value': pg['uuid']},
        {'op': 'add', 'path': '/physical_network', 'value': 'physnet1'}])
    assert resp.status_int == 200, resp.text
    assert resp.json['portgroup_uuid'] == pg['uuid']
    resp = call('PATCH', '/v1/ports/' + other['uuid'], [
        {'op': 'remove', 'path': '/portgroup_uuid'}])
    assert resp.status_int == 200 and resp.json['portgroup_uuid'] is None


def test_patch_and_delete(database):
    n, other = node(), node()
    pg = portgroup(n['uuid'], name='pg')
    resp = call('PATCH', '/v1/portgroups/pg', [
        {'op': 'replace', 'path': '/name', 'value': 'renamed'},
        {'op': 'add', 'path': '/address', 'value': mac(10)},
        {'op': 'add', 'path': '/properties/x', 'value': 1}])
    assert resp.status_int == 200, resp.text
    assert resp.json['name'] == 'renamed'
    assert resp.json['address'] == mac(10)
    assert resp.json['properties'] == {'x': 1}
    assert error(call('PATCH', '/v1/portgroups/renamed', [
        {'op': 'replace', 'path': '/name', 'value': 'a b'}]), 400) == (
        "Portgroup renamed: Cannot change name to invalid name 'a b'")
    # Removing the node keeps it, as in Ironic; a mode cannot go.
    resp = call('PATCH', '/v1/portgroups/renamed', [
        {'op': 'remove', 'path': '/node_uuid'}])
    assert resp.status_int == 200 and resp.json['node_uuid'] == n['uuid']
    assert error(call('PATCH', '/v1/portgroups/renamed', [
        {'op': 'remove', 'path': '/mode'}]), 400) == (
        "'mode' is a mandatory attribute and can not be removed")
    assert error(call('PATCH', '/v1/portgroups/renamed', [
        {'op': 'add', 'path': '/dynamic_portgroup', 'value': True}]),
        400) == (
        'Cannot patch /dynamic_portgroup. Only the following can be '
        'updated: address, extra, mode, name, node_uuid, properties, '
        'standalone_ports_supported, physical_network, category')
    member = port(n['uuid'], mac(11), portgroup_uuid=pg['uuid'])
    resp = call('PATCH', '/v1/portgroups/renamed', [
        {'op': 'replace', 'path': '/node_uuid', 'value': other['uuid']}])
    assert error(resp, 409) == (
        'Portgroup %s can not be associated to node %s because there are '
        'ports associated with the portgroup.'
        % (pg['uuid'], other['uuid']))
    resp = call('DELETE', '/v1/portgroups/renamed')
    assert error(resp, 400) == (
        'Cannot complete the requested action because portgroup %s '
        'contains ports.' % pg['uuid'])
    assert call('DELETE', '/v1/ports/' + member['uuid']).status_int == 204
    assert call('DELETE', '/v1/portgroups/renamed').status_int == 204
    assert error(call('GET', '/v1/portgroups/renamed'), 404) == (
        'Portgroup renamed could not be found.')


def test_a_portgroup_document_lists_its_members_by_name(database):
    # The order WSME rendered them in, which the handlers keep.
    n = node()
    created = portgroup(n['uuid'], address=mac(8), name='pg8')
    for doc in (created, call('GET', '/v1/portgroups/pg8').json,
                call('GET', '/v1/nodes/%s/portgroups/detail' % n['uuid']
                     ).json['portgroups'][0],
                call('GET', '/v1/portgroups').json['portgroups'][0]):
        assert list(doc) == sorted(doc)
