"""Property-based fuzzing of both APIs: no request gets a 5xx or logs an
error.

Hypothesis draws requests over the route tables of both APIs: the
Placement handler's ``ROUTE_DECLARATIONS`` and the bare-metal API's
``allocsvc.api.controllers.v1.routes.ROUTES`` (``V1_TABLE`` below: each
row's path and methods, and the paths its rules read beyond the rows).
Each request has

* a method the route takes, or one it does not;
* path values that exist, do not exist or cannot exist (NUL, braced
  UUIDs, bad percent-encoding, very long, non-ASCII);
* a body drawn from the route's JSON schema (Placement's schemas, the
  node, port, port group, chassis, allocation and allocation preview
  schemas of ``/v1``),
  then
  mutated: a value of the wrong type, a key removed or added, strange
  strings (NUL, lone surrogates, non-ASCII, 70,000 characters), huge or
  non-finite numbers; or raw bytes that are not JSON or not UTF-8;
* a query drawn from the route's query schema or names, with the same
  values and percent-encoded junk;
* a random microversion, content type and accept header.

The answer must not be a 5xx, and nothing may be logged at ERROR or
with a traceback. The tests run in-process on SQLite, derandomized with a
bounded number of examples, so that CI replays the same requests; the
hand-written corpora of test_no_server_errors and test_v1_nodes_fuzz
run on every database.
"""

import json
import logging
import os
import re
import urllib.parse

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest
import webob

from allocsvc.api.controllers.placement import handler
from allocsvc.api.controllers.placement.schemas import aggregate
from allocsvc.api.controllers.placement.schemas import group_claim
from allocsvc.api.controllers.placement.schemas import allocation
from allocsvc.api.controllers.placement.schemas import allocation_candidate
from allocsvc.api.controllers.placement.schemas import inventory
from allocsvc.api.controllers.placement.schemas import reservation
from allocsvc.api.controllers.placement.schemas import reshaper
from allocsvc.api.controllers.placement.schemas import resource_class
from allocsvc.api.controllers.placement.schemas import resource_provider
from allocsvc.api.controllers.placement.schemas import trait
from allocsvc.api.controllers.placement.schemas import usage
from allocsvc.api.controllers.v1 import allocation_preview_schema
from allocsvc.api.controllers.v1 import allocation_schema
from allocsvc.api.controllers.v1 import chassis_schema
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import port_schema
from allocsvc.api.controllers.v1 import routes as v1_routes
from tests import client
from tests import conftest
from tests.functional import conductor_harness
from tests.functional import ironic_errors
from tests.helpers import apps

METHODS = ('GET', 'PUT', 'POST', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS')

# Each example is one request (a few milliseconds to a few tens); the
# counts keep the whole file near 20 s (a minute on a busy machine). To search
# longer and elsewhere by hand: ALLOCSVC_FUZZ_EXAMPLES=20000 and
# ALLOCSVC_FUZZ_RANDOM=1 (a new random seed each run; hypothesis prints
# how to reproduce what it finds).
_EXAMPLES = os.environ.get('ALLOCSVC_FUZZ_EXAMPLES')
SETTINGS = dict(deadline=None,
                derandomize=not os.environ.get('ALLOCSVC_FUZZ_RANDOM'),
                database=None,
                print_blob=False,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much,
                                       HealthCheck.function_scoped_fixture])
PLACEMENT_EXAMPLES = int(_EXAMPLES or 1000)
V1_EXAMPLES = int(_EXAMPLES or 1000)

# -- hostile values ----------------------------------------------------------

NUL = '\x00'
SURROGATE = '\ud800'
BRACED = '{a0a0a0a0-a0a0-4a0a-8a0a-a0a0a0a0a0a0}'
STRANGE_STRINGS = [
    '', ' ', NUL, 'a' + NUL + 'b', SURROGATE, 'x' + '\udfff', 'caf\u00e9',
    '\u2603\U0001f600', '\u202e\u200b', 'x' * 256, 'y' * 70000, BRACED,
    'urn:uuid:a0a0a0a0-a0a0-4a0a-8a0a-a0a0a0a0a0a0',
    'A0A0A0A0A0A04A0A8A0AA0A0A0A0A0A0', '00000000-0000-0000-0000-000000000000',
    'CUSTOM_', 'CUSTOM_' + NUL, 'custom_lower', 'in:', 'in:,', '!', '!in:',
    'startswith:', '%', '%FF', '%00', '../..', 'null', 'true', '-1',
    '1e999', '9' * 40, '0x10', 'latest', '\\', '"', "'", '<script>', '~',
    '/', 'power on', 'active', 'fake-hardware', '1.1.1', ' 1 ',
]
HUGE_NUMBERS = [2 ** 31, 2 ** 63, 2 ** 64, -2 ** 63 - 1, 10 ** 30, -1, 0,
                1.5, 1e308, -0.0, 5e-324, float('inf'), float('nan')]

strange_text = st.one_of(st.sampled_from(STRANGE_STRINGS),
                         st.text(max_size=12))
strange_number = st.one_of(st.sampled_from(HUGE_NUMBERS),
                           st.integers(), st.floats())
scalars = st.one_of(strange_text, strange_number, st.booleans(), st.none())
hostile_json = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(strange_text, inner, max_size=3)),
    max_leaves=6)

RAW_BODIES = [
    b'', b'null', b'[]', b'{}', b'"text"', b'{"a":', b'\xff\xfe\x00',
    b'{"name": "\xc3\x28"}', b'{"a": 1, "a": 2}', b'[' * 5000 + b']' * 5000,
    b'{"a":' * 3000 + b'1' + b'}' * 3000, b'NaN', b'1e999', b'\xef\xbb\xbf{}',
    b'{"name": "\\ud800"}', b'{"name": "\\u0000"}',
]


