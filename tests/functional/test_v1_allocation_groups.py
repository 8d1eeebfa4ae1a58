"""``/v1/allocation_groups`` over HTTP, answered by the API tests' live
conductor (database back end; both back ends are covered by
test_conductor_allocation_groups.py), on SQLite, MariaDB and
PostgreSQL.

Scenarios:

* POST: 201 with the group document, ``allocating``; the conductor
  finishes it ``active`` with N distinct nodes, or ``error`` with the
  reason and nothing held; names of the group and of its members;
* members are ordinary allocations: ``GET /v1/allocations`` lists them
  with Ironic's document (no group field), one can be shown and deleted
  (the group then has one node fewer);
* DELETE of the group frees every node; GET by UUID and by name; list;
  a group created while the job of a deleted one of the same id (SQLite
  repeats ids) is ending is still run;
* errors: 400 (schema, names, member names, unknown candidate nodes),
  404 below 1.52 and for an unknown group, 405 for another method, 406
  for ``owner`` below 1.60, 409 for a taken name;
* policy: readers may not create (403), a project sees and deletes only
  its own groups (404 for another's), its groups are owned by it;
* ``GET /v1`` is unchanged (the root lists the extension).
"""

import threading

import pytest

from allocsvc.common import states
from allocsvc.conductor import allocation_groups
from allocsvc.db.baremetal import allocation_groups as db_groups
from allocsvc.db.baremetal import nodes as db_nodes
from tests import conftest
from tests.functional.ironic_errors import message
from tests.helpers import v1_policy
from tests.helpers import waiting
from tests.helpers.v1_allocations import Env

PATH = '/v1/allocation_groups'


@pytest.fixture
def env(database):
    return Env()


@pytest.fixture
def sqlite_env():
    """For what never reaches the conductor: one database is enough."""
    conftest.get_database('sqlite').clean()
    return Env()


def _post(env, body, status=201, **kwargs):
    resp = env.call('POST', PATH, body, **kwargs)
    assert resp.status_int == status, resp.text
    return resp


def _final(env, uuid, **kwargs):
    def done():
        doc = env.call('GET', '%s/%s' % (PATH, uuid), **kwargs).json
        return doc if doc['state'] != states.ALLOCATING else None
    return waiting.wait_for(done)


def test_a_group_of_exactly_the_nodes_there_are(env):
    made = [env.node('n%d' % i) for i in range(3)]
    resp = _post(env, {'resource_class': 'baremetal', 'count': 3,
                       'name': 'control-plane',
                       'member_names': ['cp-a', 'cp-b']})
    doc = resp.json
    assert resp.headers['Location'].endswith('%s/%s' % (PATH, doc['uuid']))
    assert doc['state'] == 'allocating'
    assert doc['name'] == 'control-plane' and doc['count'] == 3
    assert doc['spread'] is None and doc['last_error'] is None
    assert [m['node_uuid'] for m in doc['members']] == [None] * 3
    assert set(doc) == {
        'uuid', 'name', 'state', 'resource_class', 'traits',
        'candidate_nodes', 'owner', 'count', 'spread', 'members',
        'last_error', 'created_at', 'updated_at', 'links'}
    doc = _final(env, doc['uuid'])
    assert doc['state'] == 'active', doc['last_error']
    assert sorted(m['node_uuid'] for m in doc['members']) == \
        sorted(n.uuid for n in made)
    # By name too.
    shown = env.call('GET', PATH + '/control-plane').json
    assert shown == doc
    # The members are ordinary allocations, in Ironic's document.
    listed = env.call('GET', '/v1/allocations').json['allocations']
    assert sorted(a['uuid'] for a in listed) == \
        sorted(m['uuid'] for m in doc['members'])
    assert {a['name'] for a in listed} == {'cp-a', 'cp-b', None}
    for allocation in listed:
        assert 'group' not in str(sorted(allocation))
        assert allocation['state'] == 'active'


def test_one_node_too_few_is_an_error_and_nothing_is_held(env):
    made = [env.node('n%d' % i) for i in range(2)]
    doc = _post(env, {'resource_class': 'baremetal', 'count': 3}).json
    doc = _final(env, doc['uuid'])
    assert doc['state'] == 'error'
    assert 'only 2 of the 3 nodes the group needs are suitable' in \
        doc['last_error']
    assert [m['node_uuid'] for m in doc['members']] == [None] * 3
    for node in made:
        assert db_nodes.get(env.ctx, node.uuid).allocation_id is None
    listed = env.call('GET', '/v1/allocations').json['allocations']
    assert {a['state'] for a in listed} == {'error'}


