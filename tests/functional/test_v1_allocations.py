"""``/v1/allocations`` as an Ironic client sees it: create, show, list,
PATCH, their version gates, validation and errors, with the upstream
quirks fixed (see docs: the allocation behaviour reference).

Scenarios:
* POST: the 201 document and Location; the row is written (allocating,
  owned by the conductor picked) before the cast; names, UUIDs,
  candidate nodes (names -> UUIDs, order kept); every validation error
  in Ironic's order; 409 on a duplicate name or UUID, and exactly one
  201 when several clients race for one name; 503 with nothing written
  when no conductor is alive or the hand-over fails.
* GET one: by UUID, by name (a UUID-like name too), the ``.json``
  suffix rule, fields, 400/404.
* GET list: every filter, alone and combined with ``node``; fields;
  paging whose ``next`` link keeps the filters; sort errors.
* PATCH: name and extra only; name rules; 409; errors.
* Policy: a project-scoped caller lists its own project's allocations
  (the whole policy is covered by test_v1_policy.py).

Data is written over HTTP where the API can write it, and through the
DB layer for what only a conductor writes (active / error states). The
conductor is a fake recording the calls (``FakeConductorAPI``).
"""

import json
import threading
import types

import pytest
import webob

from allocsvc.api.middleware import auth
from allocsvc.common import exception
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import conductors as db_conductors
from tests import conftest
from tests.functional.ironic_errors import fault
from tests.functional.ironic_errors import message
from tests.helpers import apps
from tests.helpers.v1_allocations import Env

IRONIC = 'X-OpenStack-Ironic-API-Version'
FULL_KEYS = {'uuid', 'name', 'node_uuid', 'state', 'last_error',
             'resource_class', 'traits', 'candidate_nodes', 'extra',
             'created_at', 'updated_at', 'links'}


@pytest.fixture
def env(database):
    return Env()


@pytest.fixture
def bound_env(database, allocation_backend):
    """For tests that bind allocations: once per allocation back end."""
    return Env(backend=allocation_backend)


@pytest.fixture
def sqlite_env():
    """For what never reaches past validation: one backend is enough."""
    conftest.get_database('sqlite').clean()
    return Env()


# -- POST ---------------------------------------------------------------------

def test_create_answers_allocating_and_hands_over(env):
    resp = env.post({'resource_class': 'baremetal'})
    assert resp.status_int == 201
    doc = resp.json
    assert set(doc) == FULL_KEYS | {'owner'}
    assert doc['state'] == 'allocating'
    assert doc['node_uuid'] is None and doc['updated_at'] is None
    assert doc['name'] is None and doc['last_error'] is None
    assert doc['traits'] == [] and doc['candidate_nodes'] == []
    assert doc['extra'] == {} and doc['owner'] is None
    assert doc['created_at'].endswith('+00:00')
    url = 'http://localhost/v1/allocations/' + doc['uuid']
    assert resp.headers['Location'] == url
    assert doc['links'] == [
        {'href': url, 'rel': 'self'},
        {'href': 'http://localhost/allocations/' + doc['uuid'],
         'rel': 'bookmark'}]
    # Intent persisted, owned by the conductor that got the cast.
    [(cast, hostname)] = env.rpc.casts
    assert hostname == env.conductor.hostname
    assert cast.uuid == doc['uuid']
    assert cast.conductor_affinity == env.conductor.id
    [row] = env.rows()
    assert row.state == 'allocating'
    assert row.conductor_affinity == env.conductor.id


def test_create_with_everything(env):
    a = env.node('node-a')
    b = env.node('node-b')
    uuid = '2b0d1bd6-2b5c-4c4b-9b1b-5b0d0b1c8f3e'
    doc = env.create(uuid=uuid, name='alloc.1~x', resource_class='rc-1',
                     traits=['CUSTOM_GOLD', 'HW_CPU_X86_VMX'],
                     candidate_nodes=['node-b', a.uuid, 'node-b'],
                     extra={'k': [1, {'v': None}]}, owner='proj-1')
    assert doc['uuid'] == uuid and doc['name'] == 'alloc.1~x'
    assert doc['resource_class'] == 'rc-1'
    assert doc['traits'] == ['CUSTOM_GOLD', 'HW_CPU_X86_VMX']
    # Names become UUIDs, in the order asked.
    assert doc['candidate_nodes'] == [b.uuid, a.uuid, b.uuid]
    assert doc['extra'] == {'k': [1, {'v': None}]}
    assert doc['owner'] == 'proj-1'
    again = env.call('GET', '/v1/allocations/' + uuid).json
    assert again == doc


def test_owner_is_hidden_below_1_60(env):
    doc = env.create(version='1.52')
    assert set(doc) == FULL_KEYS
    shown = env.call('GET', '/v1/allocations/' + doc['uuid'],
                     version='1.59').json
    assert 'owner' not in shown
    assert 'owner' in env.call('GET', '/v1/allocations/' + doc['uuid'],
                               version='1.60').json