# -- bodies from JSON schemas ------------------------------------------------

def _regex(pattern):
    return st.from_regex(pattern, fullmatch=True).filter(
        lambda s: len(s) < 300)


def from_schema(schema, depth=0):
    """Values that (mostly) match the JSON schema ``schema``: enough of
    its keywords to get past the first checks, so that mutations reach
    the code behind them."""
    if not isinstance(schema, dict) or depth > 5:
        return hostile_json
    if 'enum' in schema:
        return st.sampled_from(schema['enum'])
    for key in ('anyOf', 'oneOf'):
        if key in schema:
            return st.one_of([from_schema(s, depth + 1)
                              for s in schema[key]])
    kinds = schema.get('type')
    if kinds is None:
        kinds = 'object' if 'properties' in schema else None
    if isinstance(kinds, list):
        return st.one_of([from_schema(dict(schema, type=k), depth + 1)
                          for k in kinds])
    if kinds == 'object':
        return _object(schema, depth)
    if kinds == 'array':
        items = from_schema(schema.get('items', {}), depth + 1)
        low = schema.get('minItems', 0)
        return st.lists(items, min_size=low,
                        max_size=max(low, schema.get('maxItems', 3)))
    if kinds == 'string':
        if schema.get('format') == 'uuid':
            return st.uuids().map(str)
        if 'pattern' in schema:
            return _regex(schema['pattern'])
        return st.text(min_size=schema.get('minLength', 0),
                       max_size=min(schema.get('maxLength', 20), 20))
    if kinds == 'integer':
        return st.integers(schema.get('minimum', -5),
                           min(schema.get('maximum', 1000), 1000))
    if kinds == 'number':
        return st.floats(schema.get('minimum', 0.0), 100.0)
    if kinds == 'boolean':
        return st.booleans()
    if kinds == 'null':
        return st.none()
    return hostile_json


# Values that name what exists, for fields a random value would only
# get refused for ('{node}' and the like: the seeded one, filled in when
# the request is made), so that mutations reach what lies behind.
HINTS = {
    'driver': ['fake-hardware'],
    'node_uuid': ['{node}'],
    'node': ['{node}'],
    'portgroup_uuid': ['{portgroup}'],
    'resource_class': ['fz-rc', 'VCPU', 'CUSTOM_FZ'],
    'address': ['52:54:00:12:34:56', '52:54:00:00:00:02'],
    'project_id': ['p'],
    'user_id': ['u'],
    'consumer_type': ['INSTANCE'],
    'resource_provider_generation': [0, 1, 2],
    'consumer_generation': [None, 0, 1],
}


def _field(name, schema, depth):
    if name in HINTS:
        return st.one_of(st.sampled_from(HINTS[name]),
                         st.sampled_from(HINTS[name]),
                         from_schema(schema, depth))
    return from_schema(schema, depth)


def _resolve(doc, values):
    """``doc`` with the placeholders of ``HINTS`` filled in."""
    if isinstance(doc, str) and doc.startswith('{') and doc.endswith('}'):
        return values.get(doc[1:-1], [doc])[0]
    if isinstance(doc, list):
        return [_resolve(item, values) for item in doc]
    if isinstance(doc, dict):
        return {key: _resolve(item, values) for key, item in doc.items()}
    return doc


def _object(schema, depth):
    props = schema.get('properties', {})
    required = list(schema.get('required', ()))
    optional = sorted(set(props) - set(required))
    patterned = schema.get('patternProperties', {})

    @st.composite
    def build(draw):
        doc = {}
        for name in required:
            doc[name] = draw(_field(name, props.get(name, {}), depth + 1))
        for name in draw(st.lists(st.sampled_from(optional), unique=True,
                                  max_size=4)) if optional else ():
            doc[name] = draw(_field(name, props[name], depth + 1))
        for pattern in draw(st.lists(st.sampled_from(sorted(patterned)),
                                     unique=True, max_size=2)) \
                if patterned else ():
            doc[draw(_regex(pattern))] = draw(
                from_schema(patterned[pattern], depth + 1))
        extra = schema.get('additionalProperties')
        if isinstance(extra, dict) and draw(st.booleans()):
            doc[draw(st.text(min_size=1, max_size=8))] = draw(
                from_schema(extra, depth + 1))
        return doc

    return build()


@st.composite
def mutated(draw, base):
    """``base`` as it is, or with one change a hostile client makes."""
    doc = draw(base)
    how = draw(st.sampled_from(('keep', 'keep', 'keep', 'keep', 'value',
                                'value', 'remove', 'add', 'nested',
                                'replace')))
    if how == 'replace' or not isinstance(doc, (dict, list)) or not doc:
        return draw(hostile_json) if how != 'keep' else doc
    if isinstance(doc, list):
        index = draw(st.integers(0, len(doc) - 1))
        if how == 'remove':
            del doc[index]
        else:
            doc[index] = draw(hostile_json)
        return doc
    keys = sorted(doc)
    key = draw(st.sampled_from(keys))
    if how == 'value':
        doc[key] = draw(hostile_json)
    elif how == 'remove':
        del doc[key]
    elif how == 'add':
        doc[draw(strange_text)] = draw(hostile_json)
    elif how == 'nested':
        inner = doc[key]
        if isinstance(inner, dict) and inner:
            inner[draw(st.sampled_from(sorted(inner)))] = draw(hostile_json)
        elif isinstance(inner, list) and inner:
            inner[0] = draw(hostile_json)
        else:
            doc[key] = draw(scalars)
    return doc


def bodies(schemas):
    """Bodies for a route whose schemas are ``schemas`` (none: any)."""
    raw = st.sampled_from(RAW_BODIES)
    if not schemas:
        return st.one_of(st.none(), raw, hostile_json)
    derived = st.one_of([from_schema(s) for s in schemas])
    return st.one_of(mutated(derived), mutated(derived), mutated(derived),
                     raw, st.none(), hostile_json)


