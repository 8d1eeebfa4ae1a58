"""``/v1/nodes``: create, show, list, update and delete nodes as an Ironic
client does, on every database backend.

Scenarios:
* POST: the 201 document and Location; the initial state per version
  (available before 1.11, shown as null before 1.2); every field's
  version gate (406) and validation (400, Ironic's messages); unknown
  drivers; 409 on a duplicate name or UUID.
* GET one: by UUID and name; the ``.json`` suffix rule; ``fields``
  (406 before 1.8 and for a field newer than the version, 400 unknown);
  each field appears at its version; secrets are masked.
* GET list and ``/detail``: default fields, ``detail``, ``fields``
  (``allocation_uuid`` too, which 500s upstream), every filter and its
  version gate, paging with ``next`` links that keep the filters,
  sorting and its errors.
* PATCH: what may change, version gates, names, JSON patch errors.
* DELETE: the states and instance rules.
* Routing: ``/v1`` links nodes; 404 and 405 with ``Allow``.

The state, trait and allocation sub-resources are in
``test_v1_nodes_states`` and ``test_v1_nodes_traits``.
"""

import json
import urllib.parse
import uuid

import pytest
import webob

from allocsvc.api.controllers.v1 import node_schema
from allocsvc.common import states
from allocsvc.conductor import mirror
from allocsvc.conductor import rpcapi
from allocsvc.db.baremetal import conductors as db_conductors
from allocsvc.db.baremetal import nodes as db_nodes
from tests import conftest
from tests.functional.ironic_errors import fault
from tests.functional.ironic_errors import message
from tests.helpers import apps
from tests.helpers.v1 import app
from tests.helpers.v1 import available
from tests.helpers.v1 import call
from tests.helpers.v1 import create
from tests.helpers.v1 import ctx
from tests.helpers.v1 import IRONIC
from tests.helpers.v1 import patch

LIST_KEYS = {'uuid', 'name', 'instance_uuid', 'power_state',
             'provision_state', 'maintenance', 'links'}
FULL_KEYS = ({name for name, _since in node_schema.FIELDS} |
             {'links', 'ports', 'states', 'portgroups'})

# Every test here changes nodes through the API, which hands each change
# to a conductor.
pytestmark = pytest.mark.usefixtures('api_conductor')


# -- POST --------------------------------------------------------------------

def test_create_answers_the_whole_node(database):
    resp = call('POST', '/v1/nodes', {
        'driver': 'fake-hardware', 'name': 'node-1',
        'resource_class': 'baremetal', 'properties': {'cpus': 8},
        'extra': {'rack': 'a1'}, 'driver_info': {'ipmi_address': '1.2.3.4'},
        'instance_info': {'image': 'x'}, 'owner': 'p1', 'lessee': 'p2',
        'description': 'the first', 'conductor_group': 'Rack-A',
        'automated_clean': 'false', 'maintenance': True})
    assert resp.status_int == 201
    doc = resp.json
    assert set(doc) == FULL_KEYS
    assert resp.headers['Location'] == ('http://localhost/v1/nodes/%s'
                                        % doc['uuid'])
    assert uuid.UUID(doc['uuid'])
    expected = {
        'name': 'node-1', 'driver': 'fake-hardware',
        'resource_class': 'baremetal', 'properties': {'cpus': 8},
        'extra': {'rack': 'a1'}, 'driver_info': {'ipmi_address': '1.2.3.4'},
        'instance_info': {'image': 'x'}, 'owner': 'p1', 'lessee': 'p2',
        'description': 'the first', 'conductor_group': 'rack-a',
        'automated_clean': False, 'maintenance': True,
        'maintenance_reason': None, 'provision_state': 'enroll',
        'target_provision_state': None, 'power_state': None,
        'target_power_state': None, 'instance_uuid': None,
        'allocation_uuid': None, 'conductor': None, 'reservation': None,
        'last_error': None, 'traits': [], 'updated_at': None}
    assert {k: doc[k] for k in expected} == expected
    assert doc['created_at'].endswith('+00:00')
    # Null until the first provision state change, as in Ironic 39 (also
    # for a node a client older than 1.11 creates available).
    assert doc['provision_updated_at'] is None
    assert create(version='1.10')['provision_updated_at'] is None
    assert doc['links'] == [
        {'href': 'http://localhost/v1/nodes/' + doc['uuid'], 'rel': 'self'},
        {'href': 'http://localhost/nodes/' + doc['uuid'],
         'rel': 'bookmark'}]
    assert doc['states'][0]['href'].endswith('/v1/nodes/%s/states'
                                             % doc['uuid'])
    assert call('GET', '/v1/nodes/node-1').json == doc


