"""POST /allocation_candidates/claim: N consumers chosen together, all
written or none, on every database.

Fleets where exactly N fit, where N-1 do, where each candidate fits
alone but N together would overcommit (what N single claims of the
first candidate would do); spread rules by root, aggregate and trait
prefix, strict and preferred, met and unmet; pack and spread orders;
the query's 400s and the body's; and a race of 32 group claims with 16
threads making single claims and deletes: never over capacity, never a
partial group, usages equal to the sum of the allocations.
"""

import random
import threading
import uuid

import pytest

from tests.client import create_provider
from tests.client import ok
from tests.client import placement_request as call

RACK_A = 'aaaaaaaa-1111-4111-8111-00000000000a'
RACK_B = 'bbbbbbbb-2222-4222-8222-00000000000b'
PATH = '/allocation_candidates/claim'


def consumers(count, project='p'):
    return {str(uuid.uuid4()): {'project_id': project, 'user_id': 'u',
                                'consumer_generation': None,
                                'consumer_type': 'INSTANCE'}
            for _ in range(count)}


def claim(app, query, count=None, members=None, spread=None, order=None,
          version='1.39'):
    body = {'query': query, 'consumers': members or consumers(count)}
    if spread is not None:
        body['spread'] = spread
    if order is not None:
        body['order'] = order
    return call(app, 'POST', PATH, version, body), body['consumers']


def usage(app, rp):
    return ok(call(app, 'GET', '/resource_providers/%s/usages' % rp,
                   '1.39'))['usages']


def held(app, members):
    """The consumers of ``members`` that hold allocations."""
    return [c for c in members if ok(call(
        app, 'GET', '/allocations/%s' % c, '1.39'))['allocations']]


def nodes(app, count, vcpu=4, rack=None):
    made = []
    for n in range(count):
        traits = ['CUSTOM_RACK_%s' % rack] if rack else []
        aggs = [RACK_A if rack == 'A' else RACK_B] if rack else []
        made.append(create_provider(
            app, 'cn-%s%d' % (rack or '', n),
            inventory={'VCPU': {'total': vcpu}}, traits=traits, aggs=aggs))
    return made


def test_exactly_n_fit(app):
    made = nodes(app, 3)
    resp, members = claim(app, {'resources': 'VCPU:4'}, 3)
    assert resp.status_int == 200, resp.text
    chosen = resp.json['allocations']
    assert set(chosen) == set(members)
    used = sorted(next(iter(c['allocations'])) for c in chosen.values())
    assert used == sorted(made)
    assert all(usage(app, rp) == {'VCPU': 4} for rp in made)
    assert len(held(app, members)) == 3


def test_one_short_writes_nothing(app):
    made = nodes(app, 2)
    resp, members = claim(app, {'resources': 'VCPU:4'}, 3)
    assert resp.status_int == 409
    error = resp.json['errors'][0]
    assert error['code'] == 'placement.group_claim.unsatisfied'
    assert 'Only 2 of the 3 consumers fit together' in error['detail']
    assert held(app, members) == []
    assert all(usage(app, rp) == {'VCPU': 0} for rp in made)


def test_each_fits_alone_but_not_together(app):
    (rp,) = nodes(app, 1, vcpu=8)
    # Each candidate alone takes 3 of 8: three single claims of the
    # first candidate would each pass its own check... all at once they
    # would need 9.
    resp, members = claim(app, {'resources': 'VCPU:3'}, 3)
    assert resp.status_int == 409
    assert held(app, members) == []
    resp, members = claim(app, {'resources': 'VCPU:3'}, 2)
    assert resp.status_int == 200, resp.text
    assert usage(app, rp) == {'VCPU': 6}


def test_nothing_fits_says_why(app):
    nodes(app, 2)
    resp, members = claim(app, {'resources': 'VCPU:1',
                                'required': 'HW_CPU_X86_AVX512F'}, 2)
    assert resp.status_int == 409
    detail = resp.json['errors'][0]['detail']
    assert 'No allocation candidates for the claim' in detail
    assert 'HW_CPU_X86_AVX512F' in detail


@pytest.mark.parametrize('by', ['trait:CUSTOM_RACK_', 'aggregate'])
def test_spread_strict_met_and_unmet(app, by):
    nodes(app, 2, rack='A')
    nodes(app, 2, rack='B')
    resp, members = claim(app, {'resources': 'VCPU:1'}, 2,
                          spread={'by': by, 'max_per_domain': 1,
                                  'strict': True})
    assert resp.status_int == 200, resp.text
    domains = [tuple(c['domains'])
               for c in resp.json['allocations'].values()]
    assert len(set(domains)) == 2
    assert resp.json['spread']['met'] is True
    resp, members = claim(app, {'resources': 'VCPU:1'}, 3,
                          spread={'by': by, 'max_per_domain': 1,
                                  'strict': True})
    assert resp.status_int == 409
    assert 'cannot keep the spread rule' in resp.json['errors'][0]['detail']
    assert held(app, members) == []


