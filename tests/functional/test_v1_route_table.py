"""The route table on the wire: 404, 405 and Allow come from its rows
(allocsvc.api.controllers.v1.routes)."""

import json
import re

import pytest
import webob

from allocsvc.api import app as api_app
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import routes
from tests import conftest

IRONIC = 'X-OpenStack-Ironic-API-Version'
METHODS = ('DELETE', 'GET', 'PATCH', 'POST', 'PUT')
ROWS = [dispatch.Route(*row) for row in routes.ROUTES
        if dispatch.ANY not in row[2]]


@pytest.fixture(scope='module')
def api():
    conftest.get_database('sqlite').clean()
    return api_app.setup_app(conftest.make_conf(), prepare_db=False)


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