@pytest.mark.parametrize('body', [
    [], 'x', 3,
    {'resource_class': 'rc', 'node_uuid': 'x'},
    {'resource_class': 'rc', 'state': 'active'},
    {'resource_class': 'rc', 'bogus': 1},
    {'resource_class': 'rc', 'created_at': 'x'},
    {'resource_class': 'rc', 'id': 1},
    {'resource_class': 'rc', 'extra': 'x'},
    {'resource_class': 'rc', 'extra': []},
    {'resource_class': 'rc', 'traits': 'CUSTOM_A'},
    {'resource_class': 'rc', 'candidate_nodes': 'node-a'},
    {'resource_class': 'rc', 'candidate_nodes': [1]},
    {'resource_class': 1},
    {'resource_class': 'x' * 81},
    {'resource_class': 'rc', 'traits': ['FOO_BAR']},
    {'resource_class': 'rc', 'traits': ['CUSTOM_lower']},
    {'resource_class': 'rc', 'traits': ['CUSTOM_']},
    {'resource_class': 'rc', 'traits': ['']},
    {'resource_class': 'rc', 'traits': ['CUSTOM_' + 'A' * 249]},
    {'resource_class': 'rc', 'name': 5},
    {'resource_class': 'rc', 'uuid': 5},
    {'resource_class': 'rc', 'owner': 'x' * 256},
])
def test_schema_errors(sqlite_env, body):
    resp = sqlite_env.post(body)
    assert resp.status_int == 400
    assert fault(resp)['faultcode'] == 'Client'
    assert message(resp).startswith('Schema error: ')
    null = sqlite_env.post(raw=b'null')
    assert message(null).startswith('Schema error: ')
    assert sqlite_env.rows() == [] and sqlite_env.rpc.casts == []


def test_schema_messages_name_the_problem(sqlite_env):
    # Ironic 39's words (its request schemas): the first error, and the
    # best match among a choice's own.
    resp = sqlite_env.post({'resource_class': 'rc', 'bogus': 1})
    assert message(resp) == ("Schema error: Additional properties are not "
                             "allowed ('bogus' was unexpected)")
    # A trait that is neither custom nor standard: the custom pattern.
    resp = sqlite_env.post({'resource_class': 'rc', 'traits': ['FOO']})
    assert message(resp) == ("Schema error: 'FOO' is not valid under any "
                             "of the given schemas. Possible root cause: "
                             "'FOO' does not match '^CUSTOM_[A-Z0-9_]+$'")
    resp = sqlite_env.post({'resource_class': 'rc', 'traits': [7]})
    assert message(resp) == "Schema error: 7 is not of type 'string'"
    resp = sqlite_env.post({'resource_class': 5})
    assert message(resp) == ("Schema error: 5 is not of type 'string', "
                             "'null'")


def test_standard_and_custom_traits_are_accepted(sqlite_env):
    doc = sqlite_env.create(traits=['CUSTOM_' + 'A' * 248,
                                    'STORAGE_DISK_SSD', 'CUSTOM_9_X'])
    assert len(doc['traits']) == 3


@pytest.mark.parametrize('uuid', ['not-a-uuid', '1234',
                                  'urn:uuid:2b0d1bd6-2b5c-4c4b-9b1b-'
                                  '5b0d0b1c8f3e'])
def test_uuid_must_be_a_uuid(sqlite_env, uuid):
    # Upstream accepts it, then the allocation stays allocating forever.
    resp = sqlite_env.post({'resource_class': 'rc', 'uuid': uuid})
    assert resp.status_int == 400
    assert message(resp) == 'Expected a UUID but received %s.' % uuid
    assert sqlite_env.rows() == [] and sqlite_env.rpc.casts == []


@pytest.mark.parametrize('raw', [b'{"resource_class": ', b'nope', b'',
                                 b'\xff\xfe'])
def test_malformed_body_is_400(sqlite_env, raw):
    # Upstream: 500.
    resp = sqlite_env.post(raw=raw)
    assert resp.status_int == 400
    # Not UTF-8 at all: Pecan refuses it before the controller.
    assert fault(resp).get('faultcode', 'Client') == 'Client'
    assert sqlite_env.rows() == []


def test_owner_needs_1_60(sqlite_env):
    resp = sqlite_env.post({'resource_class': 'rc', 'owner': 'p'},
                           version='1.59')
    assert resp.status_int == 406
    assert message(resp) == 'Request not acceptable.'
    # An explicit null is no owner at all.
    ok = sqlite_env.post({'resource_class': 'rc', 'owner': None},
                         version='1.59')
    assert ok.status_int == 201


@pytest.mark.parametrize('name', ['aa:bb_cc', '[test]', 'has space', 'a/b',
                                  'ba!na!na', '', 'x' * 256])
def test_invalid_names(sqlite_env, name):
    resp = sqlite_env.post({'resource_class': 'rc', 'name': name})
    assert resp.status_int == 400
    assert message(resp) == ("Cannot create allocation with invalid name "
                             "'%s'" % name)
    assert sqlite_env.rows() == []


def test_node_needs_1_58(sqlite_env):
    resp = sqlite_env.post({'resource_class': 'rc', 'node': 'n'},
                           version='1.57')
    assert resp.status_int == 400
    assert "'node' was unexpected" in message(resp)