# -- paths and queries -------------------------------------------------------

PATH_JUNK = ['%FF', '%FF%FE', '%', '%zz', '%C3%28', '%00', '%ED%A0%80',
             '%7Ba0a0a0a0-a0a0-4a0a-8a0a-a0a0a0a0a0a0%7D', 'x' * 300,
             '%E2%98%83', 'a%2Fb', '..', '.', 'detail', 'index', '_lookup',
             '00000000-0000-0000-0000-000000000000', 'CUSTOM_NOPE', 'VCPU',
             'fake-hardware', '%20', 'a.json', 'nan']


def path_values(existing):
    """A path segment: one that names something (``existing``), or one
    that does not or cannot."""
    quoted = strange_text.map(lambda s: urllib.parse.quote(
        s.encode('utf-8', 'surrogatepass'), safe=''))
    return st.one_of(st.sampled_from(existing), st.sampled_from(existing),
                     st.sampled_from(existing), st.sampled_from(PATH_JUNK),
                     quoted)


# The key, in the path values of a seed, of those a DELETE may name:
# deleting what the other requests name would leave them nothing to find.
SPARE = 'spare'


def _fill(template, draw, values, method):
    if method == 'DELETE':
        values = dict(values, **values[SPARE])

    def value(match):
        return draw(path_values(values.get(match.group(1), ['x'])))
    return re.sub(r'\{(\w+)\}', value, template)


QUERY_JUNK = ['%FF', '%', '%zz', '&&', '==', '%00', 'a=%FF&a=%FE',
              '%C3%28=1', 'limit=%ED%A0%80', '=', ';', '+', '%2B%2B']


@st.composite
def queries(draw, names, schemas=(), bases=()):
    """A query string: a valid one of the route (``bases``) with one
    value changed or one added, or names of the route (or a schema's)
    with drawn values, sometimes with percent-encoded junk."""
    pairs = []
    if bases and draw(st.booleans()):
        pairs = list(draw(st.sampled_from(bases)))
        if pairs and draw(st.booleans()):
            index = draw(st.integers(0, len(pairs) - 1))
            pairs[index] = (pairs[index][0], draw(st.one_of(
                strange_text, strange_number.map(str),
                st.sampled_from([p[1] + ',' + p[1] for p in pairs]))))
    elif schemas:
        doc = draw(from_schema(draw(st.sampled_from(schemas))))
        if isinstance(doc, dict):
            for key, value in doc.items():
                values = value if isinstance(value, list) else [value]
                pairs += [(key, v) for v in values if isinstance(v, str)]
    for _i in range(draw(st.integers(0, 2 if pairs else 3))):
        pairs.append((draw(st.sampled_from(names) if names else strange_text),
                      draw(st.one_of(strange_text,
                                     strange_number.map(str)))))
    query = urllib.parse.urlencode(
        [(k.encode('utf-8', 'surrogatepass'),
          v.encode('utf-8', 'surrogatepass')) for k, v in pairs])
    if draw(st.integers(0, 4)) == 0:
        query += '&' + draw(st.sampled_from(QUERY_JUNK))
    return '?' + query if query else ''


# Mostly what a client sends, so that most requests get past the
# negotiation to the handlers.
CONTENT_TYPES = ['application/json'] * 12 + [
    None, 'application/json; charset=UTF-8',
    'application/json; charset=bogus', 'text/plain',
    'application/json-patch+json', 'multipart/form-data',
    'application/x-www-form-urlencoded', 'application/json;;']
ACCEPTS = [None] * 12 + ['application/json', 'text/html', '*/*',
                         'application/xml', 'application/json;q=0']


# Headers a client may add, with values that exist or make no sense.
EXTRA_HEADERS = {
    'X-OpenStack-Request-ID': ['req-' + '0' * 8 + '-0000-4000-8000-' +
                               '0' * 12, 'req-x', NUL, 'x' * 500],
    'X-Project-Id': ['p', '', 'x' * 300, '\u00e9'],
    'X-User-Id': ['u', '', 'x' * 300],
    'X-Roles': ['admin', 'reader', '', 'member,reader', 'service'],
    'X-Forwarded-Proto': ['https', 'gopher', ''],
    'X-Forwarded-Host': ['example.com:8080', '[::1', ''],
    'Origin': ['http://example.com', 'null'],
    'Access-Control-Request-Method': ['PUT', 'BREW'],
    'If-None-Match': ['*', '"x"'],
    'Accept-Language': ['de', '*;q=x'],
    'Content-Encoding': ['gzip', 'identity'],
}


@st.composite
def extra_headers(draw):
    names = draw(st.lists(st.sampled_from(sorted(EXTRA_HEADERS)),
                          unique=True, max_size=2))
    return {name: draw(st.sampled_from(EXTRA_HEADERS[name]))
            for name in names}


def _body_bytes(body):
    if body is None or isinstance(body, bytes):
        return body
    # ensure_ascii: a lone surrogate travels as the \\ud800 escape, as a
    # client's JSON library sends it.
    return json.dumps(body).encode()


def _send(app, method, url, headers, body):
    req = webob.Request.blank('/', method=method)
    # The target as sent, not re-quoted: bad percent-encoding included.
    path, _sep, query = url.partition('?')
    req.environ['PATH_INFO'] = urllib.parse.unquote_to_bytes(path).decode(
        'latin-1')
    req.environ['RAW_URI'] = url
    req.environ['REQUEST_URI'] = url
    req.environ['QUERY_STRING'] = query
    for name, value in headers.items():
        if value is not None:
            req.headers[name] = value
    data = _body_bytes(body)
    if data is not None:
        req.body = data
        ctype = headers.get('Content-Type')
        if ctype is None:
            req.environ.pop('CONTENT_TYPE', None)
        else:
            req.environ['CONTENT_TYPE'] = ctype
    return req.get_response(app)


