"""``/v1/ports``: create, show, list, update and delete ports as an
Ironic client does, on every database backend.

Scenarios:
* POST: the 201 document and Location; MAC normalised; every field's
  version gate (406); validation (400, Ironic's messages: bad MAC, bad
  UUIDs, unknown node or port group, unknown attribute); 409 on a
  duplicate MAC, UUID or name, also for two concurrent creations.
* GET one: by UUID and (1.88) name; ``fields``; each field appears at
  its version; 404 with Ironic's body.
* GET list and ``/detail``: default fields, ``detail``, ``fields``, each
  filter (node, node_uuid, address, portgroup, conductor_groups) and its
  version gate,
  paging with ``next``, sorting and its errors.
* Node forms: ``/v1/nodes/{node}/ports`` (and ``/detail``); 403 for
  anything but a list there; 404 for an unknown node.
* PATCH: what may change, internal and mandatory attributes, the node
  state rules (address of an active node, connectivity), moving to
  another node.
* DELETE; deleting a node deletes its ports.
* No 500 for bad input.
"""

import threading
import uuid

import pytest

from tests.functional.ironic_errors import fault
from tests.functional.ironic_errors import message
from tests.helpers.v1 import call
from tests.helpers.v1 import error
from tests.helpers.v1 import mac
from tests.helpers.v1 import node
from tests.helpers.v1 import port

FULL_KEYS = {'uuid', 'address', 'node_uuid', 'extra', 'created_at',
             'updated_at', 'internal_info', 'local_link_connection',
             'pxe_enabled', 'portgroup_uuid', 'physical_network',
             'is_smartnic', 'name', 'description', 'vendor', 'category',
             'available_for_dynamic_portgroup', 'links'}

pytestmark = pytest.mark.usefixtures('api_conductor')


def provision(node_uuid, *targets):
    for target in targets:
        resp = call('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                    {'target': target})
        assert resp.status_int == 202, resp.text


# -- POST --------------------------------------------------------------------

def test_create_answers_the_whole_port(database):
    n = node()
    resp = call('POST', '/v1/ports', {
        'node_uuid': n['uuid'], 'address': 'AA:BB:CC:DD:EE:FF',
        'extra': {'a': 1}, 'pxe_enabled': 'false',
        'local_link_connection': {'switch_id': '0a:1b:2c:3d:4e:5f',
                                  'port_id': 'Gig0/1'},
        'physical_network': 'physnet1', 'name': 'eth0',
        'description': 'first nic', 'vendor': 'acme', 'category': 'fast'})
    assert resp.status_int == 201, resp.text
    doc = resp.json
    assert set(doc) == FULL_KEYS
    assert doc['address'] == 'aa:bb:cc:dd:ee:ff'
    assert doc['node_uuid'] == n['uuid']
    assert doc['pxe_enabled'] is False and doc['is_smartnic'] is False
    assert doc['portgroup_uuid'] is None and doc['internal_info'] == {}
    assert doc['extra'] == {'a': 1} and doc['updated_at'] is None
    assert doc['created_at'].endswith('+00:00')
    assert resp.headers['Location'] == ('http://localhost/v1/ports/%s'
                                        % doc['uuid'])
    assert doc['links'] == [
        {'href': 'http://localhost/v1/ports/' + doc['uuid'], 'rel': 'self'},
        {'href': 'http://localhost/ports/' + doc['uuid'],
         'rel': 'bookmark'}]
    assert call('GET', '/v1/ports/' + doc['uuid']).json == doc
    assert call('GET', '/v1/ports/eth0').json == doc


def test_create_defaults_and_uuid(database):
    n = node()
    port_uuid = str(uuid.uuid4())
    doc = port(n['uuid'], mac(1), uuid=port_uuid)
    assert doc['uuid'] == port_uuid
    assert doc['pxe_enabled'] is True
    assert doc['local_link_connection'] == {} and doc['name'] is None


@pytest.mark.parametrize('version, keys', [
    ('1.1', {'uuid', 'address', 'node_uuid', 'extra', 'created_at',
             'updated_at', 'links'}),
    ('1.18', {'internal_info'}),
    ('1.19', {'local_link_connection', 'pxe_enabled'}),
    ('1.24', {'portgroup_uuid'}),
    ('1.34', {'physical_network'}),
    ('1.53', {'is_smartnic'}),
    ('1.88', {'name'}),
    ('1.97', {'description'}),
    ('1.100', {'vendor'}),
    ('1.101', {'category'}),
])
def test_fields_appear_at_their_version(database, version, keys):
    n = node()
    doc = port(n['uuid'], mac(2))
    shown = set(call('GET', '/v1/ports/' + doc['uuid'],
                     version=version).json)
    assert keys <= shown
    older = set(call('GET', '/v1/ports/' + doc['uuid'],
                     version='1.%d' % (int(version.split('.')[1]) - 1)
                     ).json) if version != '1.1' else set()
    assert not (keys & older)


@pytest.mark.parametrize('field, value, version', [
    ('pxe_enabled', True, '1.18'),
    ('local_link_connection', {'switch_id': 'a', 'port_id': 'b'}, '1.18'),
    ('physical_network', 'p', '1.33'),
    ('is_smartnic', False, '1.52'),
    ('name', 'n', '1.87'),
    ('description', 'd', '1.96'),
    ('vendor', 'v', '1.99'),
    ('category', 'c', '1.100'),
])
def test_create_with_a_field_too_new_is_406(database, field, value,
                                            version):
    n = node()
    resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                      'address': mac(3), field: value},
                version=version)
    assert resp.status_int == 406, resp.text


