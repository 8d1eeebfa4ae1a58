"""The bare-metal API's frame as an Ironic client sees it: the root and
v1 documents, microversion negotiation and its headers, Ironic's error
document, 404/405, request ids, noauth and keystone. Nothing here depends
on the database backend, so it runs on SQLite."""

import json

from keystonemiddleware import opts as keystone_opts
import pytest
import webob

from allocsvc.api.controllers.v1 import versions
from tests import conftest
from tests.helpers import apps

IRONIC = 'X-OpenStack-Ironic-API-Version'
MIN = 'X-OpenStack-Ironic-API-Minimum-Version'
MAX = 'X-OpenStack-Ironic-API-Maximum-Version'
STANDARD = 'OpenStack-API-Version'
LATEST = str(versions.MAX_VERSION)


@pytest.fixture
def api():
    conftest.get_database('sqlite').clean()
    return apps.whole()


def call(app, path, method='GET', headers=None, **environ):
    req = webob.Request.blank(path, method=method, headers=headers or {},
                              **environ)
    return req.get_response(app)


def error(resp):
    """The inner document of Ironic's error body."""
    assert resp.content_type == 'application/json'
    assert list(resp.json) == ['error_message']
    return json.loads(resp.json['error_message'])


def test_version_list_is_ordered_and_complete():
    parsed = [versions.APIVersion.parse(v) for v in versions.VERSIONS]
    assert parsed == sorted(parsed)
    assert [v.minor for v in parsed] == list(range(1, len(parsed) + 1))
    assert str(versions.MIN_VERSION) == '1.1'
    # Allocations (1.52), PATCH (1.57), backfill (1.58), owner (1.60).
    assert versions.MAX_VERSION >= (1, 60)


def test_root_document(api):
    resp = call(api, '/')
    assert resp.status_int == 200
    doc = resp.json
    assert doc['name'] == 'allocsvc'
    version = {'id': 'v1', 'status': 'CURRENT', 'min_version': '1.1',
               'version': LATEST,
               'links': [{'href': 'http://localhost/v1/', 'rel': 'self'}]}
    assert doc['versions'] == [version]
    assert doc['default_version'] == version
    placement = [a for a in doc['apis'] if a['id'] == 'placement'][0]
    assert placement['links'][0]['href'] == 'http://localhost/placement/'
    assert doc['extensions'] == [{
        'name': 'allocation_preview',
        'href': 'http://localhost/v1/allocation_preview',
        'methods': ['POST'], 'min_version': '1.52'}, {
        'name': 'allocation_groups',
        'href': 'http://localhost/v1/allocation_groups',
        'methods': ['DELETE', 'GET', 'POST'], 'min_version': '1.52'}, {
        'name': 'node_reservations',
        'href': 'http://localhost/v1/nodes/{node_ident}/reservations',
        'methods': ['GET'], 'min_version': '1.52'}]
    # As Ironic 39: the root gets the version headers too.
    assert resp.headers[IRONIC] == '1.1' and resp.headers[MAX] == LATEST
    assert call(api, '/', headers={IRONIC: '1.999'}).status_int == 406


@pytest.mark.parametrize('path', ['/', '/v1', '/v1/'])
def test_head_of_a_version_document(api, path):
    # Ironic answers HEAD as GET, without the body.
    resp = call(api, path, method='HEAD', headers={IRONIC: '1.82'})
    assert resp.status_int == 200
    assert resp.headers[IRONIC] == '1.82'
    assert resp.headers['Content-Type'] == 'application/json'
    assert resp.body == b''


def test_root_follows_the_mount_point(api):
    resp = call(api, '/', base_url='http://localhost/baremetal')
    assert (resp.json['versions'][0]['links'][0]['href'] ==
            'http://localhost/baremetal/v1/')