def _check(resp, caplog, what):
    assert resp.status_int < 500, '%s -> %s %s' % (
        what, resp.status, resp.body[:500])
    bad = [r for r in caplog.records
           if r.levelno >= logging.ERROR or r.exc_info or
           'Traceback' in r.getMessage()]
    assert not bad, '%s logged:\n%s' % (what, '\n'.join(
        '%s %s' % (r.levelname, r.getMessage()[:500]) for r in bad))


def _describe(method, url, headers, body):
    shown = body if isinstance(body, bytes) else _body_bytes(body)
    return '%s %s %r %r' % (method, url[:300], headers,
                            shown[:300] if shown else shown)


# -- Placement ---------------------------------------------------------------

# The body schemas of each Placement write (all the versions' of them).
PLACEMENT_BODIES = {
    ('/resource_providers', 'POST'): [resource_provider.POST_1_0,
                                      resource_provider.POST_1_14],
    ('/resource_providers/{uuid}', 'PUT'): [resource_provider.PUT_1_0,
                                            resource_provider.PUT_1_14],
    ('/resource_classes', 'POST'): [resource_class.POST_1_2],
    ('/resource_classes/{name}', 'PUT'): [resource_class.PUT_1_2],
    ('/resource_providers/{uuid}/inventories', 'POST'): [inventory.POST],
    ('/resource_providers/{uuid}/inventories', 'PUT'): [inventory.PUT_ALL],
    ('/resource_providers/{uuid}/inventories/{resource_class}', 'PUT'): [
        inventory.PUT_ONE],
    ('/resource_providers/{uuid}/aggregates', 'PUT'): [aggregate.PUT_1_1,
                                                       aggregate.PUT_1_19],
    ('/resource_providers/{uuid}/traits', 'PUT'): [
        trait.SET_PROVIDER_TRAITS],
    ('/allocations', 'POST'): [allocation.POST_1_13, allocation.POST_1_28,
                               allocation.POST_1_34, allocation.POST_1_38],
    ('/allocations/{uuid}', 'PUT'): [
        allocation.PUT_1_0, allocation.PUT_1_8, allocation.PUT_1_12,
        allocation.PUT_1_28, allocation.PUT_1_34, allocation.PUT_1_38],
    ('/reshaper', 'POST'): [reshaper.POST_1_30, reshaper.POST_1_34,
                            reshaper.POST_1_38],
    # Takes no body.
    ('/traits/{name}', 'PUT'): [],
    ('/allocation_candidates/claim', 'POST'): [group_claim.CLAIM],
    ('/reservations', 'POST'): [reservation.CREATE],
    ('/reservations/{uuid}', 'PUT'): [reservation.UPDATE],
}

# The query schemas of the Placement reads that have one.
PLACEMENT_QUERIES = {
    '/resource_providers': [resource_provider.LIST_1_0,
                            resource_provider.LIST_1_14,
                            resource_provider.LIST_1_18],
    '/allocation_candidates': [allocation_candidate.GET_1_10,
                               allocation_candidate.GET_1_25,
                               allocation_candidate.GET_1_36],
    '/usages': [usage.GET_1_9, usage.GET_1_38],
    '/traits': [trait.LIST_QUERY],
    '/reservations': [reservation.LIST],
    '/reservations/availability': [reservation.AVAILABILITY],
}
# The explanation takes the candidates' query.
PLACEMENT_QUERIES['/allocation_candidates/explanation'] = \
    PLACEMENT_QUERIES['/allocation_candidates']
_RP = '{rp}'
_AGG = 'a9a9a9a9-a9a9-4a9a-8a9a-a9a9a9a9a9a9'
# Valid queries of the Placement reads, for mutations to start from
# ('{rp}': the seeded provider).
PLACEMENT_QUERY_BASES = {
    '/resource_providers': [
        [('name', 'fz-seed')], [('uuid', _RP)], [('in_tree', _RP)],
        [('member_of', 'in:' + _AGG)], [('resources', 'VCPU:1')],
        [('required', 'CUSTOM_FZ,!HW_CPU_X86_AVX2')],
        [('required', 'in:CUSTOM_FZ,HW_CPU_X86_AVX2')]],
    '/allocation_candidates': [
        [('resources', 'VCPU:1')], [('resources', 'VCPU:1'), ('limit', '5')],
        [('resources', 'VCPU:1'), ('required', '!CUSTOM_FZ')],
        [('resources', 'VCPU:1'), ('member_of', '!' + _AGG)],
        [('resources', 'VCPU:1'), ('in_tree', _RP)],
        [('resources1', 'VCPU:1'), ('resources2', 'VCPU:1'),
         ('group_policy', 'isolate')],
        [('resources', 'VCPU:1'), ('required_a', 'CUSTOM_FZ'),
         ('same_subtree', '_a'), ('root_required', '!CUSTOM_FZ')]],
    '/usages': [[('project_id', 'p')], [('project_id', 'p'),
                                        ('user_id', 'u')],
                [('project_id', 'p'), ('consumer_type', 'INSTANCE')],
                [('project_id', 'p'), ('consumer_type', 'all')]],
    '/traits': [[('name', 'startswith:CUSTOM')],
                [('name', 'in:CUSTOM_FZ,HW_CPU_X86_AVX2')],
                [('associated', 'true')]],
    '/reservations': [[('project_id', 'p')], [('resource_provider', _RP)],
                      [('start', '2030-01-01T00:00:00Z'),
                       ('end', '2031-01-01T00:00:00+02:00')]],
    '/reservations/availability': [
        [('resources', 'VCPU:1'), ('start', '2030-01-01T00:00:00Z'),
         ('end', '2030-01-03T00:00:00Z')],
        [('resources', 'VCPU:1,CUSTOM_FZ:1'), ('resource_provider', _RP),
         ('start', '2029-12-31T23:00:00-01:00'),
         ('end', '2030-01-02T00:00:00Z')]],
}
PLACEMENT_QUERY_BASES['/allocation_candidates/explanation'] = \
    PLACEMENT_QUERY_BASES['/allocation_candidates']