# Ironic 39's words, each checked against it.
@pytest.mark.parametrize('body, text', [
    ({'address': 'zz:bb:cc:dd:ee:ff'},
     'Expected valid MAC address for address: zz:bb:cc:dd:ee:ff'),
    ({'address': 'aa:bb:cc:dd:ee'},
     'Expected valid MAC address for address: aa:bb:cc:dd:ee'),
    ({'address': None},
     "Schema error for port: None is not of type 'string'"),
    ({'node_uuid': 'not-a-uuid'},
     'Expected UUID for node_uuid: not-a-uuid'),
    ({'portgroup_uuid': 'x'}, 'Expected UUID for portgroup_uuid: x'),
    ({'uuid': 'x'}, 'Expected UUID for uuid: x'),
    ({'pxe_enabled': 'maybe'},
     "Invalid pxe_enabled: Unrecognized value 'maybe', acceptable values "
     "are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', "
     "'y', 'yes'"),
    ({'vendor': 'v' * 33},
     "Schema error for port: '%s' is too long" % ('v' * 33)),
    ({'available_for_dynamic_portgroup': 'false'},
     "Schema error for port: 'false' is not of type 'boolean'"),
    ({'physical_network': ''},
     'A non-empty value is required when setting physical_network'),
    ({'name': 'bad name'}, "Cannot create port with invalid name 'bad "
                           "name'"),
    # (Ironic takes a Smart NIC port without a link at all.)
    ({'is_smartnic': True, 'local_link_connection': {}},
     'Smart NIC port must have port_id and hostname in '
     'local_link_connection'),
    ({'local_link_connection': {'port_id': 'p'}},
     "Schema error for local_link_connection: {'port_id': 'p'} is not "
     "valid under any of the given schemas. Possible root cause: "
     "'switch_id' is a required property"),
    ({'local_link_connection': {'port_id': 'p', 'switch_id': 's'}},
     'Expected a MAC address or OpenFlow datapath ID but received s.'),
    ({'local_link_connection': 'x'},
     "Schema error for port: 'x' is not of type 'null', 'object'"),
])
def test_create_refuses_bad_values(database, body, text):
    n = node()
    full = {'node_uuid': n['uuid'], 'address': mac(4)}
    full.update(body)
    assert error(call('POST', '/v1/ports', full), 400) == text


def test_create_refuses_unknown_and_internal_attributes(database):
    n = node()
    for extra in ({'foo': 1}, {'internal_info': {}}, {'extra': []}):
        body = dict({'node_uuid': n['uuid'], 'address': mac(5)}, **extra)
        assert error(call('POST', '/v1/ports', body), 400).startswith(
            'Schema error for port')


def test_create_on_an_unknown_node_is_400(database):
    missing = str(uuid.uuid4())
    resp = call('POST', '/v1/ports', {'node_uuid': missing,
                                      'address': mac(6)})
    assert error(resp, 400) == 'Node %s could not be found.' % missing
    assert fault(resp)['faultcode'] == 'Client'


def test_create_in_an_unknown_portgroup_is_400(database):
    n = node()
    missing = str(uuid.uuid4())
    resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                      'address': mac(7),
                                      'portgroup_uuid': missing})
    assert error(resp, 400) == 'Portgroup %s could not be found.' % missing


def test_duplicate_mac_uuid_and_name_are_409(database):
    n = node()
    first = port(n['uuid'], mac(8), name='p8')
    resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                      'address': mac(8).upper()})
    assert error(resp, 409) == ('A port with MAC address %s already '
                                'exists.' % mac(8))
    resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                      'address': mac(9),
                                      'uuid': first['uuid']})
    assert error(resp, 409) == ('A port with UUID %s already exists.'
                                % first['uuid'])
    resp = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                      'address': mac(9), 'name': 'p8'})
    assert error(resp, 409) == 'A port with name p8 already exists.'
    assert len(call('GET', '/v1/ports').json['ports']) == 1


