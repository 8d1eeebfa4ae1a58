"""Hostile input to both APIs: a 4xx in the API's error format, nothing
written, no ERROR in the log.

Scenarios, on SQLite, MariaDB and PostgreSQL where the database matters:
* a lone surrogate ("\\ud800", the JSON escape) in every kind of string
  field: provider, class, trait and consumer names and ids (allocations
  and the reshaper) in Placement; node, port, port group and allocation
  fields, member names included, in /v1;
* braced and other non-canonical UUIDs: normalised by Placement, refused
  by /v1 (never stored with their braces, never a 500);
* values over MariaDB's 64 KiB TEXT: refused (400), except a node's
  instance_info, LONGTEXT as in Ironic;
* a path or query string that is not UTF-8 once percent-decoded;
* DELETE and PATCH on /v1/allocations without an ident (405);
* a JSON charset other than UTF-8 on every write (415), UTF-8 spelt
  any way still accepted;
* bodies nested deeper than the limit (400, at once), larger than
  ``[oslo_middleware] max_request_body_size`` (413, with or without a
  Content-Length), not UTF-8, or cut short by the client (400 and one
  INFO line), through the in-process pipelines and the embedded server.
"""

import io
import json
import logging
import socket
import threading
import urllib.parse

import pytest
import webob

from allocsvc.api import app as api_app
from allocsvc.api import request_checks
from allocsvc.cmd import server
from allocsvc.common import context
from allocsvc.db import api as db_api
from allocsvc.db import models
from tests import conftest
from tests.functional import conductor_harness
from tests.functional.ironic_errors import fault
from tests.functional.ironic_errors import message
from tests.helpers import apps
from tests.helpers import waiting

IRONIC = 'X-OpenStack-Ironic-API-Version'
PLACEMENT = {'X-Auth-Token': 'admin', 'X-Roles': 'admin,service',
             'OpenStack-API-Version': 'placement latest'}
BAREMETAL = {IRONIC: 'latest'}
JSON = 'application/json'
# The JSON escape of a lone surrogate, as a client sends it.
LONE = '"\\ud800"'
UUID = 'a0a0a0a0-a0a0-a0a0-a0a0-a0a0a0a0a0a0'
BRACED = '{%s}' % UUID
# Every form oslo.utils calls uuid-like but which is not the stored one.
NOT_CANONICAL = [BRACED, '{a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0}',
                 'urn:uuid:' + UUID, '-'.join('a0' * 16)]
BIG = 'x' * 70000
# Tables that change without a request (a conductor's heartbeat, the
# cached provider trees).
_MOVING = ('conductors', 'placement_topology', 'placement_topology_changes')

_APP = {}


def app():
    return apps.shared()


def send(method, path, body=None, headers=None, content_type=JSON,
         application=None):
    """One request as a client sends it: ``path`` may hold any
    percent-encoding (it is decoded to bytes, as a server does),
    ``body`` is sent as is (str as UTF-8)."""
    headers = dict(PLACEMENT if path.startswith('/placement') else
                   BAREMETAL, **(headers or {}))
    req = webob.Request.blank('/', method=method, headers=headers)
    raw_path, _sep, query = path.partition('?')
    req.environ['PATH_INFO'] = urllib.parse.unquote_to_bytes(
        raw_path).decode('latin-1')
    req.environ['QUERY_STRING'] = query
    if body is not None:
        req.body = body.encode() if isinstance(body, str) else body
        req.environ['CONTENT_TYPE'] = content_type
    return req.get_response(application or app())


dumps = json.dumps


def snapshot():
    """Every row the API could have written."""
    with db_api.get_engine().connect() as conn:
        return {table.name: sorted(repr(tuple(row)) for row in
                                   conn.execute(table.select()))
                for table in models.metadata.sorted_tables
                if table.name not in _MOVING}


def placement_error(resp, status):
    """The detail of Placement's error document, which must be the only
    error and have ``status``."""
    assert resp.status_int == status, resp.text
    [error] = resp.json['errors']
    assert error['status'] == status
    assert error['request_id'].startswith('req-')
    return error['detail']