def test_spread_strict_over_conductor_groups(env):
    env.node('a1', conductor_group='a')
    env.node('a2', conductor_group='a')
    env.node('b1', conductor_group='b')
    spread = {'by': 'conductor_group', 'strict': True}
    doc = _final(env, _post(env, {'resource_class': 'baremetal', 'count': 2,
                                  'spread': spread}).json['uuid'])
    assert doc['state'] == 'active', doc['last_error']
    assert doc['spread'] == {'by': 'conductor_group', 'max_per_domain': 1,
                             'strict': True}
    groups = {db_nodes.get(env.ctx, m['node_uuid']).conductor_group
              for m in doc['members']}
    assert groups == {'a', 'b'}
    env.call('DELETE', '%s/%s' % (PATH, doc['uuid']))
    doc = _final(env, _post(env, {'resource_class': 'baremetal', 'count': 3,
                                  'spread': spread}).json['uuid'])
    assert doc['state'] == 'error'
    assert 'the spread rule (at most 1 node per conductor_group) could ' \
        'not be met' in doc['last_error']


def test_a_group_cast_while_a_job_of_its_id_ends_is_run(
        database, env, monkeypatch):
    """SQLite gives a new row the id of the last one deleted: a group
    created while the job of a deleted group of the same id is still
    ending must not be taken for that job and left ``allocating``."""
    env.node('n0')
    real = allocation_groups.allocate_group
    ending, release = threading.Event(), threading.Event()

    def slow_to_end(*args, **kwargs):
        try:
            return real(*args, **kwargs)
        finally:
            if not ending.is_set():
                ending.set()
                release.wait(30)

    monkeypatch.setattr(allocation_groups, 'allocate_group', slow_to_end)
    try:
        first = _post(env, {'resource_class': 'baremetal', 'count': 1})
        first = _final(env, first.json['uuid'])
        assert first['state'] == 'active' and ending.wait(30)
        first_id = db_groups.get(env.ctx, first['uuid']).id
        resp = env.call('DELETE', '%s/%s' % (PATH, first['uuid']))
        assert resp.status_int == 204, resp.text
        second = _post(env, {'resource_class': 'baremetal',
                             'count': 1}).json['uuid']
        reused = db_groups.get(env.ctx, second).id == first_id
    finally:
        release.set()
    # The case itself on SQLite; MariaDB and PostgreSQL never repeat one.
    assert reused == (database.backend == 'sqlite')
    assert _final(env, second)['state'] == 'active'


def test_a_member_can_be_deleted_alone(env):
    for i in range(2):
        env.node('n%d' % i)
    doc = _final(env, _post(env, {'resource_class': 'baremetal',
                                  'count': 2}).json['uuid'])
    gone = doc['members'][0]
    resp = env.call('DELETE', '/v1/allocations/%s' % gone['uuid'])
    assert resp.status_int == 204, resp.text
    assert db_nodes.get(env.ctx, gone['node_uuid']).allocation_id is None
    doc = env.call('GET', '%s/%s' % (PATH, doc['uuid'])).json
    assert doc['state'] == 'active' and len(doc['members']) == 1
    assert doc['count'] == 2


def test_deleting_the_group_frees_every_node(env):
    made = [env.node('n%d' % i) for i in range(3)]
    doc = _final(env, _post(env, {'resource_class': 'baremetal',
                                  'count': 3, 'name': 'g'}).json['uuid'])
    resp = env.call('DELETE', PATH + '/g')
    assert resp.status_int == 204, resp.text
    assert env.call('GET', '%s/%s' % (PATH, doc['uuid'])).status_int == 404
    assert env.call('GET', '/v1/allocations').json['allocations'] == []
    for node in made:
        node = db_nodes.get(env.ctx, node.uuid)
        assert node.allocation_id is None and node.instance_uuid is None


def test_list(env):
    first = _post(env, {'resource_class': 'baremetal', 'count': 1}).json
    second = _post(env, {'resource_class': 'baremetal', 'count': 1}).json
    doc = env.call('GET', PATH).json
    assert [g['uuid'] for g in doc['allocation_groups']] == \
        [first['uuid'], second['uuid']]
    doc = env.call('GET', PATH + '?limit=1').json
    assert [g['uuid'] for g in doc['allocation_groups']] == [first['uuid']]
    assert 'marker=%s' % first['uuid'] in doc['next']
    doc = env.call('GET', PATH + '?marker=%s' % first['uuid']).json
    assert [g['uuid'] for g in doc['allocation_groups']] == [second['uuid']]