PLACEMENT_QUERY_NAMES = [
    'name', 'uuid', 'member_of', 'in_tree', 'resources', 'required',
    'limit', 'group_policy', 'project_id', 'user_id', 'consumer_type',
    'associated', 'resources1', 'required_x', 'member_of2', 'same_subtree',
    'root_required', 'in_tree1', 'resource_provider', 'start', 'end']


# Microversions: mostly the latest (where the most is to reach), every
# minor version, and some that are not versions.
PLACEMENT_VERSIONS = ['placement latest'] * 40 + [
    'placement 1.%d' % minor for minor in range(46)] + [
    'placement', 'placement 2.0', 'placement 1.', 'placement 1.01',
    'placement 1.999999999999999999999', 'compute 1.1',
    'placement 1.39, compute 2.1', None]


def test_placement_body_table_covers_every_write():
    writes = {(template, method)
              for template, methods in handler.ROUTE_DECLARATIONS.items()
              for method in methods if method in ('PUT', 'POST')}
    assert writes == set(PLACEMENT_BODIES)


def _placement_seed(app):
    rp = client.ok(client.placement_request(
        app, 'POST', '/resource_providers', '1.39', {'name': 'fz-seed'}))
    rp = rp['uuid']
    client.ok(client.placement_request(
        app, 'PUT', '/resource_providers/%s/inventories' % rp, '1.39',
        {'resource_provider_generation': 0,
         'inventories': {'VCPU': {'total': 8}}}))
    client.ok(client.placement_request(
        app, 'PUT', '/traits/CUSTOM_FZ', '1.39'), 201)
    client.ok(client.placement_request(
        app, 'PUT', '/resource_classes/CUSTOM_FZ', '1.39'), 201)
    consumer = 'c0c0c0c0-c0c0-4c0c-8c0c-c0c0c0c0c0c0'
    client.ok(client.placement_request(
        app, 'PUT', '/allocations/%s' % consumer, '1.39',
        {'allocations': {rp: {'resources': {'VCPU': 1}}},
         'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
         'consumer_type': 'INSTANCE'}),
        204)
    spare = client.ok(client.placement_request(
        app, 'POST', '/resource_providers', '1.39',
        {'name': 'fz-spare'}))['uuid']
    client.ok(client.placement_request(
        app, 'PUT', '/traits/CUSTOM_FZ_SPARE', '1.39'), 201)
    client.ok(client.placement_request(
        app, 'PUT', '/resource_classes/CUSTOM_FZ_SPARE', '1.39'), 201)
    held, spare_held = [client.ok(client.placement_request(
        app, 'POST', '/reservations', '1.39',
        {'project_id': 'p', 'start': '2030-01-01T00:00:00Z',
         'end': '2030-01-02T00:00:00Z',
         'resources': {rp: {'resources': {'VCPU': 1}}}}), 201)['uuid']
        for _ in range(2)]
    return {'uuid': [rp, consumer, held],
            'name': ['CUSTOM_FZ', 'HW_CPU_X86_AVX2'],
            'resource_class': ['VCPU', 'CUSTOM_FZ'],
            SPARE: {'uuid': [spare, spare_held], 'name': ['CUSTOM_FZ_SPARE'],
                    'resource_class': ['CUSTOM_FZ_SPARE']}}


@st.composite
def placement_requests(draw, values):
    template = draw(st.sampled_from(sorted(handler.ROUTE_DECLARATIONS)))
    taken = sorted(handler.ROUTE_DECLARATIONS[template])
    method = draw(st.one_of(st.sampled_from(taken), st.sampled_from(taken),
                            st.sampled_from(METHODS)))
    url = _fill(template, draw, values, method)
    if method == 'GET' and draw(st.integers(0, 2)):
        bases = [[(k, v.replace(_RP, values['uuid'][0])) for k, v in base]
                 for base in PLACEMENT_QUERY_BASES.get(template, ())]
        url += draw(queries(PLACEMENT_QUERY_NAMES,
                            PLACEMENT_QUERIES.get(template, ()), bases))
    elif draw(st.integers(0, 5)) == 0:
        url += draw(queries(PLACEMENT_QUERY_NAMES))
    body = None
    if method in ('PUT', 'POST', 'PATCH') or draw(st.integers(0, 5)) == 0:
        body = draw(bodies(PLACEMENT_BODIES.get((template, method))))
    version = draw(st.sampled_from(PLACEMENT_VERSIONS))
    headers = {'X-Auth-Token': 'admin', 'X-Roles': 'admin,service',
               'OpenStack-API-Version': version,
               'Content-Type': draw(st.sampled_from(CONTENT_TYPES)),
               'Accept': draw(st.sampled_from(ACCEPTS))}
    headers.update(draw(extra_headers()))
    return method, url, headers, body


@pytest.fixture(scope='module')
def placement_app():
    db = conftest.get_database('sqlite')
    db.clean()
    app = apps.placement()
    return app, _placement_seed(app)


def test_placement_routes_fuzz(placement_app, caplog):
    app, values = placement_app
    caplog.set_level(logging.INFO)

    @settings(max_examples=PLACEMENT_EXAMPLES, **SETTINGS)
    @given(placement_requests(values))
    def check(request):
        method, url, headers, body = request
        caplog.clear()
        resp = _send(app, method, url, headers, body)
        _check(resp, caplog, _describe(method, url, headers, body))

    check()