def test_create_with_uuid_and_minimal_body(database):
    node_uuid = str(uuid.uuid4())
    doc = create(uuid=node_uuid)
    assert doc['uuid'] == node_uuid
    assert doc['name'] is None and doc['conductor_group'] == ''
    assert doc['maintenance'] is False and doc['properties'] == {}


@pytest.mark.parametrize('version,state,shown', [
    ('1.1', states.AVAILABLE, None),      # NOSTATE before 1.2
    ('1.10', states.AVAILABLE, 'available'),
    ('1.11', states.ENROLL, 'enroll'),
])
def test_initial_state_follows_the_version(database, version, state, shown):
    doc = create(version=version)
    assert doc['provision_state'] == shown
    assert db_nodes.get_by_uuid(ctx(), doc['uuid']).provision_state == state


TOO_NEW_FIELDS = [
    ('name', 'n1', '1.4'),
    ('resource_class', 'rc', '1.20'),
    ('conductor_group', 'g', '1.45'),
    ('automated_clean', True, '1.46'),
    ('owner', 'p', '1.49'),
    ('description', 'd', '1.50'),
    ('lessee', 'p', '1.64'),
]


def test_create_field_newer_than_version_is_406(database):
    for field, value, too_old in TOO_NEW_FIELDS:
        resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                          field: value}, version=too_old)
        assert resp.status_int == 406, (field, resp.text)
        # Their empty value is accepted, as Ironic does.
        empty = '' if field == 'conductor_group' else None
        resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                          field: empty}, version=too_old)
        assert resp.status_int == 201, (field, resp.text)
    assert len(call('GET', '/v1/nodes').json['nodes']) == len(
        TOO_NEW_FIELDS)


CREATE_ERRORS = [
    ({'driver': 'fake-hardware', 'bogus': 1},
     "Schema error for node: Additional properties are not allowed "
     "('bogus' was unexpected)"),
    ({'driver': 'fake-hardware', 'traits': ['CUSTOM_A']},
     "Additional properties are not allowed"),
    ({'driver': 'fake-hardware', 'provision_state': 'active'},
     "Additional properties are not allowed"),
    ({'name': 'x'}, "Schema error for node: 'driver' is a required "
                    "property"),
    ({'driver': 1}, "Schema error for node: 1 is not of type 'string'"),
    ({'driver': 'fake-hardware', 'extra': []}, 'is not of type'),
    ({'driver': 'fake-hardware', 'resource_class': 'x' * 81},
     'is too long'),
    ({'driver': 'fake-hardware', 'description': 'x' * 4097},
     'is too long'),
    ({'driver': 'fake-hardware', 'uuid': 'not-a-uuid'},
     'Expected UUID for uuid: not-a-uuid'),
    ({'driver': 'fake-hardware', 'instance_uuid': 'nope'},
     'Expected UUID for instance_uuid: nope'),
    ({'driver': 'fake-hardware', 'maintenance': 'banana'},
     'Invalid maintenance:'),
    ({'driver': 'fake-hardware', 'conductor_group': 'a b'},
     'Invalid conductor group a b.'),
    ({'driver': 'fake-hardware', 'name': 'has space'},
     "Cannot create node with invalid name 'has space'"),
    ({'driver': 'fake-hardware', 'name': ''},
     "Cannot create node with invalid name ''"),
    ({'driver': 'fake-hardware', 'name': 'detail'},
     'The word "detail" is reserved and can not be used as a node name.'),
    ({'driver': 'ipmi'},
     'No valid host was found. Reason: No conductor service registered '
     'which supports driver ipmi for conductor group "".'),
    ([], "Schema error for node: [] is not of type 'object'"),
]


def test_create_validation(database):
    for body, text in CREATE_ERRORS:
        resp = call('POST', '/v1/nodes', body)
        assert resp.status_int == 400, (body, resp.text)
        assert fault(resp)['faultcode'] == 'Client'
        assert text in message(resp), body
    assert call('GET', '/v1/nodes').json['nodes'] == []


def test_create_unparsable_body_is_400(database):
    for raw in (b'', b'{"driver":', b'\xff'):
        assert call('POST', '/v1/nodes', raw=raw).status_int == 400, raw


def test_create_maintenance_from_string_and_driver_in_group(database):
    doc = create(maintenance='yes', conductor_group='G1')
    assert doc['maintenance'] is True and doc['conductor_group'] == 'g1'
    resp = call('POST', '/v1/nodes', {'driver': 'other',
                                      'conductor_group': 'G1'})
    assert 'for conductor group "g1"' in message(resp)


def test_names_before_1_10_are_host_names(database):
    resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                      'name': 'a_b'}, version='1.9')
    assert resp.status_int == 400
    assert create(version='1.10', name='a_b')['name'] == 'a_b'
    assert create(version='1.9', name='host-1.example')['name']


