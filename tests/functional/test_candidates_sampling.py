"""Random candidates from a sample (allocsvc.placement.candidates.sampling)
against the general search, on every database.

A request for a few candidates at random without summaries, of one
unsuffixed group over flat providers, is served by drawing providers and
reading the usage of those drawn only. Whatever it returns must be what
the general search returns for the same request (the same filters,
usage, reserved units, aggregates, traits, ``among``), as many as the
limit allows, each once; over many draws every candidate comes up; and
where the providers are trees or a sharing provider offers a requested
class, the general search answers instead.
"""

import urllib.parse
import uuid as uuidlib

import pytest

from allocsvc.api import app as api_app
from allocsvc.common import context as ctx_mod
from allocsvc.common import exception
from allocsvc.placement import candidates
from allocsvc.placement.candidates import request as request_mod
from allocsvc.placement.candidates import sampling
from tests import backends
from tests import conftest
from tests.client import ok as _ok
from tests.client import placement_request as _call

RC = 'CUSTOM_BM_GOLD'
AGG = '5a9c3e0f-1d2b-4c6a-8e7f-9b0a1c2d3e4f'


def _provider(app, name, parent=None, total=1, reserved=0, traits=(),
              aggregates=(), rc=RC):
    body = {'name': name}
    if parent:
        body['parent_provider_uuid'] = parent
    rp = _ok(_call(app, 'POST', '/resource_providers', '1.39', body))
    uuid, generation = rp['uuid'], rp['generation']
    if total:
        if rc.startswith('CUSTOM_'):
            _call(app, 'PUT', '/resource_classes/%s' % rc, '1.39')
        generation = _ok(_call(
            app, 'PUT', '/resource_providers/%s/inventories' % uuid, '1.39',
            {'resource_provider_generation': generation,
             'inventories': {rc: {'total': total, 'reserved': reserved,
                                  'max_unit': total}}})
        )['resource_provider_generation']
    if traits:
        for trait in traits:
            _call(app, 'PUT', '/traits/%s' % trait, '1.39')
        generation = _ok(_call(
            app, 'PUT', '/resource_providers/%s/traits' % uuid, '1.39',
            {'resource_provider_generation': generation,
             'traits': list(traits)}))['resource_provider_generation']
    if aggregates:
        _ok(_call(app, 'PUT', '/resource_providers/%s/aggregates' % uuid,
                  '1.39', {'resource_provider_generation': generation,
                           'aggregates': list(aggregates)}))
    return uuid