def test_concurrent_creations_of_one_mac_make_one_port(database):
    nodes = [node()['uuid'] for _ in range(2)]
    start = threading.Barrier(2)
    statuses = []

    def create(node_uuid):
        start.wait()
        resp = call('POST', '/v1/ports', {'node_uuid': node_uuid,
                                          'address': mac(10)})
        statuses.append((resp.status_int, resp.text))

    threads = [threading.Thread(target=create, args=(n,)) for n in nodes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = sorted(status for status, _text in statuses)
    assert codes == [201, 409], statuses
    text = [t for s, t in statuses if s == 409][0]
    assert 'A port with MAC address %s already exists.' % mac(10) in text
    assert len(call('GET', '/v1/ports?address=%s' % mac(10)
                    ).json['ports']) == 1


# -- GET one -----------------------------------------------------------------

def test_show_unknown_port_is_404(database):
    missing = str(uuid.uuid4())
    resp = call('GET', '/v1/ports/' + missing)
    assert error(resp, 404) == 'Port %s could not be found.' % missing
    assert fault(resp)['faultcode'] == 'Client'
    assert error(call('GET', '/v1/ports/nope'), 404) == \
        'Port nope could not be found.'
    # Ironic looks a port up by name below 1.88 too.
    assert error(call('GET', '/v1/ports/nope', version='1.87'), 404) == \
        'Port nope could not be found.'
    named = port(node()['uuid'], mac(12), name='named')
    resp = call('GET', '/v1/ports/named', version='1.87')
    assert resp.status_int == 200 and resp.json['uuid'] == named['uuid']
    assert 'name' not in resp.json


def test_show_fields(database):
    n = node()
    doc = port(n['uuid'], mac(11))
    resp = call('GET', '/v1/ports/%s?fields=address,pxe_enabled'
                % doc['uuid'])
    assert resp.json == {'address': mac(11), 'pxe_enabled': True,
                         'links': doc['links']}
    assert call('GET', '/v1/ports/%s?fields=address' % doc['uuid'],
                version='1.7').status_int == 406
    assert call('GET', '/v1/ports/%s?fields=name' % doc['uuid'],
                version='1.87').status_int == 406
    assert error(call('GET', '/v1/ports/%s?fields=bogus' % doc['uuid']),
                 400) == 'Field(s) "bogus" are not valid'
    assert error(call('GET', '/v1/ports/%s?foo=1' % doc['uuid']),
                 400) == 'Unexpected arguments: foo'


# -- lists -------------------------------------------------------------------

def test_list_default_detail_and_fields(database):
    n = node()
    doc = port(n['uuid'], mac(12))
    listed = call('GET', '/v1/ports').json
    assert listed == {'ports': [{'uuid': doc['uuid'], 'address': mac(12),
                                 'links': doc['links']}]}
    assert call('GET', '/v1/ports/detail').json == {'ports': [doc]}
    assert call('GET', '/v1/ports?detail=true').json == {'ports': [doc]}
    assert call('GET', '/v1/ports?fields=node_uuid').json['ports'] == [
        {'node_uuid': n['uuid'], 'links': doc['links']}]
    assert call('GET', '/v1/ports?detail=true',
                version='1.42').status_int == 406
    assert error(call('GET', '/v1/ports?detail=true&fields=uuid'), 400) == (
        'Can not specify ?detail=True and fields in the same request.')
    assert error(call('GET', '/v1/ports/detail?fields=uuid'), 400) == (
        'Unexpected arguments: fields')
    assert error(call('GET', '/v1/ports?bogus=1'), 400) == (
        'Unexpected arguments: bogus')


def test_list_filters(database):
    a, b = node(name='node-a'), node()
    pa = port(a['uuid'], mac(13))
    pb = port(b['uuid'], mac(14))

    assert listed('') == [pa['uuid'], pb['uuid']]
    assert listed('?node=node-a') == [pa['uuid']]
    assert listed('?node=%s' % b['uuid']) == [pb['uuid']]
    assert listed('?node_uuid=%s' % b['uuid']) == [pb['uuid']]
    assert listed('?address=%s' % mac(14).upper()) == [pb['uuid']]
    assert listed('?address=%s' % mac(99)) == []
    assert listed('?node=node-a&address=%s' % mac(14)) == []
    assert error(call('GET', '/v1/ports?address=bogus'), 400) == (
        'Expected a MAC address but received bogus.')
    assert error(call('GET', '/v1/ports?node_uuid=bogus'), 400) == (
        'Expected a UUID but received bogus.')
    assert error(call('GET', '/v1/ports?node=nowhere'), 404) == (
        'Node nowhere could not be found.')
    assert call('GET', '/v1/ports?node=node-a',
                version='1.4').status_int == 406
    assert call('GET', '/v1/ports?portgroup=%s' % uuid.uuid4(),
                version='1.23').status_int == 406


def listed(query, version='latest'):
    """The UUIDs of the ports ``GET /v1/ports<query>`` lists."""
    resp = call('GET', '/v1/ports' + query, version=version)
    assert resp.status_int == 200, resp.text
    return [p['uuid'] for p in resp.json['ports']]


def test_list_by_conductor_groups(database):
    a = node(conductor_group='Rack-A')
    b = node(conductor_group='rack-b')
    c = node()
    made = [port(n['uuid'], mac(17 + i))['uuid']
            for i, n in enumerate((a, b, c))]

    assert listed('?conductor_groups=rack-a') == made[:1]
    assert listed('?conductor_groups=RACK-A,rack-b') == made[:2]
    assert listed('?conductor_groups=rack-a&conductor_groups=rack-b') == \
        made[:2]
    assert listed('?conductor_groups=none') == []
    # Ironic takes the filter below 1.99 too; an empty one filters
    # nothing.
    assert listed('?conductor_groups=rack-a', version='1.1') == made[:1]
    assert listed('?conductor_groups=') == made


def test_list_by_shard(database):
    nodes = [node(shard='s1'), node(shard='s2'), node()]
    made = [port(n['uuid'], mac(40 + i))['uuid']
            for i, n in enumerate(nodes)]

    assert listed('?shard=s1') == made[:1]
    assert listed('?shard=s1,s2') == made[:2]
    assert listed('?shard=s2&shard=s1') == made[:2]
    assert listed('?shard=none') == []
    assert call('GET', '/v1/ports?shard=s1',
                version='1.81').status_int == 406


def test_list_by_portgroup(database):
    n = node()
    pg = call('POST', '/v1/portgroups', {'node_uuid': n['uuid'],
                                         'name': 'bond0'}).json
    member = port(n['uuid'], mac(15), portgroup_uuid=pg['uuid'])
    port(n['uuid'], mac(16))
    listed = call('GET', '/v1/ports?portgroup=bond0').json['ports']
    assert [p['uuid'] for p in listed] == [member['uuid']]
    assert member['portgroup_uuid'] == pg['uuid']
    resp = call('GET', '/v1/ports?portgroup=bond0&node=%s' % n['uuid'])
    assert error(resp, 403) == 'Operation not permitted.'


def test_paging_and_sorting(database):
    n = node()
    made = [port(n['uuid'], mac(20 + i))['uuid'] for i in range(5)]
    resp = call('GET', '/v1/ports?limit=2')
    page = resp.json
    assert [p['uuid'] for p in page['ports']] == made[:2]
    assert 'marker=%s' % made[1] in page['next']
    assert 'limit=2' in page['next']
    rest = call('GET', page['next'].replace('http://localhost', '')).json
    assert [p['uuid'] for p in rest['ports']] == made[2:4]
    desc = call('GET', '/v1/ports?sort_key=address&sort_dir=desc').json
    assert [p['uuid'] for p in desc['ports']] == made[::-1]
    assert error(call('GET', '/v1/ports?sort_key=extra'), 400) == (
        'The sort_key value "extra" is an invalid field for sorting')
    assert error(call('GET', '/v1/ports?sort_key=bogus'), 400) == (
        'The sort_key value "bogus" is an invalid field for sorting')
    assert error(call('GET', '/v1/ports?sort_dir=up'), 400).startswith(
        'Invalid sort direction: up.')
    assert call('GET', '/v1/ports?sort_key=name',
                version='1.87').status_int == 406
    assert error(call('GET', '/v1/ports?limit=-1'), 400) == (
        'Limit must be positive')
    assert error(call('GET', '/v1/ports?marker=x'), 400) == (
        'Expected a UUID but received x.')
    missing = str(uuid.uuid4())
    assert error(call('GET', '/v1/ports?marker=' + missing), 404) == (
        'Port %s could not be found.' % missing)


# -- the node forms ----------------------------------------------------------

def test_ports_of_a_node(database):
    a, b = node(name='node-a'), node()
    pa = port(a['uuid'], mac(30))
    port(b['uuid'], mac(31))
    listed = call('GET', '/v1/nodes/node-a/ports').json
    assert [p['uuid'] for p in listed['ports']] == [pa['uuid']]
    assert set(listed['ports'][0]) == {'uuid', 'address', 'links'}
    detail = call('GET', '/v1/nodes/%s/ports/detail' % a['uuid']).json
    assert detail['ports'][0] == call('GET', '/v1/ports/' + pa['uuid']).json
    page = call('GET', '/v1/nodes/node-a/ports?limit=1').json
    assert page['next'].startswith('http://localhost/v1/nodes/node-a/ports?')
    missing = str(uuid.uuid4())
    assert error(call('GET', '/v1/nodes/%s/ports' % missing), 404) == (
        'Node %s could not be found.' % missing)
    for method, path, body in (
            ('POST', '/v1/nodes/node-a/ports', {'address': mac(32)}),
            ('GET', '/v1/nodes/node-a/ports/' + pa['uuid'], None),
            ('DELETE', '/v1/nodes/node-a/ports/' + pa['uuid'], None),
            ('PATCH', '/v1/nodes/node-a/ports/' + pa['uuid'], [])):
        assert error(call(method, path, body), 403) == \
            'Operation not permitted.'


# -- PATCH -------------------------------------------------------------------

def test_patch_changes_fields(database):
    n = node()
    doc = port(n['uuid'], mac(40))
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], [
        {'op': 'replace', 'path': '/address', 'value': 'AA:00:00:00:00:01'},
        {'op': 'add', 'path': '/extra/x', 'value': 'y'},
        {'op': 'replace', 'path': '/pxe_enabled', 'value': False},
        {'op': 'add', 'path': '/name', 'value': 'renamed'}])
    assert resp.status_int == 200, resp.text
    patched = resp.json
    assert patched['address'] == 'aa:00:00:00:00:01'
    assert patched['extra'] == {'x': 'y'}
    assert patched['pxe_enabled'] is False and patched['name'] == 'renamed'
    assert patched['updated_at'] is not None
    assert call('GET', '/v1/ports/renamed').json == patched
    resp = call('PATCH', '/v1/ports/renamed', [
        {'op': 'remove', 'path': '/pxe_enabled'},
        {'op': 'remove', 'path': '/extra'}])
    assert resp.json['pxe_enabled'] is True and resp.json['extra'] == {}


