"""``POST /v1/allocation_preview`` over HTTP: which nodes an allocation
with these parameters could take now, answered by the API tests' live
conductor (database back end; both back ends are covered by
test_conductor_explain.py and test_allocation_preview_property.py).

Scenarios:

* 200 with the document: the request as read (candidate nodes named by
  name come back as UUIDs), the nodes, their count, the nodes of the
  class, what was dropped and why; ``last_error`` when none fits, the
  reason an allocation created now fails with (the conductor runs one);
* the body: Ironic's error format for a schema error (an unknown field,
  no or an empty resource class, a bad trait, wrong types, a body that
  is no object), the allocation's 400 for candidate nodes that do not
  exist, its 406 for ``owner`` below 1.60;
* versions: 404 below 1.52, as the allocation reads are; served at
  1.52; the API's maximum version is unchanged;
* routing: GET is a 405 naming POST; ``/v1/allocations/preview`` is
  still an allocation's path (one may be named "preview");
* no conductor: 503;
* policy: ``baremetal:allocation:preview`` (members, as for creating an
  allocation; readers 403), and the owner an allocation would get; a
  project's callers list and count only the nodes their project owns or
  leases, and name only those as candidates; a policy file may refuse
  the preview and still let allocations be created;
* the /v1 document does not list it (an Ironic endpoint's answer does
  not change).
"""

import pytest

from allocsvc.api.controllers.v1 import versions
from allocsvc.common import states
from allocsvc.conductor import allocations
from allocsvc.conductor import backends
from allocsvc.db.baremetal import conductors as db_conductors
from allocsvc.db.baremetal import nodes as db_nodes
from tests import conftest
from tests.functional.ironic_errors import fault
from tests.functional.ironic_errors import message
from tests.helpers import v1_policy
from tests.helpers.v1_allocations import Env

PATH = '/v1/allocation_preview'


@pytest.fixture
def env(database):
    return Env()


@pytest.fixture
def sqlite_env():
    """For what never reaches the conductor: one database is enough."""
    conftest.get_database('sqlite').clean()
    return Env()


def _preview(env, body, status=200, **kwargs):
    resp = env.call('POST', PATH, body, **kwargs)
    assert resp.status_int == status, resp.text
    return resp


def test_preview_lists_what_an_allocation_could_take(env):
    a = env.node('a', traits=['CUSTOM_A'])
    b = env.node('b', traits=['CUSTOM_A', 'CUSTOM_B'])
    env.node('c', traits=['CUSTOM_B'])
    env.node('m', traits=['CUSTOM_A'], maintenance=True)
    env.node('x', resource_class='other', traits=['CUSTOM_A'])
    doc = _preview(env, {'resource_class': 'baremetal',
                         'traits': ['CUSTOM_A'],
                         'candidate_nodes': ['a', b.uuid, 'c', 'm']}).json
    assert doc == {
        'resource_class': 'baremetal', 'traits': ['CUSTOM_A'],
        'candidate_nodes': [a.uuid, b.uuid, db_nodes.get(env.ctx, 'c').uuid,
                            db_nodes.get(env.ctx, 'm').uuid],
        'owner': None,
        'nodes': sorted([{'uuid': a.uuid, 'name': 'a'},
                         {'uuid': b.uuid, 'name': 'b'}],
                        key=lambda n: n['uuid']),
        'node_count': 2, 'nodes_of_class': 4,
        'dropped': [
            {'reason': 'maintenance', 'count': 1,
             'detail': 'in maintenance'},
            {'reason': 'missing_trait', 'trait': 'CUSTOM_A', 'count': 1,
             'detail': 'missing trait CUSTOM_A'}],
        'last_error': None,
    }
    # Nothing was reserved.
    for node in (a, b):
        fresh = db_nodes.get_by_id(env.ctx, node.id)
        assert fresh.reservation is None and fresh.instance_uuid is None


def test_none_fits_says_what_an_allocation_would_fail_with(env):
    env.node('m', maintenance=True)
    env.node('e', provision_state=states.ENROLL)
    env.node('theirs', owner='p2')
    body = {'resource_class': 'baremetal', 'owner': 'p1'}
    doc = _preview(env, body).json
    reason = ('no available nodes match the resource class baremetal (3 '
              'nodes have resource class baremetal: 1 not available, 1 in '
              'maintenance, 1 neither owned nor leased by p1)')
    assert doc['last_error'] == reason
    assert doc['nodes'] == [] and doc['node_count'] == 0
    assert [(d['reason'], d['count']) for d in doc['dropped']] == [
        ('not_available', 1), ('maintenance', 1), ('not_owner', 1)]
    # The conductor runs an allocation asking the same.
    created = env.create(**body)
    record = allocations.allocate(
        env.ctx, env.rows()[0].id, env.conductor.hostname,
        env.conductor.id, retry_attempts=0, retry_interval=0,
        sleep=lambda _: None, backend=backends.Database())
    assert record.last_error == 'Failed to process allocation %s: %s.' % (
        created['uuid'], reason)


