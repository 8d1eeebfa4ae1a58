"""Ports and port groups of Ironic's API 1.94 to 1.111, as Ironic 39
answers them (each answer below was checked against it), on every
database backend.

Scenarios:
* a port group's ``physical_network`` (1.102): set on create and
  PATCH, adopted from the first member that has one, followed by the
  members when it changes; a port in a group cannot change its own
  (1.102) and needs a non-empty one;
* ``category`` of a port group from 1.103, ``dynamic_portgroup`` (read
  only) and a port's ``available_for_dynamic_portgroup`` from 1.111;
  which versions may name them in ``fields``, ``sort_key`` and bodies;
* a port created on a node named by ``node_ident`` (1.94);
* an OVN VTEP switch in a port's local link connection (1.90 to 1.104);
* the port group filters ``conductor_groups`` and ``shard`` (1.106),
  the port filter ``description_contains``, and which filters Ironic
  takes only alone.
"""

import pytest

from tests.helpers.v1 import call
from tests.helpers.v1 import error
from tests.helpers.v1 import mac
from tests.helpers.v1 import node
from tests.helpers.v1 import port

pytestmark = pytest.mark.usefixtures('api_conductor')


def portgroup(node_uuid, version='latest', **body):
    body['node_uuid'] = node_uuid
    resp = call('POST', '/v1/portgroups', body, version=version)
    assert resp.status_int == 201, resp.text
    return resp.json


def physnet(kind, ident):
    return call('GET', '/v1/%s/%s' % (kind, ident)).json['physical_network']


# -- physical networks of port groups ----------------------------------------

def test_a_portgroup_has_a_physical_network(database):
    n = node()
    pg = portgroup(n['uuid'], physical_network='physA')
    assert pg['physical_network'] == 'physA'
    # Its network is the one its members must be on.
    resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                      'address': mac(1),
                                      'portgroup_uuid': pg['uuid']})
    assert error(resp, 409) == (
        'Port with physical network None cannot become a member of port '
        'group %s which has ports in physical network physA.' % pg['uuid'])
    member = port(n['uuid'], mac(1), portgroup_uuid=pg['uuid'],
                  physical_network='physA')
    assert member['physical_network'] == 'physA'


def test_an_empty_portgroup_takes_its_first_members_network(database):
    n = node()
    pg = portgroup(n['uuid'])
    assert pg['physical_network'] is None
    port(n['uuid'], mac(2), portgroup_uuid=pg['uuid'])
    assert physnet('portgroups', pg['uuid']) is None
    other = portgroup(n['uuid'])
    port(n['uuid'], mac(3), portgroup_uuid=other['uuid'],
         physical_network='physC')
    assert physnet('portgroups', other['uuid']) == 'physC'


def test_members_follow_their_portgroups_network(database):
    n = node()
    pg = portgroup(n['uuid'])
    first = port(n['uuid'], mac(4), portgroup_uuid=pg['uuid'],
                 physical_network='physC')
    second = port(n['uuid'], mac(5), portgroup_uuid=pg['uuid'],
                  physical_network='physC')
    resp = call('PATCH', '/v1/portgroups/' + pg['uuid'], [
        {'op': 'replace', 'path': '/physical_network', 'value': 'physD'}])
    assert resp.status_int == 200, resp.text
    assert resp.json['physical_network'] == 'physD'
    assert physnet('ports', first['uuid']) == 'physD'
    assert physnet('ports', second['uuid']) == 'physD'
    # Ironic answers this removal with a 500; here the members follow.
    resp = call('PATCH', '/v1/portgroups/' + pg['uuid'], [
        {'op': 'remove', 'path': '/physical_network'}])
    assert resp.status_int == 200 and resp.json['physical_network'] is None
    assert physnet('ports', first['uuid']) is None