def baremetal_error(resp, status):
    """The message of Ironic's error document (``error_message``)."""
    assert resp.status_int == status, resp.text
    fault(resp)
    return message(resp)


def error_text(resp, status):
    if resp.json and 'errors' in resp.json:
        return placement_error(resp, status)
    return baremetal_error(resp, status)


@pytest.fixture
def plain():
    """The application on SQLite, without conductors: for what is
    refused before any database or conductor is reached."""
    conftest.get_database('sqlite').clean()
    if 'plain' not in _APP:
        _APP['plain'] = apps.whole()
    return _APP['plain']


@pytest.fixture
def world(database, api_conductor):
    """A provider with inventory, a node with a port group, a port and
    a finished (failed) allocation: what the requests below could
    change."""
    resp = send('POST', '/placement/resource_providers', dumps(
        {'name': 'cn1'}))
    assert resp.status_int == 200, resp.text
    rp = resp.json['uuid']
    resp = send('PUT', '/placement/resource_providers/%s/inventories' % rp,
                dumps({'resource_provider_generation': 0,
                       'inventories': {'VCPU': {'total': 8}}}))
    assert resp.status_int == 200, resp.text
    resp = send('POST', '/v1/nodes', dumps({'driver': 'fake-hardware',
                                            'name': 'nd'}))
    assert resp.status_int == 201, resp.text
    node = resp.json['uuid']
    resp = send('POST', '/v1/portgroups', dumps({'node_uuid': node,
                                                 'name': 'pg1'}))
    assert resp.status_int == 201, resp.text
    resp = send('POST', '/v1/ports', dumps({
        'node_uuid': node, 'address': '52:54:00:00:00:01'}))
    assert resp.status_int == 201, resp.text
    # The API's client keeps the live conductors for a few seconds; the
    # clean database registered this one again, under a new id.
    api_conductor[1].live_conductors(context.get_admin_context(),
                                     fresh=True)
    resp = send('POST', '/v1/allocations', dumps({
        'name': 'al', 'resource_class': 'nothing-has-it'}))
    assert resp.status_int == 201, resp.text
    waiting.wait_for(lambda: send(
        'GET', '/v1/allocations/al').json['state'] == 'error')
    return {'rp': rp, 'node': node, 'db': database}


def _each(cases, world, check):
    """Send every case; return the ones ``check`` (resp) finds wrong,
    with the reason, and assert nothing was written by any."""
    before = snapshot()
    wrong = []
    for method, path, body in cases:
        path = path.format(**world)
        resp = send(method, path, body)
        try:
            check(resp)
        except AssertionError as exc:
            wrong.append((method, path, (body or '')[:120], str(exc)[:300]))
    assert wrong == []
    assert snapshot() == before


# -- lone surrogates ---------------------------------------------------------

def _allocation(project='"p"', user='"u"', ctype='"INSTANCE"',
                rp='"{rp}"'):
    return ('{"allocations": {%s: {"resources": {"VCPU": 1}}}, '
            '"project_id": %s, "user_id": %s, "consumer_generation": null, '
            '"consumer_type": %s}' % (rp, project, user, ctype))