_PATCHABLE = ('address, extra, is_smartnic, local_link_connection, '
              'node_ident, node_uuid, physical_network, portgroup_uuid, '
              'pxe_enabled, name, description, vendor, category, '
              'available_for_dynamic_portgroup')


# Ironic 39's words, each checked against it.
@pytest.mark.parametrize('patch, status, text', [
    ([{'op': 'replace', 'path': '/uuid',
       'value': 'c6d2a1c4-2f8e-4f53-9d3b-6a1e2b7c9d10'}], 400,
     'Cannot patch /uuid. Only the following can be updated: '
     + _PATCHABLE),
    ([{'op': 'add', 'path': '/internal_info/a', 'value': 1}], 400,
     'Cannot patch /internal_info/a. Only the following can be updated: '
     + _PATCHABLE),
    ([{'op': 'remove', 'path': '/address'}], 400,
     "Schema error for patch: 'address' is a required property"),
    ([{'op': 'add', 'path': '/foo', 'value': 1}], 400,
     'Cannot patch /foo. Only the following can be updated: '
     + _PATCHABLE),
    ([{'op': 'replace', 'path': '/address', 'value': 'bogus'}], 400,
     'Expected valid MAC address for address: bogus'),
    ([{'op': 'replace', 'path': '/pxe_enabled', 'value': 'maybe'}], 400,
     "Invalid pxe_enabled: Unrecognized value 'maybe', acceptable values "
     "are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', "
     "'y', 'yes'"),
    ([{'op': 'replace', 'path': '/physical_network', 'value': ''}], 400,
     'A non-empty value is required when setting physical_network'),
    ([{'op': 'replace', 'path': '/available_for_dynamic_portgroup',
       'value': None}], 400,
     "Schema error for patch: None is not of type 'boolean'"),
    ([{'op': 'replace', 'path': '/node_uuid',
       'value': '11111111-2222-3333-4444-555555555555'}], 400,
     'Node 11111111-2222-3333-4444-555555555555 could not be found.'),
    ([{'op': 'remove', 'path': '/extra/nothing'}], 400, None),
    ([{'op': 'move', 'path': '/extra'}], 400,
     "Schema error for patch: 'move' is not one of ['add', 'replace', "
     "'remove']"),
    ([5], 400, "Schema error for patch: 5 is not of type 'object'"),
    ([{'op': 'replace', 'path': 'name', 'value': 1}], 400,
     "Schema error for patch: 'name' does not match '^(/[\\\\w-]+)+$'"),
    ([{'op': 'add', 'path': '/name', 'value': 'a b'}], 400,
     "Port %s: Cannot change name to invalid name 'a b'"),
    ('not a list', 400,
     "Schema error for patch: 'not a list' is not of type 'array'"),
])
def test_patch_refuses(database, patch, status, text):
    n = node()
    doc = port(n['uuid'], mac(41))
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], patch)
    got = error(resp, status)
    if text is not None:
        assert got == text.replace('%s', doc['uuid'])


