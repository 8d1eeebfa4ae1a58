import json
import urllib.parse
import webob
import pytest
from allocsvc.api import app as api_app
from tests import conftest
from tests.functional import conductor_harness

pytestmark = pytest.mark.usefixtures('api_conductor')
_APP = {}
U = 'a0a0a0a0-a0a0-a0a0-a0a0-a0a0a0a0a0a0'
B = '{' + U + '}'
B2 = '{a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0b0}'
D = 'a-0-a-0-a-0-a-0-a-0-a-0-a-0-a-0-a-0-a-0-a-0-a-0-a-0-a-0-a-0-a-0'
S = '\ud800'


def app():
    if 'a' not in _APP:
        _APP['a'] = api_app.setup_app(conftest.make_conf(), prepare_db=False,
                                      rpcapi=conductor_harness.api_conductor()[1])
    return _APP['a']


def call(method, path, body=None, pl=False):
    headers = {'X-OpenStack-Ironic-API-Version': 'latest'}
    if pl:
        headers = {'X-Auth-Token': 'admin', 'X-Roles': 'admin,service', 'OpenStack-API-Version': 'placement latest'}
    req = webob.Request.blank('/', method=method, headers=headers)
    p, _, q = path.partition('?')
    req.environ['PATH_INFO'] = urllib.parse.unquote_to_bytes(p).decode('latin-1')
    req.environ['QUERY_STRING'] = q
    if body is not None:
        req.body = body if isinstance(body, bytes) else json.dumps(body).encode()
        req.content_type = 'application/json'
    return req.get_response(app())