@pytest.mark.parametrize('body', [{}, {'resource_class': ''},
                                  {'resource_class': None},
                                  {'name': 'x', 'node': None}])
def test_resource_class_is_mandatory(sqlite_env, body):
    resp = sqlite_env.post(body)
    assert resp.status_int == 400
    assert message(resp) == ('The resource_class field is mandatory when '
                             'not backfilling')


def test_unknown_candidates_are_named(env):
    env.node('known')
    missing = '7f4c1a4e-2d54-4a1f-9a43-2b8f1e5a7c10'
    resp = env.post({'resource_class': 'rc',
                     'candidate_nodes': ['known', 'ghost', missing,
                                         'ba!na!na']})
    assert resp.status_int == 400
    assert message(resp) == ('Nodes cannot be found: ghost, %s, ba!na!na'
                             % missing)
    assert env.rows() == []
    # An empty list is no list.
    assert env.create(candidate_nodes=[])['candidate_nodes'] == []


def test_duplicate_name_and_uuid_are_409(env):
    first = env.create(name='taken')
    resp = env.post({'resource_class': 'rc', 'name': 'taken'})
    assert resp.status_int == 409
    assert message(resp) == 'An allocation with name taken already exists.'
    resp = env.post({'resource_class': 'rc', 'uuid': first['uuid']})
    assert resp.status_int == 409
    assert message(resp) == ('An allocation with UUID %s already exists.'
                             % first['uuid'])
    assert len(env.rows()) == 1 and len(env.rpc.casts) == 1


def test_concurrent_posts_with_one_name(env):
    clients = 6
    barrier = threading.Barrier(clients)
    statuses = []

    def client():
        barrier.wait()
        statuses.append(env.post({'resource_class': 'rc',
                                  'name': 'race'}).status_int)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] + [409] * (clients - 1)
    assert [row.name for row in env.rows()] == ['race']


def test_no_conductor_alive_is_503_and_writes_nothing(env, caplog):
    db_conductors.unregister(env.ctx, env.conductor.hostname)
    resp = env.post({'resource_class': 'rc', 'name': 'n'})
    assert resp.status_int == 503
    assert fault(resp)['faultcode'] == 'Server'
    assert message(resp) == ('No conductor can process the request: no '
                             'conductor is alive.')
    assert env.rows() == [] and env.rpc.casts == []
    # An outage, logged as one warning per request, not as a traceback.
    [record] = [r for r in caplog.records
                if r.name == 'allocsvc.api.controllers.v1.dispatch']
    assert record.levelname == 'WARNING'
    assert record.getMessage() == (
        'Answered 503: No conductor can process the request: no '
        'conductor is alive.')
    assert not [r for r in caplog.records if r.levelname == 'ERROR']


def test_conductor_gone_since_the_list_was_read_is_replaced(env, monkeypatch):
    # The API keeps the list of live conductors for a moment; a conductor
    # whose row was deleted meanwhile (and came back under a new id) is
    # no foreign key to write: the API reads the list again and picks
    # from it, rather than answering a 500.
    gone = types.SimpleNamespace(id=987654, hostname='gone-host')
    picks = []
    real_pick = env.rpc.pick_conductor

    def pick(context):
        picks.append(context)
        return gone if len(picks) == 1 else real_pick(context)

    monkeypatch.setattr(env.rpc, 'pick_conductor', pick)
    resp = env.post({'resource_class': 'rc', 'name': 'n'})
    assert resp.status_int == 201, resp.text
    assert len(picks) == 2
    [row] = env.rows()
    assert row.conductor_affinity == env.conductor.id
    [(cast, hostname)] = env.rpc.casts
    assert hostname == env.conductor.hostname

    # No conductor row at all on the second look either: 503, nothing
    # written.
    monkeypatch.setattr(env.rpc, 'pick_conductor', lambda context: gone)
    resp = env.post({'resource_class': 'rc', 'name': 'm'})
    assert resp.status_int == 503, resp.text
    assert message(resp) == ('No conductor can process the request: '
                             'conductor gone-host is gone.')
    assert [r.name for r in env.rows()] == ['n']


@pytest.mark.parametrize('error,status', [
    (RuntimeError('broker gone'), 503),
    (exception.NoFreeConductorWorker(), 503),
])
def test_failed_hand_over_leaves_nothing_allocating(env, error, status):
    env.rpc.cast_error = error
    resp = env.post({'resource_class': 'rc', 'name': 'n'})
    assert resp.status_int == status
    assert env.rows() == []
    # The name is free again.
    env.rpc.cast_error = None
    assert env.post({'resource_class': 'rc',
                     'name': 'n'}).status_int == 201


# -- version gates ------------------------------------------------------------

