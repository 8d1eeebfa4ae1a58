"""A request with a limit is answered from the first few trees
(``candidates.prefix``) with exactly the candidates, in the same order,
and the provider summaries the whole search gives for it.

The fleet mixes flat compute nodes, nested ones (two NUMA children, an
SR-IOV device below one), diskless ones that take DISK_GB from sharing
providers of their aggregates, rare traits, and full nodes at the front
of the id order, so that the first prefixes hold too few candidates and
must grow, up to the whole fleet for a rare trait.
"""

import random
import uuid

import pytest

from allocsvc.placement.candidates import prefix
from tests.client import create_provider
from tests.client import ok
from tests.client import placement_request
from tests.helpers import apps

AGGS = ['%08d-0000-4000-8000-000000000000' % i for i in range(4)]
ROOTS = 70

QUERIES = [
    ('1.39', 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10'),
    ('1.39', 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10'
             '&required=CUSTOM_RARE'),
    ('1.39', 'resources=DISK_GB:10&resources1=VCPU:1,MEMORY_MB:512'
             '&resources2=SRIOV_NET_VF:1&group_policy=isolate'),
    ('1.39', 'resources=DISK_GB:5&resources1=VCPU:1,MEMORY_MB:256'
             '&resources2=VCPU:1,MEMORY_MB:256&group_policy=isolate'),
    ('1.39', 'resources=VCPU:2&member_of=in:%s,%s' % (AGGS[0], AGGS[1])),
    ('1.39', 'resources=VCPU:1,DISK_GB:1&root_required=!CUSTOM_RARE'),
    ('1.39', 'resources_A=VCPU:1&resources_B=SRIOV_NET_VF:1'
             '&same_subtree=_A,_B&group_policy=none'),
    ('1.39', 'resources=DISK_GB:10&required=!HW_CPU_X86_AVX2'),
    ('1.25', 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10'),
    ('1.26', 'resources=VCPU:1,MEMORY_MB:512'),
]
LIMITS = (1, 3, 10, 40)


# Nested nodes among the full ones: the first prefix finds a few
# candidates at each, but fewer nodes with one than the limit asks.
_OPEN_EARLY = (3, 10)


def _fleet(app, rng):
    """The fleet (see the module's text); the first third's VCPUs are
    taken but for ``_OPEN_EARLY``."""
    for n, agg in enumerate(AGGS[:3]):
        create_provider(app, 'share%d' % n,
                        inventory={'DISK_GB': {'total': 500}},
                        traits=['MISC_SHARES_VIA_AGGREGATE'], aggs=[agg])
    vcpu = {'total': 4}
    memory = {'total': 4096, 'step_size': 256}
    for n in range(ROOTS):
        kind = rng.choice(['flat', 'nested', 'nested', 'diskless'])
        if n in _OPEN_EARLY:
            kind = 'nested'
        traits = [t for t, odds in (('HW_CPU_X86_AVX2', 0.5),
                                    ('CUSTOM_RARE', 0.08))
                  if rng.random() < odds]
        aggs = [rng.choice(AGGS)]
        name = '%s%02d' % (kind, n)
        if kind == 'flat':
            root = create_provider(app, name, inventory={
                'VCPU': vcpu, 'MEMORY_MB': memory,
                'DISK_GB': {'total': 100}}, traits=traits, aggs=aggs)
            owners = [root]
        elif kind == 'diskless':
            root = create_provider(app, name, inventory={
                'VCPU': vcpu, 'MEMORY_MB': memory}, traits=traits,
                aggs=aggs)
            owners = [root]
        else:
            root = create_provider(app, name, inventory={
                'DISK_GB': {'total': 200}}, traits=traits, aggs=aggs)
            owners = [create_provider(
                app, '%s-numa%d' % (name, i), parent=root,
                inventory={'VCPU': vcpu, 'MEMORY_MB': memory})
                for i in range(2)]
            create_provider(app, '%s-pf' % name, parent=owners[0],
                            inventory={'SRIOV_NET_VF': {'total': 4}})
        if n < ROOTS // 3 and n not in _OPEN_EARLY:
            for owner in owners:
                _claim(app, owner, {'VCPU': 4})


def _claim(app, rp_uuid, resources):
    """Allocate ``resources`` {class: amount} of ``rp_uuid`` to a new
    consumer."""
    ok(placement_request(
        app, 'PUT', '/allocations/%s' % uuid.uuid4(), '1.39', {
            'allocations': {rp_uuid: {'resources': resources}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'INSTANCE'}), 204)


def _get(app, version, query):
    return ok(placement_request(app, 'GET', '/allocation_candidates?' + query,
                                version))


def _expected(everything, limit, version):
    """The first ``limit`` candidates of the whole answer and the
    summaries of their providers (of their trees from 1.29)."""
    requests = everything['allocation_requests'][:limit]
    summaries = everything['provider_summaries']
    used = set()
    for areq in requests:
        allocations = areq['allocations']
        used.update(allocations if isinstance(allocations, dict) else
                    [a['resource_provider']['uuid'] for a in allocations])
    if version >= '1.29':
        roots = {summaries[rp]['root_provider_uuid'] for rp in used}
        shown = {rp for rp, s in summaries.items()
                 if s['root_provider_uuid'] in roots}
    else:
        shown = used
    return {'allocation_requests': requests,
            'provider_summaries': {rp: s for rp, s in summaries.items()
                                   if rp in shown}}


@pytest.fixture
def served(monkeypatch):
    """Whether each request's call of ``prefix.first`` answered it."""
    answered = []
    whole = prefix.first

    def spy(*args, **kwargs):
        found = whole(*args, **kwargs)
        answered.append(found is not None)
        return found
    monkeypatch.setattr(prefix, 'first', spy)
    return answered


def test_a_limit_gives_the_first_candidates_of_the_whole_search(
        database, served):
    app = apps.placement()
    _fleet(app, random.Random(19))
    for version, query in QUERIES:
        everything = _get(app, version, query)
        total = len(everything['allocation_requests'])
        assert total, query
        for limit in LIMITS:
            del served[:]
            got = _get(app, version, query + '&limit=%d' % limit)
            # Every query has more than 16 anchors (the first prefix of
            # small limits) and fewer than 80 (that of a limit of 40,
            # left to the whole search).
            if limit != 10:
                assert served == [limit < 10], (query, limit)
            assert got == _expected(everything, limit, version), (
                query, limit)


def test_single_provider_candidates_come_most_room_first(database, served):
    # Flat providers alone: each prefix's candidates come most room
    # first (ties in id order), and a prefix with fewer providers with
    # room than the limit grows.
    app = apps.placement()
    names = {}
    for n in range(40):
        names[create_provider(app, 'cn%02d' % n, inventory={
            'VCPU': {'total': 4 + n % 3}})] = 'cn%02d' % n

    def first(limit):
        got = _get(app, '1.39', 'resources=VCPU:2&limit=%d' % limit)
        return [names[rp] for areq in got['allocation_requests']
                for rp in areq['allocations']]
    assert first(3) == ['cn02', 'cn05', 'cn08']
    assert served == [True]
    for rp, name in names.items():
        if name < 'cn16':
            # Left with less than 2 VCPUs.
            _claim(app, rp, {'VCPU': 3 + int(name[2:]) % 3})
    assert first(3) == ['cn17', 'cn20', 'cn23']
    assert first(1) == ['cn17']


@pytest.mark.parametrize('limit', [1, 5])
def test_growing_prefix_reaches_a_lone_candidate_at_the_end(
        database, served, limit):
    # Every node but the last is full: the prefixes grow to the end.
    app = apps.placement()
    roots = []
    for n in range(50):
        root = create_provider(app, 'cn%02d' % n,
                               inventory={'DISK_GB': {'total': 10}})
        create_provider(app, 'numa%02d' % n, parent=root,
                        inventory={'VCPU': {'total': 2}})
        roots.append(root)
    for root in roots[:-1]:
        _claim(app, root, {'DISK_GB': 10})
    got = _get(app, '1.39', 'resources=VCPU:1,DISK_GB:1&limit=%d' % limit)
    assert served == [True]
    assert len(got['allocation_requests']) == 1
    assert roots[-1] in got['allocation_requests'][0]['allocations']