def test_a_member_keeps_its_portgroups_network(database):
    n = node()
    pg = portgroup(n['uuid'])
    member = port(n['uuid'], mac(6), portgroup_uuid=pg['uuid'],
                  physical_network='physA')
    patch = [{'op': 'replace', 'path': '/physical_network',
              'value': 'physB'}]
    assert error(call('PATCH', '/v1/ports/' + member['uuid'], patch),
                 400) == ('physical_network cannot be changed while the '
                          'port belongs to a portgroup.')
    # Below 1.102 the conductor's rule answers.
    assert error(call('PATCH', '/v1/ports/' + member['uuid'], patch,
                      version='1.101'), 409) == (
        'Port with physical network physB cannot become a member of port '
        'group %s which has ports in physical network physA.' % pg['uuid'])
    # Ironic looks at a PATCH's first operation only.
    loose = port(n['uuid'], mac(7))
    resp = call('PATCH', '/v1/ports/' + loose['uuid'], [
        {'op': 'add', 'path': '/portgroup_uuid', 'value': pg['uuid']},
        {'op': 'add', 'path': '/physical_network', 'value': 'physA'}])
    assert resp.status_int == 200, resp.text
    assert error(call('PATCH', '/v1/ports/' + loose['uuid'], [
        {'op': 'replace', 'path': '/physical_network', 'value': ''}]),
        400) == 'A non-empty value is required when setting physical_network'


# -- fields by version --------------------------------------------------------

def test_portgroup_fields_by_version(database):
    n = node()
    pg = portgroup(n['uuid'], category='fast', physical_network='p1')

    def shown(version):
        return set(call('GET', '/v1/portgroups/' + pg['uuid'],
                        version=version).json)
    assert not shown('1.101') & {'category', 'physical_network',
                                 'dynamic_portgroup'}
    assert 'physical_network' in shown('1.102')
    assert 'category' not in shown('1.102')
    assert 'category' in shown('1.103')
    assert 'dynamic_portgroup' not in shown('1.110')
    assert call('GET', '/v1/portgroups/' + pg['uuid']).json[
        'dynamic_portgroup'] is False
    # Ironic takes category and physical_network in ``fields`` and in a
    # body at any version (and shows them by version), dynamic_portgroup
    # from 1.111.
    resp = call('GET', '/v1/portgroups?fields=category,physical_network',
                version='1.30')
    assert resp.status_int == 200
    assert set(resp.json['portgroups'][0]) == {'links'}
    for version in ('1.30', '1.110'):
        resp = call('GET', '/v1/portgroups?fields=dynamic_portgroup',
                    version=version)
        assert error(resp, 406) == 'Request not acceptable.'
        resp = call('GET', '/v1/portgroups?sort_key=dynamic_portgroup',
                    version=version)
        assert resp.status_int == 406
    old = portgroup(n['uuid'], version='1.30', category='c',
                    physical_network='p2')
    assert call('GET', '/v1/portgroups/' + old['uuid']).json[
        'category'] == 'c'


def test_available_for_dynamic_portgroup(database):
    n = node()
    doc = port(n['uuid'], mac(8))
    assert doc['available_for_dynamic_portgroup'] is True
    assert 'available_for_dynamic_portgroup' not in call(
        'GET', '/v1/ports/' + doc['uuid'], version='1.110').json
    off = port(n['uuid'], mac(9), available_for_dynamic_portgroup=False)
    assert off['available_for_dynamic_portgroup'] is False
    resp = call('GET', '/v1/ports?fields=available_for_dynamic_portgroup')
    assert [p['available_for_dynamic_portgroup']
            for p in resp.json['ports']] == [True, False]
    for path in ('/v1/ports?fields=available_for_dynamic_portgroup',
                 '/v1/ports?sort_key=available_for_dynamic_portgroup'):
        assert call('GET', path, version='1.110').status_int == 406
    resp = call('POST', '/v1/ports', {
        'node_uuid': n['uuid'], 'address': mac(10),
        'available_for_dynamic_portgroup': True}, version='1.110')
    assert error(resp, 406) == 'Request not acceptable.'
    resp = call('PATCH', '/v1/ports/' + off['uuid'], [
        {'op': 'remove', 'path': '/available_for_dynamic_portgroup'}])
    assert resp.json['available_for_dynamic_portgroup'] is True


# -- node_ident (1.94) --------------------------------------------------------

def test_a_port_on_a_node_named_by_ident(database):
    n = node(name='named-node')
    body = {'node_ident': 'named-node', 'address': mac(11)}
    assert call('POST', '/v1/ports', body,
                version='1.93').status_int == 406
    resp = call('POST', '/v1/ports', body, version='1.94')
    assert resp.status_int == 201, resp.text
    assert resp.json['node_uuid'] == n['uuid']
    # Ironic's text names no node here ("Node None could not be
    # found.").
    resp = call('POST', '/v1/ports', {'node_ident': 'nowhere',
                                      'address': mac(12)})
    assert error(resp, 400) == 'Node nowhere could not be found.'
    resp = call('POST', '/v1/ports', {'node_ident': n['uuid'],
                                      'node_uuid': n['uuid'],
                                      'address': mac(12)})
    assert error(resp, 400).startswith('Schema error for port: ')
    assert 'is valid under each of' in error(resp, 400)
    resp = call('POST', '/v1/ports', {'address': mac(12)})
    assert error(resp, 400) == (
        "Schema error for port: {'address': '%s'} is not valid under any "
        "of the given schemas. Possible root cause: 'node_ident' is a "
        "required property" % mac(12))


