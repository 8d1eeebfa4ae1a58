"""``/v1/conductors`` (1.49) as an Ironic client sees it.

Scenarios: the short list (hostname, conductor_group, alive, links) and
``?detail=true``; ``?fields``; one conductor in full; ``alive`` judged
from the heartbeat against ``[conductor] heartbeat_timeout`` and from
``online``; paging by host name with a ``next`` link that keeps
``detail``; sort and argument errors; 404s; the version gate and the
link from ``/v1``.
"""


import pytest
import webob

from allocsvc.db.baremetal import conductors as db_conductors
from tests import conftest
from tests.functional.ironic_errors import message
from tests.helpers.v1_conductors import Env

IRONIC = 'X-OpenStack-Ironic-API-Version'
SHORT = {'hostname', 'conductor_group', 'alive', 'links'}
FULL = SHORT | {'drivers', 'created_at', 'updated_at'}


@pytest.fixture
def env(database):
    return Env(database)


def test_list_short_and_detailed(env):
    env.register('cond-b', group='rack-2')
    env.register('cond-a', drivers=['fake-hardware', 'ipmi'])
    resp = env.call('/v1/conductors', version='1.49')
    assert resp.status_int == 200
    listed = resp.json['conductors']
    # Creation order (sort_key id), as Ironic.
    assert [c['hostname'] for c in listed] == ['cond-b', 'cond-a']
    assert all(set(c) == SHORT for c in listed)
    assert listed[0]['conductor_group'] == 'rack-2'
    assert listed[0]['alive'] is True
    assert listed[0]['links'] == [
        {'href': 'http://localhost/v1/conductors/cond-b', 'rel': 'self'},
        {'href': 'http://localhost/conductors/cond-b', 'rel': 'bookmark'}]
    assert 'next' not in resp.json
    detailed = env.call('/v1/conductors?detail=true').json['conductors']
    assert all(set(c) == FULL for c in detailed)
    assert detailed[1]['drivers'] == ['fake-hardware', 'ipmi']
    assert detailed[1]['created_at'].endswith('+00:00')
    assert detailed[1]['updated_at'].endswith('+00:00')
    short = env.call('/v1/conductors?detail=false').json['conductors']
    assert short == listed


def test_list_fields(env):
    env.register('cond-a')
    resp = env.call('/v1/conductors?fields=hostname,drivers')
    [conductor] = resp.json['conductors']
    assert set(conductor) == {'hostname', 'drivers', 'links'}
    resp = env.call('/v1/conductors?fields=hostname&detail=true')
    assert resp.status_int == 400
    assert message(resp) == ('Can not specify ?detail=True and fields in '
                             'the same request.')


def test_show_one(env):
    env.register('cond.example.com', group='g')
    resp = env.call('/v1/conductors/cond.example.com')
    assert resp.status_int == 200
    doc = resp.json
    assert set(doc) == FULL
    assert doc['hostname'] == 'cond.example.com'
    assert doc['conductor_group'] == 'g' and doc['alive'] is True
    assert doc['drivers'] == ['fake-hardware']
    resp = env.call('/v1/conductors/cond.example.com?fields=alive')
    assert resp.json == {'alive': True, 'links': doc['links']}


