"""The Placement pipeline as a client sees it: microversion negotiation,
the JSON error document, request ids, noauth2 and policy, CORS, and links
that follow the mount point. These do not depend on the database backend,
so they run on SQLite."""

import json

from keystonemiddleware import opts as keystone_opts
import pytest
import webob

from tests import conftest
from tests.helpers import apps

ADMIN = {'X-Auth-Token': 'admin'}


@pytest.fixture
def placement():
    db = conftest.get_database('sqlite')
    db.clean()
    return apps.placement()


def call(app, path, method='GET', headers=None, body=None, **environ):
    req = webob.Request.blank(path, method=method, headers=headers or {},
                              **environ)
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    return req.get_response(app)


def error(resp):
    assert resp.content_type == 'application/json'
    return resp.json['errors'][0]


def test_version_document_needs_no_token(placement):
    resp = call(placement, '/')
    assert resp.status_int == 200
    version = resp.json['versions'][0]
    assert version['min_version'] == '1.0'
    assert version['max_version'] == '1.39'
    assert version['id'] == 'v1.0'
    assert version['status'] == 'CURRENT'
    assert resp.headers['openstack-api-version'] == 'placement 1.0'
    assert resp.headers['vary'] == 'openstack-api-version'


@pytest.mark.parametrize('requested,answered', [
    ('placement 1.14', 'placement 1.14'),
    ('placement latest', 'placement 1.39'),
    ('placement 1.0', 'placement 1.0'),
])
def test_microversion_negotiation(placement, requested, answered):
    resp = call(placement, '/resource_providers',
                headers=dict(ADMIN, **{'OpenStack-API-Version': requested}))
    assert resp.status_int == 200
    assert resp.headers['openstack-api-version'] == answered


@pytest.mark.parametrize('requested', ['placement 1.40', 'placement 2.0',
                                       'placement 0.9'])
def test_microversion_out_of_range_is_406(placement, requested):
    resp = call(placement, '/resource_providers',
                headers=dict(ADMIN, **{'OpenStack-API-Version': requested}))
    assert resp.status_int == 406
    err = error(resp)
    assert err['min_version'] == '1.0'
    assert err['max_version'] == '1.39'


@pytest.mark.parametrize('requested', ['placement 1.a', 'placement one',
                                       'placement 1.2.3'])
def test_malformed_microversion_is_400(placement, requested):
    resp = call(placement, '/resource_providers',
                headers=dict(ADMIN, **{'OpenStack-API-Version': requested}))
    assert resp.status_int == 400
    assert 'microversion' in error(resp)['detail'].lower()


def test_error_code_only_from_1_23(placement):
    path = '/resource_providers/%s' % ('0' * 32)
    old = call(placement, path,
               headers=dict(ADMIN, **{'OpenStack-API-Version':
                                      'placement 1.22'}))
    assert old.status_int == 404
    assert 'code' not in error(old)
    new = call(placement, path,
               headers=dict(ADMIN, **{'OpenStack-API-Version':
                                      'placement 1.23'}))
    err = error(new)
    assert err['code'] == 'placement.undefined_code'
    assert err['status'] == 404
    assert err['title'] == 'Not Found'
    assert err['request_id'] == new.headers['x-openstack-request-id']


def test_every_response_has_a_request_id(placement):
    for resp in (call(placement, '/'),
                 call(placement, '/resource_providers'),
                 call(placement, '/nowhere', headers=ADMIN)):
        assert resp.headers['x-openstack-request-id'].startswith('req-')


def test_global_request_id_is_kept_local_one_returned(placement):
    global_id = 'req-3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f'
    req = webob.Request.blank('/resource_providers', headers=dict(
        ADMIN, **{'X-Openstack-Request-Id': global_id}))
    resp = req.get_response(placement)
    assert resp.status_int == 200
    # The request context carries the caller's id as the global one; the
    # response names the local id made for this request.
    context = req.environ['allocsvc.context']
    assert context.global_request_id == global_id
    assert resp.headers['x-openstack-request-id'] == context.request_id
    assert context.request_id != global_id


def test_invalid_global_request_id_is_ignored(placement):
    resp = call(placement, '/resource_providers',
                headers=dict(ADMIN, **{'X-Openstack-Request-Id': 'bogus'}))
    assert resp.status_int == 200
    assert resp.headers['x-openstack-request-id'] != 'bogus'


def test_noauth2_requires_a_token(placement):
    resp = call(placement, '/resource_providers')
    assert resp.status_int == 401
    assert error(resp)['status'] == 401


