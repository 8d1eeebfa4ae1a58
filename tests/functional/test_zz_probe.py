import json
import webob
import pytest
from allocsvc.api import app as api_app
from tests import conftest
from tests.functional import conductor_harness

pytestmark = pytest.mark.usefixtures('api_conductor')
_APP = {}
UUID = 'a0a0a0a0-a0a0-a0a0-a0a0-a0a0a0a0a0a0'


def app():
    if 'a' not in _APP:
        _APP['a'] = api_app.setup_app(conftest.make_conf(), prepare_db=False,
                                      rpcapi=conductor_harness.api_conductor()[1])
    return _APP['a']


def call(method, path, raw=None, ctype='application/json', placement=False):
    headers = {'X-OpenStack-Ironic-API-Version': 'latest'}
    if placement:
        headers = {'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement latest'}
    req = webob.Request.blank('/', method=method, headers=headers)
    import urllib.parse
    p, _, q = path.partition('?')
    req.environ['PATH_INFO'] = urllib.parse.unquote_to_bytes(p).decode('latin-1')
    req.environ['QUERY_STRING'] = q
    if raw is not None:
        req.body = raw if isinstance(raw, bytes) else raw.encode()
        req.content_type = ctype
    if ctype and raw is not None:
        req.environ['CONTENT_TYPE'] = ctype
    return req.get_response(app())

S = '"\\ud800"'
CASES = [
  ('POST', '/placement/resource_providers', '{"name": %s}' % S, True),
  ('POST', '/placement/resource_classes', '{"name": %s}' % S, True),
  ('PUT', '/placement/traits/CUSTOM_X', None, True),
  ('POST', '/placement/resource_providers', '{"name": "x", "uuid": "{a0a0a0a0-a0a0-a0a0-a0a0-a0a0a0a0a0a0}"}', True),
  ('GET', '/placement/resource_providers/%FF%FE', None, True),
  ('GET', '/placement/resource_providers?name=%FF', None, True),
  ('POST', '/placement/resource_providers', '{"name": "y"}', True, 'application/json; charset=bogus'),
  ('POST', '/placement/reshaper', '{"inventories": {}, "allocations": {"%s": {"allocations": {}, "project_id": %s, "user_id": "u", "consumer_generation": null}}}' % (UUID, S), True),
  ('PUT', '/placement/allocations/' + UUID, '{"allocations": {}, "project_id": %s, "user_id": "u", "consumer_generation": null}' % S, True),
  ('POST', '/v1/nodes', '{"driver": "fake-hardware", "name": %s}' % S, False),
  ('POST', '/v1/nodes', '{"driver": "fake-hardware", "description": %s}' % S, False),
  ('POST', '/v1/nodes', '{"driver": "fake-hardware", "extra": {"a": %s}}' % S, False),
  ('POST', '/v1/nodes', '{"driver": "fake-hardware", "extra": {%s: 1}}' % S, False),
  ('POST', '/v1/nodes', '{"driver": "fake-hardware", "resource_class": %s}' % S, False),
  ('POST', '/v1/nodes', '{"driver": "fake-hardware", "uuid": "{a0a0a0a0-a0a0-a0a0-a0a0-a0a0a0a0a0a0}"}', False),
  ('POST', '/v1/nodes', '{"driver": "fake-hardware", "instance_uuid": "{a0a0a0a0-a0a0-a0a0-a0a0-a0a0a0a0a0a0}"}', False),
  ('POST', '/v1/nodes', json.dumps({"driver": "fake-hardware", "properties": {"a": "x" * 70000}}), False),
  ('POST', '/v1/nodes', json.dumps({"driver": "fake-hardware", "extra": {"a": "x" * 70000}}), False),
  ('POST', '/v1/nodes', json.dumps({"driver": "fake-hardware", "driver_info": {"a": "x" * 70000}}), False),
  ('POST', '/v1/nodes', json.dumps({"driver": "fake-hardware", "instance_info": {"a": "x" * 70000}}), False),
  ('POST', '/v1/nodes', json.dumps({"driver": "fake-hardware", "retired_reason": "x" * 70000}), False),
  ('POST', '/v1/nodes', '{"driver": "fake-hardware"}', False, 'application/json; charset=bogus'),
  ('POST', '/v1/allocations', '{"resource_class": %s}' % S, False),
  ('POST', '/v1/allocations', '{"resource_class": "x", "name": %s}' % S, False),
  ('POST', '/v1/allocations', '{"resource_class": "x", "owner": %s}' % S, False),
  ('POST', '/v1/allocations', '{"resource_class": "x", "uuid": "{a0a0a0a0-a0a0-a0a0-a0a0-a0a0a0a0a0a0}"}', False),
  ('POST', '/v1/allocations', '{"resource_class": "x"}', False, 'application/json; charset=bogus'),
  ('DELETE', '/v1/allocations', None, False),
  ('PATCH', '/v1/allocations', '[]', False),
  ('GET', '/v1/nodes/%FF%FE', None, False),
  ('GET', '/v1/nodes?name=%FF', None, False),
  ('POST', '/v1/ports', '{"address": "52:54:00:12:34:56", "node_uuid": %s}' % S, False),
  ('POST', '/v1/ports', '{"address": %s}' % S, False),
  ('POST', '/v1/portgroups', '{"name": %s}' % S, False),
  ('POST', '/v1/nodes', b'\xff\xfe{}', False),
  ('POST', '/placement/resource_providers', b'\xff\xfe{}', True),
]


@pytest.mark.parametrize('case', range(len(CASES)))
def test_probe(database, case):
    c = CASES[case]
    method, path, raw, pl = c[:4]
    ctype = c[4] if len(c) > 4 else 'application/json'
    r = call(method, path, raw, ctype, pl)
    with open('/tmp/hin/probe-%s.txt' % database.backend, 'a') as f:
        f.write('%d %s %s %s | %s\n' % (r.status_int, method, path, (raw[:80] if raw else raw), r.text[:300]))
