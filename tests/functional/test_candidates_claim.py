"""Every allocation request GET /allocation_candidates returns can be
claimed: sent back unchanged as a PUT /allocations/{consumer} body on an
otherwise idle system, it succeeds (then is undone), at the microversions
where the format differs. The topology mixes a nested tree, a sharing
provider, granular groups and amounts that only just fit."""

import uuid

import pytest

from tests.client import create_provider as _provider
from tests.client import placement_request as _call
from tests.helpers import apps

AGG = 'f2a6c1b0-8d1e-4c2e-9a57-3f0d2b6e9a11'


def _topology(app):
    cn = _provider(app, 'cn', inventory={
        'VCPU': {'total': 4}, 'MEMORY_MB': {'total': 2048,
                                            'step_size': 256}},
        aggs=[AGG])
    for i in range(2):
        numa = _provider(app, 'numa%d' % i, parent=cn, inventory={
            'VCPU': {'total': 2, 'max_unit': 2},
            'MEMORY_MB': {'total': 1024, 'reserved': 512}})
        _provider(app, 'pf%d' % i, parent=numa, inventory={
            'SRIOV_NET_VF': {'total': 2}}, traits=['CUSTOM_PHYSNET%d' % i])
    _provider(app, 'ss', inventory={'DISK_GB': {'total': 100,
                                                'allocation_ratio': 1.5}},
              traits=['MISC_SHARES_VIA_AGGREGATE'], aggs=[AGG])


QUERIES = [
    ('1.10', 'resources=VCPU:1,DISK_GB:150'),
    ('1.12', 'resources=VCPU:2,MEMORY_MB:512'),
    ('1.29', 'resources=VCPU:2,MEMORY_MB:512,DISK_GB:10'),
    ('1.29', 'resources=VCPU:1&resources1=VCPU:2&resources2=SRIOV_NET_VF:1'
             '&group_policy=none'),
    ('1.34', 'resources1=VCPU:2&resources2=VCPU:2&resources3=VCPU:2'
             '&group_policy=isolate'),
    ('1.34', 'resources1=SRIOV_NET_VF:1&resources2=SRIOV_NET_VF:1'
             '&resources3=SRIOV_NET_VF:1&resources4=SRIOV_NET_VF:1'
             '&group_policy=none&resources=DISK_GB:100'),
    ('1.36', 'resources_C=VCPU:1&resources_N=SRIOV_NET_VF:2'
             '&required_N=CUSTOM_PHYSNET1&same_subtree=_C,_N'
             '&group_policy=none'),
    ('1.38', 'resources=MEMORY_MB:1024&resources_X=MEMORY_MB:256'
             '&group_policy=none'),
]


@pytest.mark.parametrize('version,query', QUERIES)
def test_every_candidate_can_be_claimed(database, version, query):
    app = apps.placement()
    _topology(app)
    resp = _call(app, 'GET', '/allocation_candidates?' + query, version)
    assert resp.status_int == 200, resp.body
    found = resp.json['allocation_requests']
    assert found, query
    consumer = str(uuid.uuid4())
    path = '/allocations/%s' % consumer
    for areq in found:
        body = dict(areq, project_id='p', user_id='u')
        if version >= '1.28':
            body['consumer_generation'] = None
        if version >= '1.38':
            body['consumer_type'] = 'INSTANCE'
        resp = _call(app, 'PUT', path, version, body)
        assert resp.status_int == 204, (areq, resp.body)
        assert _call(app, 'DELETE', path, version).status_int == 204


def _claim(app, rp_uuid, resources):
    resp = _call(app, 'PUT', '/allocations/%s' % uuid.uuid4(), '1.39', {
        'allocations': {rp_uuid: {'resources': resources}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'})
    assert resp.status_int == 204, resp.body


def _first(app, query):
    resp = _call(app, 'GET', '/allocation_candidates?' + query, '1.39')
    assert resp.status_int == 200, resp.body
    return [list(areq['allocations'])[0]
            for areq in resp.json['allocation_requests']]


def test_a_limit_gives_the_providers_with_most_room_first(database):
    # Claimers that take the first of a few candidates should not all
    # queue on one provider: with a limit, single-provider candidates
    # come with the most room (in requests of that size) first, ties
    # in creation order; the same usage gives the same answer.
    app = apps.placement()
    inv = {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}}
    a, b, c = (_provider(app, name, inventory=inv) for name in 'abc')
    query = 'resources=VCPU:1,MEMORY_MB:512'
    assert _first(app, query + '&limit=3') == [a, b, c]
    _claim(app, a, {'VCPU': 3})
    _claim(app, b, {'MEMORY_MB': 2048})
    # Room for requests of one VCPU and 512 MB: a 5, b 4, c 8.
    assert _first(app, query + '&limit=3') == [c, a, b]
    assert _first(app, query + '&limit=1') == [c]
    assert _first(app, query + '&limit=1') == [c]
    # Without a limit the order is the providers' own.
    assert _first(app, query) == [a, b, c]
    _claim(app, c, {'VCPU': 6})
    assert _first(app, query + '&limit=3') == [a, b, c]
