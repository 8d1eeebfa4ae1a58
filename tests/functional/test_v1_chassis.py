"""``/v1/chassis``: chassis as Ironic 39 serves them, and the nodes in
them, on every database backend.

Scenarios (each answer is Ironic's, status and text, unless a test says
it differs):
* POST: the 201 document (with ``nodes``, a list holding the list of
  node links, as Ironic renders it) and Location; a given UUID; no body;
  409 on a taken UUID; the layered validation errors; no NUL, no
  oversized ``extra``.
* GET one: every field at every version; ``fields`` from 1.8 (lower
  cased, deduplicated); the ``.json`` suffix up to 1.90; 400 for an
  ident that is not a UUID, 404 for an unknown one.
* GET list and ``/detail``: default fields, ``detail`` (1.43),
  ``fields``; paging and Ironic's ``next`` link; sorting and its
  errors; what ``/detail`` refuses.
* PATCH: description and ``extra``, removals, the UUID (only to
  itself), what cannot be patched, JSON patch errors; every PATCH
  stamps ``updated_at``; a patch computed from a stale chassis is a 409.
* DELETE: 204, 404, and 400 while a node is in the chassis.
* The nodes of a chassis (``/nodes``, ``/nodes/detail``): the node
  list's fields, filters and paging; 404 for an unknown chassis;
  anything else there is "Malformed request URI.".
* Nodes: ``chassis_uuid`` on create and PATCH (add, replace, remove from
  1.25), 400 for a chassis that does not exist, the ``chassis_uuid``
  filter (404 for an unknown chassis), moving a node between chassis.
* 405 with ``Allow``; no 500 for hostile input.
"""

import json
import uuid

import pytest

from allocsvc import objects
from allocsvc.common import context as context_mod
from allocsvc.common import exception
from allocsvc.db.baremetal import chassis as db_chassis
from tests.functional.ironic_errors import fault
from tests.functional.ironic_errors import message
from tests.helpers.v1 import call
from tests.helpers.v1 import create as create_node

# Every test here may change nodes through the API, which hands each
# change to a conductor.
pytestmark = pytest.mark.usefixtures('api_conductor')

KEYS = ['uuid', 'created_at', 'updated_at', 'description', 'extra',
        'links', 'nodes']
FIELDS_ENUM = ("['created_at', 'description', 'extra', 'links', 'nodes', "
               "'updated_at', 'uuid']")
UNKNOWN = '11111111-2222-3333-4444-555555555555'
BASE = 'http://localhost'


def chassis(version='latest', **body):
    resp = call('POST', '/v1/chassis', body, version=version)
    assert resp.status_int == 201, resp.text
    return resp.json


def error(resp, status):
    assert resp.status_int == status, resp.text
    assert fault(resp)['faultcode'] == 'Client'
    return message(resp)


def links(path):
    return [{'href': '%s/v1/%s' % (BASE, path), 'rel': 'self'},
            {'href': '%s/%s' % (BASE, path), 'rel': 'bookmark'}]


def patch(ident, ops, version='latest'):
    return call('PATCH', '/v1/chassis/%s' % ident, ops, version=version)


def uuids(resp, key='chassis'):
    assert resp.status_int == 200, resp.text
    return [item['uuid'] for item in resp.json[key]]


# -- POST --------------------------------------------------------------------

def test_create_answers_the_whole_chassis(database):
    resp = call('POST', '/v1/chassis',
                {'description': 'rack 1', 'extra': {'row': 'a', 'u': [1]}},
                version='1.1')
    assert resp.status_int == 201, resp.text
    doc = json.loads(resp.body)
    assert list(doc) == KEYS
    assert doc['description'] == 'rack 1'
    assert doc['extra'] == {'row': 'a', 'u': [1]}
    assert doc['created_at'].endswith('+00:00')
    assert doc['updated_at'] is None
    assert uuid.UUID(doc['uuid'])
    assert doc['links'] == links('chassis/' + doc['uuid'])
    # Ironic renders the node links as a list holding the list of links.
    assert doc['nodes'] == [links('chassis/%s/nodes' % doc['uuid'])]
    assert resp.headers['Location'] == ('%s/v1/chassis/%s'
                                        % (BASE, doc['uuid']))
    assert call('GET', '/v1/chassis/' + doc['uuid']).json == doc


def test_create_with_a_uuid_and_with_nothing(database):
    given = str(uuid.uuid4())
    doc = chassis(uuid=given, description=None, extra=None)
    assert doc['uuid'] == given and doc['extra'] == {}
    assert doc['description'] is None
    # No body at all: a chassis with a new UUID (Ironic's answer too).
    resp = call('POST', '/v1/chassis')
    assert resp.status_int == 201, resp.text
    assert resp.json['uuid'] != given and resp.json['extra'] == {}
    # Unicode as it was sent.
    assert chassis(description='В Україні ♡ OpenStack!')['description'] \
        == 'В Україні ♡ OpenStack!'


