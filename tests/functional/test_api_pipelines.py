"""What both WSGI pipelines do around their handlers: one request log
line per request, the scheme and host of a client behind a proxy, and
the bare-metal API's checks before Pecan routes a request. On SQLite:
nothing here depends on the database."""

import json
import logging

import pytest
import webob

from tests.client import ok
from tests.client import placement_request
from tests import conftest
from tests.helpers import apps

IRONIC = 'X-OpenStack-Ironic-API-Version'
LOGGER = 'allocsvc.api.middleware.requestlog'
FORWARDED = {'X-Forwarded-Proto': 'https',
             'X-Forwarded-Host': 'cloud.example.org'}


def _app(**middleware):
    conftest.get_database('sqlite').clean()
    conf = conftest.make_conf()
    for name, value in middleware.items():
        conf.set_override(name, value, group='oslo_middleware')
    return apps.whole(conf)


@pytest.fixture
def app():
    return _app()


def _v1(app, path, method='GET', headers=None, body=None, content_type=None):
    req = webob.Request.blank(path, method=method,
                              headers=dict(headers or {}))
    if body is not None:
        req.body = body
        req.content_type = content_type or 'application/json'
    return req.get_response(app)


def _log_lines(caplog):
    return [record.getMessage() for record in caplog.records
            if record.name == LOGGER]


def test_placement_requests_are_logged_once(app, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    ok(placement_request(app, 'GET', '/placement/resource_providers?a=1',
                         version='1.20'), 400)
    [line] = _log_lines(caplog)
    assert '"GET /placement/resource_providers?a=1"' in line
    assert 'status: 400' in line
    assert 'microversion: 1.20' in line


def test_baremetal_requests_are_logged_once(app, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    resp = _v1(app, '/v1/nodes', headers={IRONIC: '1.52'})
    assert resp.status_int == 200
    _v1(app, '/v1/nowhere')
    first, second = _log_lines(caplog)
    assert '"GET /v1/nodes" status: 200' in first
    assert 'len: %d' % len(resp.body) in first
    assert 'microversion: 1.52' in first
    assert '"GET /v1/nowhere" status: 404' in second


def test_a_path_that_is_not_utf8_is_logged_as_received(app, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    resp = _v1(app, '/v1/%ff')
    assert resp.status_int == 400
    [line] = _log_lines(caplog)
    assert 'status: 400' in line


def test_proxy_headers_are_ignored_unless_enabled(app):
    doc = _v1(app, '/v1', headers=FORWARDED).json
    assert doc['links'][0]['href'].startswith('http://localhost/')


def test_proxy_headers_give_links_and_locations_the_clients_url():
    app = _app(enable_proxy_headers_parsing=True)
    doc = _v1(app, '/v1', headers=FORWARDED).json
    assert doc['links'][0]['href'] == 'https://cloud.example.org/v1/'
    root = _v1(app, '/', headers=FORWARDED).json
    placement = [api for api in root['apis'] if api['id'] == 'placement']
    assert placement[0]['links'][0]['href'] == (
        'https://cloud.example.org/placement/')
    resp = placement_request(app, 'POST', '/placement/resource_providers',
                             body={'name': 'behind-proxy'}, version='1.0',
                             headers=FORWARDED)
    assert resp.status_int == 201
    assert resp.headers['Location'].startswith(
        'https://cloud.example.org/placement/resource_providers/')


@pytest.mark.parametrize('segment', [
    '__class__', '__dict__', '__doc__', '__init__', '_lookup', '_get',
    '_delete', '__module__', 'index'])
def test_controller_attributes_are_not_routes(app, segment):
    for path in ('/%s' % segment, '/v1/%s' % segment,
                 '/v1/nodes/%s' % segment, '/v1/nodes/n1/%s' % segment,
                 '/v1/allocations/%s' % segment,
                 '/v1/conductors/%s' % segment):
        for method in ('GET', 'DELETE', 'PATCH'):
            resp = _v1(app, path, method=method, headers={IRONIC: 'latest'})
            assert resp.status_int == 404, (method, path)


@pytest.mark.parametrize('body,words', [
    (b'\xff\xfe{', 'not valid JSON'),
    (b'{"a": ', 'not valid JSON'),
    (b'[' * 100000, 'nested too deeply'),
])
def test_unreadable_json_bodies_are_400(app, body, words):
    for path in ('/v1/allocations', '/v1/nodes'):
        resp = _v1(app, path, method='POST', body=body,
                   headers={IRONIC: 'latest'})
        assert resp.status_int == 400, (path, resp.text)
        inner = json.loads(resp.json['error_message'])
        assert words in inner['description']