SURROGATE_CASES = [
    ('POST', '/placement/resource_providers', '{"name": %s}' % LONE),
    ('PUT', '/placement/resource_providers/{rp}', '{"name": %s}' % LONE),
    ('POST', '/placement/resource_classes', '{"name": %s}' % LONE),
    ('PUT', '/placement/resource_providers/{rp}/traits',
     '{"resource_provider_generation": 1, "traits": [%s]}' % LONE),
    ('PUT', '/placement/resource_providers/{rp}/aggregates',
     '{"resource_provider_generation": 1, "aggregates": [%s]}' % LONE),
    ('PUT', '/placement/resource_providers/{rp}/inventories',
     '{"resource_provider_generation": 1, "inventories": {%s: '
     '{"total": 1}}}' % LONE),
    ('PUT', '/placement/allocations/' + UUID, _allocation(project=LONE)),
    ('PUT', '/placement/allocations/' + UUID, _allocation(user=LONE)),
    ('PUT', '/placement/allocations/' + UUID, _allocation(ctype=LONE)),
    ('PUT', '/placement/allocations/' + UUID, _allocation(rp=LONE)),
    ('POST', '/placement/allocations',
     '{"%s": %s}' % (UUID, _allocation(project=LONE))),
    ('POST', '/placement/reshaper',
     '{"inventories": {"{rp}": {"resource_provider_generation": 1, '
     '"inventories": {"VCPU": {"total": 8}}}}, "allocations": {"%s": %s}}'
     % (UUID, _allocation(user=LONE))),
    ('POST', '/v1/nodes', '{"driver": "fake-hardware", "name": %s}' % LONE),
    ('POST', '/v1/nodes',
     '{"driver": "fake-hardware", "description": %s}' % LONE),
    ('POST', '/v1/nodes',
     '{"driver": "fake-hardware", "resource_class": %s}' % LONE),
    ('POST', '/v1/nodes', '{"driver": "fake-hardware", "owner": %s}' % LONE),
    ('POST', '/v1/nodes',
     '{"driver": "fake-hardware", "extra": {"a": %s}}' % LONE),
    ('POST', '/v1/nodes',
     '{"driver": "fake-hardware", "properties": {%s: 1}}' % LONE),
    ('POST', '/v1/nodes',
     '{"driver": "fake-hardware", "driver_info": {"a": [1, {"b": %s}]}}'
     % LONE),
    ('PATCH', '/v1/nodes/nd',
     '[{"op": "add", "path": "/description", "value": %s}]' % LONE),
    ('PATCH', '/v1/nodes/nd',
     '[{"op": "add", "path": "/extra/a", "value": %s}]' % LONE),
    ('PUT', '/v1/nodes/nd/maintenance', '{"reason": %s}' % LONE),
    ('PUT', '/v1/nodes/nd/traits', '{"traits": [%s]}' % LONE),
    ('POST', '/v1/allocations', '{"resource_class": %s}' % LONE),
    ('POST', '/v1/allocations',
     '{"resource_class": "x", "owner": %s}' % LONE),
    ('POST', '/v1/allocations',
     '{"resource_class": "x", "extra": {%s: "a"}}' % LONE),
    ('PATCH', '/v1/allocations/al',
     '[{"op": "add", "path": "/extra/a", "value": %s}]' % LONE),
    ('POST', '/v1/ports',
     '{"node_uuid": "{node}", "address": "52:54:00:00:00:02", '
     '"extra": {"a": %s}}' % LONE),
    ('POST', '/v1/ports',
     '{"node_uuid": "{node}", "address": "52:54:00:00:00:03", '
     '"physical_network": %s}' % LONE),
    ('POST', '/v1/ports',
     '{"node_uuid": "{node}", "address": "52:54:00:00:00:04", '
     '"local_link_connection": {"switch_info": %s}}' % LONE),
    ('POST', '/v1/portgroups',
     '{"node_uuid": "{node}", "name": "pg2", "mode": %s}' % LONE),
]


def test_a_lone_surrogate_is_a_400_everywhere(world):
    def check(resp):
        text = error_text(resp, 400)
        assert 'lone surrogate' in text
        if resp.json and 'errors' in resp.json:
            assert 'Malformed JSON' in text

    # Braces in the templates are JSON's: fill in the world by hand.
    cases = [(m, p, b.replace('{rp}', world['rp']).replace(
        '{node}', world['node'])) for m, p, b in SURROGATE_CASES]
    _each(cases, world, check)


def test_a_surrogate_pair_is_text(world):
    # "\ud83d\ude00" is one character (U+1F600), stored as such.
    resp = send('POST', '/v1/nodes', '{"driver": "fake-hardware", '
                '"description": "\\ud83d\\ude00"}')
    assert resp.status_int == 201, resp.text
    assert resp.json['description'] == '\U0001f600'
    resp = send('POST', '/placement/resource_providers',
                '{"name": "\\ud83d\\ude00"}')
    assert resp.status_int == 200, resp.text
    assert resp.json['name'] == '\U0001f600'