def test_create_with_a_taken_uuid_is_409(database):
    doc = chassis()
    resp = call('POST', '/v1/chassis', {'uuid': doc['uuid']})
    assert error(resp, 409) == ('A chassis with UUID %s already exists.'
                                % doc['uuid'])


@pytest.mark.parametrize('body, text', [
    ({'uuid': 'not-a-uuid'}, 'Expected UUID for uuid: not-a-uuid'),
    ({'uuid': 5}, "Schema error for chassis: 5 is not of type 'string', "
                  "'null'"),
    ({'description': 5}, "Schema error for chassis: 5 is not of type "
                         "'string', 'null'"),
    ({'description': 'x' * 256}, "Schema error for chassis: '%s' is too "
                                 "long" % ('x' * 256)),
    ({'extra': 'str'}, "Schema error for chassis: 'str' is not of type "
                       "'object', 'null'"),
    ({'extra': []}, "Schema error for chassis: [] is not of type 'object', "
                    "'null'"),
    ({'foo': 1}, "Schema error for chassis: Additional properties are not "
                 "allowed ('foo' was unexpected)"),
    ({'nodes': []}, "Schema error for chassis: Additional properties are "
                    "not allowed ('nodes' was unexpected)"),
    # The most relevant error of the body first, then the UUID.
    ({'foo': 1, 'description': 5}, "Schema error for chassis: Additional "
     "properties are not allowed ('foo' was unexpected)"),
    ({'uuid': 'x', 'description': 5}, "Schema error for chassis: 5 is not "
                                      "of type 'string', 'null'"),
    ([], "Schema error for chassis: [] is not of type 'object'"),
    ('x', "Schema error for chassis: 'x' is not of type 'object'"),
    (None, "Schema error: None is not of type 'object'"),
])
def test_create_refuses_bad_documents(database, body, text):
    resp = call('POST', '/v1/chassis', raw=json.dumps(body).encode())
    assert error(resp, 400) == text
    assert uuids(call('GET', '/v1/chassis')) == []


def test_create_refuses_what_no_column_can_keep(database):
    # Ironic stores the first on SQLite and fails on PostgreSQL; the
    # second fails on MariaDB.
    resp = call('POST', '/v1/chassis', {'description': 'a\x00b'})
    assert error(resp, 400) == ('Invalid value for description: it '
                                'contains a NUL character.')
    resp = call('POST', '/v1/chassis', {'extra': {'a': 'x' * 70000}})
    assert 'larger than 65535 bytes' in error(resp, 400)
    resp = call('POST', '/v1/chassis?foo=1', {})
    assert error(resp, 400) == 'Unexpected arguments: foo'
    resp = call('POST', '/v1/chassis', {'uuid': '{%s}' % uuid.uuid4()})
    assert error(resp, 400).startswith('Expected UUID for uuid: {')


# -- GET one -----------------------------------------------------------------

def test_show_by_version_and_fields(database):
    doc = chassis(description='d', extra={'a': 1})
    path = '/v1/chassis/' + doc['uuid']
    for version in ('1.1', '1.43', 'latest'):
        assert call('GET', path, version=version).json == doc
    resp = call('GET', path + '?fields=uuid', version='1.7')
    assert error(resp, 406) == 'Request not acceptable.'
    assert call('GET', path + '?fields=uuid', version='1.8').json == {
        'uuid': doc['uuid'], 'links': doc['links']}
    assert call('GET', path + '?fields=nodes').json == {
        'links': doc['links'], 'nodes': doc['nodes']}
    # Lower-cased, each once, empty items dropped (Ironic's list).
    assert call('GET', path + '?fields=Extra,,DESCRIPTION,extra').json == {
        'description': 'd', 'extra': {'a': 1}, 'links': doc['links']}
    assert call('GET', path + '?fields=').json == {'links': doc['links']}
    resp = call('GET', path + '?fields=uuid,foo,bar')
    assert error(resp, 400) == ("Schema error: 'foo' is not one of %s"
                                % FIELDS_ENUM)
    # A bad field is a 400 before a version too old for fields (406).
    assert call('GET', path + '?fields=foo', version='1.1').status_int == 400
    for query in ('?detail=true', '?foo=1'):
        resp = call('GET', path + query)
        assert error(resp, 400) == ('Unexpected arguments: %s'
                                    % query[1:].split('=')[0])