def test_duplicates_are_409(database):
    doc = create(name='twin')
    resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                      'name': 'twin'})
    assert resp.status_int == 409
    assert message(resp) == 'A node with name twin already exists.'
    resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                      'uuid': doc['uuid']})
    assert resp.status_int == 409
    assert message(resp) == ('A node with UUID %s already exists.'
                             % doc['uuid'])


# -- GET one -----------------------------------------------------------------

def test_show_by_uuid_name_and_suffix(database):
    doc = create(name='shown')
    assert call('GET', '/v1/nodes/shown').json['uuid'] == doc['uuid']
    assert call('GET', '/v1/nodes/' + doc['uuid']).json['name'] == 'shown'
    for ident in ('shown.json', doc['uuid'] + '.json'):
        assert call('GET', '/v1/nodes/' + ident,
                    version='1.90').json['uuid'] == doc['uuid']
        assert call('GET', '/v1/nodes/' + ident,
                    version='1.91').status_int == 404
    # Not found either way: Ironic names the ident as given.
    resp = call('GET', '/v1/nodes/nope.json', version='1.90')
    assert resp.status_int == 404
    assert message(resp) == 'Node nope.json could not be found.'
    # A node really named so is found first.
    named = create(name='shown.json')
    assert call('GET', '/v1/nodes/shown.json',
                version='1.90').json['uuid'] == named['uuid']


def test_show_errors(database):
    missing = str(uuid.uuid4())
    resp = call('GET', '/v1/nodes/' + missing)
    assert resp.status_int == 404
    assert message(resp) == 'Node %s could not be found.' % missing
    assert message(call('GET', '/v1/nodes/nope')) == (
        'Node nope could not be found.')
    resp = call('GET', '/v1/nodes/ba!na!na')
    assert resp.status_int == 400
    assert message(resp) == 'Expected UUID or name for node: ba!na!na'
    create(name='old')
    # Before 1.5 there were no names: not found.
    assert call('GET', '/v1/nodes/old', version='1.4').status_int == 404
    assert call('GET', '/v1/nodes/old?bogus=1').status_int == 400


def test_show_fields(database):
    doc = create(name='f')
    resp = call('GET', '/v1/nodes/f?fields=uuid,extra')
    assert resp.json == {'uuid': doc['uuid'], 'extra': {},
                         'links': doc['links']}
    resp = call('GET', '/v1/nodes/f?fields=allocation_uuid', version='1.52')
    assert resp.json['allocation_uuid'] is None
    assert call('GET', '/v1/nodes/f?fields=allocation_uuid',
                version='1.51').status_int == 406
    assert call('GET', '/v1/nodes/f?fields=uuid',
                version='1.7').status_int == 406
    resp = call('GET', '/v1/nodes/f?fields=uuid,bogus')
    assert resp.status_int == 400
    assert 'bogus' in message(resp)
    assert call('GET', '/v1/nodes/f?fields=links').status_int == 400


def test_each_field_appears_at_its_version(database):
    doc = create(version='1.1')
    for field, since in node_schema.FIELDS:
        if since == (1, 1):
            continue
        before = '1.%d' % (since[1] - 1)
        at = '1.%d' % since[1]
        assert field not in call('GET', '/v1/nodes/' + doc['uuid'],
                                 version=before).json, field
        assert field in call('GET', '/v1/nodes/' + doc['uuid'],
                             version=at).json, field


def test_states_links_from_1_14(database):
    doc = create()
    assert 'states' not in call('GET', '/v1/nodes/' + doc['uuid'],
                                version='1.13').json
    assert 'states' in call('GET', '/v1/nodes/' + doc['uuid'],
                            version='1.14').json


def test_links_to_ports_and_port_groups(database):
    # Ironic's whole node document links to its ports, and from 1.24 to
    # its port groups; a list of chosen fields does not.
    doc = create()
    path = '/v1/nodes/' + doc['uuid']
    shown = call('GET', path, version='1.23').json
    assert shown['ports'] == [
        {'href': 'http://localhost%s/ports' % path, 'rel': 'self'},
        {'href': 'http://localhost/nodes/%s/ports' % doc['uuid'],
         'rel': 'bookmark'}]
    assert 'portgroups' not in shown
    assert call('GET', path, version='1.24').json['portgroups'][0][
        'href'] == 'http://localhost%s/portgroups' % path
    assert 'ports' in call('GET', '/v1/nodes/detail').json['nodes'][0]
    assert 'ports' not in call('GET', '/v1/nodes').json['nodes'][0]
    assert 'ports' not in call('GET', path + '?fields=uuid').json