# -- UUIDs -------------------------------------------------------------------

def _uuid_cases(world, value):
    cases = [
        ('POST', '/v1/nodes', dumps({'driver': 'fake-hardware',
                                     'uuid': value})),
        ('POST', '/v1/nodes', dumps({'driver': 'fake-hardware',
                                     'instance_uuid': value})),
        ('PATCH', '/v1/nodes/nd', dumps([{'op': 'add',
                                          'path': '/instance_uuid',
                                          'value': value}])),
        ('POST', '/v1/allocations', dumps({'resource_class': 'x',
                                           'uuid': value})),
        ('POST', '/v1/ports', dumps({'node_uuid': world['node'],
                                     'address': '52:54:00:00:00:05',
                                     'uuid': value})),
        ('POST', '/v1/ports', dumps({'node_uuid': value,
                                     'address': '52:54:00:00:00:06'})),
        ('POST', '/v1/portgroups', dumps({'node_uuid': world['node'],
                                          'uuid': value})),
        ('POST', '/v1/portgroups', dumps({'node_uuid': value})),
        ('GET', '/v1/nodes?instance_uuid=' + urllib.parse.quote(value),
         None),
    ]
    if '{' in value or ':' in value:
        # (Dashes alone make a name, which is looked up and not found.)
        cases.append(('GET', '/v1/nodes/' + urllib.parse.quote(value),
                      None))
    return cases


def test_v1_refuses_uuids_it_would_not_store_as_given(world):
    for value in NOT_CANONICAL:
        def check(resp):
            text = baremetal_error(resp, 400)
            assert value in text
            assert text.startswith(('Expected a UUID but received',
                                    'Expected UUID for',
                                    'Expected UUID or name for',
                                    'Expected a logical name or UUID'))

        _each(_uuid_cases(world, value), {}, check)
    # Ironic's words for the documented field.
    resp = send('POST', '/v1/allocations', dumps({'resource_class': 'x',
                                                  'uuid': BRACED}))
    assert message(resp) == 'Expected a UUID but received %s.' % BRACED


def test_placement_stores_braced_uuids_in_their_canonical_form(world):
    resp = send('POST', '/placement/resource_providers', dumps(
        {'name': 'braced', 'uuid': BRACED,
         'parent_provider_uuid': '{%s}' % world['rp']}))
    assert resp.status_int == 200, resp.text
    assert resp.json['uuid'] == UUID
    assert resp.json['parent_provider_uuid'] == world['rp']
    assert send('GET', '/placement/resource_providers/' + UUID).json[
        'name'] == 'braced'
    # A consumer in the path must be plain (Placement's words).
    consumer = '{b0b0b0b0-b0b0-b0b0-b0b0-b0b0b0b0b0b0}'
    resp = send('PUT', '/placement/allocations/' + consumer,
                _allocation().replace('{rp}', world['rp']))
    assert placement_error(resp, 400).endswith(
        'Malformed consumer_uuid: %s  ' % consumer)
    dump = repr(snapshot())
    assert BRACED not in dump and consumer not in dump


# -- values larger than MariaDB's TEXT ---------------------------------------