def test_show_idents(database):
    doc = chassis()
    resp = call('GET', '/v1/chassis/not-a-uuid')
    assert error(resp, 400) == 'Expected UUID for chassis_uuid: not-a-uuid'
    resp = call('GET', '/v1/chassis/' + UNKNOWN)
    assert error(resp, 404) == 'Chassis %s could not be found.' % UNKNOWN
    # Up to 1.90 a ".json" suffix is Ironic's format suffix.
    path = '/v1/chassis/%s.json' % doc['uuid']
    assert call('GET', path, version='1.90').json == doc
    resp = call('GET', path, version='1.91')
    assert error(resp, 400) == ('Expected UUID for chassis_uuid: %s.json'
                                % doc['uuid'])
    assert call('GET', '/v1/chassis/%s/' % doc['uuid']).json == doc
    assert call('GET', '/v1/chassis/%s/foo' % doc['uuid']).status_int == 404


# -- lists -------------------------------------------------------------------

def _three():
    return [chassis(description=name, extra={'n': i})
            for i, name in enumerate(('b', 'c', 'a'))]


def test_lists_show_their_fields(database):
    made = _three()
    listed = call('GET', '/v1/chassis', version='1.1').json
    assert listed == {'chassis': [
        {'uuid': c['uuid'], 'description': c['description'],
         'links': c['links']} for c in made]}
    detail = call('GET', '/v1/chassis/detail', version='1.1').json
    assert detail == {'chassis': made}
    assert call('GET', '/v1/chassis?detail=true').json == detail
    assert call('GET', '/v1/chassis?detail=false').json == listed
    assert call('GET', '/v1/chassis?fields=extra,uuid').json == {
        'chassis': [{'uuid': c['uuid'], 'extra': c['extra'],
                     'links': c['links']} for c in made]}


@pytest.mark.parametrize('query, version, status, text', [
    ('detail=true', '1.42', 400,
     'Invalid query parameter ?detail=True received.'),
    ('detail=true&fields=uuid', 'latest', 400,
     'Can not specify ?detail=True and fields in the same request.'),
    ('detail=foo', 'latest', 400,
     "Invalid detail: Unrecognized value 'foo', acceptable values are: "
     "'0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', "
     "'yes'"),
    ('fields=uuid', '1.7', 406, 'Request not acceptable.'),
    ('fields=foo', 'latest', 400,
     "Schema error: 'foo' is not one of %s" % FIELDS_ENUM),
    ('limit=0', 'latest', 400, 'Limit must be positive'),
    ('limit=-1', 'latest', 400, 'Limit must be positive'),
    ('limit=abc', 'latest', 400, 'Expected an integer for limit: abc'),
    ('limit=', 'latest', 400, 'Expected an integer for limit: '),
    ('marker=not-a-uuid', 'latest', 400,
     'Expected UUID for marker: not-a-uuid'),
    ('marker=%s' % UNKNOWN, 'latest', 404,
     'Chassis %s could not be found.' % UNKNOWN),
    # The marker is looked for before the sort key is checked.
    ('marker=%s&sort_key=foo' % UNKNOWN, 'latest', 404,
     'Chassis %s could not be found.' % UNKNOWN),
    ('sort_key=extra', 'latest', 400,
     'The sort_key value extra is an invalid field for sorting'),
    ('sort_key=foo', 'latest', 400,
     'The sort_key value "foo" is an invalid field for sorting'),
    ('sort_key=nodes', 'latest', 400,
     'The sort_key value "nodes" is an invalid field for sorting'),
    ('sort_dir=up', 'latest', 400,
     "Schema error: 'up' is not one of ['asc', 'desc']"),
    ('sort_dir=up&limit=0', 'latest', 400,
     "Schema error: 'up' is not one of ['asc', 'desc']"),
    ('fields=foo&sort_dir=up&marker=x', 'latest', 400,
     'Expected UUID for marker: x'),
    ('c=1&a=2&b=3', 'latest', 400, 'Unexpected arguments: a, b, c'),
])
def test_list_errors(database, query, version, status, text):
    chassis()
    resp = call('GET', '/v1/chassis?' + query, version=version)
    assert error(resp, status) == text


def test_detail_takes_neither_fields_nor_detail(database):
    chassis()
    for query in ('fields=uuid', 'detail=true'):
        resp = call('GET', '/v1/chassis/detail?' + query)
        assert error(resp, 400) == ('Unexpected arguments: %s'
                                    % query.split('=')[0])
    resp = call('GET', '/v1/chassis/detail?sort_key=extra')
    assert error(resp, 400) == ('The sort_key value extra is an invalid '
                                'field for sorting')


