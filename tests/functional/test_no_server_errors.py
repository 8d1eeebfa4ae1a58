"""No request a client can send gets a 500.

Every route of the Placement route table is called with every method it
has (and one it lacks), at several microversions, with path values that
exist, do not exist and cannot exist, and with a corpus of hostile
bodies and query strings: wrong types, out-of-range numbers, NUL bytes,
non-ASCII, oversize strings. Only the status class is checked here; the
gabbi files check the exact answers.
"""

import itertools
import re

import pytest
import sqlalchemy as sa

from allocsvc.api.controllers.placement import handler
from tests.client import placement_request as _request
from tests import conftest
from tests.helpers import apps

VERSIONS = ['1.0', '1.6', '1.18', '1.39']

NUL = '\u0000'
BIG = 2 ** 63

BODIES = [
    None, b'', b'null', b'[]', b'{}', b'"text"', b'{"a": 1}', b'{"name":',
    b'{"total": 1e999}', b'\xff\xfe',
    # Deeper than Python's JSON parser can recurse.
    ('[' * 100000 + ']' * 100000).encode(),
    {'name': NUL},
    {'name': 'x' * 300},
    {'name': 'CUSTOM_' + NUL},
    {'name': 'caf\u00e9 \u2603'},
    {'name': 'ok', 'uuid': NUL},
    {'name': 'ok', 'parent_provider_uuid': 'not-a-uuid'},
    {'name': 'ok',
     'parent_provider_uuid': '00000000-0000-0000-0000-00000000000'},
    {'resource_provider_generation': BIG, 'traits': ['HW_CPU_X86_AVX']},
    {'resource_provider_generation': 0, 'traits': [NUL, 'CUSTOM_\u00e9']},
    {'resource_provider_generation': -1, 'traits': []},
    {'resource_provider_generation': 0, 'aggregates': [NUL]},
    {'resource_provider_generation': 0, 'aggregates': ['0' * 32, '0' * 32]},
    ['%s' % NUL],
    ['00000000-0000-0000-0000-000000000000'],
    {'resource_provider_generation': 0,
     'inventories': {'VCPU': {'total': 2 ** 31}}},
    {'resource_provider_generation': 0,
     'inventories': {'CUSTOM_' + NUL: {'total': 1}}},
    {'resource_provider_generation': 0,
     'inventories': {'VCPU': {'total': 10, 'allocation_ratio': 1e308}}},
    {'resource_provider_generation': 0,
     'inventories': {'VCPU': {'total': 10, 'allocation_ratio': 1e-320}}},
    {'resource_provider_generation': 0,
     'inventories': {'VCPU': {'total': 1, 'reserved': BIG}}},
    {'resource_provider_generation': 0, 'total': '10'},
    {'resource_provider_generation': 0, 'total': 1.5},
    {'resource_provider_generation': 0, 'total': BIG},
    {'resource_class': 'VCPU', 'total': 1, 'max_unit': -1},
    {'resource_class': NUL, 'total': 1},
    {'resource_class': 'VCPU', 'total': 1, 'step_size': 0},
]

QUERIES = [
    '', '?name=%00', '?uuid=%00', '?member_of=%00', '?member_of=in:',
    '?member_of=!in:%00', '?resources=VCPU:99999999999999999999',
    '?resources=VCPU:1,VCPU:2', '?resources=%00:1', '?resources=,',
    '?required=%00', '?required=in:', '?required=!', '?in_tree=%00',
    '?project_id=%00', '?project_id=a&user_id=%00',
    '?project_id=a&consumer_type=%00', '?project_id=a&consumer_type=all',
    '?name=startswith:%00', '?name=in:%00,', '?associated=maybe',
    '?name=%C3%A9', '?uuid=' + 'a' * 5000,
]

PATH_VALUES = {
    'uuid': ['{rp}', '00000000-0000-0000-0000-000000000000', '%00%C3%A9'],
    'name': ['CUSTOM_THERE', 'HW_CPU_X86_AVX', 'lower%00'],
    'resource_class': ['VCPU', 'CUSTOM_NOPE%00'],
}