OVERSIZE_CASES = [
    ('POST', '/v1/nodes', dumps({'driver': 'fake-hardware',
                                 'properties': {'a': BIG}})),
    ('POST', '/v1/nodes', dumps({'driver': 'fake-hardware',
                                 'extra': {'a': BIG}})),
    ('POST', '/v1/nodes', dumps({'driver': 'fake-hardware',
                                 'driver_info': {'a': BIG}})),
    ('POST', '/v1/nodes', dumps({'driver': 'fake-hardware',
                                 'network_data': {'a': BIG}})),
    ('POST', '/v1/nodes', dumps({'driver': 'fake-hardware', 'retired': True,
                                 'retired_reason': BIG})),
    ('PATCH', '/v1/nodes/nd', dumps([{'op': 'add', 'path': '/extra/a',
                                      'value': BIG}])),
    ('PATCH', '/v1/nodes/nd', dumps([{'op': 'add',
                                      'path': '/protected_reason',
                                      'value': BIG}])),
    ('PUT', '/v1/nodes/nd/maintenance', dumps({'reason': BIG})),
    # Three bytes a character in UTF-8: 30,000 characters are too many.
    ('PUT', '/v1/nodes/nd/maintenance',
     dumps({'reason': '\u2603' * 30000}, ensure_ascii=False)),
    ('POST', '/v1/allocations', dumps({'resource_class': 'x',
                                       'extra': {'a': BIG}})),
    ('PATCH', '/v1/allocations/al', dumps([{'op': 'add', 'path': '/extra/a',
                                            'value': BIG}])),
    ('POST', '/v1/ports', dumps({'node_uuid': '{node}',
                                 'address': '52:54:00:00:00:07',
                                 'extra': {'a': BIG}})),
    ('POST', '/v1/portgroups', dumps({'node_uuid': '{node}',
                                      'properties': {'a': BIG}})),
]


def test_values_larger_than_a_text_column_are_a_400(world):
    def check(resp):
        assert 'larger than 65535 bytes' in baremetal_error(resp, 400)

    cases = [(m, p, b.replace('{node}', world['node']))
             for m, p, b in OVERSIZE_CASES]
    _each(cases, world, check)


def test_instance_info_holds_a_config_drive_sized_value(world):
    # LONGTEXT on MariaDB, as in Ironic: kept whole on every database.
    resp = send('PATCH', '/v1/nodes/nd', dumps([
        {'op': 'add', 'path': '/instance_info/blob', 'value': BIG}]))
    assert resp.status_int == 200, resp.text
    node = send('GET', '/v1/nodes/nd?fields=instance_info').json
    assert node['instance_info'] == {'blob': BIG}


# -- request targets ---------------------------------------------------------

@pytest.mark.parametrize('path', [
    '/placement/resource_providers/%FF%FE',
    '/placement/resource_providers?name=%FF',
    '/placement/resource_providers?name=%ED%A0%80',
    '/placement/allocation_candidates?resources=VCPU:1&in_tree=%C3',
    '/v1/nodes/%FF%FE', '/v1/nodes?name=%FF', '/v1/allocations?node=%C3',
])
def test_a_target_that_is_not_utf8_is_a_400(plain, path):
    for method in ('GET', 'DELETE'):
        resp = send(method, path, application=plain)
        assert 'not valid UTF-8' in error_text(resp, 400)


# -- methods -----------------------------------------------------------------

@pytest.mark.parametrize('path', ['/v1/allocations', '/v1/allocations/'])
@pytest.mark.parametrize('method,body', [
    ('DELETE', None), ('PATCH', '[]'), ('PATCH', '{"name": "x"}'),
    ('PUT', '{}')])
def test_the_allocation_collection_takes_no_delete_or_patch(plain, path,
                                                            method, body):
    resp = send(method, path, body, application=plain)
    assert baremetal_error(resp, 405) == ''
    assert resp.headers['Allow'] == 'GET, POST'


# -- charsets ----------------------------------------------------------------

CHARSET_WRITES = [
    ('POST', '/placement/resource_providers', dumps({'name': 'cs'})),
    ('PUT', '/placement/resource_providers/{rp}', dumps({'name': 'cs'})),
    ('POST', '/v1/nodes', dumps({'driver': 'fake-hardware'})),
    ('PATCH', '/v1/nodes/nd', dumps([{'op': 'add', 'path': '/extra/a',
                                      'value': 1}])),
    ('PUT', '/v1/nodes/nd/maintenance', dumps({'reason': 'r'})),
    ('PUT', '/v1/nodes/nd/traits', dumps({'traits': ['CUSTOM_A']})),
    ('PUT', '/v1/nodes/nd/states/provision', dumps({'target': 'manage'})),
    ('POST', '/v1/allocations', dumps({'resource_class': 'x'})),
    ('PATCH', '/v1/allocations/al', dumps([{'op': 'add', 'path': '/extra/a',
                                            'value': 1}])),
    ('POST', '/v1/ports', dumps({'node_uuid': 'nd',
                                 'address': '52:54:00:00:00:08'})),
    ('POST', '/v1/portgroups', dumps({'node_uuid': 'nd'})),
    ('DELETE', '/v1/nodes/nd', ''),
]