@pytest.mark.parametrize('body,text', [
    ({'count': 1}, "Schema error: 'resource_class' is a required property"),
    ({'resource_class': 'baremetal'},
     "Schema error: 'count' is a required property"),
    ({'resource_class': 'baremetal', 'count': 0},
     'Schema error: 0 is less than the minimum of 1'),
    ({'resource_class': 'baremetal', 'count': 101},
     'Schema error: 101 is greater than the maximum of 100'),
    ({'resource_class': 'baremetal', 'count': 1, 'bogus': 1},
     "Schema error: Additional properties are not allowed ('bogus' was "
     "unexpected)"),
    ({'resource_class': 'baremetal', 'count': 1,
      'spread': {'by': 'rack'}},
     "Schema error: 'rack' does not match "),
    ({'resource_class': 'baremetal', 'count': 1, 'spread': {}},
     "Schema error: 'by' is a required property"),
    ({'resource_class': 'baremetal', 'count': 1,
      'member_names': ['a', 'b']},
     'member_names names 2 members of a group of 1'),
    ({'resource_class': 'baremetal', 'count': 2,
      'member_names': ['a', 'a']}, 'member_names repeats a name'),
    ({'resource_class': 'baremetal', 'count': 1, 'name': 'bad name'},
     "Cannot create allocation with invalid name 'bad name'"),
    ({'resource_class': 'baremetal', 'count': 1,
      'candidate_nodes': ['ghost']}, 'Nodes cannot be found: ghost'),
])
def test_bad_bodies_are_400(sqlite_env, body, text):
    resp = _post(sqlite_env, body, 400)
    assert message(resp).startswith(text), message(resp)


def test_a_taken_name_is_409(sqlite_env):
    _post(sqlite_env, {'resource_class': 'baremetal', 'count': 1,
                       'name': 'g'})
    resp = _post(sqlite_env, {'resource_class': 'baremetal', 'count': 1,
                              'name': 'g'}, 409)
    assert message(resp) == \
        'An allocation group with name g already exists.'


@pytest.mark.parametrize('version', ['1.1', '1.51'])
def test_below_1_52_there_are_no_groups(sqlite_env, version):
    assert sqlite_env.call('GET', PATH, version=version).status_int == 404
    assert sqlite_env.call('POST', PATH, {'resource_class': 'baremetal',
                                          'count': 1},
                           version=version).status_int == 404


def test_served_from_1_52_and_owner_from_1_60(sqlite_env):
    _post(sqlite_env, {'resource_class': 'baremetal', 'count': 1},
          version='1.52')
    _post(sqlite_env, {'resource_class': 'baremetal', 'count': 1,
                       'owner': 'p'}, 406, version='1.59')


def test_unknown_group_is_404_and_other_methods_405(sqlite_env):
    resp = sqlite_env.call('GET', PATH + '/nope')
    assert resp.status_int == 404
    assert message(resp) == 'Allocation group nope could not be found.'
    assert sqlite_env.call('DELETE', PATH + '/nope').status_int == 404
    resp = sqlite_env.call('PUT', PATH)
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'GET, POST'
    resp = sqlite_env.call('PATCH', PATH + '/x', [])
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'DELETE, GET'


def test_v1_does_not_change(sqlite_env):
    assert 'allocation_groups' not in sqlite_env.call('GET', '/v1').text


# -- policy -------------------------------------------------------------------

@pytest.fixture
def policy_env(database, monkeypatch):
    return v1_policy.make_env(monkeypatch)


@pytest.mark.parametrize('persona', ['system_reader', 'owner_reader'])
def test_readers_may_not_create(policy_env, persona):
    resp = _post(policy_env, {'resource_class': 'baremetal', 'count': 1},
                 403, headers=v1_policy.PERSONAS[persona])
    assert message(resp) == ('Access was denied to the following '
                             'resource: baremetal:allocation_group:create')


def test_a_project_sees_its_own_groups_only(policy_env):
    personas = v1_policy.PERSONAS
    mine = _post(policy_env, {'resource_class': 'baremetal', 'count': 1},
                 headers=personas['owner_member']).json
    assert mine['owner'] == 'p-own'
    theirs = _post(policy_env, {'resource_class': 'baremetal', 'count': 1},
                   headers=personas['lessee_member']).json
    assert theirs['owner'] == 'p-lease'
    listed = policy_env.call('GET', PATH,
                             headers=personas['owner_reader']).json
    assert [g['uuid'] for g in listed['allocation_groups']] == \
        [mine['uuid']]
    listed = policy_env.call('GET', PATH,
                             headers=personas['system_reader']).json
    assert len(listed['allocation_groups']) == 2
    other = '%s/%s' % (PATH, theirs['uuid'])
    assert policy_env.call('GET', other, headers=personas[
        'owner_member']).status_int == 404
    assert policy_env.call('DELETE', other, headers=personas[
        'owner_member']).status_int == 404
    resp = policy_env.call('DELETE', '%s/%s' % (PATH, mine['uuid']),
                           headers=personas['owner_reader'])
    assert resp.status_int == 403
    resp = policy_env.call('DELETE', '%s/%s' % (PATH, mine['uuid']),
                           headers=personas['owner_member'])
    assert resp.status_int == 204, resp.text
    assert db_groups.list_groups(policy_env.ctx, 'p-own') == []