def test_patch_gates_fields_by_version(database):
    n = node()
    doc = port(n['uuid'], mac(42))
    # Ironic gates only a port's network fields in a PATCH: a name is
    # set below 1.88 (and not shown).
    resp = call('PATCH', '/v1/ports/' + doc['uuid'],
                [{'op': 'add', 'path': '/name', 'value': 'x'}],
                version='1.87')
    assert resp.status_int == 200 and 'name' not in resp.json
    assert call('GET', '/v1/ports/x').json['uuid'] == doc['uuid']
    resp = call('PATCH', '/v1/ports/' + doc['uuid'],
                [{'op': 'replace', 'path': '/pxe_enabled', 'value': False}],
                version='1.18')
    assert resp.status_int == 406


def test_patch_duplicate_mac_is_409(database):
    n = node()
    port(n['uuid'], mac(43))
    doc = port(n['uuid'], mac(44))
    resp = call('PATCH', '/v1/ports/' + doc['uuid'],
                [{'op': 'replace', 'path': '/address', 'value': mac(43)}])
    assert error(resp, 409) == ('A port with MAC address %s already '
                                'exists.' % mac(43))


def test_address_of_an_active_node_changes_only_in_maintenance(database):
    n = node()
    doc = port(n['uuid'], mac(45))
    provision(n['uuid'], 'manage', 'provide', 'active')
    patch = [{'op': 'replace', 'path': '/address', 'value': mac(46)}]
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], patch)
    assert error(resp, 409) == (
        'Cannot update hardware address for port %s as node %s is active '
        'or has instance UUID assigned' % (doc['uuid'], n['uuid']))
    assert call('PUT', '/v1/nodes/%s/maintenance' % n['uuid'],
                {'reason': 'nic swap'}).status_int == 202
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], patch)
    assert resp.status_int == 200 and resp.json['address'] == mac(46)


