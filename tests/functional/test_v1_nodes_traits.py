"""``/v1/nodes/{n}/traits`` (API 1.37) on every database backend.

Scenarios: list, replace all, add one (Location), remove one, remove
all; the node document's ``traits``; trait names (custom and os-traits
standard ones only); at most 50 per node; the two ways of PUT not mixed;
404 for an unknown node or a missing trait. Before 1.37 the path means
what Ironic's node methods make of it: GET is the node's ``traits``
field, a 406 (the field is newer), PUT a 405, DELETE a 404 and POST the
schema error of a node body.
"""

import pytest

from tests.helpers import v1 as api

# Nodes change through a conductor (see test_v1_nodes).
pytestmark = pytest.mark.usefixtures('api_conductor')

call = api.call
message = api.message


def traits(ident='t'):
    return call('GET', '/v1/nodes/%s/traits' % ident).json['traits']


def test_trait_lifecycle(database):
    api.create(name='t')
    assert traits() == []
    resp = call('PUT', '/v1/nodes/t/traits',
                {'traits': ['CUSTOM_B', 'HW_CPU_X86_AVX', 'CUSTOM_A',
                            'CUSTOM_A']})
    assert resp.status_int == 204 and resp.body == b''
    assert traits() == ['CUSTOM_A', 'CUSTOM_B', 'HW_CPU_X86_AVX']
    resp = call('PUT', '/v1/nodes/t/traits/CUSTOM_C')
    assert resp.status_int == 204
    assert resp.headers['Location'] == (
        'http://localhost/v1/nodes/t/traits/CUSTOM_C')
    # Adding a trait the node has is fine.
    assert call('PUT', '/v1/nodes/t/traits/CUSTOM_C').status_int == 204
    assert call('GET', '/v1/nodes/t').json['traits'] == [
        'CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C', 'HW_CPU_X86_AVX']
    assert call('DELETE', '/v1/nodes/t/traits/CUSTOM_B').status_int == 204
    assert traits() == ['CUSTOM_A', 'CUSTOM_C', 'HW_CPU_X86_AVX']
    resp = call('DELETE', '/v1/nodes/t/traits/CUSTOM_B')
    assert resp.status_int == 404
    uuid = call('GET', '/v1/nodes/t').json['uuid']
    assert message(resp) == "Node %s doesn't have a trait CUSTOM_B" % uuid
    assert call('PUT', '/v1/nodes/t/traits',
                {'traits': []}).status_int == 204
    assert traits() == []
    call('PUT', '/v1/nodes/t/traits', {'traits': ['CUSTOM_X']})
    assert call('DELETE', '/v1/nodes/t/traits').status_int == 204
    assert traits() == []


INVALID_TRAITS = [
    'FOO_BAR', 'CUSTOM_lower', 'CUSTOM_', 'CUSTOM_' + 'A' * 249]


def test_invalid_trait_names(database):
    api.create(name='t')
    for trait in INVALID_TRAITS:
        resp = call('PUT', '/v1/nodes/t/traits/' + trait)
        assert resp.status_int == 400, trait
        assert message(resp).startswith('Schema error for trait:')
        resp = call('PUT', '/v1/nodes/t/traits', {'traits': [trait]})
        assert resp.status_int == 400, trait
        assert message(resp).startswith('Schema error for body:')
    assert traits() == []


def test_invalid_trait_messages(database):
    # Ironic 39's wording, which names the custom trait pattern as the
    # root cause (clients match on it).
    api.create(name='t')
    resp = call('PUT', '/v1/nodes/t/traits/FOO_BAR')
    assert message(resp) == ("Schema error for trait: 'FOO_BAR' is not "
                             "valid under any of the given schemas. "
                             "Possible root cause: 'FOO_BAR' does not "
                             "match '^CUSTOM_[A-Z0-9_]+$'")
    resp = call('PUT', '/v1/nodes/t/traits',
                {'traits': ['CUSTOM_A', 'foo']})
    assert message(resp) == ("Schema error for body: 'foo' is not valid "
                             "under any of the given schemas. Possible "
                             "root cause: 'foo' does not match "
                             "'^CUSTOM_[A-Z0-9_]+$'")
    resp = call('PUT', '/v1/nodes/t/traits',
                {'traits': ['CUSTOM_' + 'A' * 249]})
    assert message(resp) == ("Schema error for body: 'CUSTOM_%s' is too "
                             "long" % ('A' * 249))
    assert traits() == []