# -- the bare-metal API ------------------------------------------------------

# Every path of the route table and the methods its row takes (GET for a
# row answering any method itself), then the paths the table's rules
# read beyond its rows: what a node's methods make of an extra segment,
# Ironic's older node-last form, a chassis's node and resources not
# provided.
def _methods(methods):
    return sorted(set(methods) - {v1_routes.ANY}) or ['GET']


V1_TABLE = [(row[0], _methods(row[2])) for row in v1_routes.ROUTES] + [
    ('/v1/nodes/{node}/{field}', ['DELETE', 'GET', 'PATCH', 'POST']),
    ('/v1/nodes/states/console/{node}', ['GET', 'PUT']),
    ('/v1/nodes/management/indicators/{node}/{indicator}', ['GET', 'PUT']),
    ('/v1/nodes/states', ['GET']),
    ('/v1/chassis/{chassis}/nodes/{node}', ['GET']),
    ('/v1/volume/connectors', ['GET']),
    ('/v1/volume/targets/{thing}', ['GET']),
]

_PATCH_OPS = ('add', 'replace', 'remove', 'move', 'copy', 'test', 'nope')


def _patches(schema):
    """JSON patches over ``schema``'s fields, with values of their
    schemas (mutated like bodies)."""
    fields = sorted(schema['properties'])

    @st.composite
    def patch(draw):
        ops = []
        for _i in range(draw(st.integers(1, 3))):
            field = draw(st.sampled_from(fields))
            op = {'op': draw(st.sampled_from(_PATCH_OPS)),
                  'path': '/' + field + draw(st.sampled_from(
                      ['', '', '', '/a', '/~1', '/-', '/' + NUL]))}
            if op['op'] != 'remove' or draw(st.booleans()):
                op['value'] = draw(from_schema(
                    schema['properties'][field]))
            ops.append(op)
        return ops

    return [patch()]


_ANY_STR = {'type': 'string'}
V1_BODIES = {
    ('/v1/nodes', 'POST'): [node_schema.NODE],
    ('/v1/nodes/{node}', 'PATCH'): _patches(node_schema.NODE_PATCH),
    ('/v1/ports', 'POST'): [port_schema.PORT],
    ('/v1/ports/{port}', 'PATCH'): _patches(port_schema.PORT),
    ('/v1/portgroups', 'POST'): [port_schema.PORTGROUP],
    ('/v1/portgroups/{portgroup}', 'PATCH'): _patches(port_schema.PORTGROUP),
    ('/v1/chassis', 'POST'): [chassis_schema.CHASSIS],
    ('/v1/chassis/{chassis}', 'PATCH'): _patches(chassis_schema.CHASSIS),
    ('/v1/allocations', 'POST'): [allocation_schema.POST_1_52,
                                  allocation_schema.POST_1_58],
    ('/v1/allocations/{allocation}', 'PATCH'): _patches(
        allocation_schema.POST_1_58),
    ('/v1/allocation_preview', 'POST'): [allocation_preview_schema.PREVIEW],
    ('/v1/nodes/{node}/traits', 'PUT'): [node_schema.TRAITS_BODY],
    ('/v1/nodes/{node}/states/power', 'PUT'): [{
        'type': 'object', 'required': ['target'],
        'properties': {'target': {'enum': ['power on', 'power off',
                                           'rebooting', 'soft power off',
                                           'soft rebooting']},
                       'timeout': {'type': 'integer'}}}],
    ('/v1/nodes/{node}/states/provision', 'PUT'): [{
        'type': 'object', 'required': ['target'],
        'properties': {'target': {'enum': [
            'manage', 'provide', 'active', 'deleted', 'rebuild', 'inspect',
            'clean', 'abort', 'adopt', 'rescue', 'unrescue', 'unhold']},
            'configdrive': {'type': ['string', 'object']},
            'clean_steps': {'type': 'array', 'items': {'type': 'object'}},
            'rescue_password': _ANY_STR,
            'disable_ramdisk': {'type': 'boolean'}}}],
    ('/v1/nodes/{node}/maintenance', 'PUT'): [{
        'type': 'object', 'properties': {'reason': _ANY_STR}}],
    ('/v1/nodes/{node}/vifs', 'POST'): [{
        'type': 'object', 'required': ['id'],
        'properties': {'id': _ANY_STR, 'port_uuid': _ANY_STR,
                       'portgroup_uuid': _ANY_STR}}],
    ('/v1/nodes/{node}/management/boot_device', 'PUT'): [{
        'type': 'object', 'required': ['boot_device'],
        'properties': {'boot_device': {'enum': ['pxe', 'disk', 'cdrom']},
                       'persistent': {'type': 'boolean'}}}],
    ('/v1/nodes/{node}/states/console', 'PUT'): [{
        'type': 'object', 'required': ['enabled'],
        'properties': {'enabled': {'type': ['boolean', 'string']}}}],
    ('/v1/nodes/{node}/states/raid', 'PUT'): [{
        'type': 'object', 'required': ['logical_disks'],
        'properties': {'logical_disks': {'type': 'array', 'items': {
            'type': 'object', 'required': ['raid_level', 'size_gb'],
            'properties': {
                'raid_level': {'enum': ['0', '1', '5', 'JBOD', '7']},
                'size_gb': {'type': ['integer', 'string']},
                'is_root_volume': {'type': 'boolean'},
                'physical_disks': {'type': 'array'},
                'controller': _ANY_STR}}}}}],
    ('/v1/nodes/{node}/vmedia', 'POST'): [{
        'type': 'object', 'required': ['device_type', 'image_url'],
        'properties': {'device_type': {'enum': ['cdrom', 'disk', 'tape']},
                       'image_url': {'enum': ['http://x/i.iso', 'ftp://x',
                                              'nfs://h/p', 'http://[x',
                                              'x']},
                       'image_download_source': {
                           'enum': ['http', 'local', 'swift']}}}],
    ('/v1/nodes/{node}/vendor_passthru', 'POST'): [{
        'type': 'object', 'properties': {'bar': _ANY_STR}}],
}

