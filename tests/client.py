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