# -- OVN VTEP links (1.90 to 1.104) ----------------------------------------

def test_an_ovn_vtep_link(database):
    n = node()
    link = {'port_id': 'p', 'vtep-logical-switch': 'ls',
            'vtep-physical-switch': 'ps'}
    for version in ('1.89', '1.105', 'latest'):
        resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                          'address': mac(30),
                                          'local_link_connection': link},
                    version=version)
        assert error(resp, 406) == 'Request not acceptable.'
    doc = port(n['uuid'], mac(30), version='1.90',
               local_link_connection=link)
    assert doc['local_link_connection'] == link

    def shown(version):
        return call('GET', '/v1/ports/' + doc['uuid'],
                    version=version).json['local_link_connection']
    assert shown('1.104') == link
    assert shown('1.89') == {} and shown('1.105') == {}
    half = {'port_id': 'p', 'vtep-logical-switch': 'ls'}
    resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                      'address': mac(31),
                                      'local_link_connection': half},
                version='1.90')
    assert error(resp, 400) == (
        "Schema error for local_link_connection: %r is not valid under "
        "any of the given schemas. Possible root cause: "
        "'vtep-physical-switch' is a dependency of 'vtep-logical-switch'"
        % half)
    smart = port(n['uuid'], mac(32), is_smartnic=True)
    assert smart['local_link_connection'] == {}
    datapath = port(n['uuid'], mac(33), local_link_connection={
        'port_id': 'p', 'switch_id': '0123456789ABCDEF'})
    assert datapath['local_link_connection']['switch_id'] == \
        '0123456789abcdef'


# -- list filters --------------------------------------------------------

def _uuids(resp, kind):
    assert resp.status_int == 200, resp.text
    return [item['uuid'] for item in resp.json[kind]]


def test_portgroup_list_filters(database):
    a = node(conductor_group='Rack-A', shard='s1')
    b = node(shard='s2')
    made = [portgroup(a['uuid'], address=mac(13))['uuid'],
            portgroup(b['uuid'])['uuid']]

    def listed(query, version='latest'):
        return _uuids(call('GET', '/v1/portgroups' + query,
                           version=version), 'portgroups')
    assert listed('?conductor_groups=rack-a') == made[:1]
    assert listed('?conductor_groups=rack-a', version='1.23') == made[:1]
    assert listed('?shard=s2') == made[1:]
    assert listed('?shard=s1,s2') == made
    assert listed('?shard=') == made
    assert error(call('GET', '/v1/portgroups?shard=s1', version='1.105'),
                 406) == ('Request not acceptable. The minimal required '
                          'API version should be 1.106')
    for query in ('?shard=s1&node=%s' % a['uuid'],
                  '?conductor_groups=x&address=%s' % mac(13),
                  '?node=%s&address=%s' % (a['uuid'], mac(13))):
        assert error(call('GET', '/v1/portgroups' + query), 400) == (
            'Filtering by node, address, or shard simultaneously is not '
            'supported.')


def test_port_list_filters(database):
    a = node(shard='s1')
    made = [port(a['uuid'], mac(14), description='first nic')['uuid'],
            port(a['uuid'], mac(15), description='100% second')['uuid']]

    def listed(query, version='latest'):
        return _uuids(call('GET', '/v1/ports' + query, version=version),
                      'ports')
    assert listed('?description_contains=nic') == made[:1]
    assert listed('?description_contains=second', version='1.1') == made[1:]
    assert error(call('GET', '/v1/ports?shard=s1&node=%s' % a['uuid']),
                 403) == 'Operation not permitted.'
    for query in ('?conductor_groups=x&node=%s' % a['uuid'],
                  '?conductor_groups=x&address=%s' % mac(14)):
        assert error(call('GET', '/v1/ports' + query), 400) == (
            'Filtering by conductor_groups cannot be combined with '
            'node_ident, portgroup_ident, or node address filters.')
    assert error(call('GET', '/v1/ports?shard=s1', version='1.81'),
                 406) == ('Request not acceptable. The minimal required '
                          'API version should be 1.82')
