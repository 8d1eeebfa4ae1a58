"""Property test: a group claim writes N valid allocations or nothing.

Over the random worlds and requests of ``candidates_worlds`` (trees,
sharing providers, traits, aggregates, usage; every kind of group
parameter) and a random number of consumers, spread rule and order, on
SQLite, MariaDB and PostgreSQL:

- the claim is a 200 or a 409 ``placement.group_claim.unsatisfied``;
- on a 200, every consumer holds exactly the allocations the answer
  gives it, each of which is a candidate of the query, no provider is
  over its capacity, and a strict spread rule is kept;
- on a 409, no consumer holds anything and the usages are as before;
- when the query has a candidate at all, one consumer can be claimed.
"""

import urllib.parse
import uuid as uuidlib

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from tests import backends
from tests import client
from tests import conftest
from tests.functional import candidates_worlds as worlds
from tests.helpers import apps

pytestmark = pytest.mark.slow

SPREADS = (None, {'by': 'root', 'strict': True},
           {'by': 'aggregate', 'max_per_domain': 2, 'strict': True},
           {'by': 'trait:CUSTOM_T'})


def _usages(app, world):
    return {rp: client.ok(client.placement_request(
        app, 'GET', '/resource_providers/%s/usages' % rp))['usages']
        for rp in world.providers}


def _members(count):
    return {str(uuidlib.uuid4()): {
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'} for _ in range(count)}


def _query(req):
    params = {}
    for key, value in urllib.parse.parse_qsl(worlds.query(req)):
        params.setdefault(key, []).append(value)
    return params


def _check(app, world, req, count, spread, order, repro):
    version = '%d.%d' % req.version
    everything = worlds.candidates(app, req)['allocation_requests']
    keys = {worlds.as_key(a)[0] for a in everything}
    before = _usages(app, world)
    members = _members(count)
    body = {'query': _query(req), 'consumers': members}
    if spread:
        body['spread'] = spread
    if order:
        body['order'] = order
    resp = client.placement_request(
        app, 'POST', '/allocation_candidates/claim', version, body)
    held = {c: client.ok(client.placement_request(
        app, 'GET', '/allocations/%s' % c))['allocations']
        for c in members}
    if resp.status_int == 409:
        assert resp.json['errors'][0]['code'] == \
            'placement.group_claim.unsatisfied', (repro, resp.text)
        assert not any(held.values()), repro
        assert _usages(app, world) == before, repro
        return False
    assert resp.status_int == 200, (repro, resp.text)
    chosen = resp.json['allocations']
    assert set(chosen) == set(members)
    for consumer, entry in chosen.items():
        assert worlds.as_key(entry)[0] in keys, (repro, entry)
        assert {rp: a['resources'] for rp, a in held[consumer].items()} \
            == {rp: a['resources']
                for rp, a in entry['allocations'].items()}, repro
    for rp, used in _usages(app, world).items():
        for rc, amount in used.items():
            assert amount <= world.providers[rp].inventory[rc].capacity, (
                repro, rp, rc)
    if spread and spread.get('strict'):
        most = spread.get('max_per_domain', 1)
        assert all(n <= most for n in resp.json['spread']['domains']
                   .values()), (repro, resp.json)
    for consumer in members:
        client.ok(client.placement_request(
            app, 'DELETE', '/allocations/%s' % consumer), 204)
    return True


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_a_claim_writes_all_valid_or_nothing(backend):
    db = conftest.get_database(backend)

    @settings(max_examples=20 if backend == 'sqlite' else 6,
              **worlds.SETTINGS)
    @given(spec=worlds.worlds(), req=worlds.requests(),
           count=st.integers(1, 4), spread=st.sampled_from(SPREADS),
           order=st.sampled_from((None, 'pack', 'spread', 'random')))
    def run(spec, req, count, spread, order):
        db.clean()
        app = apps.placement()
        world = worlds.build(app, spec)
        repro = '%s\ncount=%d spread=%s order=%s' % (
            worlds.describe(world, req), count, spread, order)
        _check(app, world, req, count, spread, order, repro)
        if worlds.candidates(app, req)['allocation_requests']:
            assert _check(app, world, req, 1, None, None, repro), repro

    run()