def test_paging_and_ironics_next_links(database):
    made = _three()
    resp = call('GET', '/v1/chassis?limit=1', version='1.1').json
    assert [c['uuid'] for c in resp['chassis']] == [made[0]['uuid']]
    assert resp['next'] == (
        '%s/v1/chassis?sort_key=id&sort_dir=asc&fields=uuid,description'
        '&limit=1&marker=%s' % (BASE, made[0]['uuid']))
    follow = call('GET', resp['next'][len(BASE):], version='1.8').json
    assert [c['uuid'] for c in follow['chassis']] == [made[1]['uuid']]
    resp = call('GET', '/v1/chassis?limit=2&detail=true').json
    assert resp['next'] == (
        '%s/v1/chassis?sort_key=id&sort_dir=asc&detail=True&limit=2'
        '&marker=%s' % (BASE, made[1]['uuid']))
    resp = call('GET', '/v1/chassis?limit=1&detail=false&fields=').json
    assert 'fields' not in resp['next']
    resp = call('GET', '/v1/chassis/detail?limit=1&sort_key=description'
                '&sort_dir=desc').json
    assert resp['chassis'] == [made[1]]
    assert resp['next'] == (
        '%s/v1/chassis/detail?sort_key=description&sort_dir=desc&limit=1'
        '&marker=%s' % (BASE, made[1]['uuid']))
    # A full page has a next link (as in Ironic), one that is not none.
    assert 'next' in call('GET', '/v1/chassis?limit=3').json
    assert 'next' not in call('GET', '/v1/chassis?limit=4').json
    assert uuids(call('GET', '/v1/chassis?marker=' + made[0]['uuid'])) == \
        [made[1]['uuid'], made[2]['uuid']]


def test_sorting(database):
    made = _three()
    by = {c['description']: c['uuid'] for c in made}
    assert uuids(call('GET', '/v1/chassis?sort_key=description')) == \
        [by['a'], by['b'], by['c']]
    assert uuids(call('GET', '/v1/chassis?sort_key=created_at'
                      '&sort_dir=desc')) == [by['a'], by['c'], by['b']]
    assert uuids(call('GET', '/v1/chassis?sort_key=uuid')) == \
        sorted(by.values())
    # An empty sort key is the default one, as in Ironic.
    assert uuids(call('GET', '/v1/chassis?sort_key=')) == \
        [c['uuid'] for c in made]


# -- PATCH -------------------------------------------------------------------

def test_patch_changes_description_and_extra(database):
    doc = chassis(description='old', extra={'a': 1, 'b': {'c': 2}})
    ident = doc['uuid']
    resp = patch(ident, [
        {'op': 'replace', 'path': '/description', 'value': 'new'},
        {'op': 'add', 'path': '/extra/d', 'value': 'e'},
        {'op': 'remove', 'path': '/extra/a'},
        {'op': 'add', 'path': '/extra/b/f', 'value': 3}])
    assert resp.status_int == 200, resp.text
    after = resp.json
    assert after['description'] == 'new'
    assert after['extra'] == {'b': {'c': 2, 'f': 3}, 'd': 'e'}
    assert after['updated_at'] is not None
    assert after['created_at'] == doc['created_at']
    assert call('GET', '/v1/chassis/' + ident).json == after
    after = patch(ident, [{'op': 'remove', 'path': '/description'},
                          {'op': 'remove', 'path': '/extra'}]).json
    assert after['description'] is None and after['extra'] == {}
    after = patch(ident, [{'op': 'add', 'path': '/description',
                           'value': 'again'},
                          {'op': 'replace', 'path': '/extra',
                           'value': None}]).json
    assert after['description'] == 'again' and after['extra'] == {}
    # Its own UUID is no change.
    resp = patch(ident, [{'op': 'replace', 'path': '/uuid', 'value': ident}])
    assert resp.status_int == 200


def test_every_patch_is_a_write(database):
    # As Ironic: even an empty patch stamps updated_at.
    doc = chassis()
    after = patch(doc['uuid'], []).json
    assert after['updated_at'] is not None
    assert {k: v for k, v in after.items() if k != 'updated_at'} == \
        {k: v for k, v in doc.items() if k != 'updated_at'}