def test_secrets_are_masked(database):
    doc = create(driver_info={'ipmi_password': 'secret', 'ipmi_username':
                              'admin', 'nested': {'password': 'p'}},
                 instance_info={'image_url': 'http://x/y?temp', 'a': 1})
    assert doc['driver_info'] == {'ipmi_password': '******',
                                  'ipmi_username': 'admin',
                                  'nested': {'password': '******'}}
    assert doc['instance_info'] == {'image_url': '******', 'a': 1}
    stored = db_nodes.get_by_uuid(ctx(), doc['uuid'])
    assert stored.driver_info['ipmi_password'] == 'secret'


# -- GET list ----------------------------------------------------------------

def test_list_default_detail_and_fields(database):
    doc = create(name='l1')
    listed = call('GET', '/v1/nodes').json['nodes']
    assert len(listed) == 1 and set(listed[0]) == LIST_KEYS
    assert listed[0]['uuid'] == doc['uuid']
    detail = call('GET', '/v1/nodes/detail').json['nodes']
    assert detail == [doc]
    assert call('GET', '/v1/nodes?detail=true').json['nodes'] == [doc]
    assert set(call('GET', '/v1/nodes?detail=false').json['nodes'][0]) == \
        LIST_KEYS
    assert call('GET', '/v1/nodes?detail=true',
                version='1.42').status_int == 406
    resp = call('GET', '/v1/nodes?detail=true&fields=uuid')
    assert resp.status_int == 400
    assert message(resp) == ('Can not specify ?detail=True and fields in '
                             'the same request.')
    # Upstream answers this one with a 500.
    resp = call('GET', '/v1/nodes?fields=uuid,allocation_uuid')
    assert resp.json['nodes'] == [{'uuid': doc['uuid'],
                                   'allocation_uuid': None,
                                   'links': doc['links']}]
    assert call('GET', '/v1/nodes?fields=allocation_uuid',
                version='1.51').status_int == 406
    assert call('GET', '/v1/nodes/detail?fields=uuid').status_int == 400
    assert call('GET', '/v1/nodes/detail?detail=true').status_int == 400
    # Before 1.5 the list has no names.
    assert 'name' not in call('GET', '/v1/nodes',
                              version='1.4').json['nodes'][0]


def _uuids(path, version='latest'):
    resp = call('GET', path, version=version)
    assert resp.status_int == 200, resp.text
    return sorted(n['uuid'] for n in resp.json['nodes'])


def test_list_filters(database, monkeypatch, api_conductor):
    # The API reads the live conductors at every request; the shared
    # client forgets the ones of this test (cond-x has no RPC server).
    monkeypatch.setattr(rpcapi, 'ALIVE_CACHE_S', 0)
    monkeypatch.setattr(api_conductor[1], '_alive', None)
    api_host = api_conductor[0].host
    a = create(name='a', resource_class='gold', owner='p1', lessee='p3',
               conductor_group='g1', description='50% off, rack 7')
    b = create(name='b', resource_class='silver', owner='p2',
               maintenance=True, description='rack 8')
    c = available(name='c', resource_class='gold', lessee='p1')
    instance = str(uuid.uuid4())
    call('PATCH', '/v1/nodes/c', [{'op': 'add', 'path': '/instance_uuid',
                                   'value': instance}])
    # cond-x is the only conductor of group g1 (and a's owner); the API
    # tests' conductor serves group ''.
    conductor = db_conductors.register(ctx(), 'cond-x', ['fake-hardware'],
                                       'g1')
    mirror.update_node(ctx(), db_nodes.get(ctx(), 'a').id,
                       {'conductor_affinity': conductor.id})
    expect = {
        'maintenance=true': [b], 'maintenance=false': [a, c],
        'associated=true': [c], 'associated=False': [a, b],
        'provision_state=available': [c], 'provision_state=enroll': [a, b],
        'driver=fake-hardware': [a, b, c], 'driver=other': [],
        'resource_class=gold': [a, c], 'owner=p1': [a], 'lessee=p1': [c],
        'conductor_group=G1': [a], 'conductor_group=': [b, c],
        'instance_uuid=' + instance: [c],
        'description_contains=50%25': [a],
        'description_contains=rack': [a, b],
        'conductor=cond-x': [a], 'conductor=cond-y': [],
        'conductor=' + api_host: [b, c],
        'resource_class=gold&maintenance=false&associated=false': [a],
    }
    for query, nodes in expect.items():
        assert _uuids('/v1/nodes?' + query) == sorted(
            n['uuid'] for n in nodes), query
        assert _uuids('/v1/nodes/detail?' + query) == sorted(
            n['uuid'] for n in nodes), query
    listed = call('GET', '/v1/nodes?instance_uuid=%s&limit=1'
                  % instance).json
    assert 'next' not in listed
    # The conductor field names the node's conductor (from 1.49).
    assert call('GET', '/v1/nodes/a').json['conductor'] == 'cond-x'
    assert call('GET', '/v1/nodes/b').json['conductor'] == api_host


