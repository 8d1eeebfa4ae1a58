"""Request bodies that are missing or not a JSON object, answered as
Ironic 39 answers them (each text below is what Ironic 39.0 answered to
the same request).

Ironic reads no body at all as an empty object, so the request is
refused for what it lacks; an endpoint with a mandatory argument reads
a body that is not an object as having none; a body checked against a
schema is "not of type 'object'"; a patch that is not a list is "not
of type 'array'". Every answer is a 400 and nothing is written.
"""

import pytest

from tests.helpers import v1 as api

pytestmark = pytest.mark.usefixtures('api_conductor')

call = api.call
message = api.message

# (method, path, what Ironic answers to no body at all)
EMPTY = [
    ('POST', '/v1/allocations',
     'The resource_class field is mandatory when not backfilling'),
    ('POST', '/v1/nodes', "Schema error for node: 'driver' is a required "
                          "property"),
    ('POST', '/v1/ports', "Schema error for port: 'address' is a required "
                          "property"),
    ('POST', '/v1/portgroups', "Schema error for portgroup: 'node_uuid' is "
                               "a required property"),
    ('PATCH', '/v1/nodes/b1', "Schema error for patch: {} is not of type "
                              "'array'"),
    ('PATCH', '/v1/allocations/a1', "Schema error: {} is not of type "
                                    "'array'"),
    ('PUT', '/v1/nodes/b1/states/provision',
     'Missing mandatory parameter: target'),
    ('PUT', '/v1/nodes/b1/states/power', 'Missing mandatory parameter: '
                                         'target'),
    ('POST', '/v1/nodes/b1/vifs', "Schema error for vif: 'id' is a required "
                                  "property"),
    ('PUT', '/v1/nodes/b1/management/boot_device',
     'Missing mandatory parameter: boot_device'),
    ('PUT', '/v1/nodes/b1/states/console', 'Missing mandatory parameter: '
                                           'enabled'),
    ('PUT', '/v1/nodes/b1/states/boot_mode', 'Missing mandatory parameter: '
                                             'target'),
]

# (method, path, body, what Ironic answers)
NOT_AN_OBJECT = [
    ('PUT', '/v1/nodes/b1/states/provision', [1],
     'Missing mandatory parameter: target'),
    ('PUT', '/v1/nodes/b1/states/power', 'x',
     'Missing mandatory parameter: target'),
    ('PUT', '/v1/nodes/b1/states/provision', None,
     'Missing mandatory parameter: target'),
    ('PUT', '/v1/nodes/b1/states/console', 5,
     'Missing mandatory parameter: enabled'),
    ('PUT', '/v1/nodes/b1/management/boot_device', [1],
     'Missing mandatory parameter: boot_device'),
    ('POST', '/v1/nodes/b1/vifs', 'x',
     "Schema error for vif: 'x' is not of type 'object'"),
    ('POST', '/v1/nodes', [], "Schema error for node: [] is not of type "
                              "'object'"),
    ('POST', '/v1/ports', [], "Schema error for port: [] is not of type "
                              "'object'"),
    ('POST', '/v1/portgroups', [], "Schema error for portgroup: [] is not "
                                   "of type 'object'"),
    ('PATCH', '/v1/nodes/b1', {'a': 1}, "Schema error for patch: {'a': 1} "
                                        "is not of type 'array'"),
    ('PATCH', '/v1/nodes/b1', 'x', "Schema error for patch: 'x' is not of "
                                   "type 'array'"),
    ('PATCH', '/v1/nodes/b1', [1], "Schema error for patch: 1 is not of "
                                   "type 'object'"),
    # Ironic 39 answers this one with a 500.
    ('PATCH', '/v1/nodes/b1', None, "Schema error for patch: None is not "
                                    "of type 'array'"),
]


@pytest.fixture
def node(database):
    node = api.create(name='b1')
    resp = call('POST', '/v1/allocations', {'resource_class': 'x',
                                            'name': 'a1'})
    assert resp.status_int == 201, resp.text
    return node


@pytest.mark.parametrize('method,path,text', EMPTY)
def test_no_body_reads_as_an_empty_object(node, method, path, text):
    resp = call(method, path, raw=b'')
    assert resp.status_int == 400, resp.text
    assert message(resp) == text
    assert [n['uuid'] for n in call('GET', '/v1/nodes').json['nodes']] == [
        node['uuid']]
    assert call('GET', '/v1/ports').json['ports'] == []
    assert call('GET', '/v1/portgroups').json['portgroups'] == []
    assert call('GET', '/v1/nodes/b1').json['updated_at'] == \
        node['updated_at']


@pytest.mark.parametrize('method,path,body,text', NOT_AN_OBJECT)
def test_a_body_that_is_not_an_object(node, method, path, body, text):
    resp = call(method, path, raw=api.json.dumps(body).encode())
    assert resp.status_int == 400, resp.text
    assert message(resp) == text
    after = call('GET', '/v1/nodes/b1').json
    assert (after['provision_state'], after['power_state'],
            after['updated_at']) == (node['provision_state'],
                                     node['power_state'], node['updated_at'])


@pytest.mark.parametrize('verb', ['provision', 'power'])
def test_a_null_target_is_a_missing_one(node, verb):
    # Ironic 39 tries an action named "None" (400 "The requested action
    # "None" can not be performed ..."); a null target is no target.
    resp = call('PUT', '/v1/nodes/b1/states/' + verb, {'target': None})
    assert resp.status_int == 400, resp.text
    assert message(resp) == 'Missing mandatory parameter: target'
