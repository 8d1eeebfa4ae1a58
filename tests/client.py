"""Requests to an in-process WSGI app, as the tests send them."""

import json

import webob


def placement_request(app, method, path, version='latest', body=None,
                      headers=None):
    """One Placement request as the noauth admin at ``version``; ``body``
    is sent as JSON (bytes are sent as they are)."""
    all_headers = {'X-Auth-Token': 'admin',
                   'OpenStack-API-Version': 'placement %s' % version}
    all_headers.update(headers or {})
    req = webob.Request.blank(path, method=method, headers=all_headers)
    if body is not None:
        req.body = body if isinstance(body, bytes) else json.dumps(
            body).encode()
        req.content_type = 'application/json'
    return req.get_response(app)


def ok(resp, status=200):
    """The JSON body of ``resp`` (None without one), which must have
    ``status``."""
    assert resp.status_int == status, resp.body
    return resp.json if resp.body else None


def create_provider(app, name, parent=None, inventory=None, traits=(),
                    aggs=()):
    """The uuid of a new resource provider ``name`` (under ``parent``)
    with ``inventory`` {class: fields}, ``traits`` (custom ones created)
    and aggregates ``aggs``, set up over the API at 1.39."""
    body = {'name': name}
    if parent:
        body['parent_provider_uuid'] = parent
    rp = ok(placement_request(app, 'POST', '/resource_providers', '1.39',
                              body))
    path = '/resource_providers/%s' % rp['uuid']
    gen = 0
    if inventory:
        gen = ok(placement_request(
            app, 'PUT', path + '/inventories', '1.39',
            {'resource_provider_generation': gen,
             'inventories': inventory}))['resource_provider_generation']
    if traits:
        for trait in traits:
            if trait.startswith('CUSTOM_'):
                placement_request(app, 'PUT', '/traits/%s' % trait, '1.39')
        gen = ok(placement_request(
            app, 'PUT', path + '/traits', '1.39',
            {'resource_provider_generation': gen,
             'traits': list(traits)}))['resource_provider_generation']
    if aggs:
        ok(placement_request(app, 'PUT', path + '/aggregates', '1.39',
                             {'resource_provider_generation': gen,
                              'aggregates': list(aggs)}))
    return rp['uuid']
