"""Provider summaries when an aggregate filter narrows what the engine
reads: the inventories the filter left out must still be shown, whole,
for every provider of a candidate's tree.

Tree 1: a root in the aggregate with two children outside it; tree 2: a
root outside the aggregate, one child in it, one child outside it with
an extra class and some usage. ``member_of`` admits a provider in the
aggregate or whose root is.
"""

import json
import uuid

from tests.client import placement_request as _call
from tests.helpers import apps

AGG = '6b1d5a0e-3c1f-4d8e-9a52-0f1e2d3c4b5a'


def _provider(app, name, parent=None, inventory=None, aggs=()):
    body = {'name': name}
    if parent:
        body['parent_provider_uuid'] = parent
    rp = _call(app, 'POST', '/resource_providers', '1.39', body).json
    gen = rp['generation']
    if inventory:
        resp = _call(app, 'PUT', '/resource_providers/%s/inventories'
                     % rp['uuid'], '1.39',
                     {'resource_provider_generation': gen,
                      'inventories': inventory})
        assert resp.status_int == 200, resp.body
        gen = resp.json['resource_provider_generation']
    if aggs:
        resp = _call(app, 'PUT', '/resource_providers/%s/aggregates'
                     % rp['uuid'], '1.39',
                     {'resource_provider_generation': gen,
                      'aggregates': list(aggs)})
        assert resp.status_int == 200, resp.body
    return rp['uuid']


def _world(app):
    root1 = _provider(app, 'root1', aggs=[AGG])
    a = _provider(app, 'a', root1, {'VCPU': {'total': 4}})
    b = _provider(app, 'b', root1, {'VCPU': {'total': 2},
                                    'DISK_GB': {'total': 50}})
    root2 = _provider(app, 'root2')
    c = _provider(app, 'c', root2, {'VCPU': {'total': 8}}, aggs=[AGG])
    d = _provider(app, 'd', root2, {'VCPU': {'total': 3},
                                    'DISK_GB': {'total': 70}})
    resp = _call(app, 'PUT', '/allocations/%s' % uuid.uuid4(), '1.39', {
        'allocations': {d: {'resources': {'VCPU': 1, 'DISK_GB': 5}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'})
    assert resp.status_int == 204, resp.body
    return {'root1': root1, 'a': a, 'b': b, 'root2': root2, 'c': c, 'd': d}


def test_summaries_show_what_the_filter_left_out(database):
    app = apps.placement()
    rps = _world(app)
    resp = _call(app, 'GET', '/allocation_candidates?resources=VCPU:1'
                 '&member_of=%s' % AGG, '1.39')
    assert resp.status_int == 200, resp.body
    used = {rp for areq in resp.json['allocation_requests']
            for rp in areq['allocations']}
    # d is in neither the aggregate nor a tree whose root is.
    assert used == {rps['a'], rps['b'], rps['c']}
    summaries = resp.json['provider_summaries']
    assert set(summaries) == set(rps.values())
    assert summaries[rps['b']]['resources'] == {
        'VCPU': {'capacity': 2, 'used': 0},
        'DISK_GB': {'capacity': 50, 'used': 0}}
    assert summaries[rps['d']]['resources'] == {
        'VCPU': {'capacity': 3, 'used': 1},
        'DISK_GB': {'capacity': 70, 'used': 5}}
    assert summaries[rps['root2']]['resources'] == {}


def test_summaries_before_1_27_show_requested_classes(database):
    app = apps.placement()
    rps = _world(app)
    resp = _call(app, 'GET', '/allocation_candidates?resources=VCPU:1'
                 '&member_of=%s' % AGG, '1.26')
    assert resp.status_int == 200, resp.body
    summaries = resp.json['provider_summaries']
    # Before 1.29 only the providers used are summarised.
    assert set(summaries) == {rps['a'], rps['b'], rps['c']}
    assert summaries[rps['b']]['resources'] == {
        'VCPU': {'capacity': 2, 'used': 0}}


def test_summaries_same_with_or_without_a_limit(database):
    # The other classes' inventories are read for the trees the
    # candidates use: with a limit smaller than the number of trees,
    # only some of them, but each summary shown is the same.
    app = apps.placement()
    rps = _world(app)
    whole = _call(app, 'GET', '/allocation_candidates?resources=VCPU:1',
                  '1.39')
    assert whole.status_int == 200, whole.body
    summaries = whole.json['provider_summaries']
    assert set(summaries) == set(rps.values())
    assert summaries[rps['d']]['resources'] == {
        'VCPU': {'capacity': 3, 'used': 1},
        'DISK_GB': {'capacity': 70, 'used': 5}}
    assert summaries[rps['b']]['resources']['DISK_GB'] == {
        'capacity': 50, 'used': 0}
    limited = _call(app, 'GET', '/allocation_candidates?resources=VCPU:1'
                    '&limit=1', '1.39')
    assert limited.status_int == 200, limited.body
    assert len(limited.json['allocation_requests']) == 1
    shown = limited.json['provider_summaries']
    assert shown and set(shown) in ({rps['root1'], rps['a'], rps['b']},
                                    {rps['root2'], rps['c'], rps['d']})
    for rp_uuid, summary in shown.items():
        assert summary == summaries[rp_uuid]


def test_body_is_what_the_standard_encoder_writes(database):
    # The answer is written by orjson with the separators put back;
    # upstream's tests (and clients) match on the text, so every byte
    # must be what json.dumps writes, at every microversion.
    app = apps.placement()
    rps = _world(app)
    trait = 'CUSTOM_RACK_1'
    assert _call(app, 'PUT', '/traits/%s' % trait, '1.39').status_int in (
        201, 204)
    gen = _call(app, 'GET', '/resource_providers/%s' % rps['a'],
                '1.39').json['generation']
    assert _call(app, 'PUT', '/resource_providers/%s/traits' % rps['a'],
                 '1.39', {'resource_provider_generation': gen,
                          'traits': [trait, 'HW_CPU_X86_AVX2']}
                 ).status_int == 200
    queries = ['resources=VCPU:1,DISK_GB:5',
               'resources=DISK_GB:5&resources_A-1=VCPU:1'
               '&required_A-1=%s&group_policy=none' % trait]
    # Suffixes other than digits come with 1.33.
    for version in ('1.10', '1.12', '1.17', '1.29', '1.34', '1.39'):
        for query in queries[:2 if version >= '1.34' else 1]:
            resp = _call(app, 'GET', '/allocation_candidates?' + query,
                         version)
            assert resp.status_int == 200, (version, query, resp.body)
            assert resp.json['allocation_requests'], (version, query)
            assert resp.body == json.dumps(resp.json).encode(), (
                version, query)


def test_capacity_wider_than_64_bits_is_shown(database):
    # A ratio near its bound makes a capacity orjson cannot write; the
    # answer must still be a 200, as the standard library writes it.
    app = apps.placement()
    rp = _provider(app, 'huge', inventory={'VCPU': {
        'total': 2147483647, 'allocation_ratio': 3.0e38}})
    resp = _call(app, 'GET', '/allocation_candidates?resources=VCPU:1',
                 '1.39')
    assert resp.status_int == 200, resp.body
    assert resp.json['provider_summaries'][rp]['resources']['VCPU'][
        'capacity'] > 2 ** 64
    assert resp.body == json.dumps(resp.json).encode()