@pytest.mark.parametrize('method,path,version,status', [
    ('GET', '/v1/allocations', '1.51', 404),
    ('GET', '/v1/allocations', None, 404),
    ('GET', '/v1/allocations/x', '1.51', 404),
    ('GET', '/v1/allocations/ba!na!na', '1.1', 404),
    ('POST', '/v1/allocations', '1.51', 405),
    ('DELETE', '/v1/allocations/x', '1.51', 405),
    ('DELETE', '/v1/allocations/ba!na!na', '1.14', 405),
    ('PATCH', '/v1/allocations/x', '1.51', 405),
    ('PATCH', '/v1/allocations/x', '1.56', 405),
    ('PUT', '/v1/allocations/x', 'latest', 405),
    ('POST', '/v1/allocations/x', 'latest', 405),
    ('GET', '/v1/allocations/x/y', 'latest', 404),
])
def test_version_gates_and_methods(sqlite_env, method, path, version,
                                   status):
    body = [] if method == 'PATCH' else {'resource_class': 'rc'}
    resp = sqlite_env.call(method, path, body, version=version)
    assert resp.status_int == status
    assert sqlite_env.rows() == []


def test_v1_links_allocations_from_1_52(sqlite_env):
    assert 'allocations' not in sqlite_env.call('GET', '/v1',
                                                version='1.51').json
    links = sqlite_env.call('GET', '/v1', version='1.52').json
    assert links['allocations'][0] == {
        'href': 'http://localhost/v1/allocations/', 'rel': 'self'}


# -- GET one ------------------------------------------------------------------

def test_show_by_uuid_and_name(env):
    doc = env.create(name='by-name')
    for ident in (doc['uuid'], 'by-name'):
        resp = env.call('GET', '/v1/allocations/' + ident)
        assert resp.status_int == 200 and resp.json == doc


def test_an_allocation_named_like_a_uuid_can_be_found(env):
    # Upstream looks UUID-like idents up by UUID only.
    name = '0f6e2f3a-7d0c-4a39-8d6b-0d8b8a3d1e11'
    doc = env.create(name=name)
    assert env.call('GET', '/v1/allocations/' + name).json == doc
    assert env.call('DELETE', '/v1/allocations/' + name).status_int == 204


def test_show_errors(env):
    resp = env.call('GET', '/v1/allocations/ba!na!na')
    assert resp.status_int == 400
    assert message(resp) == ('Expected a logical name or UUID but received '
                             'ba!na!na.')
    resp = env.call('GET', '/v1/allocations/nope')
    assert resp.status_int == 404
    assert fault(resp) == {'faultcode': 'Client', 'debuginfo': None,
                           'faultstring': 'Allocation nope could not be '
                                          'found.'}
    doc = env.create()
    resp = env.call('GET', '/v1/allocations/%s?bogus=1' % doc['uuid'])
    assert resp.status_int == 400
    assert message(resp) == 'Unexpected arguments: bogus'


def test_json_suffix_up_to_1_90(env):
    doc = env.create(name='suffixed')
    for ident in (doc['uuid'], 'suffixed'):
        path = '/v1/allocations/%s.json' % ident
        assert env.call('GET', path, version='1.90').status_int == 200
        assert env.call('GET', path, version='1.91').status_int == 404
    # Not found either way: Ironic names the ident as given.
    for method in ('GET', 'DELETE'):
        resp = env.call(method, '/v1/allocations/nope.json', version='1.90')
        assert resp.status_int == 404
        assert message(resp) == 'Allocation nope.json could not be found.'
    # A name that really ends with .json is found as such first.
    named = env.create(name='real.json')
    assert env.call('GET', '/v1/allocations/real.json',
                    version='1.60').json['uuid'] == named['uuid']


def test_show_fields(env):
    doc = env.create(owner='p')
    resp = env.call('GET', '/v1/allocations/%s?fields=uuid,state,owner'
                    % doc['uuid'])
    assert resp.json == {'uuid': doc['uuid'], 'state': 'allocating',
                         'owner': 'p', 'links': doc['links']}
    for fields, version in (('bogus', 'latest'), ('owner', '1.59'),
                            ('uuid,node', 'latest')):
        resp = env.call('GET', '/v1/allocations/%s?fields=%s'
                        % (doc['uuid'], fields), version=version)
        assert resp.status_int == 400, fields
        assert fields.split(',')[-1] in message(resp)


# -- GET list -----------------------------------------------------------------

def _uuids(resp):
    assert resp.status_int == 200, resp.text
    return [a['uuid'] for a in resp.json['allocations']]


def test_list_in_creation_order_with_full_documents(env):
    docs = [env.create(name='a%d' % i) for i in range(3)]
    resp = env.call('GET', '/v1/allocations')
    assert resp.json == {'allocations': docs}


def test_list_filters_combine_with_node(bound_env):
    env = bound_env
    # Upstream: node + resource_class or owner is a 500.
    node = env.node('n1', resource_class='rc-a')
    other = env.node('n2', resource_class='rc-a')
    a = env.create(resource_class='rc-a', owner='p1')
    b = env.create(resource_class='rc-a', owner='p2')
    c = env.create(resource_class='rc-b', owner='p1')
    env.bind(a, node)
    env.bind(b, other)

    def listed(query):
        return _uuids(env.call('GET', '/v1/allocations?' + query))

    assert listed('resource_class=rc-a') == [a['uuid'], b['uuid']]
    assert listed('owner=p1') == [a['uuid'], c['uuid']]
    assert listed('state=active') == [a['uuid'], b['uuid']]
    assert listed('state=allocating') == [c['uuid']]
    assert listed('state=bogus') == []
    assert listed('node=n1') == [a['uuid']]
    assert listed('node=%s' % other.uuid) == [b['uuid']]
    assert listed('node=n1&resource_class=rc-a') == [a['uuid']]
    assert listed('node=n1&resource_class=rc-b') == []
    assert listed('node=n1&owner=p1&state=active') == [a['uuid']]
    assert listed('node=n2&owner=p1') == []


