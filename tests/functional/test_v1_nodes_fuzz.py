"""No request to ``/v1/nodes...`` gets a 500, on any database backend.

Every route of the node route table is called with its methods (and one
it lacks), at the oldest and newest versions, with path values that
exist, do not exist and cannot exist, and with a corpus of hostile
bodies and query strings: wrong types, NUL bytes (which PostgreSQL
refuses to store), non-ASCII, oversize strings, deep nesting. Only the
status class is checked here; the other test_v1_nodes files check the
exact answers.
"""

import json

import pytest

from tests.helpers import v1 as api

# Nodes change through a conductor (see test_v1_nodes).
pytestmark = pytest.mark.usefixtures('api_conductor')

NUL = '\u0000'
BIG = 2 ** 63
DEEP = ('[' * 100000 + ']' * 100000).encode()

BODIES = [
    None, b'', b'null', b'[]', b'{}', b'"text"', b'{"a":', b'\xff\xfe',
    DEEP,
    {'driver': 'fake-hardware', 'name': 'n' + NUL},
    {'driver': 'fake-hardware', 'description': NUL, 'owner': NUL,
     'lessee': NUL, 'resource_class': NUL},
    {'driver': NUL, 'conductor_group': NUL, 'uuid': NUL},
    {'driver': 'fake-hardware', 'extra': {NUL: NUL, 'a': BIG},
     'properties': {'caf\u00e9': '\u2603\U0001f600'}},
    {'driver': 'fake-hardware', 'instance_uuid': NUL, 'maintenance': NUL},
    {'driver': 'fake-hardware', 'description': 'caf\u00e9 \U0001f600',
     'owner': '\U0001f600', 'name': 'caf\u00e9'},
    {'driver': 'fake-hardware', 'owner': 'x' * 300,
     'description': 'd' * 70000},
    {'target': NUL, 'timeout': BIG, 'reason': NUL},
    {'target': 'active', 'configdrive': NUL},
    {'target': ['power on']},
    {'traits': [NUL, 'CUSTOM_' + NUL, 'CUSTOM_\u00e9']},
    {'reason': 'caf\u00e9' * 20000},
    [{'op': 'add', 'path': '/description', 'value': NUL}],
    [{'op': 'add', 'path': '/owner', 'value': NUL * 3}],
    [{'op': 'add', 'path': '/extra/' + NUL, 'value': NUL}],
    [{'op': 'replace', 'path': '/name', 'value': BIG}],
    [{'op': 'add', 'path': '/' + NUL, 'value': 1}],
    [{'op': 'remove', 'path': '/extra/~2'}],
    [{'op': 'add', 'path': '/properties/a/b/c', 'value': 1}],
]

QUERIES = [
    'limit=%d' % BIG, 'limit=1e3', 'marker=%00', 'sort_key=%00',
    'sort_dir=%00', 'fields=%00', 'owner=%00', 'lessee=a%00b',
    'description_contains=%00', 'resource_class=%00', 'conductor=%00',
    'conductor_group=%00', 'driver=%00', 'provision_state=%00',
    'instance_uuid=%00', 'maintenance=%00', 'detail=%00',
    'owner=' + 'x' * 5000, 'fields=uuid&fields=name', 'reason=%00',
    'description_contains=%25_%5C', 'owner=%F0%9F%98%80',
]

# Idents that exist, do not exist and cannot exist; hostile bodies go
# to the first two only (the others are refused before any body is read).
IDENTS = ['fz', '00000000-0000-0000-0000-000000000000', 'fz.json',
          'ba!na!na', 'x' * 300, 'caf%C3%A9', '%00']


# The node API's paths ('{node}': an ident, '{trait}': a trait) and the
# methods each takes (see allocsvc.api.controllers.v1.node).
ROUTES = [
    ((), ('GET', 'POST')),
    (('detail',), ('GET',)),
    (('{node}',), ('GET', 'PATCH', 'DELETE')),
    (('{node}', 'states'), ('GET',)),
    (('{node}', 'states', 'power'), ('PUT',)),
    (('{node}', 'states', 'provision'), ('PUT',)),
    (('{node}', 'maintenance'), ('PUT', 'DELETE')),
    (('{node}', 'traits'), ('GET', 'PUT', 'DELETE')),
    (('{node}', 'traits', '{trait}'), ('PUT', 'DELETE')),
]


def _paths():
    for pattern, methods in ROUTES:
        others = {'GET', 'PUT', 'POST', 'PATCH', 'DELETE'} - set(methods)
        verbs = sorted(methods) + sorted(others)[:1]
        if not pattern:
            yield '/v1/nodes', verbs, True
            continue
        for number, ident in enumerate(IDENTS):
            parts = [ident if p == '{node}' else
                     ('CUSTOM_' + '%00' if p == '{trait}' else p)
                     for p in pattern]
            yield '/v1/nodes/' + '/'.join(parts), verbs, number < 2
    for ident in IDENTS[:4]:
        yield ('/v1/nodes/%s/allocation' % ident, ['GET', 'DELETE', 'POST'],
               False)


def _request(method, path, body, version):
    raw = None
    if isinstance(body, bytes):
        raw, body = body, None
    return api.call(method, path, body, version=version, raw=raw)


def test_no_server_errors(database):
    api.create(name='fz', extra={'a': {'b': 1}})
    failures = []

    def check(method, path, body=None, version='latest'):
        resp = _request(method, path, body, version)
        if resp.status_int >= 500:
            failures.append((method, path, version, repr(body)[:80],
                             resp.text[:300]))

    for path, verbs, with_bodies in _paths():
        for method in verbs:
            if with_bodies and method in ('POST', 'PUT', 'PATCH'):
                for body in BODIES:
                    check(method, path, body)
            else:
                check(method, path, b'{}' if method != 'GET' else None)
            # The oldest version, where most of it does not exist yet.
            check(method, path, b'{}' if method != 'GET' else None, '1.1')
    for query in QUERIES:
        for path in ('/v1/nodes', '/v1/nodes/detail', '/v1/nodes/fz',
                     '/v1/nodes/fz/states'):
            check('GET', '%s?%s' % (path, query))
            check('GET', '%s?%s' % (path, query), version='1.1')
        check('PUT', '/v1/nodes/fz/maintenance?' + query)
    assert not failures, json.dumps(failures, indent=1)