@pytest.mark.parametrize('ops, text', [
    ([{'op': 'replace', 'path': '/uuid', 'value': UNKNOWN}],
     'Cannot overwrite UUID for an existing Chassis.'),
    ([{'op': 'remove', 'path': '/uuid'}],
     'Cannot overwrite UUID for an existing Chassis.'),
    ([{'op': 'replace', 'path': '/uuid', 'value': 'x'}],
     'Expected UUID for uuid: x'),
    ([{'op': 'replace', 'path': '/nodes', 'value': []}],
     'Cannot patch /nodes. Only the following can be updated: uuid, '
     'extra, description'),
    ([{'op': 'add', 'path': '/foo', 'value': 1}],
     'Cannot patch /foo. Only the following can be updated: uuid, extra, '
     'description'),
    ([{'op': 'replace', 'path': '/created_at', 'value': 'x'}],
     'Cannot patch /created_at. Only the following can be updated: uuid, '
     'extra, description'),
    ([{'op': 'replace', 'path': '/description', 'value': 5}],
     "Schema error for patch: 5 is not of type 'string', 'null'"),
    ([{'op': 'replace', 'path': '/description', 'value': 'x' * 256}],
     "Schema error for patch: '%s' is too long" % ('x' * 256)),
    ([{'op': 'replace', 'path': '/extra', 'value': 'str'}],
     "Schema error for patch: 'str' is not of type 'object', 'null'"),
    ([{'op': 'remove', 'path': '/extra/missing'}],
     "Couldn't apply patch '{'op': 'remove', 'path': '/extra/missing'}'. "
     "Reason: can't remove a non-existent object 'missing'"),
    ([{'op': 'replace', 'path': '/description'}],
     "Couldn't apply patch '{'op': 'replace', 'path': '/description'}'. "
     "Reason: The operation does not contain a 'value' member"),
    ([{'op': 'move', 'path': '/description', 'from': '/extra'}],
     "Schema error for patch: Additional properties are not allowed "
     "('from' was unexpected)"),
    ([{'op': 'test', 'path': '/description', 'value': 'x'}],
     "Schema error for patch: 'test' is not one of ['add', 'replace', "
     "'remove']"),
    ([{'path': '/description', 'value': 'x'}],
     "Schema error for patch: 'op' is a required property"),
    ([{'op': 'add', 'path': '/extra/a.b', 'value': 1}],
     "Schema error for patch: '/extra/a.b' does not match "
     "'^(/[\\\\w-]+)+$'"),
    ([1], "Schema error for patch: 1 is not of type 'object'"),
    ({'op': 'replace'},
     "Schema error for patch: {'op': 'replace'} is not of type 'array'"),
    (None, "Schema error: None is not of type 'array'"),
])
def test_patch_errors(database, ops, text):
    doc = chassis(description='d')
    resp = call('PATCH', '/v1/chassis/' + doc['uuid'],
                raw=json.dumps(ops).encode())
    assert error(resp, 400) == text
    assert call('GET', '/v1/chassis/' + doc['uuid']).json == doc


def test_patch_idents_and_queries(database):
    doc = chassis()
    replace = [{'op': 'replace', 'path': '/description', 'value': 'x'}]
    resp = patch('not-a-uuid', replace)
    assert error(resp, 400) == "Schema error: 'not-a-uuid' is not a 'uuid'"
    resp = patch(UNKNOWN, replace)
    assert error(resp, 404) == 'Chassis %s could not be found.' % UNKNOWN
    # What may be patched is checked before the chassis is looked for.
    resp = patch(UNKNOWN, [{'op': 'add', 'path': '/foo', 'value': 1}])
    assert error(resp, 400).startswith('Cannot patch /foo.')
    resp = call('PATCH', '/v1/chassis/%s?foo=1' % doc['uuid'], replace)
    assert error(resp, 400) == 'Unexpected arguments: foo'
    resp = call('PATCH', '/v1/chassis/' + doc['uuid'])
    assert error(resp, 400) == ("Schema error for patch: {} is not of type "
                                "'array'")
    resp = patch(doc['uuid'] + '.json', replace, version='1.90')
    assert resp.status_int == 200 and resp.json['description'] == 'x'


def test_a_patch_of_a_stale_chassis_is_409(database):
    # Two clients read the chassis, then each writes a patch applied to
    # what it read: the second must not undo the first.
    ctx = context_mod.get_admin_context()
    doc = chassis(extra={'a': 1})
    first = objects.Chassis.get_by_uuid(ctx, doc['uuid'])
    second = objects.Chassis.get_by_uuid(ctx, doc['uuid'])
    first.extra = {'a': 1, 'b': 2}
    first.save(expected={'extra': {'a': 1}})
    second.extra = {'a': 1, 'c': 3}
    with pytest.raises(exception.ChassisChanged) as raised:
        second.save(expected={'extra': {'a': 1}})
    assert raised.value.status == 409
    assert str(raised.value) == (
        'Chassis %s was changed by another request (its extra differs); '
        'please retry.' % doc['uuid'])
    assert call('GET', '/v1/chassis/' + doc['uuid']).json['extra'] == \
        {'a': 1, 'b': 2}