@pytest.mark.parametrize('path,status,text', [
    ('/v1/conductors/ghost', 404, 'Conductor ghost could not be found.'),
    ('/v1/conductors/cond-a?fields=bogus', 400,
     'Field(s) "bogus" are not valid'),
    ('/v1/conductors/cond-a?detail=true', 400,
     'Unexpected arguments: detail'),
    ('/v1/conductors?fields=bogus', 400, 'Field(s) "bogus" are not valid'),
    ('/v1/conductors?bogus=1', 400, 'Unexpected arguments: bogus'),
    ('/v1/conductors?detail=maybe', 400,
     'Invalid value for detail: "maybe" is not a boolean'),
    ('/v1/conductors?sort_key=alive', 400,
     'The sort_key value "alive" is an invalid field for sorting'),
    ('/v1/conductors?sort_key=drivers', 400,
     'The sort_key value "drivers" is an invalid field for sorting'),
    ('/v1/conductors?sort_key=bogus', 400,
     'The sort_key value "bogus" is an invalid field for sorting'),
    ('/v1/conductors?sort_dir=up', 400,
     "Invalid sort direction: up. Acceptable values are 'asc' or 'desc'"),
    ('/v1/conductors?limit=-2', 400, 'Limit must be positive'),
    ('/v1/conductors?marker=ghost', 404,
     'Conductor ghost could not be found.'),
])
def test_errors(env, path, status, text):
    env.register('cond-a')
    resp = env.call(path)
    assert resp.status_int == status
    assert message(resp) == text


def test_liveness(env):
    env.register('fresh')
    env.register('stale')
    env.register('gone')
    env.silence('stale', 3600)
    db_conductors.unregister(env.ctx, 'gone')
    alive = {c['hostname']: c['alive']
             for c in env.call('/v1/conductors').json['conductors']}
    assert alive == {'fresh': True, 'stale': False, 'gone': False}
    assert env.call('/v1/conductors/stale').json['alive'] is False


def test_liveness_follows_heartbeat_timeout(database):
    conf = conftest.make_conf()
    conf.set_override('heartbeat_timeout', 7200, group='conductor')
    env = Env(database, conf)
    env.register('slow')
    env.silence('slow', 3600)
    assert env.call('/v1/conductors/slow').json['alive'] is True
    conf.set_override('heartbeat_timeout', 600, group='conductor')
    assert env.call('/v1/conductors/slow').json['alive'] is False


def test_paging_and_sorting(env):
    for name in ('c3', 'c1', 'c2'):
        env.register(name)
    resp = env.call('/v1/conductors?sort_key=hostname&limit=2&detail=true')
    page = resp.json
    assert [c['hostname'] for c in page['conductors']] == ['c1', 'c2']
    nxt = page['next']
    assert nxt.startswith('http://localhost/v1/conductors?')
    for part in ('marker=c2', 'limit=2', 'detail=true', 'sort_key=hostname'):
        assert part in nxt
    rest = env.call(nxt.replace('http://localhost', '')).json
    assert [c['hostname'] for c in rest['conductors']] == ['c3']
    assert set(rest['conductors'][0]) == FULL
    assert 'next' not in rest
    resp = env.call('/v1/conductors?sort_key=hostname&sort_dir=desc')
    assert [c['hostname'] for c in resp.json['conductors']] == [
        'c3', 'c2', 'c1']
    resp = env.call('/v1/conductors?marker=c3')
    assert [c['hostname'] for c in resp.json['conductors']] == ['c1', 'c2']


@pytest.mark.parametrize('path', ['/v1/conductors', '/v1/conductors/c1'])
def test_version_gate(env, path):
    env.register('c1')
    assert env.call(path, version='1.48').status_int == 404
    assert env.call(path, version=None).status_int == 404
    assert env.call(path, version='1.49').status_int == 200


def test_only_get(env):
    for method in ('POST', 'DELETE', 'PATCH', 'PUT'):
        req = webob.Request.blank('/v1/conductors/c1', method=method,
                                  headers={IRONIC: 'latest'})
        assert req.get_response(env.app).status_int == 405, method


def test_v1_links_conductors_from_1_49(env):
    assert 'conductors' not in env.call('/v1', version='1.48').json
    assert env.call('/v1', version='1.49').json['conductors'][0] == {
        'href': 'http://localhost/v1/conductors/', 'rel': 'self'}


def test_hostile_host_names(env):
    # PostgreSQL cannot compare a NUL: a plain 404 instead.
    for path in ('/v1/conductors/%00', '/v1/conductors?marker=%00',
                 '/v1/conductors/' + 'x' * 300):
        assert env.call(path).status_int == 404, path