def test_a_json_charset_other_than_utf8_is_a_415(world):
    before = snapshot()
    for charset in ('bogus', 'latin-1', 'utf-16'):
        for method, path, body in CHARSET_WRITES:
            resp = send(method, path.format(**world), body,
                        content_type='application/json; charset=%s'
                        % charset)
            text = error_text(resp, 415)
            assert ('The charset %s is not supported, use UTF-8' % charset
                    in text), (method, path)
    assert snapshot() == before


def test_utf8_spelt_any_way_is_accepted(world):
    for number, charset in enumerate(('utf-8', 'UTF8', '"utf-8"',
                                      'us-ascii')):
        content_type = 'application/json; charset=%s' % charset
        resp = send('POST', '/placement/resource_providers',
                    dumps({'name': 'cs%d' % number}),
                    content_type=content_type)
        assert resp.status_int == 200, resp.text
        resp = send('PUT', '/v1/nodes/nd/maintenance',
                    dumps({'reason': 'r'}), content_type=content_type)
        assert resp.status_int == 202, resp.text


# -- bodies ------------------------------------------------------------------

def _nested(depth, leaf='1'):
    """A JSON document ``depth`` levels deep (lists in an object)."""
    return '{"a": ' + '[' * (depth - 1) + leaf + ']' * (depth - 1) + '}'


@pytest.mark.parametrize('depth', [request_checks.MAX_JSON_DEPTH + 1,
                                   900, 10000])
def test_deep_nesting_is_a_400(plain, depth):
    for method, path in (('POST', '/placement/resource_providers'),
                         ('POST', '/placement/resource_classes'),
                         ('POST', '/v1/nodes'), ('POST', '/v1/allocations'),
                         ('PUT', '/v1/nodes/nd/states/power')):
        resp = send(method, path, _nested(depth), application=plain)
        assert 'nested too deeply' in error_text(resp, 400), (method, path)
    assert send('GET', '/v1/nodes', application=plain).json['nodes'] == []


def test_nesting_up_to_the_limit_is_taken(world):
    extra = json.loads(_nested(request_checks.MAX_JSON_DEPTH - 1))
    resp = send('POST', '/v1/nodes', dumps({'driver': 'fake-hardware',
                                            'extra': extra}))
    assert resp.status_int == 201, resp.text
    assert resp.json['extra'] == extra


def _small_limit_app():
    conf = conftest.make_conf()
    conf.set_override('max_request_body_size', 1024, group='oslo_middleware')
    return api_app.setup_app(conf, prepare_db=False,
                             rpcapi=conductor_harness.api_conductor()[1])


def test_bodies_over_the_size_limit_are_a_413(world):
    limited = _small_limit_app()
    body = dumps({'driver': 'fake-hardware', 'name': 'big',
                  'extra': {'a': 'x' * 2000}})
    before = snapshot()
    for path in ('/placement/resource_providers', '/v1/nodes'):
        resp = send('POST', path, body, application=limited)
        assert 'max_request_body_size (1024)' in error_text(resp, 413)
        # Without a Content-Length (chunked), read up to the limit only.
        req = webob.Request.blank(path, method='POST', headers=dict(
            PLACEMENT if 'placement' in path else BAREMETAL))
        req.environ.update({
            'wsgi.input': io.BytesIO(body.encode()),
            'wsgi.input_terminated': True, 'CONTENT_TYPE': JSON,
            'HTTP_TRANSFER_ENCODING': 'chunked'})
        req.environ.pop('CONTENT_LENGTH', None)
        resp = req.get_response(limited)
        assert 'Request is too large' in error_text(resp, 413)
    assert snapshot() == before
    # The default limit is 1 MiB (a config drive fits).
    resp = send('POST', '/v1/nodes', 'x' * (1048576 + 1))
    assert 'max_request_body_size (1048576)' in error_text(resp, 413)