# -- DELETE ------------------------------------------------------------------

def test_delete(database):
    doc = chassis()
    resp = call('DELETE', '/v1/chassis/' + doc['uuid'])
    assert resp.status_int == 204 and not resp.body
    resp = call('GET', '/v1/chassis/' + doc['uuid'])
    assert error(resp, 404) == 'Chassis %s could not be found.' % doc['uuid']
    resp = call('DELETE', '/v1/chassis/' + doc['uuid'])
    assert error(resp, 404) == 'Chassis %s could not be found.' % doc['uuid']
    resp = call('DELETE', '/v1/chassis/not-a-uuid')
    assert error(resp, 400) == 'Expected UUID for chassis_uuid: not-a-uuid'
    other = chassis()
    resp = call('DELETE', '/v1/chassis/%s?foo=1' % other['uuid'])
    assert error(resp, 400) == 'Unexpected arguments: foo'
    resp = call('DELETE', '/v1/chassis/%s.json' % other['uuid'],
                version='1.90')
    assert resp.status_int == 204


def test_a_chassis_with_nodes_is_not_deleted(database):
    doc = chassis()
    node = create_node(chassis_uuid=doc['uuid'])
    resp = call('DELETE', '/v1/chassis/' + doc['uuid'])
    assert error(resp, 400) == ('Cannot complete the requested action '
                                'because chassis %s contains nodes.'
                                % doc['uuid'])
    assert call('GET', '/v1/chassis/' + doc['uuid']).status_int == 200
    resp = call('PATCH', '/v1/nodes/' + node['uuid'],
                [{'op': 'remove', 'path': '/chassis_uuid'}])
    assert resp.status_int == 200, resp.text
    assert call('DELETE', '/v1/chassis/' + doc['uuid']).status_int == 204


# -- the nodes of a chassis --------------------------------------------------

def test_the_nodes_of_a_chassis(database):
    rack = chassis()
    other = chassis()
    first = create_node(chassis_uuid=rack['uuid'], name='n1')
    second = create_node(chassis_uuid=rack['uuid'], name='n2',
                         maintenance=True)
    create_node(chassis_uuid=other['uuid'])
    create_node()
    path = '/v1/chassis/%s/nodes' % rack['uuid']
    listed = call('GET', path).json
    assert listed == call('GET', '/v1/nodes?chassis_uuid=' +
                          rack['uuid']).json
    assert uuids(call('GET', path), 'nodes') == [first['uuid'],
                                                 second['uuid']]
    assert set(listed['nodes'][0]) == {'uuid', 'name', 'instance_uuid',
                                       'power_state', 'provision_state',
                                       'maintenance', 'links'}
    detail = call('GET', path + '/detail').json['nodes']
    assert [n['chassis_uuid'] for n in detail] == [rack['uuid']] * 2
    assert call('GET', path + '?detail=true').json['nodes'] == detail
    assert call('GET', path + '?fields=uuid,chassis_uuid').json == {
        'nodes': [{'uuid': n['uuid'], 'chassis_uuid': rack['uuid'],
                   'links': n['links']} for n in (first, second)]}
    assert uuids(call('GET', path + '?maintenance=true'), 'nodes') == \
        [second['uuid']]
    assert uuids(call('GET', path + '?provision_state=enroll',
                      version='1.9'), 'nodes') == [first['uuid'],
                                                   second['uuid']]
    assert call('GET', '/v1/chassis/%s/nodes' % chassis()['uuid']).json == \
        {'nodes': []}


def test_the_nodes_of_a_chassis_page_within_the_chassis(database):
    rack = chassis()
    made = [create_node(chassis_uuid=rack['uuid']) for _i in range(3)]
    create_node()
    path = '/v1/chassis/%s/nodes' % rack['uuid']
    seen = []
    page = call('GET', path + '?limit=2&fields=uuid').json
    while True:
        seen.extend(n['uuid'] for n in page['nodes'])
        if 'next' not in page:
            break
        # Unlike Ironic's, the link stays under the chassis (Ironic's
        # points at /v1/nodes, and following it lists every node).
        assert page['next'].startswith(BASE + path + '?')
        page = call('GET', page['next'][len(BASE):]).json
    assert seen == [n['uuid'] for n in made]
    page = call('GET', path + '/detail?limit=1').json
    assert page['next'].startswith(BASE + path + '/detail?')