@pytest.mark.parametrize('path', ['/v1', '/v1/'])
def test_v1_document(api, path):
    resp = call(api, path)
    assert resp.status_int == 200
    doc = resp.json
    assert doc['id'] == 'v1'
    assert doc['links'][0] == {'href': 'http://localhost/v1/',
                               'rel': 'self'}
    assert doc['links'][1] == {
        'href': 'https://docs.openstack.org/ironic/latest/contributor/'
                'webapi.html', 'rel': 'describedby', 'type': 'text/html'}
    # One object, as Ironic 39 answers (not a list).
    assert doc['media_types'] == {
        'base': 'application/json',
        'type': 'application/vnd.openstack.ironic.v1+json'}
    assert doc['version']['version'] == LATEST
    # Chassis and nodes are linked at every version (as Ironic),
    # allocations from 1.52 only (this request has no version header:
    # 1.1).
    assert doc['nodes'][0]['href'] == 'http://localhost/v1/nodes/'
    assert doc['chassis'] == [
        {'href': 'http://localhost/v1/chassis/', 'rel': 'self'},
        {'href': 'http://localhost/chassis/', 'rel': 'bookmark'}]
    assert 'allocations' not in doc


@pytest.mark.parametrize('version, keys', [
    ('1.1', ['id', 'links', 'media_types', 'chassis', 'nodes', 'ports',
             'drivers', 'version']),
    (LATEST, ['id', 'links', 'media_types', 'chassis', 'nodes', 'ports',
              'drivers', 'version', 'portgroups', 'conductors',
              'allocations', 'shards']),
    ('1.81', ['id', 'links', 'media_types', 'chassis', 'nodes', 'ports',
              'drivers', 'version', 'portgroups', 'conductors',
              'allocations']),
])
def test_v1_document_lists_resources_in_ironics_order(api, version, keys):
    # Ironic's order: the resources of every version before the version,
    # the later ones after it (those allocsvc serves).
    resp = call(api, '/v1', headers={IRONIC: version})
    assert list(json.loads(resp.body)) == keys


def test_no_header_means_the_minimum(api):
    resp = call(api, '/v1')
    assert resp.headers[IRONIC] == '1.1'
    assert resp.headers[STANDARD] == 'baremetal 1.1'
    assert resp.headers[MIN] == '1.1'
    assert resp.headers[MAX] == LATEST
    assert resp.headers['Vary'] == (
        'OpenStack-API-Version, X-OpenStack-Ironic-API-Version')


@pytest.mark.parametrize('headers,answered', [
    ({IRONIC: '1.52'}, '1.52'),
    ({IRONIC: '1.1'}, '1.1'),
    ({IRONIC: 'latest'}, LATEST),
    ({IRONIC: ' LATEST '}, LATEST),
    ({IRONIC: LATEST}, LATEST),
    ({IRONIC: '1.060'}, '1.60'),
    ({STANDARD: 'baremetal 1.58'}, '1.58'),
    ({STANDARD: 'baremetal latest'}, LATEST),
    # The standard header wins over Ironic's own.
    ({STANDARD: 'baremetal 1.57', IRONIC: '1.60'}, '1.57'),
    # Another service's version is not ours.
    ({STANDARD: 'compute 2.1', IRONIC: '1.60'}, '1.60'),
    ({STANDARD: 'compute 2.1'}, '1.1'),
    ({STANDARD: 'compute 2.1, baremetal 1.52'}, '1.52'),
    ({STANDARD: 'BAREMETAL 1.52'}, '1.52'),
])
def test_negotiation(api, headers, answered):
    resp = call(api, '/v1', headers=headers)
    assert resp.status_int == 200
    assert resp.headers[IRONIC] == answered
    assert resp.headers[STANDARD] == 'baremetal ' + answered


