"""The route table on the wire: 404, 405 and Allow come from its rows
(allocsvc.api.controllers.v1.routes)."""

import json
import re

import pytest
import webob

from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import routes
from tests import conftest
from tests.helpers import apps

IRONIC = 'X-OpenStack-Ironic-API-Version'
METHODS = ('DELETE', 'GET', 'PATCH', 'POST', 'PUT')
ROWS = [dispatch.Route(*row) for row in routes.ROUTES
        if dispatch.ANY not in row[2]]


@pytest.fixture(scope='module')
def api():
    conftest.get_database('sqlite').clean()
    return apps.whole()


def call(app, path, method):
    req = webob.Request.blank(path, method=method,
                              headers={IRONIC: 'latest'})
    return req.get_response(app)


@pytest.mark.parametrize('route', ROWS, ids=lambda r: r.template)
def test_a_method_a_row_does_not_take_is_a_405_with_its_allow(api, route):
    path = re.sub(r'\{\w+\}', 'x1', route.template)
    refused = [method for method in METHODS if method not in route.methods]
    for method in refused:
        resp = call(api, path, method)
        assert resp.status_int == 405, (method, path, resp.text)
        assert resp.headers['Allow'] == route.allow()
        inner = json.loads(resp.json['error_message'])
        assert inner['code'] == 405


@pytest.mark.parametrize('path', ['/v1/nosuch', '/nosuch/x', '/v1/ports/p/x',
                                  '/v1/drivers/d/raid', '/v1/shards/x'])
def test_a_path_no_row_takes_is_a_404(api, path):
    for method in METHODS:
        resp = call(api, path, method)
        assert resp.status_int == 404, (method, path)
        assert 'Allow' not in resp.headers


def send(app, method, path, body=None, content_type=None):
    req = webob.Request.blank(path, method=method,
                              headers={IRONIC: 'latest'})
    if body is not None:
        req.body = body.encode()
    if content_type is not None:
        req.content_type = content_type
    return req.get_response(app)


UNKNOWN = '11111111-2222-3333-4444-555555555555'
JSON, FORM = 'application/json', 'application/x-www-form-urlencoded'
SEVERAL = 'Parameter %s was given several times'

# How WSME read the requests of ports, port groups and chassis, which
# their handlers keep (dispatch.wsme_arguments): (method, path, body,
# media type, status, message).
WSME_READINGS = [
    # With no body, a __body__ parameter is the body, in the request's
    # media type (none: "Unknown mimetype: ").
    ('GET', '/v1/ports?__body__=%7B%7D', None, None, 415,
     'Unknown mimetype: '),
    ('GET', '/v1/nodes/n1/portgroups?__body__=%7B%7D', None, None, 415,
     'Unknown mimetype: '),
    ('GET', '/v1/chassis/detail?__body__=%7B%7D', None, None, 415,
     'Unknown mimetype: '),
    ('DELETE', '/v1/portgroups/%s?__body__=%%7B%%7D' % UNKNOWN, None, None,
     415, 'Unknown mimetype: '),
    ('POST', '/v1/chassis?__body__=%7B%7D', None, None, 415,
     'Unknown mimetype: '),
    ('GET', '/v1/ports?__body__=%7B%7D', '', JSON, 400,
     'Unexpected arguments: __body__'),
    ('GET', '/v1/ports?__body__=%5B1%5D', '', JSON, 400,
     'Request must be a JSON dict'),
    # With a body, a parameter like any other.
    ('POST', '/v1/ports?__body__=%7B%7D', '{}', JSON, 400,
     'Unexpected arguments: __body__'),
    ('POST', '/v1/nodes/n1/ports?__body__=%7B%7D', '{}', JSON, 403,
     'Operation not permitted.'),
    # The body argument (body, patch) given as a parameter and by the
    # body: a 400, before anything else is looked at.
    ('POST', '/v1/ports?body=x', '{}', JSON, 400, SEVERAL % 'body'),
    ('POST', '/v1/portgroups?body=x', 'null', JSON, 400, SEVERAL % 'body'),
    ('POST', '/v1/chassis?body=x', '<a>x</a>', 'text/xml', 400,
     SEVERAL % 'body'),
    ('POST', '/v1/nodes/n1/ports?body=x', '{}', JSON, 400, SEVERAL % 'body'),
    ('POST', '/v1/portgroups/pg/ports?body=x', '[]', JSON, 400,
     SEVERAL % 'body'),
    ('PATCH', '/v1/ports/%s?patch=x' % UNKNOWN, '[]', JSON, 400,
     SEVERAL % 'patch'),
    ('PATCH', '/v1/chassis/%s?patch=x' % UNKNOWN, '[]', JSON, 400,
     SEVERAL % 'patch'),
    ('PATCH', '/v1/portgroups/%s?body=x' % UNKNOWN, '[]', JSON, 400,
     'Unexpected arguments: body'),
    # ... or alone: its text is the body, then an unexpected argument.
    ('POST', '/v1/ports?body=x', None, None, 400,
     'Unexpected arguments: body'),
    ('PATCH', '/v1/chassis/%s?patch=x' % UNKNOWN, None, None, 400,
     'Unexpected arguments: patch'),
    ('POST', '/v1/ports?body=x', '{}', None, 415, 'Unknown mimetype: '),
    # A form's body field is the body, as text; other fields are not.
    ('POST', '/v1/ports', 'body=%7B%7D', FORM, 400,
     "Schema error for port: '{}' is not of type 'object'"),
    ('POST', '/v1/portgroups', 'patch=x', FORM, 400,
     "Schema error for portgroup: None is not of type 'object'"),
    ('POST', '/v1/nodes/n1/portgroups', 'body=%7B%7D', FORM, 403,
     'Operation not permitted.'),
]


@pytest.mark.parametrize('method,path,body,content_type,status,text',
                         WSME_READINGS)
def test_requests_read_as_wsme_read_them(api, method, path, body,
                                         content_type, status, text):
    resp = send(api, method, path, body, content_type)
    assert resp.status_int == status, resp.text
    assert json.loads(resp.json['error_message']) == {
        'faultcode': 'Client', 'faultstring': text, 'debuginfo': None}


@pytest.mark.parametrize('path', ['/v1/ports', '/v1/portgroups/pg',
                                  '/v1/chassis/%s' % UNKNOWN,
                                  '/v1/nodes/n1/ports'])
def test_an_xml_body_that_is_not_xml_is_a_400(api, path):
    # WSME let the parser's error escape: a 500.
    resp = send(api, 'POST' if path.endswith('ports') else 'PATCH', path,
                '<a', 'text/xml')
    assert resp.status_int == 400, resp.text
    assert json.loads(resp.json['error_message'])['faultstring'] == \
        'Request is not in valid XML format'