def test_preview_is_served_from_1_52(env):
    env.node('a')
    doc = _preview(env, {'resource_class': 'baremetal'},
                   version='1.52').json
    assert doc['node_count'] == 1
    # The API says nothing newer than Ironic's versions.
    resp = env.call('GET', '/v1', version=None)
    assert resp.headers['X-OpenStack-Ironic-API-Maximum-Version'] == \
        str(versions.MAX_VERSION)
    assert 'allocation_preview' not in env.call('GET', '/v1').json


@pytest.mark.parametrize('version', ['1.1', '1.51', None])
def test_below_1_52_there_is_no_preview(sqlite_env, version):
    resp = sqlite_env.call('POST', PATH, {'resource_class': 'baremetal'},
                           version=version)
    assert resp.status_int == 404, resp.text
    assert list(resp.json) == ['error_message']


def test_owner_below_1_60_is_406(sqlite_env):
    resp = _preview(sqlite_env, {'resource_class': 'baremetal',
                                 'owner': 'p1'}, 406, version='1.59')
    assert message(resp) == 'Request not acceptable.'
    doc = _preview(sqlite_env, {'resource_class': 'baremetal',
                                'owner': None}, version='1.59').json
    assert doc['owner'] is None


@pytest.mark.parametrize('body,text', [
    ({'resource_class': 'baremetal', 'bogus': 1},
     "Schema error: Additional properties are not allowed ('bogus' was "
     "unexpected)"),
    ({'resource_class': 'baremetal', 'name': 'n'},
     "Schema error: Additional properties are not allowed ('name' was "
     "unexpected)"),
    ({}, "Schema error: 'resource_class' is a required property"),
    (None, "Schema error: 'resource_class' is a required property"),
    ({'resource_class': None},
     "Schema error: None is not of type 'string'"),
    ({'resource_class': ''}, "Schema error: '' should be non-empty"),
    ({'resource_class': 'x' * 81},
     "Schema error: '%s' is too long" % ('x' * 81)),
    ({'resource_class': 'baremetal', 'traits': 'CUSTOM_A'},
     "Schema error: 'CUSTOM_A' is not of type 'array', 'null'"),
    ({'resource_class': 'baremetal', 'candidate_nodes': [1]},
     "Schema error: 1 is not of type 'string'"),
    ({'resource_class': 'baremetal', 'owner': 5},
     "Schema error: 5 is not of type 'string', 'null'"),
    ([], "Schema error: [] is not of type 'object'"),
])
def test_schema_errors_are_400_in_ironics_format(sqlite_env, body, text):
    resp = _preview(sqlite_env, body, 400)
    assert fault(resp) == {'faultcode': 'Client', 'faultstring': text,
                           'debuginfo': None}


def test_a_bad_trait_is_400(sqlite_env):
    resp = _preview(sqlite_env, {'resource_class': 'baremetal',
                                 'traits': ['CUSTOM_lower']}, 400)
    assert message(resp).startswith("Schema error: 'CUSTOM_lower' is not "
                                    "valid under any of the given schemas")


def test_unknown_candidate_nodes_are_the_allocations_400(sqlite_env):
    sqlite_env.node('known')
    body = {'resource_class': 'baremetal',
            'candidate_nodes': ['known', 'ghost',
                                '00000000-0000-0000-0000-000000000000']}
    resp = _preview(sqlite_env, body, 400)
    created = sqlite_env.post(body)
    assert created.status_int == 400
    assert message(resp) == message(created) == (
        'Nodes cannot be found: ghost, 00000000-0000-0000-0000-000000000000')


def test_get_is_405_naming_post(sqlite_env):
    resp = sqlite_env.call('GET', PATH)
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'POST'
    assert sqlite_env.call('GET', PATH + '/x').status_int == 404


def test_an_allocation_may_be_named_preview(sqlite_env):
    resp = sqlite_env.call('GET', '/v1/allocations/preview')
    assert resp.status_int == 404
    assert message(resp) == 'Allocation preview could not be found.'
    created = sqlite_env.create(name='preview')
    shown = sqlite_env.call('GET', '/v1/allocations/preview')
    assert shown.status_int == 200 and shown.json['uuid'] == created['uuid']


