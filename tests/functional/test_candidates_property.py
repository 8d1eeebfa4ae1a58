"""Property tests of GET /allocation_candidates against a brute-force model.

Hypothesis draws small worlds (1-3 provider trees, at most 7 providers
and 3 levels, inventories of VCPU / MEMORY_MB / CUSTOM_MAGIC with small
totals, reserved, min/max units, steps and ratios, a few traits, two
aggregates, sharing roots, some existing allocations) and requests (an
unsuffixed group and up to three granular groups with resources, required,
forbidden and any-of traits, member_of and forbidden aggregates;
group_policy, same_subtree with resourceless groups, root_required), mostly
at microversion 1.39 and some at 1.25, 1.29, 1.33 and 1.36. Each world is
built over HTTP on a clean SQLite database, then:

- without limit, every allocation request returned breaks no rule of
  ``candidates_model`` (the failing rules are printed), and the set
  returned equals the model's brute-force enumeration: none missing;
- with a random limit, exactly min(limit, total) come back, each one of the
  unlimited answer, and each, PUT as /allocations/{new consumer}, succeeds.

Runs on SQLite only, derandomized, so CI replays the same examples.
"""

import uuid as uuidlib

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from tests.functional import candidates_model as model
from tests.functional.candidates_worlds import SETTINGS
from tests.functional.candidates_worlds import as_key
from tests.functional.candidates_worlds import build
from tests.functional.candidates_worlds import call
from tests.functional.candidates_worlds import candidates
from tests.functional.candidates_worlds import consumer_body
from tests.functional.candidates_worlds import describe
from tests.functional.candidates_worlds import fresh_app
from tests.functional.candidates_worlds import ok
from tests.functional.candidates_worlds import requests
from tests.functional.candidates_worlds import show
from tests.functional.candidates_worlds import strip_mappings
from tests.functional.candidates_worlds import worlds


# Slow: hypothesis generates dozens of provider trees per test.
pytestmark = pytest.mark.slow


# -- properties -------------------------------------------------------------

@settings(max_examples=45, **SETTINGS)
@given(spec=worlds(), req=requests())
def test_every_candidate_is_valid_and_none_missing(spec, req):
    app = fresh_app()
    world = build(app, spec)
    got = candidates(app, req)
    areqs = got['allocation_requests']
    repro = describe(world, req)
    keys = [as_key(a) for a in areqs]
    for areq, (allocs, maps) in zip(areqs, keys):
        if req.version >= (1, 34):
            problems = model.explain(world, req, allocs, maps)
            assert not problems, '%s\ninvalid candidate %s: %s' % (
                repro, show([(allocs, maps)]), problems)
        assert all(n > 0 for _, _, n in allocs), (repro, areq)
    if req.version >= (1, 34):
        assert len(set(keys)) == len(keys), (repro, 'duplicates',
                                             show(keys))
    expected = model.enumerate_candidates(world, req)
    returned = strip_mappings(keys, req)
    want = strip_mappings(expected, req)
    if req.version < (1, 34):
        assert returned == want, '%s\nextra %s\nmissing %s' % (
            repro, sorted(returned - want), sorted(want - returned))
    else:
        assert returned == want, '%s\nextra %s\nmissing %s' % (
            repro, show(returned - want), show(want - returned))
    _check_summaries(world, req, got, repro)


def _check_summaries(world, req, got, repro):
    summaries = got['provider_summaries']
    used_rps = {rp for a in got['allocation_requests']
                for rp in a['allocations']}
    mapped = {rp for a in got['allocation_requests']
              for rps in a.get('mappings', {}).values() for rp in rps}
    assert used_rps <= set(summaries), (repro, sorted(summaries))
    for rp in used_rps:
        prov = world.providers[rp]
        for rc, res in summaries[rp]['resources'].items():
            assert res == {'capacity': prov.inventory[rc].capacity,
                           'used': prov.used.get(rc, 0)}, (repro, rp, res)
    if req.version >= (1, 29):
        def trees(rps):
            roots = {world.root(u) for u in rps}
            return {u for u in world.providers if world.root(u) in roots}
        assert trees(used_rps) <= set(summaries) <= trees(used_rps | mapped), (
            repro, sorted(summaries))


@settings(max_examples=25, **SETTINGS)
@given(spec=worlds(), req=requests(), limit=st.integers(1, 4))
def test_limit_returns_that_many_valid_claimable_candidates(spec, req, limit):
    app = fresh_app()
    world = build(app, spec)
    repro = describe(world, req, limit)
    everything = candidates(app, req)['allocation_requests']
    limited = candidates(app, req, limit)['allocation_requests']
    assert len(limited) == min(limit, len(everything)), (
        repro, len(limited), len(everything))
    all_keys = {as_key(a) for a in everything}
    for areq in limited:
        assert as_key(areq) in all_keys, (repro, areq)
        consumer = str(uuidlib.uuid4())
        path = '/allocations/%s' % consumer
        resp = call(app, 'PUT', path, body=consumer_body(
            areq['allocations'], areq.get('mappings')))
        assert resp.status_int == 204, (repro, areq, resp.text)
        ok(call(app, 'DELETE', path), 204)