BAD_TRAIT_BODIES = [
    {'traits': 'CUSTOM_A'}, {'traits': [1]}, {'traits': None},
    {'bogus': []}, {}, ['CUSTOM_A'], None]


def test_bad_trait_bodies(database):
    api.create(name='t')
    for body in BAD_TRAIT_BODIES:
        resp = call('PUT', '/v1/nodes/t/traits', body)
        assert resp.status_int == 400, (body, resp.text)


def test_put_forms_do_not_mix(database):
    api.create(name='t')
    resp = call('PUT', '/v1/nodes/t/traits')
    assert message(resp).startswith('A single node trait may be added via '
                                    'PUT /v1/nodes/<node identifier>/traits'
                                    '/<trait> with no body')
    resp = call('PUT', '/v1/nodes/t/traits/CUSTOM_A',
                {'traits': ['CUSTOM_B']})
    assert resp.status_int == 400
    assert message(resp) == 'No body should be provided when adding a trait'
    # An empty JSON object is no body.
    assert call('PUT', '/v1/nodes/t/traits/CUSTOM_A',
                {}).status_int == 204


def test_at_most_50_traits(database):
    node = api.create(name='t')
    fifty = ['CUSTOM_T%d' % i for i in range(50)]
    assert call('PUT', '/v1/nodes/t/traits',
                {'traits': fifty}).status_int == 204
    resp = call('PUT', '/v1/nodes/t/traits/CUSTOM_ONE_MORE')
    assert resp.status_int == 400
    assert message(resp) == (
        'Could not modify traits for node %s: would exceed the maximum of '
        '50 traits per node.' % node['uuid'])
    resp = call('PUT', '/v1/nodes/t/traits',
                {'traits': fifty + ['CUSTOM_ONE_MORE']})
    assert resp.status_int == 400
    assert len(traits()) == 50


# Ironic 39's answers below 1.37 (ironic-tempest-plugin's
# TestNodesTraitsOldApi and TestNodeTraitsMicroversions pin the first
# four).
OLD_API = [
    ('GET', '/traits', 406, 'Request not acceptable.'),
    ('PUT', '/traits', 405, None),
    ('PUT', '/traits/CUSTOM_A', 405, None),
    ('DELETE', '/traits/CUSTOM_A', 404, 'Resource could not be found.'),
    ('DELETE', '/traits', 404, 'Resource could not be found.'),
    ('POST', '/traits', 400, "Schema error for node: '{node}' is not of "
                             "type 'object'"),
    ('PATCH', '/traits', 400, "Invalid reset_interfaces: Unrecognized "
     "value 'traits', acceptable values are: '0', '1', 'f', 'false', 'n', "
     "'no', 'off', 'on', 't', 'true', 'y', 'yes'"),
]


@pytest.mark.parametrize('version', ['1.1', '1.36'])
def test_traits_before_1_37(database, version):
    node = api.create(name='t')
    for method, path, status, text in OLD_API:
        for ident in (node['uuid'], 't'):
            if ident == 't' and version == '1.1':
                continue  # no names before 1.5
            body = {'traits': ['CUSTOM_A']} if method == 'PUT' else None
            resp = call(method, '/v1/nodes/%s%s' % (ident, path), body,
                        version=version)
            assert resp.status_int == status, (method, path, resp.text)
            if text is not None:
                assert message(resp) == text.format(node=ident)
            if status == 405:
                assert resp.headers['Allow'] == 'DELETE, GET, PATCH, POST'
    # An unknown node is not found first.
    resp = call('GET', '/v1/nodes/nope/traits', version='1.36')
    assert resp.status_int == 404
    assert message(resp) == 'Node nope could not be found.'
    assert traits() == []


def test_traits_versions_and_unknown_nodes(database):
    node = api.create(name='t')
    ident = node['uuid']
    for method, path in [('GET', '/traits'), ('PUT', '/traits'),
                         ('DELETE', '/traits'), ('PUT', '/traits/CUSTOM_A'),
                         ('DELETE', '/traits/CUSTOM_A')]:
        resp = call(method, '/v1/nodes/nope%s' % path,
                    {'traits': []} if path == '/traits' and
                    method == 'PUT' else None)
        assert resp.status_int == 404, (method, path)
    assert 'traits' not in call('GET', '/v1/nodes/' + ident,
                                version='1.36').json
    assert call('GET', '/v1/nodes/t/traits?x=1').status_int == 400