_LISTING = [[('limit', '2')], [('limit', '1'), ('marker', '{first}')],
            [('sort_key', 'created_at'), ('sort_dir', 'desc')],
            [('fields', 'uuid,name')], [('detail', 'true')]]
# Valid queries of the /v1 reads, for mutations to start from.
V1_QUERY_BASES = {
    '/v1/nodes': _LISTING + [
        [('owner', 'p')], [('resource_class', 'fz-rc')],
        [('provision_state', 'available')], [('maintenance', 'false')],
        [('associated', 'true')], [('description_contains', 'x')],
        [('driver', 'fake-hardware')], [('conductor_group', '')],
        [('fault', 'power failure')], [('shard', 'a')], [('sharded', 'true')]],
    '/v1/nodes/detail': _LISTING[:3] + [[('instance_uuid', _AGG)]],
    '/v1/ports': _LISTING + [[('node', 'fz-node')],
                             [('address', '52:54:00:00:00:02')],
                             [('portgroup', 'fz-pg')]],
    '/v1/portgroups': _LISTING + [[('node', 'fz-node')],
                                  [('address', '52:54:00:00:00:01')]],
    '/v1/allocations': _LISTING + [[('node', 'fz-node')],
                                   [('resource_class', 'fz-rc')],
                                   [('state', 'active')], [('owner', 'p')]],
    '/v1/conductors': _LISTING[:3] + [[('detail', 'true')]],
    '/v1/drivers': [[('type', 'dynamic')], [('detail', 'true')]],
    '/v1/nodes/{node}': [[('fields', 'uuid,name,extra')]],
    '/v1/chassis': _LISTING,
    '/v1/chassis/detail': _LISTING[:3],
    '/v1/chassis/{chassis}': [[('fields', 'uuid,description,nodes')]],
    '/v1/chassis/{chassis}/nodes': _LISTING + [
        [('maintenance', 'false')], [('associated', 'true')]],
    '/v1/nodes/{node}/vendor_passthru': [[('method', 'x')],
                                         [('method', 'third_method_sync')],
                                         [('method', 'second_method')]],
}

V1_QUERY_NAMES = [
    'limit', 'marker', 'sort_key', 'sort_dir', 'fields', 'detail', 'node',
    'node_uuid', 'portgroup', 'address', 'resource_class', 'state', 'owner',
    'lessee', 'driver', 'provision_state', 'maintenance', 'associated',
    'instance_uuid', 'conductor', 'conductor_group', 'fault', 'chassis_uuid',
    'description_contains', 'retired', 'shard', 'sharded', 'parent_node',
    'include_children', 'type', 'method', 'name', 'project', 'alive',
    'missing', 'is_smartnic', 'include_events']


def _v1_seed():
    api_conductor = conductor_harness.api_conductor()
    app = apps.whole(rpcapi=api_conductor[1])

    def call(method, path, body=None, status=201):
        resp = _send(app, method, path, {
            'X-OpenStack-Ironic-API-Version': 'latest',
            'Content-Type': 'application/json'}, body)
        assert resp.status_int == status, resp.text
        return resp.json if resp.body else None

    node = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                      'name': 'fz-node',
                                      'resource_class': 'fz-rc'})
    spare = call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                       'name': 'fz-spare'})
    portgroup = call('POST', '/v1/portgroups', {
        'node_uuid': node['uuid'], 'name': 'fz-pg',
        'address': '52:54:00:00:00:01'})
    port = call('POST', '/v1/ports', {'node_uuid': node['uuid'],
                                      'address': '52:54:00:00:00:02'})
    alloc = call('POST', '/v1/allocations', {'resource_class': 'fz-rc',
                                             'name': 'fz-alloc'})
    chassis = call('POST', '/v1/chassis', {'description': 'fz-chassis'})
    spare_chassis = call('POST', '/v1/chassis', {})
    call('PATCH', '/v1/nodes/%s' % node['uuid'],
         [{'op': 'add', 'path': '/chassis_uuid', 'value': chassis['uuid']}],
         status=200)
    values = {
        'node': [node['uuid'], 'fz-node', spare['uuid']],
        'allocation': [alloc['uuid'], 'fz-alloc'],
        'conductor': [api_conductor[0].host],
        'trait': ['CUSTOM_FZ', 'HW_CPU_X86_AVX2'],
        'port': [port['uuid'], '52:54:00:00:00:02'],
        'portgroup': [portgroup['uuid'], 'fz-pg'],
        'driver': ['fake-hardware'],
        'vif': ['vif-1'],
        'setting': ['boot_mode'],
        'event': ['00000000-0000-0000-0000-000000000000'],
        'indicator': ['led@system'],
        'thing': ['x'],
        'chassis': [chassis['uuid'], spare_chassis['uuid']],
        'field': ['name', 'uuid,name', 'true', 'traits', 'nope'],
        SPARE: {'node': [spare['uuid'], 'fz-spare'],
                'chassis': [spare_chassis['uuid']],
                'allocation': ['fz-none'], 'port': ['fz-none'],
                'portgroup': ['fz-none']},
    }
    return app, values


V1_VERSIONS = ['latest'] * 40 + ['1.%d' % minor for minor in range(100)] + [
    '1.101', '2.0', '1.', 'v1.1', '1.99999999999999999999', '1.1.1',
    ' 1.60 ', '', None]