def test_no_conductor_is_503(sqlite_env):
    db_conductors.unregister(sqlite_env.ctx, sqlite_env.conductor.hostname)
    sqlite_env.rpc.client.live_conductors(sqlite_env.ctx, fresh=True)
    resp = _preview(sqlite_env, {'resource_class': 'baremetal'}, 503)
    assert fault(resp)['faultcode'] == 'Server'
    assert message(resp) == ('No conductor can process the request: no '
                             'conductor is alive.')


# -- policy -------------------------------------------------------------------

@pytest.fixture
def policy_env(database, monkeypatch):
    """The policy tests' application (keystone, new defaults) and their
    four manageable nodes: owned (by OWN), leased (owned by OWN, leased
    to LEASE), foreign, free."""
    return v1_policy.make_env(monkeypatch)


def _personas():
    return v1_policy.PERSONAS


@pytest.mark.parametrize('persona,of_class,owner', [
    ('system_admin', 4, None), ('system_member', 4, None),
    ('owner_admin', 2, 'p-own'), ('owner_member', 2, 'p-own'),
    ('lessee_member', 1, 'p-lease'), ('other_admin', 0, 'p-other'),
])
def test_callers_count_only_the_nodes_they_see(policy_env, persona,
                                               of_class, owner):
    doc = _preview(policy_env, {'resource_class': 'baremetal'},
                   headers=_personas()[persona]).json
    # The owner their allocation would get; the nodes they may list.
    assert doc['owner'] == owner
    assert doc['nodes_of_class'] == of_class
    assert doc['node_count'] == 0
    if of_class:
        assert doc['dropped'] == [{'reason': 'not_available',
                                   'count': of_class,
                                   'detail': 'not available'}]
    else:
        assert doc['dropped'] == []
        assert doc['last_error'].endswith(
            '(no node has resource class baremetal)')


def test_a_project_sees_its_fitting_nodes_only(policy_env):
    policy_env.node('mine', owner='p-own')
    policy_env.node('theirs', owner='p-foreign')
    policy_env.node('nobodys')
    member = _personas()['owner_member']
    doc = _preview(policy_env, {'resource_class': 'baremetal'},
                   headers=member).json
    assert [n['name'] for n in doc['nodes']] == ['mine']
    assert (doc['node_count'], doc['nodes_of_class']) == (1, 3)
    # Everybody's eyes see all seven.
    doc = _preview(policy_env, {'resource_class': 'baremetal'},
                   headers=_personas()['system_member']).json
    assert (doc['node_count'], doc['nodes_of_class']) == (3, 7)


@pytest.mark.parametrize('persona', ['system_reader', 'owner_reader',
                                     'lessee_reader'])
def test_readers_may_not_preview(policy_env, persona):
    resp = _preview(policy_env, {'resource_class': 'baremetal'}, 403,
                    headers=_personas()[persona])
    assert message(resp) == ('Access was denied to the following '
                             'resource: baremetal:allocation:preview')


def test_a_project_previews_for_itself_only(policy_env):
    member = _personas()['lessee_member']
    resp = _preview(policy_env, {'resource_class': 'baremetal',
                                 'owner': 'p-other'}, 403, headers=member)
    assert 'create_restricted' in message(resp)
    resp = _preview(policy_env, {'resource_class': 'baremetal',
                                 'candidate_nodes': ['leased', 'owned']},
                    400, headers=member)
    assert message(resp) == 'Nodes cannot be found: owned'
    doc = _preview(policy_env, {'resource_class': 'baremetal',
                                'candidate_nodes': ['leased']},
                   headers=member).json
    assert doc['candidate_nodes'] == [
        db_nodes.get(policy_env.ctx, 'leased').uuid]


def test_the_preview_has_a_rule_of_its_own(database, monkeypatch,
                                           tmp_path):
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"baremetal:allocation:preview": "!"\n')
    env = v1_policy.make_env(monkeypatch, policy_file=policy_file)
    admin = _personas()['system_admin']
    resp = _preview(env, {'resource_class': 'baremetal'}, 403,
                    headers=admin)
    assert message(resp) == ('Access was denied to the following '
                             'resource: baremetal:allocation:preview')
    # Creating an allocation is another rule.
    assert env.post({'resource_class': 'baremetal'},
                    headers=admin).status_int == 201