@pytest.mark.parametrize('requested,message', [
    ('1.0', 'Version 1.0 was requested but the minor version is not '
            'supported by this service. The supported version range is: '
            '[1.1, %s].' % LATEST),
    ('1.%d' % (versions.MAX_VERSION.minor + 1),
     'Version 1.%d was requested but the minor version is not supported '
     'by this service. The supported version range is: [1.1, %s].'
     % (versions.MAX_VERSION.minor + 1, LATEST)),
    ('2.1', 'Mutually exclusive versions requested. Version 2.1 requested '
            'but not supported by this service. The supported version '
            'range is: [1.1, %s].' % LATEST),
    # Malformed: Ironic answers 406 too, with the range in the headers.
    ('banana', 'Invalid value for X-OpenStack-Ironic-API-Version header'),
    ('1', 'Invalid value for X-OpenStack-Ironic-API-Version header'),
    ('1.2.3', 'Invalid value for X-OpenStack-Ironic-API-Version header'),
    ('1.a', 'Invalid value for X-OpenStack-Ironic-API-Version header'),
    ('', 'Invalid value for X-OpenStack-Ironic-API-Version header'),
    ('1.5 x', 'Invalid value for X-OpenStack-Ironic-API-Version header'),
])
@pytest.mark.parametrize('header', [IRONIC, STANDARD])
def test_unacceptable_versions_are_406(api, header, requested, message):
    value = requested if header == IRONIC else 'baremetal ' + requested
    resp = call(api, '/v1', headers={header: value})
    assert resp.status_int == 406
    assert error(resp) == {'code': 406, 'title': 'Not Acceptable',
                           'description': message}
    # The range is there for the client to negotiate again.
    assert resp.headers[MIN] == '1.1'
    assert resp.headers[MAX] == LATEST
    assert IRONIC not in resp.headers


def test_version_checked_below_v1_too(api):
    resp = call(api, '/v1/nodes', headers={IRONIC: '1.999'})
    assert resp.status_int == 406


def test_unknown_path_is_404(api):
    # (/v1/nodes/x/y would be the field y of node x, as in Ironic.)
    for path in ('/v1/nowhere', '/nowhere', '/v1/nodes/ports/x'):
        resp = call(api, path, headers={IRONIC: 'latest'})
        assert resp.status_int == 404
        # Ironic 39's words: the title only.
        assert error(resp) == {'code': 404, 'title': 'Not Found',
                               'description': ''}
        assert resp.headers['Content-Type'] == 'application/json'
        # Served by /v1 (as Ironic serves /nodes as /v1/nodes).
        assert resp.headers[IRONIC] == LATEST


@pytest.mark.parametrize('path,method', [
    ('/v1', 'POST'), ('/v1', 'DELETE'), ('/v1', 'PUT'), ('/v1', 'PATCH'),
    ('/', 'POST'), ('/', 'DELETE'),
])
def test_wrong_method_is_405(api, path, method):
    resp = call(api, path, method=method)
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'GET'
    assert error(resp) == {
        'code': 405, 'title': 'Method Not Allowed', 'description': ''}


def test_errors_are_json_whatever_the_accept_header(api):
    for accept in ('application/xml', 'text/html', 'text/plain'):
        resp = call(api, '/v1/nowhere', headers={'Accept': accept})
        assert resp.status_int == 404
        assert error(resp)['code'] == 404
        ok = call(api, '/v1', headers={'Accept': accept})
        assert ok.status_int == 200
        assert ok.json['id'] == 'v1'


@pytest.mark.parametrize('path', ['/v1/%ff', '/%ff', '/v1?%ff=1',
                                  '/?a=%ff'])
def test_undecodable_request_is_400(api, path):
    resp = call(api, path)
    assert resp.status_int == 400
    assert error(resp) == {
        'faultcode': 'Client', 'debuginfo': None,
        'faultstring': 'The request path or query string is not valid '
                       'UTF-8.'}


def test_escaped_exception_is_a_logged_server_fault(api, monkeypatch):
    from allocsvc.api.controllers.v1 import controller

    def broken():
        raise RuntimeError('boom')

    # Below the controller's own error handling: a bug in the frame.
    monkeypatch.setattr(controller.base, 'api_version', broken)
    resp = call(api, '/v1')
    assert resp.status_int == 500
    assert error(resp) == {
        'faultcode': 'Server', 'debuginfo': None,
        'faultstring': 'An unexpected error occurred; it has been logged.'}
    assert 'boom' not in resp.text


def test_every_response_has_a_request_id(api):
    for resp in (call(api, '/'), call(api, '/v1'),
                 call(api, '/v1/nowhere'),
                 call(api, '/v1', headers={IRONIC: '9.9'}),
                 call(api, '/v1', method='POST')):
        assert resp.headers['x-openstack-request-id'].startswith('req-')


