"""Node paths beyond ``/v1/nodes/{node}/<resource>``, as Ironic 39 reads
them (``node_paths``), on every database backend.

Scenarios:
* the older form that names the node last: ``/v1/nodes/states/{node}``,
  ``.../states/console/{node}`` (ironic-tempest-plugin's ``get_console``),
  power, provision, maintenance, boot device and an indicator; without a
  node, Ironic's 400; an unknown node, its 404;
* ``/v1/nodes/<sub-resource>`` without a node: 404;
* a segment after a node that names nothing of it: GET is that field
  (406 before 1.8 or when the field is newer, Ironic's 400 for an unknown
  one), PUT 405 with the node's methods, DELETE and POST Ironic's errors,
  PATCH its ``reset_interfaces``;
* a sub-resource newer than the request's version is a 404 whatever the
  method (the version is checked before the method);
* below the states and the management resources, a change is a 405.
"""

import json

import pytest
import webob

from tests.helpers import v1 as api

pytestmark = pytest.mark.usefixtures('api_conductor')

call = api.call
message = api.message


@pytest.fixture
def node(database):
    return api.create(name='n')


def test_legacy_paths_name_the_node_last(node):
    uuid = node['uuid']
    resp = call('GET', '/v1/nodes/states/console/' + uuid, version='1.1')
    assert resp.status_int == 200
    assert resp.json == {'console_enabled': False, 'console_info': None}
    resp = call('GET', '/v1/nodes/states/n', version='1.10')
    assert resp.status_int == 200
    assert resp.json['provision_state'] == 'enroll'
    resp = call('PUT', '/v1/nodes/states/power/n', {'target': 'power on'})
    assert resp.status_int == 202
    assert resp.headers['Location'] == 'http://localhost/v1/nodes/n/states'
    resp = call('PUT', '/v1/nodes/states/provision/' + uuid,
                {'target': 'manage'}, version='1.1')
    assert resp.status_int == 406
    resp = call('PUT', '/v1/nodes/maintenance/n', {'reason': 'x'})
    assert resp.status_int == 202
    shown = call('GET', '/v1/nodes/n').json
    assert (shown['power_state'], shown['maintenance'],
            shown['maintenance_reason']) == ('power on', True, 'x')
    assert call('DELETE', '/v1/nodes/maintenance/n').status_int == 202
    resp = call('GET', '/v1/nodes/management/boot_device/n')
    assert resp.json == {'boot_device': 'pxe', 'persistent': False}
    resp = call('GET', '/v1/nodes/management/indicators/n/led@system')
    assert resp.status_int == 200


@pytest.mark.parametrize('path,text', [
    ('/v1/nodes/states', 'Missing mandatory parameter: node_ident'),
    ('/v1/nodes/states/console', 'Missing mandatory parameter: node_ident'),
    ('/v1/nodes/management/indicators/n',
     'Missing mandatory parameter: indicator'),
])
def test_legacy_paths_without_a_node(node, path, text):
    resp = call('GET', path)
    assert resp.status_int == 400
    assert message(resp) == text


def test_legacy_paths_of_an_unknown_node(database):
    resp = call('GET', '/v1/nodes/states/console/ghost')
    assert resp.status_int == 404
    assert message(resp) == 'Node ghost could not be found.'
    assert call('GET', '/v1/nodes/states/console/ghost/more'
                ).status_int == 404


@pytest.mark.parametrize('sub', ['ports', 'traits', 'vifs', 'allocation',
                                 'vmedia'])
def test_a_sub_resource_needs_a_node(node, sub):
    for method in ('GET', 'PUT', 'DELETE'):
        assert call(method, '/v1/nodes/%s/n' % sub).status_int == 404


def test_get_of_an_extra_segment_is_a_field(node):
    resp = call('GET', '/v1/nodes/n/name', version='1.10')
    assert resp.status_int == 200
    assert set(resp.json) == {'name', 'links'}
    resp = call('GET', '/v1/nodes/n/uuid,name')
    assert resp.json['uuid'] == node['uuid']
    for version, path in (('1.7', '/v1/nodes/%s/uuid' % node['uuid']),
                          ('1.36', '/v1/nodes/n/traits')):
        resp = call('GET', path, version=version)
        assert resp.status_int == 406
        assert message(resp) == 'Request not acceptable.'
    resp = call('GET', '/v1/nodes/n/nope')
    assert resp.status_int == 400
    assert message(resp) == 'Field nope is not a valid field.'
    # The node is looked up first.
    resp = call('GET', '/v1/nodes/ghost/nope')
    assert resp.status_int == 404
    assert message(resp) == 'Node ghost could not be found.'
    assert call('GET', '/v1/nodes/n/name/more').status_int == 404