def test_spread_preferred_is_relaxed_and_said(app):
    nodes(app, 1, rack='A')
    nodes(app, 1, rack='B')
    resp, members = claim(app, {'resources': 'VCPU:1'}, 3,
                          spread={'by': 'root', 'max_per_domain': 1})
    assert resp.status_int == 200, resp.text
    assert resp.json['spread']['met'] is False
    assert len(held(app, members)) == 3


def test_a_root_in_no_domain_keeps_no_strict_rule(app):
    nodes(app, 1, rack='A')
    nodes(app, 1)
    resp, members = claim(app, {'resources': 'VCPU:1'}, 2,
                          spread={'by': 'aggregate', 'strict': True})
    assert resp.status_int == 409
    resp, members = claim(app, {'resources': 'VCPU:1'}, 2,
                          spread={'by': 'aggregate'})
    assert resp.status_int == 200
    assert resp.json['spread']['met'] is False


def test_pack_and_spread_orders(app):
    fuller, emptier = nodes(app, 2, vcpu=8)
    ok(call(app, 'PUT', '/allocations/%s' % uuid.uuid4(), '1.39', {
        'allocations': {fuller: {'resources': {'VCPU': 4}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'}), 204)
    resp, _ = claim(app, {'resources': 'VCPU:1'}, 1, order='pack')
    (chosen,) = resp.json['allocations'].values()
    assert list(chosen['allocations']) == [fuller]
    resp, _ = claim(app, {'resources': 'VCPU:1'}, 1, order='spread')
    (chosen,) = resp.json['allocations'].values()
    assert list(chosen['allocations']) == [emptier]


def test_bad_requests(app):
    nodes(app, 1)
    for body in ({}, {'query': {}, 'consumers': consumers(1)},
                 {'query': {'resources': 'VCPU:1'}, 'consumers': {}},
                 {'query': {'resources': 'VCPU:1'},
                  'consumers': {'not-a-uuid': {}}},
                 {'query': {'resources': 'VCPU:1'}, 'consumers': consumers(1),
                  'spread': {'by': 'rack'}},
                 {'query': {'resources': 'VCPU:1'}, 'consumers': consumers(1),
                  'order': 'sideways'},
                 {'query': {'bogus': 'x'}, 'consumers': consumers(1)},
                 {'query': {'resources': 'NOPE:1'}, 'consumers': consumers(1)},
                 {'query': {'resources': 'VCPU:1'}, 'consumers': consumers(1),
                  'extra': 1}):
        resp = call(app, 'POST', PATH, '1.39', body)
        assert resp.status_int == 400, (body, resp.text)
    assert call(app, 'GET', PATH, '1.39').status_int == 405
    assert call(app, 'POST', PATH, '1.9', {}).status_int == 404
    resp = call(app, 'POST', PATH, '1.39',
                {'query': {'resources': 'VCPU:1'},
                 'consumers': consumers(1)},
                headers={'X-Auth-Token': 'alice:project-a'})
    assert resp.status_int == 403


def test_race_never_overcommits_nor_leaves_a_partial_group(app, database):
    made = nodes(app, 8, vcpu=8)
    errors, groups = [], []
    lock = threading.Lock()

    def group_claimer(seed):
        rng = random.Random(seed)
        for _ in range(3):
            size = rng.randint(1, 4)
            resp, members = claim(app, {'resources': 'VCPU:%d' % rng.randint(
                1, 3)}, size, order=rng.choice(['pack', 'spread', 'random']))
            if resp.status_int == 200:
                with lock:
                    groups.append(list(members))
            elif resp.status_int != 409:
                errors.append(resp.text)

    def single_claimer(seed):
        rng = random.Random(seed)
        for _ in range(3):
            rp = rng.choice(made)
            consumer = str(uuid.uuid4())
            resp = call(app, 'PUT', '/allocations/%s' % consumer, '1.39', {
                'allocations': {rp: {'resources': {'VCPU': 1}}},
                'project_id': 'p', 'user_id': 'u',
                'consumer_generation': None, 'consumer_type': 'INSTANCE'})
            if resp.status_int not in (204, 409):
                errors.append(resp.text)
            elif resp.status_int == 204 and rng.random() < 0.5:
                resp = call(app, 'DELETE', '/allocations/%s' % consumer,
                            '1.39')
                if resp.status_int != 204:
                    errors.append(resp.text)

    # 32 group claimers, and 16 single claimers deleting half of theirs.
    threads = [threading.Thread(target=group_claimer if n < 32 else
                                single_claimer, args=(n,))
               for n in range(48)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    # The race was one: some groups were claimed, and room ran out.
    assert groups
    assert sum(usage(app, rp)['VCPU'] for rp in made) > 32
    for rp in made:
        used = usage(app, rp)['VCPU']
        assert used <= 8
        by_consumer = ok(call(app, 'GET', '/resource_providers/%s/'
                              'allocations' % rp, '1.39'))['allocations']
        assert used == sum(a['resources']['VCPU']
                           for a in by_consumer.values())
    for members in groups:
        assert len(held(app, members)) == len(members)