def test_list_errors(env):
    cases = [
        ('node=ghost', 400, 'Node ghost could not be found.'),
        ('node=ba!na!na', 400, 'Expected a logical name or UUID but '
                               'received ba!na!na.'),
        ('bogus=1&other=2', 400, 'Unexpected arguments: bogus, other'),
        ('fields=bogus', 400, 'Field(s) "bogus" are not valid'),
        ('limit=-1', 400, 'Limit must be positive'),
        ('limit=x', 400, 'Invalid value for limit: "x" is not an integer'),
        ('sort_dir=up', 400, "Invalid sort direction: up. Acceptable values "
                             "are 'asc' or 'desc'"),
        ('marker=nope', 400, 'Expected a UUID but received nope.'),
        ('marker=7f4c1a4e-2d54-4a1f-9a43-2b8f1e5a7c10', 404,
         'Allocation 7f4c1a4e-2d54-4a1f-9a43-2b8f1e5a7c10 could not be '
         'found.'),
    ]
    for key in ('extra', 'candidate_nodes', 'traits', 'bogus',
                'node_uuid'):
        cases.append(('sort_key=' + key, 400, 'The sort_key value "%s" is '
                      'an invalid field for sorting' % key))
    for query, status, text in cases:
        resp = env.call('GET', '/v1/allocations?' + query)
        assert resp.status_int == status, query
        assert message(resp) == text, query


def test_owner_filter_and_field_need_1_60(env):
    resp = env.call('GET', '/v1/allocations?owner=p', version='1.59')
    assert resp.status_int == 406
    resp = env.call('GET', '/v1/allocations?fields=owner', version='1.59')
    assert resp.status_int == 400


def test_list_fields(env):
    doc = env.create(name='f')
    resp = env.call('GET', '/v1/allocations?fields=name,node_uuid')
    assert resp.json == {'allocations': [
        {'name': 'f', 'node_uuid': None, 'links': doc['links']}]}


def test_paging_keeps_the_filters(env):
    # Upstream drops resource_class from the next link.
    wanted = []
    for i in range(5):
        wanted.append(env.create(name='p%d' % i, resource_class='rc-p'))
        env.create(resource_class='rc-q')
    seen = []
    path = '/v1/allocations?resource_class=rc-p&limit=2&fields=name'
    pages = 0
    while path:
        resp = env.call('GET', path)
        assert resp.status_int == 200
        pages += 1
        seen += [a['name'] for a in resp.json['allocations']]
        path = resp.json.get('next')
        if path:
            assert 'resource_class=rc-p' in path
            assert 'fields=name' in path
            path = path.replace('http://localhost', '')
    assert seen == ['p0', 'p1', 'p2', 'p3', 'p4']
    assert pages == 3


def test_limit_is_capped_by_max_limit(database):
    env = Env(conf=conftest.make_conf(max_limit=2))
    for i in range(3):
        env.create()
    resp = env.call('GET', '/v1/allocations?limit=50')
    assert len(resp.json['allocations']) == 2
    assert 'limit=2' in resp.json['next']
    assert len(env.call('GET', '/v1/allocations').json['allocations']) == 2


def test_sorting(env):
    for name in ('b', 'c', 'a'):
        env.create(name=name)
    resp = env.call('GET', '/v1/allocations?sort_key=name&sort_dir=desc')
    assert [a['name'] for a in resp.json['allocations']] == ['c', 'b', 'a']
    resp = env.call('GET', '/v1/allocations?sort_key=name&limit=1')
    assert resp.json['allocations'][0]['name'] == 'a'
    assert 'sort_key=name' in resp.json['next']
    nxt = env.call('GET', resp.json['next'].replace('http://localhost', ''))
    assert [a['name'] for a in nxt.json['allocations']] == ['b']


# -- PATCH --------------------------------------------------------------------

def _patch(env, ident, ops, version='latest'):
    return env.call('PATCH', '/v1/allocations/' + ident, ops,
                    version=version)