def test_other_methods_of_an_extra_segment(node):
    resp = call('PUT', '/v1/nodes/n/nope', {})
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'DELETE, GET, PATCH, POST'
    resp = call('DELETE', '/v1/nodes/n/nope')
    assert resp.status_int == 404
    assert message(resp) == 'Resource could not be found.'
    resp = call('POST', '/v1/nodes/n/nope', {'driver': 'fake-hardware'})
    assert resp.status_int == 400
    assert message(resp) == ("Schema error for node: 'n' is not of type "
                             "'object'")
    patch = [{'op': 'add', 'path': '/extra/a', 'value': 1}]
    resp = call('PATCH', '/v1/nodes/n/true', patch)
    assert resp.status_int == 400
    assert message(resp) == ("The reset_interfaces parameter can only be "
                             "used when changing the node's driver.")
    resp = call('PATCH', '/v1/nodes/n/true', patch, version='1.44')
    assert resp.status_int == 406
    resp = call('PATCH', '/v1/nodes/n/false', patch)
    assert resp.status_int == 200
    assert resp.json['extra'] == {'a': 1}
    resp = call('PATCH', '/v1/nodes/n/true/x', patch)
    assert message(resp) == ("Schema error for patch: 'x' is not of type "
                             "'array'")


@pytest.mark.parametrize('path,first', [
    ('portgroups', 24), ('vifs', 28), ('bios', 40), ('allocation', 52),
    ('history', 78), ('inventory', 81), ('children', 83), ('firmware', 86),
    ('vmedia', 89)])
def test_the_version_is_checked_before_the_method(node, path, first):
    # TestNodeVMediaMicroversions: PUT .../vmedia at 1.88 is a 404.
    for method in ('GET', 'PUT', 'POST', 'DELETE', 'PATCH'):
        resp = call(method, '/v1/nodes/n/' + path, {},
                    version='1.%d' % (first - 1))
        assert resp.status_int == 404, method
    resp = call('PUT', '/v1/nodes/n/' + path, {},
                version='1.%d' % first)
    assert resp.status_int == 405


def test_nothing_below_states_and_management(node):
    resp = call('PUT', '/v1/nodes/n/states/nope', {})
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'GET'
    assert call('GET', '/v1/nodes/n/states/nope').status_int == 404
    for method in ('GET', 'PUT'):
        assert call(method, '/v1/nodes/n/management/nope',
                    {}).status_int == 405


def test_an_ident_is_checked_as_ironic_checks_it(database):
    # The path takes any name; what it means depends on the version
    # (TestDriverVendorPassthruMicroversions asks at 1.1).
    path = '/v1/nodes/fake_node/vendor_passthru/methods'
    resp = call('GET', path, version='1.1')
    assert resp.status_int == 404
    assert message(resp) == 'Node fake_node could not be found.'
    resp = call('GET', path, version='1.6')
    assert resp.status_int == 400
    assert message(resp) == ('Expected a logical name or UUID but received '
                             'fake_node.')
    resp = call('GET', '/v1/nodes/fake node/states')
    assert resp.status_int == 400
    assert message(resp) == ('Expected UUID or name for node_ident: '
                             'fake node')


def _typed(method, path, body, content_type):
    req = webob.Request.blank(path, method=method,
                              headers={api.IRONIC: 'latest'})
    req.body = body
    req.content_type = content_type
    return req.get_response(api.app())


def test_the_edges_of_an_extra_segment(node):
    # HEAD and PUT are refused by the routing, in its words, with the
    # node's methods; at 1.36 so is a PUT of the traits (which do not
    # exist yet).
    for method, path, version in (('HEAD', '/v1/nodes/n/nope', 'latest'),
                                  ('HEAD', '/v1/nodes/n/a/b', 'latest'),
                                  ('PUT', '/v1/nodes/n/traits', '1.36')):
        resp = call(method, path, version=version)
        assert resp.status_int == 405
        assert resp.headers['Allow'] == 'DELETE, GET, PATCH, POST'
        if method != 'HEAD':
            assert json.loads(resp.json['error_message'])['code'] == 405
    # A trailing slash is one more, empty, segment.
    resp = call('PATCH', '/v1/nodes/n/true/', [])
    assert message(resp) == ("Schema error for patch: '' is not of type "
                             "'array'")
    resp = call('GET', '/v1/nodes/n/name/')
    assert resp.status_int == 404
    assert message(resp) == 'The resource could not be found.'
    resp = call('DELETE', '/v1/nodes/n/x/')
    assert message(resp) == 'Resource could not be found.'
    # The body is read before: a GET's or DELETE's must be an object.
    assert message(call('GET', '/v1/nodes/n/name', [1])) == \
        'Request must be a JSON dict'
    assert call('GET', '/v1/nodes/n/name', {'a': 1}).status_int == 200
    resp = _typed('DELETE', '/v1/nodes/n/x', b'x', 'text/plain')
    assert resp.status_int == 415
    resp = _typed('POST', '/v1/nodes/n/x', b'<a', 'text/xml')
    assert message(resp) == 'Request is not in valid XML format'
    # No query arguments.
    resp = call('GET', '/v1/nodes/n/name?fields=uuid')
    assert message(resp) == 'Unexpected arguments: fields'
    resp = call('PATCH', '/v1/nodes/n/true?x=1', [])
    assert message(resp) == 'Unexpected arguments: x'