def _paths(template, rp):
    names = re.findall(r'\{(\w+)\}', template)
    choices = [PATH_VALUES[n] for n in names]
    for values in itertools.product(*choices):
        path = template
        for name, value in zip(names, values):
            path = path.replace('{%s}' % name, value.format(rp=rp), 1)
        yield path


def _seed(app):
    rp = _request(app, 'POST', '/resource_providers', '1.39',
                  {'name': 'seed'}).json['uuid']
    assert _request(app, 'PUT', '/resource_providers/%s/inventories' % rp,
                    '1.39', {'resource_provider_generation': 0,
                             'inventories': {'VCPU': {'total': 4}}}
                    ).status_int == 200
    assert _request(app, 'PUT', '/traits/CUSTOM_THERE', '1.39'
                    ).status_int == 201
    assert _request(app, 'PUT', '/resource_classes/CUSTOM_THERE', '1.39'
                    ).status_int == 201
    return rp


# The admin token plus the service role, which alone may reshape: every
# handler is reached past its policy check.
_EVERY_ROLE = {'X-Roles': 'admin,service'}


def _sweep(rp):
    """Every request of the sweep, in order: (key, method, url, version,
    body), ``key`` naming it the same way on every database."""
    for template, methods in handler.ROUTE_DECLARATIONS.items():
        for method in sorted(methods) + ['PATCH']:
            paths = enumerate(_paths(template, rp))
            for (p, path), version in itertools.product(paths, VERSIONS):
                if method in ('PUT', 'POST'):
                    variants = [(path, body) for body in BODIES]
                elif method == 'GET':
                    variants = [(path + q, None) for q in QUERIES]
                else:
                    variants = [(path, None)]
                for v, (url, body) in enumerate(variants):
                    # Deleting the seeded provider would end the test's
                    # interest in it; deletion itself is covered below.
                    if method == 'DELETE' and template == \
                            '/resource_providers/{uuid}' and rp in url:
                        continue
                    yield ((template, method, p, version, v), method, url,
                           version, body)


# The requests that reached the database on the first database swept in
# this process. What the others answer differently can only come from
# their database: a request that never reached it on one (refused by
# routing, the microversion, the body's or the query's checks) takes the
# same path on all, so the others are sent only those that reached it.
# The three run in one process (the xdist group), SQLite first.
_REACHED = {}


def _counting(engine):
    """A counter of the statements ``engine`` executes."""
    count = [0]

    def executed(*args, **kwargs):
        count[0] += 1
    sa.event.listen(engine, 'before_cursor_execute', executed)
    return count, lambda: sa.event.remove(engine, 'before_cursor_execute',
                                          executed)


@pytest.mark.slow
@pytest.mark.xdist_group(__name__)
@pytest.mark.parametrize('backend', ['sqlite', 'mysql', 'postgresql'])
def test_no_request_gets_a_server_error(backend):
    db = conftest.get_database(backend)
    db.clean()
    app = apps.placement()
    rp = _seed(app)
    failures = []
    sent = 0
    reached = _REACHED.get('keys')
    count, stop_counting = _counting(db.engine)
    seen = set()
    try:
        for key, method, url, version, body in _sweep(rp):
            if reached is not None and key not in reached:
                continue
            before = count[0]
            resp = _request(app, method, url, version, body,
                            headers=_EVERY_ROLE)
            sent += 1
            if count[0] != before:
                seen.add(key)
            if resp.status_int >= 500:
                failures.append('%s %s @%s %r -> %s %s' % (
                    method, url[:80], version, body and str(body)[:80],
                    resp.status, resp.body[:200]))
    finally:
        stop_counting()
    if reached is None:
        _REACHED['keys'] = seen
    assert _request(app, 'DELETE', '/resource_providers/%s' % rp,
                    '1.39').status_int == 204
    assert sent > 1000 and seen
    assert not failures, '%d of %d requests got 5xx:\n%s' % (
        len(failures), sent, '\n'.join(failures[:40]))