TOO_NEW_QUERIES = [
    ('provision_state=enroll', '1.8'), ('driver=x', '1.15'),
    ('resource_class=x', '1.20'), ('conductor_group=x', '1.45'),
    ('conductor=x', '1.48'), ('owner=x', '1.49'),
    ('description_contains=x', '1.50'), ('lessee=x', '1.64'),
    ('fields=uuid', '1.7'), ('sort_key=owner', '1.49'),
]


def test_list_filters_newer_than_version_are_406(database):
    for query, version in TOO_NEW_QUERIES:
        assert call('GET', '/v1/nodes?' + query,
                    version=version).status_int == 406, query


BAD_QUERIES = [
    ('bogus=1', 'Unexpected arguments: bogus'),
    ('maintenance=maybe', 'maintenance'),
    ('associated=2', 'associated'),
    ('detail=sometimes', 'detail'),
    ('provision_state=flying', 'Provision state "flying" is not valid'),
    ('instance_uuid=nope', 'Expected UUID for instance_uuid: nope'),
    ('marker=nope', 'Expected UUID for marker: nope'),
    ('limit=-1', 'Limit must be positive'),
    ('limit=x', 'limit'),
    ('sort_key=extra', 'The sort_key value "extra" is an invalid field '
                       'for sorting'),
    ('sort_key=traits', 'is an invalid field for sorting'),
    ('sort_key=bogus', 'is an invalid field for sorting'),
    ('sort_dir=up', 'Invalid sort direction: up.'),
    ('fields=bogus', 'bogus'),
]


def test_list_bad_queries_are_400(database):
    for query, text in BAD_QUERIES:
        resp = call('GET', '/v1/nodes?' + query)
        assert resp.status_int == 400, (query, resp.text)
        assert text in message(resp), query


def test_list_paging_and_sorting(database):
    made = [create(name='p%d' % i, resource_class='rc',
                   description=str(9 - i)) for i in range(5)]
    create(name='other', resource_class='elsewhere')
    resp = call('GET', '/v1/nodes?resource_class=rc&limit=2&fields=name')
    page = resp.json
    assert [n['name'] for n in page['nodes']] == ['p0', 'p1']
    seen = [n['name'] for n in page['nodes']]
    while 'next' in page:
        url = urllib.parse.urlsplit(page['next'])
        assert url.path == '/v1/nodes'
        params = urllib.parse.parse_qs(url.query)
        assert params['resource_class'] == ['rc']
        assert params['fields'] == ['name']
        page = call('GET', '%s?%s' % (url.path, url.query)).json
        seen += [n['name'] for n in page['nodes']]
    assert seen == ['p0', 'p1', 'p2', 'p3', 'p4']
    resp = call('GET', '/v1/nodes?resource_class=rc&sort_key=description'
                       '&sort_dir=desc&limit=2')
    assert [n['name'] for n in resp.json['nodes']] == ['p0', 'p1']
    resp = call('GET', '/v1/nodes/detail?resource_class=rc&sort_key=name'
                       '&sort_dir=desc&limit=4')
    names = [n['name'] for n in resp.json['nodes']]
    assert names == ['p4', 'p3', 'p2', 'p1']
    assert resp.json['next'].startswith('http://localhost/v1/nodes/detail?')
    assert 'marker=%s' % made[1]['uuid'] in resp.json['next']
    missing = str(uuid.uuid4())
    resp = call('GET', '/v1/nodes?marker=' + missing)
    assert resp.status_int == 404
    assert message(resp) == 'Node %s could not be found.' % missing


def test_list_limit_is_capped_by_max_limit(database, monkeypatch):
    for i in range(3):
        create()
    conf = conftest.make_conf(max_limit=2)
    capped = apps.whole(conf)
    req = webob.Request.blank('/v1/nodes?limit=10', headers={
        IRONIC: 'latest'})
    doc = req.get_response(capped).json
    assert len(doc['nodes']) == 2 and 'next' in doc
    assert 'limit=2' in doc['next']


# -- PATCH -------------------------------------------------------------------

