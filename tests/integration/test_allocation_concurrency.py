"""Many clients claiming against few providers, through the API served by
4 gunicorn worker processes, on MariaDB and on PostgreSQL (and on SQLite,
whose writers then queue on the file lock).

Invariants checked afterwards: no provider is over capacity; every
rejected claim was a 409 with a documented code; the usages reported
equal the sum of the claims that succeeded (nothing lost, nothing
half-written); POST /allocations moves are all or nothing.
"""

import random
import threading
import time
import uuid

import pytest

from tests import conftest
from tests.helpers import processes

CLIENTS = 16
PROVIDERS = 3
VCPU_TOTAL = 10
CLAIM = {'VCPU': 1, 'MEMORY_MB': 128}
CONFLICT = 'placement.concurrent_update'
DEADLINE = 90


# The tests of a backend share its server: one worker runs them all.
pytestmark = pytest.mark.xdist_group(__name__)


@pytest.fixture(scope='module', params=['sqlite', 'mysql', 'postgresql'])
def server(request, tmp_path_factory):
    """One API server per backend for the tests of this module."""
    db = conftest.get_database(request.param)
    srv = processes.APIServer(tmp_path_factory.mktemp('api'), db.url,
                              workers=4, threads=4)
    yield db, srv
    srv.stop()


@pytest.fixture
def api(server):
    """The server of the backend, on a clean database."""
    db, srv = server
    db.clean()
    return srv


def _make_provider(api, name, vcpu):
    status, rp = api.request('POST', '/placement/resource_providers',
                             {'name': name})
    assert status == 200, rp
    status, body = api.request(
        'PUT', '/placement/resource_providers/%s/inventories' % rp['uuid'],
        {'resource_provider_generation': rp['generation'],
         'inventories': {'VCPU': {'total': vcpu},
                         'MEMORY_MB': {'total': 128 * vcpu * 4}}})
    assert status == 200, body
    return rp['uuid']


def _claim_body(allocations, generation=None):
    return {'allocations': {rp: {'resources': res}
                            for rp, res in allocations.items()},
            'project_id': 'project', 'user_id': 'user',
            'consumer_generation': generation, 'consumer_type': 'INSTANCE'}


def _is_capacity(body):
    err = body['errors'][0]
    return err['code'] != CONFLICT and 'capacity' in err['detail'].lower()


def _usages(api, rp):
    status, body = api.request(
        'GET', '/placement/resource_providers/%s/usages' % rp)
    assert status == 200
    return body['usages']


def _consumer(api, consumer):
    status, body = api.request('GET', '/placement/allocations/%s' % consumer)
    assert status == 200
    return body


class Recorder:
    """Thread-safe record of what every client saw."""

    def __init__(self):
        self.lock = threading.Lock()
        self.claims = []          # (consumer, rp) that got 204
        self.rejected = []        # (status, body) of every non-2xx
        self.unexpected = []      # anything that is not 204 or a good 409

    def add(self, attr, item):
        with self.lock:
            getattr(self, attr).append(item)


def _claimer(api, rps, record, stop_at):
    full = set()
    while len(full) < len(rps) and time.time() < stop_at:
        rp = random.choice([r for r in rps if r not in full])
        consumer = str(uuid.uuid4())
        status, body = api.request('PUT', '/placement/allocations/%s'
                                   % consumer, _claim_body({rp: CLAIM}))
        if status == 204:
            record.add('claims', (consumer, rp))
            continue
        record.add('rejected', (status, body))
        if status != 409 or body['errors'][0]['code'] not in (
                CONFLICT, 'placement.undefined_code'):
            record.add('unexpected', (status, body))
        elif _is_capacity(body):
            full.add(rp)


def _run(threads):
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE + 30)
        assert not thread.is_alive()


def test_claims_never_exceed_capacity(api):
    rps = [_make_provider(api, 'cn%d' % i, VCPU_TOTAL)
           for i in range(PROVIDERS)]
    record = Recorder()
    stop_at = time.time() + DEADLINE
    _run([threading.Thread(target=_claimer, args=(api, rps, record, stop_at))
          for _ in range(CLIENTS)])

    assert not record.unexpected, record.unexpected[:5]
    for rp in rps:
        claims = [c for c, r in record.claims if r == rp]
        used = _usages(api, rp)
        # Every client stopped only once it saw this provider full.
        assert used['VCPU'] == VCPU_TOTAL == len(claims)
        assert used['MEMORY_MB'] == len(claims) * CLAIM['MEMORY_MB']
        status, allocs = api.request(
            'GET', '/placement/resource_providers/%s/allocations' % rp)
        assert sorted(allocs['allocations']) == sorted(claims)
    assert len(record.claims) == PROVIDERS * VCPU_TOTAL


def _mover(api, instance, src, dsts, record, outcomes):
    """Turn the instance's claim on src into a migration claim and claim
    a destination, in one POST /allocations; retry generation conflicts."""
    migration = str(uuid.uuid4())
    dst = random.choice(dsts)
    for _attempt in range(50):
        generation = _consumer(api, instance)['consumer_generation']
        status, body = api.request('POST', '/placement/allocations', {
            instance: _claim_body({dst: CLAIM}, generation),
            migration: dict(_claim_body({src: CLAIM}),
                            consumer_type='MIGRATION'),
        })
        if status == 204:
            outcomes[instance] = ('moved', src, dst, migration)
            return
        record.add('rejected', (status, body))
        if status != 409 or body['errors'][0]['code'] not in (
                CONFLICT, 'placement.undefined_code'):
            record.add('unexpected', (status, body))
            break
        if _is_capacity(body):
            break
    outcomes[instance] = ('stayed', src, dst, migration)


def test_moves_race_plain_claims(api):
    sources = [_make_provider(api, 'src%d' % i, 8) for i in range(2)]
    dests = [_make_provider(api, 'dst%d' % i, 6) for i in range(2)]
    instances = {}
    for i in range(8):
        instance, src = str(uuid.uuid4()), sources[i % 2]
        status, body = api.request('PUT', '/placement/allocations/%s'
                                   % instance, _claim_body({src: CLAIM}))
        assert status == 204, body
        instances[instance] = src

    record = Recorder()
    outcomes = {}
    stop_at = time.time() + DEADLINE
    threads = [threading.Thread(target=_mover, args=(
        api, instance, src, dests, record, outcomes))
        for instance, src in instances.items()]
    threads += [threading.Thread(target=_claimer, args=(
        api, sources + dests, record, stop_at)) for _ in range(8)]
    _run(threads)

    assert not record.unexpected, record.unexpected[:5]
    expected = {rp: 0 for rp in sources + dests}
    for instance, (what, src, dst, migration) in outcomes.items():
        inst = _consumer(api, instance)['allocations']
        mig = _consumer(api, migration)['allocations']
        if what == 'moved':
            assert list(inst) == [dst] and list(mig) == [src]
            expected[dst] += 1
            expected[src] += 1
        else:
            # All or nothing: the failed move changed nothing at all.
            assert list(inst) == [src] and mig == {}
            expected[src] += 1
    for consumer, rp in record.claims:
        assert list(_consumer(api, consumer)['allocations']) == [rp]
        expected[rp] += 1
    totals = {rp: 8 for rp in sources}
    totals.update({rp: 6 for rp in dests})
    for rp in sources + dests:
        used = _usages(api, rp)['VCPU']
        assert used <= totals[rp]
        assert used == expected[rp]
    assert len(outcomes) == len(instances)