def _claim(app, uuid, amount=1, rc=RC):
    _ok(_call(app, 'PUT', '/allocations/%s' % uuidlib.uuid4(), '1.39', {
        'allocations': {uuid: {'resources': {rc: amount}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'}), 204)


def _parse(query):
    return request_mod.parse(urllib.parse.parse_qsl(query), (1, 39))


def _find(query, limit=None, randomize=False, among=None):
    groups, wide = _parse(query)
    found = candidates.find(ctx_mod.get_admin_context(), groups, wide,
                            limit=limit, randomize=randomize, among=among,
                            summaries=False)
    return [next(iter(c.allocations)) for c in found.allocation_requests]


def _sampled(query, limit, among=None, declined=False):
    """The answer to a request the sample may serve, checked to come
    from the sample (or, ``declined``, from the general search)."""
    groups, wide = _parse(query)
    assert sampling.applies(groups, wide, limit, True, False)
    answers = []
    real = sampling.sample

    def spy(*args, **kwargs):
        answers.append(real(*args, **kwargs))
        return answers[-1]
    sampling.sample = spy
    try:
        found = _find(query, limit, randomize=True, among=among)
    finally:
        sampling.sample = real
    assert len(answers) == 1 and (answers[0] is None) == declined
    return found


def _flat(app):
    made = {}
    for i in range(20):
        uuid = _provider(app, 'node-%d' % i, reserved=int(i in (6, 7)),
                         traits=['CUSTOM_RACK_A'] if i % 2 else [],
                         aggregates=[AGG] if i % 3 == 0 else [])
        if i < 6:
            _claim(app, uuid)
        made[i] = uuid
    for i in range(2):
        _provider(app, 'other-%d' % i, rc='CUSTOM_BM_SILVER')
    return made


@pytest.fixture(params=backends.BACKENDS)
def flat(request):
    """Twenty flat providers of one unit: six claimed, two reserved,
    half with a trait, a third in an aggregate; and two of another
    class. The tests that use them only read, so they share one build
    per database (``Database.kept``) until another test cleans it."""
    db = conftest.get_database(request.param)
    return db.kept('sampling-flat', lambda: _flat(
        api_app.placement_app(conftest.make_conf())))


QUERIES = ('resources=%s:1' % RC,
           'resources=%s:1&required=CUSTOM_RACK_A' % RC,
           'resources=%s:1&required=!CUSTOM_RACK_A' % RC,
           'resources=%s:1&member_of=%s' % (RC, AGG),
           'resources=%s:1&member_of=!%s' % (RC, AGG),
           'resources=%s:1&root_required=CUSTOM_RACK_A' % RC,
           'resources=%s:2' % RC)


@pytest.mark.parametrize('query', QUERIES)
def test_a_sample_is_drawn_from_the_general_answer(flat, query):
    everything = set(_find(query))
    for limit in (1, 3, 8, 50):
        for _ in range(5):
            got = _sampled(query, limit)
            assert len(got) == len(set(got)) == min(limit, len(everything))
            assert set(got) <= everything


def test_every_candidate_comes_up(flat):
    query = 'resources=%s:1' % RC
    everything = set(_find(query))
    assert len(everything) == 12  # 20 - 6 claimed - 2 reserved
    seen = set()
    for _ in range(200):
        seen.update(_sampled(query, 3))
        if seen == everything:
            break
    assert seen == everything


def test_among_keeps_to_the_providers_named(flat):
    query = 'resources=%s:1' % RC
    among = {flat[i] for i in (0, 8, 9, 10, 11)} | {str(uuidlib.uuid4())}
    assert set(_sampled(query, 8, among)) == {flat[i] for i in (8, 9, 10,
                                                                11)}
    assert _sampled(query, 8, frozenset()) == []


def test_in_tree(flat):
    assert _sampled('resources=%s:1&in_tree=%s' % (RC, flat[9]), 4) == [
        flat[9]]
    assert _sampled('resources=%s:1&in_tree=%s' % (RC, flat[0]), 4) == []


def test_the_last_free_providers_of_a_full_pool_are_found(app):
    made = [_provider(app, 'node-%d' % i) for i in range(150)]
    for uuid in made[3:]:
        _claim(app, uuid)
    assert sorted(_sampled('resources=%s:1' % RC, 8)) == sorted(made[:3])


def test_unknown_names_are_refused_as_the_search_refuses_them(flat):
    with pytest.raises(exception.BadRequest, match='No such resource'):
        _sampled('resources=CUSTOM_NOPE:1', 4)
    with pytest.raises(exception.BadRequest, match='No such trait'):
        _sampled('resources=%s:1&required=CUSTOM_NOPE' % RC, 4)


def test_trees_are_left_to_the_general_search(app):
    root = _provider(app, 'root', total=0)
    child = _provider(app, 'child', parent=root)
    flat = _provider(app, 'flat')
    query = 'resources=%s:1' % RC
    seen = set()
    for _ in range(30):
        got = _sampled(query, 2, declined=True)
        assert sorted(got) == sorted([child, flat])
        seen.add(got[0])
    assert seen == {child, flat}


def test_a_sharing_provider_of_the_class_is_left_to_the_general_search(app):
    compute = _provider(app, 'compute', rc='VCPU', total=4,
                        aggregates=[AGG])
    shared = _provider(app, 'shared', total=4, aggregates=[AGG],
                       traits=['MISC_SHARES_VIA_AGGREGATE'])
    groups, wide = _parse('resources=%s:1,VCPU:1' % RC)
    found = candidates.find(ctx_mod.get_admin_context(), groups, wide,
                            limit=4, randomize=True, summaries=False)
    assert [set(c.allocations) for c in found.allocation_requests] == [
        {compute, shared}]