def test_patch_changes_fields(database):
    doc = create(name='p', extra={'a': 1, 'b': 2}, properties={'x': 1})
    resp = patch('p', [
        {'op': 'replace', 'path': '/name', 'value': 'renamed'},
        {'op': 'add', 'path': '/extra/c', 'value': 3},
        {'op': 'remove', 'path': '/extra/a'},
        {'op': 'remove', 'path': '/properties'},
        {'op': 'add', 'path': '/driver_info/ipmi_password', 'value': 'pw'},
        {'op': 'replace', 'path': '/maintenance', 'value': 'true'},
        {'op': 'add', 'path': '/conductor_group', 'value': 'GRP'},
        {'op': 'add', 'path': '/resource_class', 'value': 'gold'},
        {'op': 'add', 'path': '/owner', 'value': 'p1'},
        {'op': 'add', 'path': '/lessee', 'value': 'p2'},
        {'op': 'add', 'path': '/description', 'value': 'desc'},
        {'op': 'add', 'path': '/automated_clean', 'value': False},
        {'op': 'add', 'path': '/instance_info/image', 'value': 'img'},
    ])
    assert resp.status_int == 200, resp.text
    new = resp.json
    assert new['name'] == 'renamed' and new['extra'] == {'b': 2, 'c': 3}
    assert new['properties'] == {}
    assert new['driver_info'] == {'ipmi_password': '******'}
    assert new['maintenance'] is True and new['conductor_group'] == 'grp'
    assert (new['resource_class'], new['owner'], new['lessee'],
            new['description'], new['automated_clean']) == (
        'gold', 'p1', 'p2', 'desc', False)
    assert new['instance_info'] == {'image': 'img'}
    assert new['updated_at'] is not None and new['reservation'] is None
    assert call('GET', '/v1/nodes/renamed').json == new
    # Removing the name and with a suffix.
    resp = patch(doc['uuid'] + '.json', [{'op': 'remove', 'path': '/name'}],
                 version='1.90')
    assert resp.status_int == 200 and resp.json['name'] is None


def test_patch_without_change_keeps_the_node(database):
    doc = create(name='same')
    resp = patch('same', [{'op': 'replace', 'path': '/name',
                           'value': 'same'}])
    assert resp.status_int == 200 and resp.json == doc


PATCH_ERRORS = [
    ({'op': 'add'}, 400, 'patch'),
    ([{'op': 'move', 'path': '/name', 'from': '/extra'}], 400, ''),
    ([{'op': 'add', 'path': '/extra/a'}], 400, 'need a value'),
    ([{'op': 'remove', 'path': '/extra/missing'}], 400,
     "Couldn't apply patch '{'op': 'remove', 'path': '/extra/missing'}'. "
     "Reason: can't remove a non-existent object 'missing'"),
    ([{'op': 'add', 'path': '/properties/a/0', 'value': 1}], 400,
     "Couldn't apply patch '{'op': 'add', 'path': '/properties/a/0', "
     "'value': 1}'. Reason: member 'a' not found in {}"),
    ([{'op': 'replace', 'path': '/uuid', 'value': str(uuid.uuid4())}], 400,
     'Cannot patch /uuid. Only the following can be updated: '
     'automated_clean, bios_interface, boot_interface, chassis_uuid, '
     'conductor_group'),
    ([{'op': 'replace', 'path': '/provision_state', 'value': 'active'}],
     400, 'Cannot patch /provision_state.'),
    ([{'op': 'add', 'path': '/traits', 'value': ['CUSTOM_A']}], 400,
     'Cannot patch /traits.'),
    ([{'op': 'add', 'path': '/bogus', 'value': 1}], 400,
     'Cannot patch /bogus.'),
    ([{'op': 'replace', 'path': '/name', 'value': 'a b'}], 400,
     "Node n: Cannot change name to invalid name 'a b'"),
    ([{'op': 'replace', 'path': '/name', 'value': 'states'}], 400,
     'The word "states" is reserved'),
    ([{'op': 'remove', 'path': '/driver'}], 400,
     "Schema error for patch: 'driver' is a required property"),
    ([{'op': 'replace', 'path': '/driver', 'value': 'ipmi'}], 400,
     'No valid host was found.'),
    ([{'op': 'replace', 'path': '/extra', 'value': 'x'}], 400,
     "Schema error for patch: 'x' is not of type"),
    ([{'op': 'add', 'path': '/instance_uuid', 'value': 'nope'}], 400,
     'Expected UUID for instance_uuid: nope'),
    ([{'op': 'add', 'path': '/maintenance', 'value': 'perhaps'}], 400,
     'Invalid maintenance'),
    ([{'op': 'add', 'path': '/conductor_group', 'value': 'a/b'}], 400,
     'Invalid conductor group a/b.'),
]


def test_patch_errors(database):
    doc = create(name='n')
    for ops, status, text in PATCH_ERRORS:
        resp = patch('n', ops)
        assert resp.status_int == status, (ops, resp.text)
        assert text in message(resp), ops
    assert call('GET', '/v1/nodes/n').json == doc