def cases(rp, node, port, pg):
    A = {'allocations': {rp: {'resources': {'VCPU': 1}}}, 'project_id': 'p', 'user_id': 'u', 'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    out = []
    for X in (B, B2, D, S):
        out += [
            ('POST', '/placement/resource_providers', {'name': 'p' + X[:3], 'uuid': X}, True),
            ('POST', '/placement/resource_providers', {'name': 'q' + X[:3], 'parent_provider_uuid': X}, True),
            ('PUT', '/placement/resource_providers/' + rp, {'name': 'cn', 'parent_provider_uuid': X}, True),
            ('PUT', '/placement/resource_providers/' + rp + '/aggregates', {'resource_provider_generation': 1, 'aggregates': [X]}, True),
            ('PUT', '/placement/allocations/' + urllib.parse.quote(X, errors='surrogatepass'), A, True),
            ('PUT', '/placement/allocations/' + U, dict(A, allocations={X: {'resources': {'VCPU': 1}}}), True),
            ('PUT', '/placement/allocations/' + U, dict(A, project_id=X), True),
            ('PUT', '/placement/allocations/' + U, dict(A, user_id=X), True),
            ('PUT', '/placement/allocations/' + U, dict(A, consumer_type='CUSTOM' + X), True),
            ('POST', '/placement/allocations', {X: A}, True),
            ('POST', '/placement/reshaper', {'inventories': {rp: {'resource_provider_generation': 1, 'inventories': {'VCPU': {'total': 8}}}}, 'allocations': {X: A}}, True),
            ('POST', '/placement/reshaper', {'inventories': {X: {'resource_provider_generation': 1, 'inventories': {'VCPU': {'total': 8}}}}, 'allocations': {}}, True),
            ('POST', '/placement/reshaper', {'inventories': {rp: {'resource_provider_generation': 1, 'inventories': {'VCPU': {'total': 8}}}}, 'allocations': {U: dict(A, project_id=X)}}, True),
            ('GET', '/placement/resource_providers?member_of=' + urllib.parse.quote(X, errors='surrogatepass'), None, True),
            ('GET', '/placement/resource_providers?in_tree=' + urllib.parse.quote(X, errors='surrogatepass'), None, True),
            ('GET', '/placement/resource_providers?uuid=' + urllib.parse.quote(X, errors='surrogatepass'), None, True),
            ('GET', '/placement/allocation_candidates?resources=VCPU:1&in_tree=' + urllib.parse.quote(X, errors='surrogatepass'), None, True),
            ('GET', '/placement/usages?project_id=' + urllib.parse.quote(X, errors='surrogatepass'), None, True),
            ('PUT', '/placement/traits/CUSTOM_' + urllib.parse.quote(X, errors='surrogatepass'), None, True),
            ('POST', '/placement/resource_classes', {'name': 'CUSTOM_' + X}, True),
            ('PUT', '/placement/resource_providers/' + rp + '/inventories/' + urllib.parse.quote(X, errors='surrogatepass'), {'resource_provider_generation': 1, 'total': 1}, True),
            ('POST', '/v1/nodes', {'driver': 'fake-hardware', 'uuid': X}, False),
            ('POST', '/v1/nodes', {'driver': 'fake-hardware', 'instance_uuid': X}, False),
            ('POST', '/v1/nodes', {'driver': 'fake-hardware', 'parent_node': X}, False),
            ('POST', '/v1/nodes', {'driver': 'fake-hardware', 'owner': X, 'lessee': X}, False),
            ('POST', '/v1/nodes', {'driver': 'fake-hardware', 'description': X}, False),
            ('POST', '/v1/nodes', {'driver': 'fake-hardware', 'shard': X}, False),
            ('POST', '/v1/nodes', {'driver': 'fake-hardware', 'resource_class': X}, False),
            ('POST', '/v1/nodes', {'driver': 'fake-hardware', 'instance_info': {'a': X}}, False),
            ('PATCH', '/v1/nodes/' + node, [{'op': 'add', 'path': '/instance_uuid', 'value': X}], False),
            ('PATCH', '/v1/nodes/' + node, [{'op': 'add', 'path': '/parent_node', 'value': X}], False),
            ('PATCH', '/v1/nodes/' + node, [{'op': 'add', 'path': '/extra/' + X, 'value': X}], False),
            ('PUT', '/v1/nodes/' + node + '/maintenance', {'reason': X}, False),
            ('GET', '/v1/nodes/' + urllib.parse.quote(X, errors='surrogatepass'), None, False),
            ('GET', '/v1/nodes?instance_uuid=' + urllib.parse.quote(X, errors='surrogatepass'), None, False),
            ('GET', '/v1/ports?node=' + urllib.parse.quote(X, errors='surrogatepass'), None, False),
            ('GET', '/v1/ports?node_uuid=' + urllib.parse.quote(X, errors='surrogatepass'), None, False),
            ('POST', '/v1/ports', {'address': '52:54:00:12:34:5%d' % len(X), 'node_uuid': node, 'uuid': X}, False),
            ('POST', '/v1/ports', {'address': '52:54:00:12:34:6%d' % len(X), 'node_uuid': X}, False),
            ('POST', '/v1/ports', {'address': '52:54:00:12:34:7%d' % len(X), 'node_uuid': node, 'portgroup_uuid': X}, False),
            ('POST', '/v1/ports', {'address': '52:54:00:12:34:8%d' % len(X), 'node_uuid': node, 'physical_network': X, 'description': X, 'vendor': X, 'category': X}, False),
            ('POST', '/v1/ports', {'address': '52:54:00:12:34:9%d' % len(X), 'node_uuid': node, 'local_link_connection': {'switch_id': X, 'port_id': X}}, False),
            ('POST', '/v1/portgroups', {'node_uuid': node, 'uuid': X}, False),
            ('POST', '/v1/portgroups', {'node_uuid': X}, False),
            ('POST', '/v1/portgroups', {'node_uuid': node, 'mode': X, 'category': X}, False),
            ('POST', '/v1/allocations', {'resource_class': 'x', 'uuid': X}, False),
            ('POST', '/v1/allocations', {'resource_class': 'x', 'candidate_nodes': [X]}, False),
            ('POST', '/v1/allocations', {'resource_class': 'x', 'node': X}, False),
            ('POST', '/v1/allocations', {'resource_class': 'x', 'extra': {X: X}}, False),
            ('POST', '/v1/allocations', {'resource_class': 'x', 'owner': X}, False),
            ('POST', '/v1/nodes/' + node + '/vifs', {'id': X}, False),
            ('PUT', '/v1/nodes/' + node + '/traits/CUSTOM_' + urllib.parse.quote(X, errors='surrogatepass'), None, False),
            ('GET', '/v1/allocations?node=' + urllib.parse.quote(X, errors='surrogatepass'), None, False),
            ('GET', '/v1/nodes/' + node + '/allocation', None, False),
        ]
    return out


def test_probe(database):
    r = call('POST', '/placement/resource_providers', {'name': 'cn'}, True)
    rp = r.json['uuid']
    r = call('PUT', '/placement/resource_providers/%s/inventories' % rp, {'resource_provider_generation': 0, 'inventories': {'VCPU': {'total': 8}}}, True)
    assert r.status_int == 200, r.text
    r = call('POST', '/v1/nodes', {'driver': 'fake-hardware', 'name': 'nd'})
    node = r.json['uuid']
    r = call('POST', '/v1/portgroups', {'node_uuid': node, 'name': 'pgx'})
    assert r.status_int == 201, r.text
    with open('/tmp/hin/probe2-%s.txt' % database.backend, 'w', errors='backslashreplace') as f:
        for method, path, body, pl in cases(rp, node, None, None):
            r = call(method, path, body, pl)
            f.write('%d %s %s %s | %s\n' % (r.status_int, method, path[:70], json.dumps(body)[:150], r.text[:250]))