def test_the_nodes_of_a_chassis_errors(database):
    rack = chassis()
    node = create_node(chassis_uuid=rack['uuid'])
    resp = call('GET', '/v1/chassis/not-a-uuid/nodes')
    assert error(resp, 400) == 'Expected UUID for chassis_uuid: not-a-uuid'
    for path in ('/v1/chassis/%s/nodes' % UNKNOWN,
                 '/v1/chassis/%s/nodes/detail' % UNKNOWN):
        resp = call('GET', path)
        assert error(resp, 404) == ('Chassis %s could not be found.'
                                    % UNKNOWN)
    path = '/v1/chassis/%s/nodes' % rack['uuid']
    # The chassis is the path's (Ironic answers 500 to this).
    resp = call('GET', path + '?chassis_uuid=' + rack['uuid'])
    assert error(resp, 400) == 'Unexpected arguments: chassis_uuid'
    resp = call('GET', path + '?foo=1')
    assert error(resp, 400) == 'Unexpected arguments: foo'
    # Anything but a list is Ironic's "Malformed request URI."
    for method, sub, body in (
            ('POST', '', {'driver': 'fake-hardware'}),
            ('GET', '/' + node['uuid'], None),
            ('GET', '/n1', None),
            ('PATCH', '/' + node['uuid'],
             [{'op': 'add', 'path': '/extra/a', 'value': 1}]),
            ('DELETE', '/' + node['uuid'], None),
            ('GET', '/%s/states' % node['uuid'], None),
            ('GET', '/%s/ports' % node['uuid'], None)):
        resp = call(method, path + sub, body)
        assert error(resp, 400) == 'Malformed request URI.', (method, sub)
    assert call('GET', '/v1/nodes/' + node['uuid']).json['extra'] == {}
    resp = call('PUT', path, {})
    assert resp.status_int == 405 and resp.headers['Allow'] == 'GET, POST'
    assert call('GET', path + '/detail/x').status_int == 404


# -- nodes and their chassis -------------------------------------------------

def test_a_node_names_its_chassis(database):
    rack = chassis()
    node = create_node(chassis_uuid=rack['uuid'])
    assert node['chassis_uuid'] == rack['uuid']
    assert call('GET', '/v1/nodes/%s' % node['uuid'],
                version='1.1').json['chassis_uuid'] == rack['uuid']
    shown = call('GET', '/v1/nodes/%s?fields=chassis_uuid' % node['uuid'],
                 version='1.8').json
    assert shown == {'chassis_uuid': rack['uuid'], 'links': node['links']}
    # Ironic answers 500 to this list.
    listed = call('GET', '/v1/nodes?fields=uuid,chassis_uuid').json
    assert listed['nodes'] == [{'uuid': node['uuid'],
                                'chassis_uuid': rack['uuid'],
                                'links': node['links']}]
    assert create_node()['chassis_uuid'] is None
    assert create_node(chassis_uuid=None)['chassis_uuid'] is None


@pytest.mark.parametrize('value, text', [
    (UNKNOWN, 'Chassis %s could not be found.' % UNKNOWN),
    ('not-a-uuid', 'Expected UUID for chassis_uuid: not-a-uuid'),
    ('', 'Expected UUID for chassis_uuid: '),
])
def test_a_node_cannot_name_a_chassis_that_does_not_exist(database, value,
                                                          text):
    resp = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                      'chassis_uuid': value})
    assert error(resp, 400) == text
    node = create_node()
    resp = call('PATCH', '/v1/nodes/' + node['uuid'],
                [{'op': 'add', 'path': '/chassis_uuid', 'value': value}])
    assert error(resp, 400) == text
    assert call('GET', '/v1/nodes').json['nodes'][0]['uuid'] == node['uuid']
    assert len(call('GET', '/v1/nodes').json['nodes']) == 1


def test_a_node_moves_between_chassis(database):
    first, second = chassis(), chassis()
    node = create_node()
    path = '/v1/nodes/' + node['uuid']

    def in_chassis(doc):
        return uuids(call('GET', '/v1/chassis/%s/nodes' % doc['uuid']),
                     'nodes')

    resp = call('PATCH', path, [{'op': 'add', 'path': '/chassis_uuid',
                                 'value': first['uuid']}], version='1.1')
    assert resp.status_int == 200, resp.text
    assert resp.json['chassis_uuid'] == first['uuid']
    resp = call('PATCH', path, [{'op': 'replace', 'path': '/chassis_uuid',
                                 'value': second['uuid']}], version='1.24')
    assert resp.json['chassis_uuid'] == second['uuid']
    assert in_chassis(first) == [] and in_chassis(second) == [node['uuid']]
    # A node leaves its chassis from 1.25 on.
    for op in ({'op': 'remove', 'path': '/chassis_uuid'},
               {'op': 'replace', 'path': '/chassis_uuid', 'value': None}):
        resp = call('PATCH', path, [op], version='1.24')
        assert error(resp, 406) == 'Request not acceptable.'
    resp = call('PATCH', path, [{'op': 'remove', 'path': '/chassis_uuid'}],
                version='1.25')
    assert resp.status_int == 200 and resp.json['chassis_uuid'] is None
    assert in_chassis(second) == []
    # Removing what is not there is no change, at any version.
    resp = call('PATCH', path, [{'op': 'replace', 'path': '/chassis_uuid',
                                 'value': None}], version='1.1')
    assert resp.status_int == 200, resp.text


