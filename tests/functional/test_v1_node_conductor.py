"""A node's ``conductor`` (API 1.49) and the ``conductor`` filter, on
every database backend.

Scenarios: with 0, 1 and 3 live conductors in a node's conductor group
the field is null, the one, or the hash ring's choice among the three
(never null while one is alive); conductors of another group or without
the node's driver never serve it; a live owner keeps its node and a dead
one hands it to the ring; ``?conductor=`` lists exactly the nodes whose
field names that host, also page by page. Nodes are created before the
test's conductors (rows without an RPC server) are registered.
"""

import datetime

from oslo_utils import timeutils
import pytest

from allocsvc.conductor import hash_ring
from allocsvc.conductor import mirror
from allocsvc.conductor import rpcapi
from allocsvc.db.baremetal import conductors as db_conductors
from allocsvc.db.baremetal import nodes as db_nodes
from allocsvc.db import models
from tests.helpers import v1 as api

pytestmark = pytest.mark.usefixtures('api_conductor')


@pytest.fixture
def env(database, api_conductor, monkeypatch):
    # Every request reads the live conductors; the shared client forgets
    # the ones of this test (they have no RPC server).
    monkeypatch.setattr(rpcapi, 'ALIVE_CACHE_S', 0)
    monkeypatch.setattr(api_conductor[1], '_alive', None)
    yield Env(database, api_conductor[0])
    api_conductor[0].heartbeat()


class Env:
    def __init__(self, database, service):
        self.database = database
        self.api_host = service.host

    def register(self, hostname, group='', drivers=('fake-hardware',)):
        return db_conductors.register(api.ctx(), hostname, list(drivers),
                                      group)

    def silence(self, hostname):
        table = models.conductors
        when = timeutils.utcnow() - datetime.timedelta(hours=1)
        with self.database.engine.begin() as conn:
            conn.execute(table.update().where(table.c.hostname == hostname)
                         .values(heartbeat_at=when))

    def conductor(self, ident, version='latest'):
        resp = api.call('GET', '/v1/nodes/%s?fields=conductor' % ident,
                        version=version)
        assert resp.status_int == 200, resp.text
        return resp.json['conductor']

    def listed(self, query, **kwargs):
        resp = api.call('GET', '/v1/nodes?' + query, **kwargs)
        assert resp.status_int == 200, resp.text
        return sorted(n['uuid'] for n in resp.json['nodes'])

    def ring_choice(self, node, hosts):
        alive = [c for c in db_conductors.list_conductors(api.ctx(), 60)
                 if c.alive and c.hostname in hosts]
        return hash_ring.conductor_for(alive, _row(node)).hostname


def _row(node):
    return db_nodes.get(api.ctx(), node['uuid'])


def test_no_conductor_of_the_group(env):
    node = api.create(name='n', conductor_group='rack')
    assert env.conductor('n') is None
    assert env.listed('conductor=' + env.api_host) == []
    # The API's conductor serves group '' only.
    other = api.create(name='o')
    assert env.conductor('o') == env.api_host
    assert env.listed('conductor=' + env.api_host) == [other['uuid']]
    # No live conductor at all: null for every node.
    env.silence(env.api_host)
    assert env.conductor('o') is None and env.conductor('n') is None
    assert env.listed('conductor=' + env.api_host) == []
    del node


def test_one_conductor(env):
    api.create(name='n', conductor_group='rack')
    env.register('solo', group='rack')
    assert env.conductor('n') == 'solo'
    # Not shown before 1.49.
    resp = api.call('GET', '/v1/nodes/n', version='1.48')
    assert 'conductor' not in resp.json
    # A conductor without the node's driver does not serve it.
    env.register('solo', group='rack', drivers=['ipmi'])
    assert env.conductor('n') is None


def test_three_conductors_share_a_group(env):
    hosts = ['c1', 'c2', 'c3']
    nodes = [api.create(conductor_group='rack') for _ in range(12)]
    for host in hosts:
        env.register(host, group='rack')
    shown = {n['uuid']: env.conductor(n['uuid']) for n in nodes}
    for node in nodes:
        assert shown[node['uuid']] == env.ring_choice(node, hosts)
    for host in hosts:
        expected = sorted(u for u, h in shown.items() if h == host)
        assert env.listed('conductor=' + host) == expected
        assert env.listed('conductor=%s&conductor_group=rack' % host) == \
            expected
        # Page by page: the filter fills each page.
        seen, path = [], '/v1/nodes?conductor=%s&limit=1' % host
        while path:
            page = api.call('GET', path).json
            assert len(page['nodes']) <= 1
            seen.extend(n['uuid'] for n in page['nodes'])
            path = page.get('next', '').replace('http://localhost', '')
        assert sorted(seen) == expected
    # A conductor that dies hands its nodes to the two others.
    env.silence('c2')
    for node in nodes:
        now = env.conductor(node['uuid'])
        assert now in ('c1', 'c3')
        if shown[node['uuid']] != 'c2':
            assert now == shown[node['uuid']]
    assert env.listed('conductor=c2') == []
    # The detail list and the whole document agree with the field.
    detail = api.call('GET', '/v1/nodes/detail').json['nodes']
    for doc in detail:
        if doc['uuid'] in shown:
            assert doc['conductor'] == env.conductor(doc['uuid'])


def test_a_live_owner_keeps_its_node(env):
    node = api.create(name='n', conductor_group='rack')
    for host in ('c1', 'c2'):
        env.register(host, group='rack')
    owner = env.register('owner', group='elsewhere')
    mirror.update_node(api.ctx(), _row(node).id,
                       {'conductor_affinity': owner.id})
    assert env.conductor('n') == 'owner'
    assert env.listed('conductor=owner') == [node['uuid']]
    env.silence('owner')
    assert env.conductor('n') == env.ring_choice(node, ['c1', 'c2'])
    assert env.listed('conductor=owner') == []
    assert env.listed('conductor=' + env.conductor('n')) == [node['uuid']]


def test_unknown_conductor_filter(env):
    api.create(name='n')
    assert env.listed('conductor=ghost') == []
    resp = api.call('GET', '/v1/nodes?conductor=x', version='1.48')
    assert resp.status_int == 406