def test_connectivity_changes_only_where_ironic_allows(database):
    n = node()
    doc = port(n['uuid'], mac(47))
    provision(n['uuid'], 'manage', 'provide')
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], [
        {'op': 'replace', 'path': '/physical_network', 'value': 'p2'}])
    assert error(resp, 409) == (
        'Port %s can not have any connectivity attributes (portgroup_id, '
        'pxe_enabled, local_link_connection, physical_network) updated '
        'unless node %s is in a enroll, inspecting, inspect wait, '
        'manageable state or in maintenance mode. The current state is '
        'available.' % (doc['uuid'], n['uuid']))
    # extra is not connectivity.
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], [
        {'op': 'add', 'path': '/extra/a', 'value': 1}])
    assert resp.status_int == 200
    provision(n['uuid'], 'manage')
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], [
        {'op': 'replace', 'path': '/physical_network', 'value': 'p2'}])
    assert resp.status_int == 200 and resp.json['physical_network'] == 'p2'


def test_move_a_port_to_another_node(database):
    a, b = node(), node()
    doc = port(a['uuid'], mac(48))
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], [
        {'op': 'replace', 'path': '/node_uuid', 'value': b['uuid']}])
    assert resp.status_int == 200 and resp.json['node_uuid'] == b['uuid']
    assert call('GET', '/v1/nodes/%s/ports' % a['uuid']).json == \
        {'ports': []}


# -- DELETE ------------------------------------------------------------------

def test_delete(database):
    n = node()
    doc = port(n['uuid'], mac(50))
    assert call('DELETE', '/v1/ports/' + doc['uuid']).status_int == 204
    assert call('GET', '/v1/ports/' + doc['uuid']).status_int == 404
    assert call('DELETE', '/v1/ports/' + doc['uuid']).status_int == 404
    # By name too (Ironic 39: 400 "Expected UUID for port_uuid: named",
    # which ``openstack baremetal port delete <name>`` meets).
    named = port(n['uuid'], mac(51), name='named')
    assert call('DELETE', '/v1/ports/named').status_int == 204
    assert call('GET', '/v1/ports/' + named['uuid']).status_int == 404


def test_deleting_a_node_deletes_its_ports(database):
    n, other = node(), node()
    doc = port(n['uuid'], mac(51))
    kept = port(other['uuid'], mac(52))
    call('POST', '/v1/portgroups', {'node_uuid': n['uuid'], 'name': 'pg'})
    assert call('DELETE', '/v1/nodes/' + n['uuid']).status_int == 204
    assert call('GET', '/v1/ports/' + doc['uuid']).status_int == 404
    assert call('GET', '/v1/portgroups/pg').status_int == 404
    assert [p['uuid'] for p in call('GET', '/v1/ports').json['ports']] == \
        [kept['uuid']]
    # The MAC is free again.
    port(other['uuid'], mac(51))


# -- routing and hostile input -----------------------------------------------

def test_v1_links_ports_and_portgroups(database):
    doc = call('GET', '/v1').json
    assert doc['ports'][0]['href'] == 'http://localhost/v1/ports/'
    assert doc['portgroups'][0]['href'] == 'http://localhost/v1/portgroups/'
    assert 'portgroups' not in call('GET', '/v1', version='1.22').json