TOO_NEW_PATCHES = [
    ('/name', '1.4'), ('/resource_class', '1.20'),
    ('/conductor_group', '1.45'), ('/automated_clean', '1.46'),
    ('/owner', '1.49'), ('/description', '1.50'), ('/lessee', '1.64'),
]


def test_patch_field_newer_than_version_is_406(database):
    doc = create()
    for path, too_old in TOO_NEW_PATCHES:
        for op in ({'op': 'add', 'path': path, 'value': 'x'},
                   {'op': 'remove', 'path': path}):
            assert patch(doc['uuid'], [op],
                         version=too_old).status_int == 406, op


def test_patch_conflicts(database):
    create(name='one')
    create(name='two')
    resp = patch('two', [{'op': 'replace', 'path': '/name', 'value': 'one'}])
    assert resp.status_int == 409
    assert message(resp) == 'A node with name one already exists.'
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    assert patch('one', [{'op': 'add', 'path': '/instance_uuid',
                          'value': first}]).status_int == 200
    resp = patch('two', [{'op': 'add', 'path': '/instance_uuid',
                          'value': first}])
    assert resp.status_int == 409
    resp = patch('one', [{'op': 'replace', 'path': '/instance_uuid',
                          'value': second}])
    assert resp.status_int == 409
    assert message(resp).startswith('Node %s is associated with instance %s'
                                    % (call('GET', '/v1/nodes/one')
                                       .json['uuid'], first))
    # An instance set by PATCH (no allocation) can be removed anywhere.
    resp = patch('one', [{'op': 'remove', 'path': '/instance_uuid'}])
    assert resp.status_int == 200 and resp.json['instance_uuid'] is None
    assert patch('nope', [{'op': 'remove', 'path': '/extra'}]).status_int \
        == 404


def test_patch_resource_class_only_while_not_deployed(database):
    node = available(resource_class='gold')
    ident = node['uuid']
    call('PUT', '/v1/nodes/%s/states/provision' % ident, {'target': 'active'})
    resp = patch(ident, [{'op': 'replace', 'path': '/resource_class',
                          'value': 'silver'}])
    assert resp.status_int == 409
    assert 'can not have resource_class updated' in message(resp)
    call('PUT', '/v1/nodes/%s/states/provision' % ident,
         {'target': 'deleted'})
    assert patch(ident, [{'op': 'replace', 'path': '/resource_class',
                          'value': 'silver'}]).status_int == 200


# -- DELETE ------------------------------------------------------------------

def test_delete_rules(database):
    enrolled = create(name='e')
    resp = call('DELETE', '/v1/nodes/e')
    assert resp.status_int == 204 and resp.body == b''
    assert call('GET', '/v1/nodes/' + enrolled['uuid']).status_int == 404
    assert call('DELETE', '/v1/nodes/e').status_int == 404

    # As Ironic (allow_deleting_available_nodes): an available node goes;
    # clients clean up so.
    available(name='avail')
    assert call('DELETE', '/v1/nodes/avail').status_int == 204
    assert call('GET', '/v1/nodes/avail').status_int == 404

    deployed = available(name='deployed')
    call('PUT', '/v1/nodes/deployed/states/provision', {'target': 'active'})
    resp = call('DELETE', '/v1/nodes/deployed')
    assert resp.status_int == 409
    assert message(resp) == (
        'Can not delete node "%s" while it is in provision state '
        '"active". Valid provision states to perform deletion are: '
        '"(\'manageable\', \'enroll\', \'adopt failed\', \'available\')", '
        'or set the node into maintenance mode' % deployed['uuid'])
    call('PUT', '/v1/nodes/deployed/maintenance', {'reason': 'bye'})
    assert call('DELETE', '/v1/nodes/deployed').status_int == 204

    create(name='inst', instance_uuid=str(uuid.uuid4()))
    resp = call('DELETE', '/v1/nodes/inst')
    assert resp.status_int == 409
    assert 'is associated with instance' in message(resp)
    call('PUT', '/v1/nodes/inst/maintenance')
    assert call('DELETE', '/v1/nodes/inst.json',
                version='1.90').status_int == 204
    assert call('GET', '/v1/nodes').json['nodes'] == []


# -- routing -----------------------------------------------------------------

def test_v1_links_nodes_at_every_version(database):
    for version in ('1.1', 'latest'):
        doc = call('GET', '/v1', version=version).json
        assert doc['nodes'][0]['href'] == 'http://localhost/v1/nodes/'