def test_patch_name_and_extra(env):
    doc = env.create(name='old', extra={'a': 1})
    resp = _patch(env, 'old', [
        {'op': 'replace', 'path': '/name', 'value': 'new'},
        {'op': 'add', 'path': '/extra/b', 'value': {'c': 2}},
        {'op': 'remove', 'path': '/extra/a'}], version='1.57')
    assert resp.status_int == 200
    patched = resp.json
    assert patched['name'] == 'new'
    assert patched['extra'] == {'b': {'c': 2}}
    assert patched['updated_at'] is not None
    assert 'owner' not in patched
    assert env.call('GET', '/v1/allocations/new').json['uuid'] == doc['uuid']
    assert env.call('GET', '/v1/allocations/old').status_int == 404
    # A null name, and a removed one, are no name.
    resp = _patch(env, doc['uuid'], [{'op': 'replace', 'path': '/name',
                                      'value': None}])
    assert resp.json['name'] is None
    _patch(env, doc['uuid'], [{'op': 'add', 'path': '/name',
                               'value': 'again'}])
    resp = _patch(env, 'again', [{'op': 'remove', 'path': '/name'},
                                 {'op': 'remove', 'path': '/extra'}])
    assert resp.json['name'] is None and resp.json['extra'] == {}


def test_patch_works_in_every_state(bound_env):
    env = bound_env
    node = env.node('n')
    active = env.create(name='active')
    env.bind(active, node)
    env.create(name='failed')
    db_allocations.fail_allocation(
        env.ctx, db_allocations.get_by_name(env.ctx, 'failed').id,
        env.conductor.id, 'nope')
    for name in ('active', 'failed'):
        resp = _patch(env, name, [{'op': 'add', 'path': '/extra/x',
                                   'value': 1}])
        assert resp.status_int == 200
        assert resp.json['extra'] == {'x': 1}
    shown = env.call('GET', '/v1/allocations/active').json
    assert shown['state'] == 'active' and shown['node_uuid'] == node.uuid
    assert env.call('GET', '/v1/allocations/failed').json['last_error'] == \
        'nope'


@pytest.mark.parametrize('path', ['/uuid', '/resource_class', '/state',
                                  '/node_uuid', '/owner', '/traits',
                                  '/candidate_nodes', '/last_error', '/foo',
                                  '/namex', '/links'])
def test_patch_other_fields_is_400(sqlite_env, path):
    doc = sqlite_env.create(name='x')
    resp = _patch(sqlite_env, 'x', [{'op': 'replace', 'path': path,
                                     'value': 'v'}])
    assert resp.status_int == 400
    assert message(resp) == ('Cannot patch %s. Only the following can be '
                             'updated: name, extra' % path)
    assert sqlite_env.call('GET', '/v1/allocations/x').json == doc


def test_patch_errors(env):
    env.create(name='x', extra={'a': 1})
    env.create(name='taken')
    cases = [
        ([{'op': 'replace', 'path': '/name', 'value': 'taken'}], 409,
         'An allocation with name taken already exists.'),
        ([{'op': 'replace', 'path': '/name', 'value': 'ba!na!na'}], 400,
         "Cannot update allocation with invalid name 'ba!na!na'"),
        ([{'op': 'replace', 'path': '/name', 'value': ''}], 400,
         "Cannot update allocation with invalid name ''"),
        ([{'op': 'replace', 'path': '/name', 'value': 3}], 400,
         "Cannot update allocation with invalid name '3'"),
        # Ironic 39's words: its patch schema, then the patched one.
        ([{'op': 'replace', 'path': '/extra', 'value': 'x'}], 400,
         "Schema error for patch: 'x' is not of type 'object', 'null'"),
        ([{'op': 'move', 'path': '/name'}], 400,
         "Schema error: 'move' is not one of ['add', 'replace', "
         "'remove']"),
        ([5], 400, "Schema error: 5 is not of type 'object'"),
        ([{'op': 'remove', 'path': '/extra/nope'}], 400,
         "Couldn't apply patch '{'op': 'remove', 'path': '/extra/nope'}'. "
         "Reason: can't remove a non-existent object 'nope'"),
        # The operation that fails is named, not the whole patch.
        ([{'op': 'add', 'path': '/extra/b', 'value': 2},
          {'op': 'replace', 'path': '/extra/c', 'value': 3}], 400,
         "Couldn't apply patch '{'op': 'replace', 'path': '/extra/c', "
         "'value': 3}'. Reason: can't replace a non-existent object 'c'"),
        ([{'op': 'add', 'path': '/extra/a/b', 'value': 1}], 400, None),
        ({'op': 'remove', 'path': '/name'}, 400,
         "Schema error: {'op': 'remove', 'path': '/name'} is not of type "
         "'array'"),
        ([{'op': 'move', 'from': '/name', 'path': '/extra/n'}], 400, None),
        ([{'op': 'add', 'path': '/extra/x'}], 400,
         "'add' and 'replace' operations need a value"),
        ([{'op': 'replace', 'path': 'name', 'value': 'y'}], 400, None),
    ]
    for ops, status, text in cases:
        resp = _patch(env, 'x', ops)
        assert resp.status_int == status, ops
        if text:
            assert message(resp) == text, ops
    resp = env.call('PATCH', '/v1/allocations/x', raw=b'[{')
    assert resp.status_int == 400
    shown = env.call('GET', '/v1/allocations/x').json
    assert shown['extra'] == {'a': 1} and shown['updated_at'] is None
    resp = _patch(env, 'ghost', [{'op': 'remove', 'path': '/name'}])
    assert resp.status_int == 404
    assert message(resp) == 'Allocation ghost could not be found.'