def test_the_chassis_filter_of_the_node_list(database):
    rack = chassis()
    node = create_node(chassis_uuid=rack['uuid'])
    create_node()
    for path in ('/v1/nodes', '/v1/nodes/detail'):
        resp = call('GET', '%s?chassis_uuid=%s' % (path, rack['uuid']))
        assert uuids(resp, 'nodes') == [node['uuid']]
        resp = call('GET', '%s?chassis_uuid=%s' % (path, UNKNOWN))
        assert error(resp, 404) == ('Chassis %s could not be found.'
                                    % UNKNOWN)
        resp = call('GET', path + '?chassis_uuid=x')
        assert error(resp, 400) == 'Expected UUID for chassis_uuid: x'
    assert uuids(call('GET', '/v1/nodes?chassis_uuid=%s'
                      % chassis()['uuid']), 'nodes') == []


def test_a_deleted_node_leaves_its_chassis_deletable(database):
    rack = chassis()
    node = create_node(chassis_uuid=rack['uuid'])
    assert call('DELETE', '/v1/nodes/' + node['uuid']).status_int == 204
    assert call('DELETE', '/v1/chassis/' + rack['uuid']).status_int == 204


# -- methods and hostile input -----------------------------------------------

@pytest.mark.parametrize('method, path, allow', [
    ('PUT', '/v1/chassis', 'GET, POST'),
    ('DELETE', '/v1/chassis', 'GET, POST'),
    ('POST', '/v1/chassis/detail', 'GET'),
    ('POST', '/v1/chassis/{uuid}', 'DELETE, GET, PATCH'),
    ('PUT', '/v1/chassis/{uuid}', 'DELETE, GET, PATCH'),
])
def test_other_methods_are_405(database, method, path, allow):
    doc = chassis()
    resp = call(method, path.format(uuid=doc['uuid']), {})
    assert resp.status_int == 405
    assert resp.headers['Allow'] == allow


@pytest.mark.parametrize('path', [
    '/v1/chassis?limit=%s' % (2 ** 64), '/v1/chassis?limit=1e3',
    '/v1/chassis?marker=%00', '/v1/chassis?sort_key=%00',
    '/v1/chassis?fields=%FF', '/v1/chassis/%7B%7D', '/v1/chassis/%00',
    '/v1/chassis/' + 'a' * 5000, '/v1/chassis/detail?limit=-0',
    '/v1/chassis/%s/nodes?sort_key=chassis_id' % UNKNOWN,
    '/v1/chassis?fields=uuid&fields=foo', '/v1/chassis?sort_dir=%E2%99%A1',
])
def test_hostile_reads_are_never_500(database, path):
    chassis()
    resp = call('GET', path)
    assert resp.status_int < 500, resp.text


@pytest.mark.parametrize('body', [
    {'description': '\ud800'}, {'extra': {'a': {'b': {'c': [None] * 50}}}},
    {'description': '☃' * 255}, {'extra': {'\x00': 1}},
    {'uuid': '%s' % ('1' * 36)}, {'uuid': None, 'extra': {'k': 1e308}},
])
def test_hostile_writes_are_never_500(database, body):
    resp = call('POST', '/v1/chassis', body)
    assert resp.status_int < 500, resp.text
    if resp.status_int == 201:
        doc = resp.json
        assert call('GET', '/v1/chassis/' + doc['uuid']).json == doc
        ops = [{'op': 'replace', 'path': '/' + key, 'value': value}
               for key, value in body.items() if key != 'uuid']
        resp = patch(doc['uuid'], ops)
        assert resp.status_int < 500, resp.text


def test_db_list_checks_its_arguments(database):
    # The DB layer refuses what the API never sends.
    ctx = context_mod.get_admin_context()
    with pytest.raises(exception.InvalidParameterValue):
        db_chassis.list_chassis(ctx, sort_key='extra')
    with pytest.raises(exception.InvalidParameterValue):
        db_chassis.update_chassis(ctx, 1, {'uuid': UNKNOWN})