def test_noauth2_non_admin_is_forbidden(placement):
    resp = call(placement, '/resource_providers',
                headers={'X-Auth-Token': 'alice:project-a',
                         'OpenStack-API-Version': 'placement latest'})
    assert resp.status_int == 403
    err = error(resp)
    assert 'placement:resource_providers:list' in err['detail']


def test_noauth2_roles_from_x_roles(placement):
    resp = call(placement, '/resource_providers',
                headers={'X-Auth-Token': 'nova:service-project',
                         'X-Roles': 'service'})
    assert resp.status_int == 200


def test_project_reader_may_read_own_usages_only(placement):
    headers = {'X-Auth-Token': 'alice:project-a', 'X-Roles': 'reader',
               'OpenStack-API-Version': 'placement 1.9'}
    own = call(placement, '/usages?project_id=project-a', headers=headers)
    other = call(placement, '/usages?project_id=project-b', headers=headers)
    assert own.status_int == 200
    assert other.status_int == 403


def test_noauth2_keeps_the_project_the_client_names(placement):
    """Placement's noauth2 lets an X-Project-Id header stand (the token's
    project only fills in for a missing one), so a reader of project-a
    with any token sees project-a's usages."""
    headers = {'X-Auth-Token': 'user', 'X-Roles': 'member,reader',
               'X-Project-Id': 'project-a',
               'OpenStack-API-Version': 'placement 1.9'}
    own = call(placement, '/usages?project_id=project-a', headers=headers)
    other = call(placement, '/usages?project_id=user', headers=headers)
    assert own.status_int == 200
    assert other.status_int == 403


@pytest.mark.parametrize('roles,status', [
    ('service', 400),  # allowed; the empty body is refused after
    ('admin', 403),
    ('admin,member,reader', 403),
])
def test_only_the_service_role_reshapes(placement, roles, status):
    resp = call(placement, '/reshaper', method='POST', body={},
                headers={'X-Auth-Token': 'user:p', 'X-Roles': roles,
                         'OpenStack-API-Version': 'placement 1.30'})
    assert resp.status_int == status


def test_admin_reshapes_with_legacy_rules(tmp_path):
    conftest.get_database('sqlite').clean()
    conf = conftest.make_conf()
    conf.set_override('enforce_new_defaults', False, group='oslo_policy')
    app = apps.placement(conf)
    resp = call(app, '/reshaper', method='POST', body={},
                headers={'X-Auth-Token': 'admin',
                         'OpenStack-API-Version': 'placement 1.30'})
    assert resp.status_int == 400


def test_policy_file_overrides_defaults(tmp_path):
    conftest.get_database('sqlite').clean()
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"placement:resource_providers:list": "@"\n')
    conf = conftest.make_conf()
    conf.set_override('policy_file', str(policy_file), group='oslo_policy')
    app = apps.placement(conf)
    resp = call(app, '/resource_providers',
                headers={'X-Auth-Token': 'alice:project-a'})
    assert resp.status_int == 200


def test_legacy_rules_need_enforce_new_defaults_off(tmp_path):
    """role:admin (the deprecated rule) works either way; the service role
    only through the new defaults."""
    conftest.get_database('sqlite').clean()
    conf = conftest.make_conf()
    conf.set_override('enforce_new_defaults', True, group='oslo_policy')
    app = apps.placement(conf)
    service = {'X-Auth-Token': 'nova:svc', 'X-Roles': 'service'}
    assert call(app, '/resource_providers', headers=service).status_int == 200
    assert call(app, '/resource_providers',
                headers={'X-Auth-Token': 'bob:p'}).status_int == 403


def test_unknown_path_is_404_json(placement):
    resp = call(placement, '/nowhere', headers=ADMIN)
    assert resp.status_int == 404
    assert error(resp)['title'] == 'Not Found'


def test_wrong_method_is_405_with_allow(placement):
    resp = call(placement, '/resource_providers/%s' % ('1' * 32),
                method='POST', headers=ADMIN)
    assert resp.status_int == 405
    assert resp.headers['allow'] == 'DELETE, GET, PUT'
    assert error(resp)['status'] == 405


def test_accept_must_allow_json(placement):
    resp = call(placement, '/resource_providers',
                headers=dict(ADMIN, Accept='text/plain'))
    assert resp.status_int == 406
    assert error(resp)['detail'].endswith('Only application/json is provided')


