"""Requests to the bare-metal API (/v1) of the shared conducted
application, and the nodes, ports and states tests make through it."""

import json

import webob

from allocsvc.common import context as context_mod
from tests.functional.ironic_errors import message
from tests.helpers import apps

IRONIC = 'X-OpenStack-Ironic-API-Version'


def app():
    """The application the requests go to (the database behind it is
    the ``database`` fixture's, its conductor the ``api_conductor``
    fixture's)."""
    return apps.shared()


def call(method, path, body=None, version='latest', raw=None):
    headers = {IRONIC: version} if version else {}
    req = webob.Request.blank(path, method=method, headers=headers)
    if body is not None or raw is not None:
        req.body = raw if raw is not None else json.dumps(body).encode()
        req.content_type = 'application/json'
    return req.get_response(app())


def create(version='latest', **body):
    body.setdefault('driver', 'fake-hardware')
    resp = call('POST', '/v1/nodes', body, version=version)
    assert resp.status_int == 201, resp.text
    return resp.json


def ctx():
    return context_mod.get_admin_context()


def available(**body):
    """A node made available through the API (power state still null)."""
    node = create(**body)
    for target in ('manage', 'provide'):
        resp = call('PUT', '/v1/nodes/%s/states/provision' % node['uuid'],
                    {'target': target})
        assert resp.status_int == 202, resp.text
    return call('GET', '/v1/nodes/' + node['uuid']).json


def patch(ident, ops, version='latest'):
    return call('PATCH', '/v1/nodes/' + ident, ops, version=version)


def node(**body):
    body.setdefault('driver', 'fake-hardware')
    resp = call('POST', '/v1/nodes', body)
    assert resp.status_int == 201, resp.text
    return resp.json


def port(node_uuid, address, version='latest', **body):
    body.update(node_uuid=node_uuid, address=address)
    resp = call('POST', '/v1/ports', body, version=version)
    assert resp.status_int == 201, resp.text
    return resp.json


def error(resp, status):
    assert resp.status_int == status, resp.text
    return message(resp)


def mac(i):
    return '52:54:00:00:00:%02x' % i


def provision(ident, target, version='latest', **body):
    return call('PUT', '/v1/nodes/%s/states/provision' % ident,
                dict(body, target=target), version=version)


def show(ident):
    return call('GET', '/v1/nodes/' + ident).json
