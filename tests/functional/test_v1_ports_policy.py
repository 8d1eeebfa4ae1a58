"""The default policy of ports and port groups, through HTTP (the
personas and nodes of ``test_v1_policy``).

Scenarios:
* a port exists for a caller who may see its node (baremetal:node:get):
  another project gets 404 for it, and lists show each project the
  ports of the nodes it owns or leases (every backend);
* readers read; the owner's admin and system admins create and delete;
  system members and the owner's admin change; the owner's member, the
  lessee and system readers are refused (403); creating on a node the
  caller may not see is Ironic's 400 (no such node);
* the same for port groups.
"""

import pytest

from tests import conftest
from tests.functional.ironic_errors import message
from tests.helpers import v1_policy as pol

SA = pol.SYSTEM_ADMIN
NODES = ('owned', 'leased', 'foreign', 'free')


@pytest.fixture
def env(monkeypatch):
    """For what does not depend on the database: SQLite."""
    conftest.get_database('sqlite').clean()
    return pol.make_env(monkeypatch)


@pytest.fixture
def db_env(database, monkeypatch):
    """For what the database filters: every backend."""
    return pol.make_env(monkeypatch)


def _seed(env):
    """One port and one port group on each node, made by a system
    admin; ``{node name: (node, port, portgroup)}``."""
    made = {}
    for i, name in enumerate(NODES):
        node = env.call('GET', '/v1/nodes/' + name, headers=SA).json
        port = env.call('POST', '/v1/ports', {
            'node_uuid': node['uuid'], 'address': '52:54:00:00:01:%02x' % i,
            'name': 'port-' + name}, headers=SA)
        assert port.status_int == 201, port.text
        group = env.call('POST', '/v1/portgroups', {
            'node_uuid': node['uuid'], 'name': 'pg-' + name}, headers=SA)
        assert group.status_int == 201, group.text
        made[name] = (node, port.json, group.json)
    return made


@pytest.mark.parametrize('persona, expected', [
    ('system_reader', list(NODES)),
    ('owner_reader', ['owned', 'leased']),
    ('lessee_reader', ['leased']),
    ('other_admin', []),
])
def test_lists_show_the_ports_of_visible_nodes(db_env, persona, expected):
    made = _seed(db_env)
    headers = pol.PERSONAS[persona]
    for collection, index in (('ports', 1), ('portgroups', 2)):
        for path in ('/v1/%s' % collection, '/v1/%s/detail' % collection):
            resp = db_env.call('GET', path, headers=headers)
            assert resp.status_int == 200, resp.text
            assert sorted(item['uuid'] for item in resp.json[collection]) \
                == sorted(made[name][index]['uuid'] for name in expected)


@pytest.mark.parametrize('collection', ['ports', 'portgroups'])
def test_another_project_is_told_there_is_none(env, collection):
    made = _seed(env)
    index = 1 if collection == 'ports' else 2
    ident = made['owned'][index]['uuid']
    kind = 'Port' if collection == 'ports' else 'Portgroup'
    headers = pol.PERSONAS['other_admin']
    for method, body in (('GET', None), ('PATCH', []), ('DELETE', None)):
        resp = env.call(method, '/v1/%s/%s' % (collection, ident), body,
                        headers=headers)
        assert resp.status_int == 404, resp.text
        assert message(resp) == '%s %s could not be found.' % (kind, ident)
    resp = env.call('GET', '/v1/nodes/owned/%s' % collection,
                    headers=headers)
    assert resp.status_int == 404
    assert env.call('GET', '/v1/%s/%s' % (collection, ident),
                    headers=pol.PERSONAS['lessee_reader']).status_int == 404
    assert env.call('GET', '/v1/%s/%s' % (collection, ident),
                    headers=pol.PERSONAS['owner_reader']).status_int == 200


@pytest.mark.parametrize('persona, create, update, delete', [
    ('system_admin', 201, 200, 204),
    ('system_member', 403, 200, 403),
    ('system_reader', 403, 403, 403),
    ('owner_admin', 201, 200, 204),
    ('owner_member', 403, 403, 403),
    ('lessee_admin', 403, 403, 403),
])
@pytest.mark.parametrize('collection', ['ports', 'portgroups'])
def test_who_changes_ports(env, persona, create, update, delete,
                           collection):
    made = _seed(env)
    headers = pol.PERSONAS[persona]
    node, port, group = made['leased']
    body = {'node_uuid': node['uuid']}
    if collection == 'ports':
        body['address'] = '52:54:00:00:02:01'
        ident = port['uuid']
    else:
        ident = group['uuid']
    resp = env.call('POST', '/v1/' + collection, body, headers=headers)
    assert resp.status_int == create, resp.text
    resp = env.call('PATCH', '/v1/%s/%s' % (collection, ident),
                    [{'op': 'add', 'path': '/extra/a', 'value': 1}],
                    headers=headers)
    assert resp.status_int == update, resp.text
    if collection == 'portgroups':
        # A group with ports is not deleted; empty it first.
        env.call('DELETE', '/v1/ports/' + port['uuid'], headers=SA)
    resp = env.call('DELETE', '/v1/%s/%s' % (collection, ident),
                    headers=headers)
    assert resp.status_int == delete, resp.text


def test_creating_on_an_invisible_node_is_400(env):
    made = _seed(env)
    node = made['foreign'][0]
    resp = env.call('POST', '/v1/ports', {
        'node_uuid': node['uuid'], 'address': '52:54:00:00:03:01'},
        headers=pol.PERSONAS['owner_admin'])
    assert resp.status_int == 400
    assert message(resp) == 'Node %s could not be found.' % node['uuid']