def test_methods_not_allowed(database):
    resp = call('PUT', '/v1/ports')
    assert resp.status_int == 405 and resp.headers['Allow'] == 'GET, POST'
    resp = call('POST', '/v1/ports/%s' % uuid.uuid4())
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'DELETE, GET, PATCH'
    assert call('GET', '/v1/ports/%s/x' % uuid.uuid4()).status_int == 404
    # Ironic 39: 400 "Missing mandatory parameter: port_uuid" and a 500
    # for port groups (doc/source/deviations.rst).
    for path in ('/v1/ports', '/v1/portgroups'):
        for method in ('PATCH', 'DELETE'):
            resp = call(method, path, [] if method == 'PATCH' else None)
            assert resp.status_int == 405
            assert resp.headers['Allow'] == 'GET, POST'


@pytest.mark.parametrize('raw', [
    b'', b'{', b'[]', b'null', b'"x"', b'{"address": 5}',
    b'{"node_uuid": 5, "address": "aa:bb:cc:dd:ee:ff"}',
    b'{"address": "aa:bb:cc:dd:ee:ff", "node_uuid": "\\u0000"}',
    b'{"extra": {"a": "\\u0000"}}',
])
def test_no_server_error_for_bad_bodies(database, raw):
    resp = call('POST', '/v1/ports', raw=raw)
    assert 400 <= resp.status_int < 500, resp.text
    n = node()
    doc = port(n['uuid'], mac(60))
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], raw=raw)
    # An empty patch changes nothing (200, as Ironic).
    expected = (200,) if raw == b'[]' else range(400, 500)
    assert resp.status_int in expected, resp.text


@pytest.mark.parametrize('patch', [
    [{'op': 'add', 'path': '/address/x', 'value': 1}],
    [{'op': 'add', 'path': '/extra/a/b', 'value': 1}],
    [{'op': 'replace', 'path': '/pxe_enabled', 'value': 'maybe'}],
    [{'op': 'replace', 'path': '/pxe_enabled', 'value': [1]}],
    [{'op': 'replace', 'path': '/local_link_connection', 'value': 'x'}],
    [{'op': 'replace', 'path': '/local_link_connection',
      'value': {'bogus': 'x'}}],
    [{'op': 'replace', 'path': '/local_link_connection',
      'value': {'switch_id': 'a'}}],
    [{'op': 'replace', 'path': '/portgroup_uuid', 'value': 'x'}],
    [{'op': 'replace', 'path': '/portgroup_uuid',
      'value': '11111111-2222-3333-4444-555555555555'}],
    [{'op': 'replace', 'path': '/physical_network', 'value': 'x' * 65}],
    [{'op': 'replace', 'path': '/name', 'value': 5}],
    [{'op': 'add', 'path': '/', 'value': 1}],
    [{'op': 'add', 'path': '', 'value': 1}],
    [{'op': 'replace'}],
    [{'op': 'replace', 'path': '/name'}],
    [{'op': 'replace', 'path': 5, 'value': 1}],
    [5],
])
def test_no_server_error_for_bad_patches(database, patch):
    n = node()
    doc = port(n['uuid'], mac(61))
    resp = call('PATCH', '/v1/ports/' + doc['uuid'], patch)
    assert 400 <= resp.status_int < 500, resp.text
    assert call('GET', '/v1/ports/' + doc['uuid']).json == doc


@pytest.mark.parametrize('query', [
    '?limit=abc', '?limit=', '?node=%00', '?node=a%20b', '?fields=,,,',
    '?fields=uuid,uuid', '?address=', '?address=%00', '?sort_key=',
    '?detail=maybe', '?portgroup=a%20b', '?marker=%00', '?node_uuid=',
    '?sort_key=name&sort_dir=desc&limit=1'
    '&marker=dbad5737-ae85-4adf-aee9-9bad9ea6c5fe',
])
def test_no_server_error_for_bad_queries(database, query):
    resp = call('GET', '/v1/ports' + query)
    assert resp.status_int < 500, resp.text


def test_json_suffix_until_1_91(database):
    n = node()
    doc = port(n['uuid'], mac(62), name='nic')
    assert call('GET', '/v1/ports/%s.json' % doc['uuid'],
                version='1.90').json['uuid'] == doc['uuid']
    assert call('GET', '/v1/ports/nic.json',
                version='1.90').json['uuid'] == doc['uuid']
    assert call('GET', '/v1/ports/nic.json').status_int == 404


def test_json_suffix_of_a_port_group_before_its_ports(database):
    # Ironic 39 strips '.json' only from the last segment of a path (404
    # here); allocsvc strips it from a port group's ident wherever it
    # stands, up to 1.90 (see the deviations document).
    n = node()
    pg = call('POST', '/v1/portgroups', {'node_uuid': n['uuid'],
                                         'name': 'pgj'}).json
    doc = port(n['uuid'], mac(63), portgroup_uuid=pg['uuid'])
    resp = call('GET', '/v1/portgroups/%s.json/ports' % pg['uuid'],
                version='1.90')
    assert resp.status_int == 200, resp.text
    assert [p['uuid'] for p in resp.json['ports']] == [doc['uuid']]
    assert call('GET', '/v1/portgroups/%s.json/ports' % pg['uuid'],
                version='1.91').status_int == 404