def test_global_request_id_is_kept_in_the_context(api):
    global_id = 'req-3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f'
    req = webob.Request.blank('/v1', headers={
        'X-Openstack-Request-Id': global_id})
    resp = req.get_response(api)
    context = req.environ['allocsvc.context']
    assert context.global_request_id == global_id
    assert resp.headers['x-openstack-request-id'] == context.request_id


def test_noauth_needs_no_token(api):
    req = webob.Request.blank('/v1/nowhere')
    resp = req.get_response(api)
    # Through to the routing (404), not refused; no identity.
    assert resp.status_int == 404
    assert req.environ['allocsvc.context'].user_id is None
    assert req.environ['is_public_api'] is False
    public = webob.Request.blank('/v1')
    public.get_response(api)
    assert public.environ['is_public_api'] is True


@pytest.fixture
def keystone_api():
    conftest.get_database('sqlite').clean()
    conf = conftest.make_conf(auth_strategy='keystone')
    for group, opts in keystone_opts.list_auth_token_opts():
        conf.register_opts(opts, group=group)
    conf.set_override('www_authenticate_uri', 'http://127.0.0.1:5000/v3',
                      group='keystone_authtoken')
    return apps.whole(conf)


def test_keystone_public_routes_need_no_token(keystone_api):
    for path in ('/', '/v1', '/v1/'):
        resp = call(keystone_api, path)
        assert resp.status_int == 200, path


@pytest.mark.parametrize('path', ['/v1/nodes', '/v1/nowhere', '/nodes'])
def test_keystone_other_routes_need_a_token(keystone_api, path):
    resp = call(keystone_api, path)
    assert resp.status_int == 401
    assert 'WWW-Authenticate' in resp.headers
    assert resp.headers['x-openstack-request-id'].startswith('req-')


@pytest.mark.parametrize('method,path', [
    ('POST', '/v1/allocations'), ('PATCH', '/v1/allocations/a1'),
    ('POST', '/v1/nodes'), ('PUT', '/v1/nodes/n1/states/power'),
    ('POST', '/v1/conductors'), ('POST', '/v1/nowhere'),
])
def test_json_nested_too_deeply_is_a_400(api, method, path):
    # Deeper than Python's JSON parser can recurse (before the check,
    # the RecursionError escaped as a 500 on every resource but nodes),
    # and within the request size limit.
    body = ('[' * 10000 + ']' * 10000).encode()
    resp = call(api, path, method=method, body=body,
                headers={IRONIC: LATEST,
                         'Content-Type': 'application/json'})
    assert resp.status_int == 400
    assert 'nested too deeply' in error(resp)['description']


UNPROVIDED = ['volume', 'deploy_templates', 'runbooks',
              'inspection_rules', 'lookup', 'heartbeat',
              'continue_inspection', 'events']


@pytest.mark.parametrize('name', UNPROVIDED)
def test_resources_not_provided_are_404_with_a_fault(api, name):
    # Whatever the method, path below the resource and version: a 404
    # fault that says the resource is not provided here.
    paths = ['/v1/%s' % name, '/v1/%s/' % name,
             '/v1/%s/1be26c0b-03f2-4d2e-ae87-c02d7f33c123' % name,
             '/v1/%s/x/y/z?fields=uuid' % name]
    for path in paths:
        for method in ('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'):
            for version in ('1.1', '1.31', LATEST):
                resp = call(api, path, method=method,
                            headers={IRONIC: version,
                                     'Content-Type': 'application/json'},
                            body=b'{"a": 1}' if method != 'GET' else b'')
                assert resp.status_int == 404, (path, method, version)
                if method == 'HEAD':
                    continue
                assert error(resp) == {
                    'faultcode': 'Client', 'debuginfo': None,
                    'faultstring': 'This service does not provide the %s '
                                   'resource of the Bare Metal API.' % name}
                assert resp.headers[IRONIC] == version


def test_volume_connectors_and_targets_are_not_provided(api):
    for path in ('/v1/volume/connectors', '/v1/volume/targets/x',
                 '/v1/volume/connectors?node=n'):
        resp = call(api, path, method='POST', headers={IRONIC: LATEST})
        assert resp.status_int == 404
        assert 'volume resource' in error(resp)['faultstring']