WRONG_METHODS = [
    ('PUT', '/v1/nodes', 'GET, POST'),
    ('DELETE', '/v1/nodes', 'GET, POST'),
    ('POST', '/v1/nodes/detail', 'GET'),
    ('POST', '/v1/nodes/n1', 'DELETE, GET, PATCH'),
    ('POST', '/v1/nodes/n1/states', 'GET'),
    ('GET', '/v1/nodes/n1/states/power', 'PUT'),
    ('GET', '/v1/nodes/n1/states/provision', 'PUT'),
    ('GET', '/v1/nodes/n1/maintenance', 'DELETE, PUT'),
    ('POST', '/v1/nodes/n1/traits', 'DELETE, GET, PUT'),
    ('GET', '/v1/nodes/n1/traits/CUSTOM_A', 'DELETE, PUT'),
]


def test_wrong_method_is_405(database):
    for method, path, allow in WRONG_METHODS:
        resp = call(method, path)
        assert resp.status_int == 405, (method, path)
        assert resp.headers['Allow'] == allow
        assert fault(resp)['code'] == 405


UNKNOWN_PATHS = [
    '/v1/nodes/n1/bogus', '/v1/nodes/n1/states/bogus',
    '/v1/nodes/n1/traits/A/B', '/v1/nodes/detail/x',
]


def test_unknown_paths_are_404(database):
    for path in UNKNOWN_PATHS:
        assert call('GET', path).status_int == 404, path


def test_trailing_slashes_and_bad_idents(database):
    create(name='n1')
    assert call('GET', '/v1/nodes/').json['nodes']
    assert call('GET', '/v1/nodes/n1/').json['name'] == 'n1'
    resp = call('GET', '/v1/nodes/ba!na!na/states')
    assert resp.status_int == 400
    assert message(resp) == ('Expected UUID or name for node_ident: '
                             'ba!na!na')
    resp = call('GET', '/v1/nodes/ba!na!na/traits')
    assert message(resp) == 'Expected UUID or name for node: ba!na!na'


def _typed(method, path, body, content_type):
    req = webob.Request.blank(path, method=method,
                              headers={IRONIC: 'latest'})
    req.body = body
    req.content_type = content_type
    return req.get_response(app())


def test_bodies_and_arguments_at_the_edges(database):
    node = create(name='edge')
    # The body as WSME read it (dispatch.wsme_arguments): also from a
    # query parameter or a form field named like the handler's argument.
    resp = call('POST', '/v1/nodes?body=%7B%7D', {'driver': 'fake-hardware'})
    assert message(resp) == 'Parameter body was given several times'
    ops = [{'op': 'add', 'path': '/extra/a', 'value': 1}]
    resp = call('PATCH', '/v1/nodes/edge?patch=%5B%5D', ops)
    assert message(resp) == 'Parameter patch was given several times'
    resp = _typed('PATCH', '/v1/nodes/edge', b'patch=%5B%5D',
                  'application/x-www-form-urlencoded')
    assert message(resp) == ("Schema error for patch: '[]' is not of type "
                             "'array'")
    resp = call('GET', '/v1/nodes/edge?__body__=x')
    assert resp.status_int == 415
    # An XML body that is not XML: a 400 (WSME's parser error was a 500).
    for method, path in (('GET', '/v1/nodes'), ('GET', '/v1/nodes/edge'),
                         ('POST', '/v1/nodes')):
        resp = _typed(method, path, b'<a', 'text/xml')
        assert resp.status_int == 400
        assert message(resp) == 'Request is not in valid XML format'
    # A GET's JSON body is no argument.
    resp = call('GET', '/v1/nodes/edge', {'fields': 'name'})
    assert resp.status_int == 200 and 'driver' in resp.json
    # The nodes of a chassis take no POST, once its body is read.
    path = '/v1/chassis/%s/nodes' % node['uuid']
    assert _typed('POST', path, b'x', 'text/plain').status_int == 415
    assert message(call('POST', path, {})) == 'Malformed request URI.'
    # 201 with a Location, 204 without a body.
    resp = call('POST', '/v1/nodes/', {'driver': 'fake-hardware'})
    assert resp.status_int == 201
    assert resp.headers['Location'] == \
        'http://localhost/v1/nodes/' + resp.json['uuid']
    resp = call('DELETE', '/v1/nodes/' + resp.json['uuid'])
    assert resp.status_int == 204 and resp.body == b''
    assert 'Content-Type' not in resp.headers


def test_members_by_name_as_wsme_gave_them(database):
    create(name='sorted')
    doc = list(json.loads(call('GET', '/v1/nodes/sorted').text))
    assert doc == sorted(doc)
    doc = list(json.loads(call('GET', '/v1/nodes/sorted?fields=uuid,name')
                          .text))
    assert doc == ['links', 'name', 'uuid']
    resp = call('GET', '/v1/nodes?limit=1')
    assert list(json.loads(resp.text)) == ['nodes', 'next']
    assert list(json.loads(resp.text)['nodes'][0]) == [
        'instance_uuid', 'links', 'maintenance', 'name', 'power_state',
        'provision_state', 'uuid']