def test_a_port_document_lists_its_members_by_name(database):
    # The order WSME rendered them in, which the handlers keep.
    n = node()
    created = call('POST', '/v1/ports', {'node_uuid': n['uuid'],
                                         'address': mac(7)})
    assert created.status_int == 201, created.text
    for doc in (created.json,
                call('GET', '/v1/ports/' + created.json['uuid']).json,
                call('GET', '/v1/ports/detail').json['ports'][0],
                call('GET', '/v1/ports?fields=uuid,address,extra'
                     ).json['ports'][0]):
        assert list(doc) == sorted(doc)


# What a list answers to a query it refuses: (path and query, status,
# message), for the lists of ports and port groups alike unless a path
# says otherwise.
LIST_REFUSALS = [
    ('?limit=abc', 400, 'Invalid value for limit: "abc" is not an integer'),
    ('?limit=1.5', 400, 'Invalid value for limit: "1.5" is not an integer'),
    ('?limit=-1', 400, 'Limit must be positive'),
    ('?limit=1&limit=2', 400, "Expected an integer for limit: ['1', '2']"),
    ('?detail=maybe', 400,
     'Invalid value for detail: "maybe" is not a boolean'),
    ('?detail=', 400, 'Invalid value for detail: "" is not a boolean'),
    ('?detail=1&detail=0', 400,
     "Invalid detail: Unrecognized value '['1', '0']', acceptable values "
     "are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', "
     "'y', 'yes'"),
    ('?detail=True&fields=uuid', 400,
     'Can not specify ?detail=True and fields in the same request.'),
    ('?fields=UUID', 400, 'Field(s) "UUID" are not valid'),
    ('?fields=a%00b', 400,
     'Invalid value for fields: it contains a NUL character.'),
    ('?sort_key=bogus', 400,
     'The sort_key value "bogus" is an invalid field for sorting'),
    ('?sort_key=extra', 400,
     'The sort_key value "extra" is an invalid field for sorting'),
    ('?sort_dir=up', 400,
     "Invalid sort direction: up. Acceptable values are 'asc' or 'desc'"),
    ('?marker=notuuid', 400, 'Expected a UUID but received notuuid.'),
    ('?marker=', 400, 'Expected a UUID but received .'),
    ('?address=bad', 400, 'Expected a MAC address but received bad.'),
    ('?foo=bar&body=x', 400, 'Unexpected arguments: body, foo'),
    ('/detail?detail=True&fields=uuid', 400,
     'Unexpected arguments: detail, fields'),
]
PORT_LIST_REFUSALS = [
    ('/v1/ports?node=bogus!', 400,
     'Expected a logical name or UUID but received bogus!.'),
    ('/v1/portgroups?node=bogus!', 400,
     'Expected a logical name or UUID but received bogus!.'),
    # Under a node, the path's node is the filter.
    ('/v1/nodes/n1/ports?node=bogus!', 200, None),
    ('/v1/ports?sort_dir=asc&sort_dir=desc', 400,
     "Expected string for sort_dir: ['asc', 'desc']"),
    ('/v1/portgroups?sort_dir=asc&sort_dir=desc', 400,
     "Schema error: ['asc', 'desc'] is not of type 'string'"),
    ('/v1/ports?node_uuid=n1', 400, 'Expected a UUID but received n1.'),
    ('/v1/portgroups?node_uuid=n1', 400, 'Unexpected arguments: node_uuid'),
    ('/v1/ports?node=n1&portgroup=pg1', 403, 'Operation not permitted.'),
    ('/v1/nodes/n1/ports?portgroup=pg1', 403, 'Operation not permitted.'),
    ('/v1/ports?conductor_groups=a&node=n1', 400,
     'Filtering by conductor_groups cannot be combined with node_ident, '
     'portgroup_ident, or node address filters.'),
    ('/v1/portgroups?node=n1&address=52:54:00:00:00:01', 400,
     'Filtering by node, address, or shard simultaneously is not '
     'supported.'),
    ('/v1/portgroups?description_contains=x', 400,
     'Unexpected arguments: description_contains'),
]


def test_what_lists_refuse(database):
    n = node(name='n1')
    assert call('POST', '/v1/portgroups', {'node_uuid': n['uuid'],
                                           'name': 'pg1'}).status_int == 201
    cases = PORT_LIST_REFUSALS + [
        (base + query, status, text) for base in (
            '/v1/ports', '/v1/portgroups', '/v1/nodes/n1/ports',
            '/v1/portgroups/pg1/ports')
        for query, status, text in LIST_REFUSALS]
    for path, status, text in cases:
        resp = call('GET', path)
        assert resp.status_int == status, (path, resp.text)
        if text is not None:
            assert message(resp) == text, path
