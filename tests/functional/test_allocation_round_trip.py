"""The symmetric allocation format (microversion 1.12 on): the body of
GET /allocations/{consumer} sent back unchanged as the PUT body succeeds
and changes nothing, at every microversion where the format differs."""


import pytest

from tests.client import placement_request as _call
from tests.helpers import apps


@pytest.mark.parametrize('version', ['1.12', '1.27', '1.28', '1.34', '1.38',
                                     '1.39'])
def test_get_body_put_back_changes_nothing(database, version):
    app = apps.placement()
    rps = []
    for name, inventory in (('compute', {'VCPU': {'total': 8},
                                         'MEMORY_MB': {'total': 4096}}),
                            ('storage', {'DISK_GB': {'total': 500}})):
        rp = _call(app, 'POST', '/resource_providers', '1.39',
                   {'name': name}).json
        assert _call(app, 'PUT', '/resource_providers/%s/inventories'
                     % rp['uuid'], '1.39',
                     {'resource_provider_generation': 0,
                      'inventories': inventory}).status_int == 200
        rps.append(rp['uuid'])
    consumer = '6a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d'
    path = '/allocations/%s' % consumer
    assert _call(app, 'PUT', path, '1.38', {
        'allocations': {rps[0]: {'resources': {'VCPU': 2,
                                               'MEMORY_MB': 512}},
                        rps[1]: {'resources': {'DISK_GB': 20}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'}).status_int == 204

    before = _call(app, 'GET', path, version).json
    usages_before = [_call(app, 'GET', '/resource_providers/%s/usages' % rp,
                           version).json['usages'] for rp in rps]
    resp = _call(app, 'PUT', path, version, before)
    assert resp.status_int == 204, resp.body

    after = _call(app, 'GET', path, version).json
    assert ({rp: a['resources'] for rp, a in after['allocations'].items()} ==
            {rp: a['resources'] for rp, a in before['allocations'].items()})
    for key in ('project_id', 'user_id', 'consumer_type'):
        assert after.get(key) == before.get(key)
    assert [_call(app, 'GET', '/resource_providers/%s/usages' % rp,
                  version).json['usages'] for rp in rps] == usages_before