@st.composite
def v1_requests(draw, values):
    path, taken = draw(st.sampled_from(V1_TABLE))
    method = draw(st.one_of(st.sampled_from(taken), st.sampled_from(taken),
                            st.sampled_from(METHODS)))
    url = _fill(path, draw, values, method)
    if draw(st.integers(0, 1)):
        first = values['node'][0]
        bases = [[(k, v.replace('{first}', first)) for k, v in base]
                 for base in V1_QUERY_BASES.get(path, ())]
        url += draw(queries(V1_QUERY_NAMES, (), bases))
    body = None
    if method in ('PUT', 'POST', 'PATCH') or draw(st.integers(0, 5)) == 0:
        body = _resolve(draw(bodies(V1_BODIES.get((path, method)))),
                        values)
    version = draw(st.sampled_from(V1_VERSIONS))
    headers = {'X-OpenStack-Ironic-API-Version': version,
               'Content-Type': draw(st.sampled_from(CONTENT_TYPES)),
               'Accept': draw(st.sampled_from(ACCEPTS))}
    headers.update(draw(extra_headers()))
    return method, url, headers, body


def test_v1_route_table_is_fuzzed_with_bodies_for_its_writes():
    written = {(path, method) for path, methods in V1_TABLE
               for method in methods}
    assert set(V1_BODIES) <= written


@pytest.fixture(scope='module')
def v1_app():
    db = conftest.get_database('sqlite')
    db.clean()
    return _v1_seed()


def test_v1_routes_fuzz(v1_app, caplog):
    app, values = v1_app
    caplog.set_level(logging.INFO)

    @settings(max_examples=V1_EXAMPLES, **SETTINGS)
    @given(v1_requests(values))
    def check(request):
        method, url, headers, body = request
        # The test conductor runs no periodic tasks: its heartbeat, so
        # that it is not taken for dead in a long run.
        conductor_harness.api_conductor()
        caplog.clear()
        resp = _send(app, method, url, headers, body)
        _check(resp, caplog, _describe(method, url, headers, body))

    check()


def test_v1_allocation_preview_fuzz(v1_app, caplog):
    # The preview reads a body and asks a conductor: a share of requests
    # of its own, beyond the few the whole table's draws give it.
    app, values = v1_app
    caplog.set_level(logging.INFO)
    schemas = V1_BODIES[('/v1/allocation_preview', 'POST')]

    @settings(max_examples=max(V1_EXAMPLES // 5, 50), **SETTINGS)
    @given(st.data())
    def check(data):
        body = _resolve(data.draw(bodies(schemas)), values)
        headers = {
            'X-OpenStack-Ironic-API-Version': data.draw(
                st.sampled_from(V1_VERSIONS)),
            'Content-Type': data.draw(st.sampled_from(CONTENT_TYPES)),
            'Accept': data.draw(st.sampled_from(ACCEPTS))}
        method = data.draw(st.sampled_from(['POST'] * 4 + list(METHODS)))
        conductor_harness.api_conductor()
        caplog.clear()
        url = '/v1/allocation_preview'
        resp = _send(app, method, url, headers, body)
        _check(resp, caplog, _describe(method, url, headers, body))

    check()


# -- what the fuzzing found ---------------------------------------------------

@pytest.mark.parametrize('method', ['POST', 'PATCH', 'DELETE'])
@pytest.mark.parametrize('body', [None, b'--x\r\n'])
def test_v1_unparsable_form_body_is_400(v1_app, caplog, method, body):
    # Pecan parses a form body while routing: without a boundary that
    # raised ValueError, a 500.
    app, _values = v1_app
    conductor_harness.api_conductor()
    node = _send(app, 'POST', '/v1/nodes', {
        'X-OpenStack-Ironic-API-Version': 'latest',
        'Content-Type': 'application/json'}, {'driver': 'fake-hardware'})
    assert node.status_int == 201, node.text
    url = '/v1/nodes/%s' % node.json['uuid']
    caplog.clear()
    resp = _send(app, method, url,
                 {'X-OpenStack-Ironic-API-Version': 'latest',
                  'Content-Type': 'multipart/form-data'}, body)
    assert resp.status_int == 400, resp.text
    assert 'cannot be read as a form' in ironic_errors.message(resp)
    _check(resp, caplog, method)
    resp = _send(app, 'GET', url, {'X-OpenStack-Ironic-API-Version':
                                   'latest'}, None)
    assert resp.status_int == 200


@pytest.mark.parametrize('limit', [2 ** 63, 2 ** 64, 10 ** 30])
def test_placement_candidates_limit_beyond_any_list(caplog, limit):
    # itertools.islice refused a limit above sys.maxsize: a 500.
    conftest.get_database('sqlite')
    app = apps.placement()
    rp = client.ok(client.placement_request(
        app, 'POST', '/resource_providers', '1.39',
        {'name': 'fz-limit-%d' % limit}))['uuid']
    client.placement_request(app, 'PUT',
                             '/resource_classes/CUSTOM_FZ_LIMIT', '1.39')
    client.ok(client.placement_request(
        app, 'PUT', '/resource_providers/%s/inventories' % rp, '1.39',
        {'resource_provider_generation': 0,
         'inventories': {'CUSTOM_FZ_LIMIT': {'total': 4}}}))
    caplog.clear()
    resp = client.placement_request(
        app, 'GET', '/allocation_candidates?resources=CUSTOM_FZ_LIMIT:1'
        '&in_tree=%s&limit=%d' % (rp, limit), '1.39')
    body = client.ok(resp)
    assert len(body['allocation_requests']) == 1
    assert list(body['provider_summaries']) == [rp]
    _check(resp, caplog, limit)