def _errors(caplog):
    return [r for r in caplog.records
            if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.parametrize('content_type', [
    JSON, 'application/x-www-form-urlencoded', 'text/plain',
    'multipart/form-data; boundary=x'])
def test_a_body_that_is_not_utf8_is_a_client_error(plain, content_type,
                                                   caplog):
    caplog.set_level(logging.INFO)
    for method, path in (('POST', '/placement/resource_providers'),
                         ('POST', '/placement/resource_classes'),
                         ('POST', '/v1/nodes'), ('GET', '/v1/nodes'),
                         ('PATCH', '/v1/nodes/nd'),
                         ('POST', '/v1/allocations')):
        resp = send(method, path, b'\xff\xfe{"name": "\xe9"}',
                    content_type=content_type, application=plain)
        # A GET may ignore a body that is not JSON.
        low = 200 if method == 'GET' else 400
        assert low <= resp.status_int < 500, (method, path, resp.text)
    assert _errors(caplog) == []
    assert send('GET', '/v1/nodes', application=plain).json['nodes'] == []


def test_a_body_cut_short_is_one_info_line_and_a_400(plain, caplog):
    caplog.set_level(logging.INFO)
    for method, path in (('POST', '/placement/resource_providers'),
                         ('POST', '/v1/nodes'), ('POST', '/v1/allocations'),
                         ('PATCH', '/v1/nodes/nd')):
        req = webob.Request.blank(path, method=method, headers=dict(
            PLACEMENT if 'placement' in path else BAREMETAL))
        req.environ.update({'wsgi.input': io.BytesIO(b'{"name": "x'),
                            'CONTENT_LENGTH': '1000', 'CONTENT_TYPE': JSON})
        resp = req.get_response(plain)
        assert 'the client stopped sending it' in error_text(resp, 400)
    assert _errors(caplog) == []
    cut = [r for r in caplog.records
           if 'did not send the whole request body' in r.getMessage()]
    assert len(cut) == 4
    assert all(r.levelno == logging.INFO for r in cut)


def _serve(application):
    httpd = server.make_server('127.0.0.1', 0, application)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    return httpd, thread


def _raw(port, data, half_close, answer=None):
    """Send ``data`` on a new connection and close it (only our side if
    ``half_close``); what the server answered, if ``answer`` (default:
    ``half_close``), before the close when not half-closing."""
    if answer is None:
        answer = half_close
    with socket.create_connection(('127.0.0.1', port), timeout=30) as sock:
        sock.sendall(data)
        if not answer:
            return b''
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b''.join(chunks)
            chunks.append(chunk)


def test_the_embedded_server_logs_a_client_gone_mid_body_as_info(plain,
                                                                 caplog):
    caplog.set_level(logging.INFO)
    httpd, thread = _serve(plain)
    port = httpd.server_address[1]
    try:
        for path in ('/v1/nodes', '/placement/resource_providers'):
            head = ('POST %s HTTP/1.1\r\nHost: x\r\nX-Auth-Token: admin\r\n'
                    '%s: latest\r\nContent-Type: application/json\r\n'
                    'Content-Length: 1000\r\n\r\n' % (path, IRONIC))
            data = head.encode() + b'{"driver": "fake-hardware", "na'
            answer = _raw(port, data, half_close=True)
            status_line, _sep, rest = answer.partition(b'\r\n')
            assert status_line.split()[1] == b'400', answer
            assert b'the client stopped sending it' in rest
            _raw(port, data, half_close=False)
        # A request without a body is not waited for.
        answer = _raw(port, b'GET /v1/nodes HTTP/1.1\r\nHost: x\r\n\r\n',
                      half_close=False, answer=True)
        assert answer.split()[1] == b'200', answer
        # The last connection's request is finished by now.
        httpd.shutdown()
        thread.join(30)
    finally:
        httpd.server_close()
    assert _errors(caplog) == []
    assert send('GET', '/v1/nodes', application=plain).json['nodes'] == []