# -- policy -------------------------------------------------------------------

@pytest.fixture
def keystone_env(database, monkeypatch):
    """A keystone deployment with the default policy, whose token check is
    left out: the identity headers reach the context as keystonemiddleware
    would set them. (tests/functional/test_v1_policy.py covers the rules
    in full.)"""
    conf = conftest.make_conf(auth_strategy='keystone')
    monkeypatch.setattr(auth, 'KeystoneAuth', lambda app, conf: app)
    env = Env(conf=conf)
    env.app = apps.baremetal(conf, env.rpc)
    return env


def _as(project, *roles):
    return {'X-Project-Id': project, 'X-Roles': ','.join(roles),
            'X-User-Id': 'u-' + project}


SYSTEM_ADMIN = {'OpenStack-System-Scope': 'all', 'X-User-Id': 'admin',
                'X-Roles': 'admin,member,reader'}


def test_project_scoped_listing(keystone_env):
    env = keystone_env
    mine = env.create(owner='p1', headers=SYSTEM_ADMIN)
    env.create(owner='p2', headers=SYSTEM_ADMIN)
    env.create(headers=SYSTEM_ADMIN)
    everything = env.call('GET', '/v1/allocations', headers=SYSTEM_ADMIN)
    assert len(_uuids(everything)) == 3
    for member in (_as('p1', 'member', 'reader'), _as('p1', 'reader')):
        assert _uuids(env.call('GET', '/v1/allocations',
                               headers=member)) == [mine['uuid']]
        assert _uuids(env.call('GET', '/v1/allocations?owner=p1',
                               headers=member)) == [mine['uuid']]
        resp = env.call('GET', '/v1/allocations?owner=p2', headers=member)
        assert resp.status_int == 403
    # Without a role on the project, nothing is listed.
    assert env.call('GET', '/v1/allocations',
                    headers=_as('p1')).status_int == 403
    # Another project's allocation, or none, is not found.
    member = _as('p1', 'member', 'reader')
    assert env.call('GET', '/v1/allocations/' + mine['uuid'],
                    headers=member).status_int == 200
    for ident in (everything.json['allocations'][1]['uuid'], 'ghost'):
        resp = env.call('GET', '/v1/allocations/' + ident, headers=member)
        assert resp.status_int == 404


# -- hostile input ------------------------------------------------------------

NUL = '\u0000'
HOSTILE_BODIES = [
    {'resource_class': NUL}, {'resource_class': 'rc', 'owner': NUL},
    {'resource_class': 'rc', 'name': NUL},
    {'resource_class': 'rc', 'extra': {NUL: NUL}},
    {'resource_class': 'rc', 'candidate_nodes': [NUL, 'x' * 300]},
    {'resource_class': 'é' * 80},
    {'resource_class': 'rc', 'owner': 'é' * 255},
    {'resource_class': 'rc', 'extra': {'k': 'x' * 70000}},
    {'resource_class': 'rc', 'traits': ['CUSTOM_' + 'A' * 248] * 300},
    {'resource_class': 'rc', 'node': NUL},
    {'resource_class': 'rc', 'node': 'x' * 300},
    {'resource_class': 'rc', 'uuid': 'A' * 32},
]
HOSTILE_QUERIES = ['resource_class=%00', 'owner=%00', 'state=%00',
                   'node=%00', 'marker=%00', 'sort_key=%00', 'fields=%00',
                   'limit=99999999999999999999', 'state=' + '%C3%A9' * 100,
                   'resource_class=' + 'x' * 300]


def test_hostile_input_is_never_a_500(env):
    """Each is refused (or stored) cleanly on every backend: PostgreSQL
    cannot store or compare a NUL, MariaDB's TEXT holds 64 KiB."""
    statuses = set()
    for body in HOSTILE_BODIES:
        resp = env.post(body)
        assert resp.status_int < 500, body
        statuses.add(resp.status_int)
    for query in HOSTILE_QUERIES:
        resp = env.call('GET', '/v1/allocations?' + query)
        assert resp.status_int < 500, query
    for method in ('GET', 'DELETE', 'PATCH'):
        for ident in ('%00', '%C3%A9' * 100, 'x' * 300):
            resp = env.call(method, '/v1/allocations/' + ident,
                            [] if method == 'PATCH' else None)
            assert resp.status_int < 500, (method, ident)
    env.create(name='x')
    for ops in ([{'op': 'add', 'path': '/extra/k', 'value': 'x' * 70000}],
                [{'op': 'add', 'path': '/extra/' + NUL, 'value': NUL}],
                [{'op': 'replace', 'path': '/name', 'value': NUL}]):
        resp = env.call('PATCH', '/v1/allocations/x', ops)
        assert resp.status_int < 500, ops
    assert statuses == {201, 400}


def test_an_api_without_conductor_client_answers_503(sqlite_env):
    app = apps.whole(sqlite_env.conf)
    sqlite_env.app = app
    resp = sqlite_env.post({'resource_class': 'rc'})
    assert resp.status_int == 503
    assert message(resp) == ('No conductor can process the request: no '
                             'conductor client is configured.')
    assert sqlite_env.rows() == []