@pytest.mark.parametrize('accept', [
    'text/html',
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
])
def test_errors_are_html_for_a_client_preferring_it(placement, accept):
    # As from Placement (webob's error page): a browser reads HTML.
    resp = call(placement, '/nowhere', headers=dict(ADMIN, Accept=accept))
    assert resp.status_int == 404
    assert resp.content_type == 'text/html'
    assert 'The resource could not be found.' in resp.text
    resp = call(placement, '/resource_providers',
                headers=dict(ADMIN, Accept='text/html'))
    assert resp.status_int == 406
    assert resp.content_type == 'text/html'
    assert 'Only application/json is provided' in resp.text


@pytest.mark.parametrize('accept', [
    None, '*/*', 'application/json', 'text/plain',
    'application/json, text/html', 'text/html;q=0.5, application/json',
])
def test_errors_are_json_unless_html_is_preferred(placement, accept):
    headers = dict(ADMIN)
    if accept is not None:
        headers['Accept'] = accept
    resp = call(placement, '/nowhere', headers=headers)
    assert resp.status_int == 404
    assert error(resp)['title'] == 'Not Found'


def test_options_without_cors_is_405(placement):
    # Without configured origins there is no CORS layer to answer it.
    resp = call(placement, '/resource_providers', method='OPTIONS',
                headers={'Origin': 'http://dashboard.example',
                         'Access-Control-Request-Method': 'GET',
                         **ADMIN})
    assert resp.status_int == 405
    assert resp.headers['allow'] == 'GET, POST'
    assert 'The method OPTIONS is not allowed' in error(resp)['detail']
    assert 'Access-Control-Allow-Origin' not in resp.headers


def test_a_body_needs_a_content_type(placement):
    # Refused before routing, even on a path that has no handler.
    for path in ('/resource_providers', '/nowhere'):
        req = webob.Request.blank(path, method='POST', headers=ADMIN)
        req.body = b'I want a resource provider please'
        req.environ.pop('CONTENT_TYPE', None)
        resp = req.get_response(placement)
        assert resp.status_int == 400
        assert ('content-type header required when content-length > 0'
                in error(resp)['detail'])
    req = webob.Request.blank('/resource_providers', method='POST',
                              headers=ADMIN)
    req.environ['CONTENT_LENGTH'] = 'hi mom'
    resp = req.get_response(placement)
    assert resp.status_int == 400
    assert ('content-length header must be an integer'
            in error(resp)['detail'])


def test_no_body_reaches_the_handler(placement):
    # No body and no content type: the handler's own 415.
    resp = call(placement, '/resource_providers/%s' % ('1' * 32),
                method='PUT', headers=ADMIN)
    assert resp.status_int == 415
    assert ('The media type None is not supported, use application/json'
            in error(resp)['detail'])


def test_cors_preflight(tmp_path):
    conftest.get_database('sqlite').clean()
    conf = conftest.make_conf()
    conf.set_override('allowed_origin', ['http://dashboard.example'],
                      group='cors')
    app = apps.placement(conf)
    resp = call(app, '/resource_providers', method='OPTIONS',
                headers={'Origin': 'http://dashboard.example',
                         'Access-Control-Request-Method': 'GET'})
    assert resp.status_int == 200
    assert (resp.headers['Access-Control-Allow-Origin'] ==
            'http://dashboard.example')


def test_links_and_location_follow_the_mount_point():
    conftest.get_database('sqlite').clean()
    whole = apps.whole()
    headers = dict(ADMIN, **{'OpenStack-API-Version': 'placement 1.20'})
    resp = call(whole, '/placement/resource_providers', method='POST',
                headers=headers, body={'name': 'mounted'})
    assert resp.status_int == 200
    uuid = resp.json['uuid']
    assert resp.location.endswith('/placement/resource_providers/' + uuid)
    assert (resp.json['links'][0]['href'] ==
            '/placement/resource_providers/' + uuid)
    root = call(whole, '/placement/')
    assert root.json['versions'][0]['max_version'] == '1.39'
    service_root = call(whole, '/')
    assert service_root.status_int == 200
    assert service_root.json['name'] == 'allocsvc'


def test_keystone_strategy_uses_auth_token_middleware():
    conftest.get_database('sqlite').clean()
    conf = conftest.make_conf(auth_strategy='keystone')
    for group, opts in keystone_opts.list_auth_token_opts():
        conf.register_opts(opts, group=group)
    conf.set_override('www_authenticate_uri', 'http://127.0.0.1:5000/v3',
                      group='keystone_authtoken')
    app = apps.placement(conf)
    assert call(app, '/').status_int == 200
    # No token: keystonemiddleware refuses before anything reaches us.
    resp = call(app, '/resource_providers')
    assert resp.status_int == 401
    assert 'WWW-Authenticate' in resp.headers