# -- the edges WSME used to answer --------------------------------------------

def test_patch_before_1_57_is_a_fault_without_allow(sqlite_env):
    # A 405 the handler answers (the route takes PATCH): Ironic's fault
    # document in webob's words, and no Allow header.
    resp = sqlite_env.call('PATCH', '/v1/allocations/x', [], version='1.56')
    assert resp.status_int == 405
    assert 'Allow' not in resp.headers
    assert fault(resp) == {
        'faultcode': 'Client', 'debuginfo': None,
        'faultstring': 'The server could not comply with the request since '
                       'it is either malformed or otherwise incorrect.'}


def test_show_with_fields_repeated_keeps_the_last(env):
    doc = env.create(name='repeated')
    resp = env.call('GET',
                    '/v1/allocations/repeated?fields=name&fields=uuid')
    assert resp.status_int == 200
    assert set(resp.json) == {'uuid', 'links'}
    assert resp.json['uuid'] == doc['uuid']
    # The list reads both (Ironic's list parameter).
    resp = env.call('GET', '/v1/allocations?fields=name&fields=uuid')
    assert set(resp.json['allocations'][0]) == {'name', 'uuid', 'links'}


@pytest.mark.parametrize('method,path,body', [
    ('POST', '/v1/allocations?bogus=1', {'resource_class': 'rc'}),
    ('PATCH', '/v1/allocations/{uuid}?bogus=1', []),
    ('DELETE', '/v1/allocations/{uuid}?bogus=1', None),
])
def test_writes_ignore_the_query(env, method, path, body):
    doc = env.create(name='target')
    resp = env.call(method, path.format(uuid=doc['uuid']), body)
    assert resp.status_int in (200, 201, 204), resp.text


def test_arguments_read_as_wsme_read_them(env):
    # A list's or show's arguments come from the query string only (WSME
    # also took them from the keys of a GET's JSON body, Ironic never
    # did); the body as WSME read it (dispatch.wsme_arguments).
    env.create(name='one')
    env.create(name='two')
    resp = env.call('GET', '/v1/allocations', {'limit': '1'})
    assert len(resp.json['allocations']) == 2
    resp = env.call('GET', '/v1/allocations?limit=1', {'limit': '2'})
    assert len(resp.json['allocations']) == 1
    resp = env.call('GET', '/v1/allocations/one', {'fields': 'bogus'})
    assert resp.status_int == 200 and 'extra' in resp.json
    resp = env.call('GET', '/v1/allocations?__body__=x')
    assert resp.status_int == 415
    assert message(resp) == 'Unknown mimetype: '
    resp = env.call('POST', '/v1/allocations?body=%7B%7D',
                    {'resource_class': 'rc'})
    assert message(resp) == 'Parameter body was given several times'
    resp = env.call('POST', '/v1/allocations?body=%7B%7D')
    assert message(resp) == "Schema error: '{}' is not of type 'object'"
    resp = env.call('PATCH', '/v1/allocations/one?patch=%5B%5D',
                    [{'op': 'add', 'path': '/extra/a', 'value': 1}])
    assert message(resp) == 'Parameter patch was given several times'


def test_members_in_the_order_wsme_gave_them(env):
    doc = env.create(name='ordered')
    resp = env.call('GET', '/v1/allocations/ordered')
    assert list(json.loads(resp.text)) == [
        'uuid', 'name', 'node_uuid', 'state', 'last_error',
        'resource_class', 'traits', 'candidate_nodes', 'extra', 'owner',
        'created_at', 'updated_at', 'links']
    resp = env.call('GET', '/v1/allocations/%s?fields=owner' % doc['uuid'])
    assert list(json.loads(resp.text)) == ['owner', 'links']


def _typed(env, method, path, body, content_type):
    req = webob.Request.blank(path, method=method,
                              headers={IRONIC: 'latest'})
    req.body = body
    req.content_type = content_type
    return req.get_response(env.app)


@pytest.mark.parametrize('method,path', [
    ('GET', '/v1/allocations'), ('GET', '/v1/allocations/x'),
    ('POST', '/v1/allocations'), ('DELETE', '/v1/allocations/x'),
    ('GET', '/v1/nodes/x/allocation'),
])
def test_a_body_that_is_not_xml_is_400(sqlite_env, method, path):
    resp = _typed(sqlite_env, method, path, b'<a', 'text/xml')
    assert resp.status_int == 400
    assert message(resp) == 'Request is not in valid XML format'


@pytest.mark.parametrize('method,path', [
    ('GET', '/v1/allocations'), ('GET', '/v1/allocations/x'),
    ('DELETE', '/v1/allocations/x'), ('GET', '/v1/nodes/x/allocation'),
])
def test_a_get_or_delete_body_must_be_an_object(sqlite_env, method, path):
    resp = sqlite_env.call(method, path, [1])
    assert resp.status_int == 400
    assert message(resp) == 'Request must be a JSON dict'
    resp = _typed(sqlite_env, method, path, b'x', 'text/plain')
    assert resp.status_int == 415
    assert message(resp) == 'Unknown mimetype: text/plain'
