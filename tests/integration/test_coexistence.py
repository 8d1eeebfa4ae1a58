"""Bare-metal allocations and a Placement client (nova) racing for the
same nodes, as deployed.

Scenarios:

* allocsvc-api (gunicorn) + three allocsvc-conductor processes over
  RabbitMQ, tooz over Redis, on MariaDB and on PostgreSQL: 50
  available, powered-off nodes of one resource class enrolled over /v1;
  then, at once, 25 client threads create bare-metal allocations over
  /v1 (each waits for its allocation, until told that no node is left)
  while 25 other threads act like nova's scheduler over /placement
  (allocation candidates ``CUSTOM_COEXIST:1``, limit 5, then a claim of
  one candidate for a new INSTANCE consumer at microversion 1.39; a 409
  is a lost race, tried again with fresh candidates; until no candidate
  is left). Afterwards:

  - no request got a 5xx, no allocation is left ``allocating``, none
    ended in error but for lack of nodes;
  - no node is held twice: the nodes bound to active bare-metal
    allocations and the providers holding a nova consumer are disjoint,
    and together they are all 50 nodes; every claim nova was granted
    is still there, on its provider, of type INSTANCE;
  - every node's provider says what the node says: under the placement
    back end a node bound to an allocation is held by that allocation
    (one unit, consumer type BAREMETAL_ALLOCATION), under the database
    back end it has no usage and its unit reserved; a provider nova
    holds has usage 1 and nothing reserved; no other consumer anywhere;
  - no provider over capacity (usage <= total - reserved: a held unit
    is not reserved as well);
  - no node lock left; all three conductors alive, and each of them
    bound some of the allocations;
  - both sides won nodes: it was a race.

Each runs with both allocation back ends (database and placement). The
bare-metal side asks for a trait every node has, so the allocations'
trait filter is on the path. These are the tests of three conductors
racing behind the API; a killed conductor is tested in
test_conductor_multiprocess (each back end, each database) and
test_fault_injection (behind the API).

With CI=true a missing MariaDB, PostgreSQL, RabbitMQ or Redis fails the
test instead of skipping it.
"""

import collections
import concurrent.futures
import random
import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from tests import backends
from tests.integration import baremetal_cluster as cluster_mod
from tests.integration import racing

# Slow: a race of bare-metal and Nova clients for 50 nodes, as deployed.
# As many clients as nodes: every node is fought over from the first
# round on; more nodes would only add rounds of the same race.
# One race at a time (one worker): a race's processes pool up to 50
# PostgreSQL connections, and the server allows 100.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(__name__)]

NODES = 50
BAREMETAL_CLIENTS = 25
NOVA_CLIENTS = 25
RC = 'coexist'
TRAIT = 'CUSTOM_COEXIST_RACK'
PLACEMENT_RC = 'CUSTOM_COEXIST'
PLACEMENT_VERSION = 'placement 1.39'
CANDIDATES = ('/placement/allocation_candidates?resources=%s:1&limit=5'
              % PLACEMENT_RC)
# Bounds of the race: a nova client gives up after this many rounds
# (candidates + claim), either side after this many seconds; the
# bare-metal side never needs more allocations than one per node plus
# the last one of each client, told that none is left.
NOVA_ROUNDS = 400
RACE_SECONDS = 180
BAREMETAL_MAX = NODES + BAREMETAL_CLIENTS
# A database of its own: the servers started here must not share the
# one the in-process tests (or the other end-to-end tests) use.
DB_NAME = backends.DB_NAME + '_coexist'


@pytest.fixture(params=['mysql', 'postgresql'])
def db_url(request):
    return cluster_mod.fresh_database(request, request.param, DB_NAME)


@pytest.fixture
def cluster(tmp_path, db_url, allocation_backend):
    cluster_mod.require_services('rabbitmq', 'redis')
    cluster_mod.migrate(db_url)
    # A race, not a fault: a conductor slowed by a loaded machine must
    # not be passed over as silent (the API's suspicion), or the check
    # that all three bound allocations would measure the machine.
    cluster = cluster_mod.Cluster(
        tmp_path, db_url, conductors=3, backend=allocation_backend,
        extra={'api': {'conductor_answer_timeout': 30,
                       'conductor_call_timeout': 30}})
    yield cluster
    cluster.stop()


class Failures:
    """The 5xx answers of every client, shared."""

    def __init__(self):
        self.lock = threading.Lock()
        self.items = []

    def check(self, method, path, status, body):
        if status >= 500:
            with self.lock:
                self.items.append((method, path, status, body))


class RecordingClient(cluster_mod.Client):
    """Ironic's API (or, in a subclass, another one); every 5xx is
    recorded."""

    def __init__(self, port, failures):
        super().__init__(port)
        self.failures = failures

    def request(self, method, path, body=None):
        status, parsed = super().request(method, path, body)
        self.failures.check(method, path, status, parsed)
        return status, parsed


class PlacementClient(RecordingClient):
    """Placement's API as nova speaks it (admin token, microversion
    1.39); every 5xx is recorded."""

    headers = {'OpenStack-API-Version': PLACEMENT_VERSION,
               'X-Auth-Token': 'admin', 'Accept': 'application/json'}


class Nova:
    """``NOVA_CLIENTS`` threads claiming nodes through Placement, as
    nova's scheduler does, until no candidate is left."""

    def __init__(self, placement, deadline):
        self.placement = placement
        self.deadline = deadline
        self.project_id = str(uuid.uuid4())
        self.user_id = str(uuid.uuid4())
        self.lock = threading.Lock()
        self.won = {}           # consumer uuid -> provider uuid
        self.lost = 0           # 409s
        self.unexpected = []    # answers other than 200/204/409
        self.endings = collections.Counter()

    def run(self):
        with concurrent.futures.ThreadPoolExecutor(NOVA_CLIENTS) as pool:
            for ending in pool.map(self._client, range(NOVA_CLIENTS)):
                self.endings[ending] += 1
        return self

    def _client(self, _):
        for _round in range(NOVA_ROUNDS):
            if time.monotonic() > self.deadline:
                return 'out of time'
            status, body = self.placement.request('GET', CANDIDATES)
            if status != 200:
                return self._unexpected('GET', CANDIDATES, status, body)
            if not body['allocation_requests']:
                return 'no candidates'
            pick = random.choice(body['allocation_requests'])
            consumer = str(uuid.uuid4())
            path = '/placement/allocations/%s' % consumer
            status, answer = self.placement.request('PUT', path, {
                'allocations': pick['allocations'],
                'project_id': self.project_id, 'user_id': self.user_id,
                'consumer_generation': None, 'consumer_type': 'INSTANCE'})
            if status == 204:
                provider, = pick['allocations']
                with self.lock:
                    self.won[consumer] = provider
            elif status == 409:
                with self.lock:
                    self.lost += 1
            else:
                return self._unexpected('PUT', path, status, answer)
        return 'out of rounds'

    def _unexpected(self, method, path, status, body):
        with self.lock:
            self.unexpected.append((method, path, status, body))
        return 'unexpected answer'


def _bounded(deadline):
    """``race``'s progress hook: stop a bare-metal client (with an
    AssertionError) past the deadline or past ``BAREMETAL_MAX``
    allocations."""
    def on_progress(count):
        assert count <= BAREMETAL_MAX, \
            'more allocations than the nodes allow: %d' % count
        assert time.monotonic() <= deadline, 'bare-metal side out of time'
    return on_progress


def _nodes(client):
    """Every node, with the fields the checks read."""
    items, path = [], ('/v1/nodes?limit=1000&fields=uuid,provision_state,'
                       'instance_uuid,allocation_uuid,reservation')
    while path:
        doc = client.ok('GET', path)
        items.extend(doc['nodes'])
        nxt = doc.get('next')
        path = nxt[nxt.index('/v1/'):] if nxt else None
    return items


def _provider(placement, node_uuid):
    """What Placement says of the provider of ``node_uuid``: its
    inventories, usages and allocations (by consumer)."""
    base = '/placement/resource_providers/%s' % node_uuid
    return (placement.ok('GET', base + '/inventories')['inventories'],
            placement.ok('GET', base + '/usages')['usages'],
            placement.ok('GET', base + '/allocations')['allocations'])


def _consumer(placement, consumer_uuid):
    return placement.ok('GET', '/placement/allocations/%s' % consumer_uuid)


def _check_provider(node_uuid, view, want_consumer, want_reserved):
    """What is wrong with the provider of ``node_uuid``, ``view`` as
    ``_provider`` reads it, which should be held by ``want_consumer``
    alone (None: by nobody) with ``want_reserved`` units reserved: a
    list of complaints."""
    inventories, usages, allocations = view
    wrong = []
    if set(inventories) != {PLACEMENT_RC}:
        return ['%s: inventories %s' % (node_uuid, inventories)]
    inv = inventories[PLACEMENT_RC]
    used = usages.get(PLACEMENT_RC, 0)
    if (inv['total'], inv['min_unit'], inv['max_unit']) != (1, 1, 1):
        wrong.append('%s: inventory %s' % (node_uuid, inv))
    if used > (inv['total'] - inv['reserved']) * inv['allocation_ratio']:
        wrong.append('%s: over capacity: usage %d, inventory %s'
                     % (node_uuid, used, inv))
    claimed = sum(a['resources'].get(PLACEMENT_RC, 0)
                  for a in allocations.values())
    if claimed != used:
        wrong.append('%s: usage %d but allocations %s'
                     % (node_uuid, used, allocations))
    want = {want_consumer} if want_consumer else set()
    if set(allocations) != want or used != len(want):
        wrong.append('%s: held by %s (usage %d), expected %s'
                     % (node_uuid, sorted(allocations), used,
                        sorted(want)))
    for consumer, alloc in allocations.items():
        if alloc['resources'] != {PLACEMENT_RC: 1}:
            wrong.append('%s: consumer %s has %s'
                         % (node_uuid, consumer, alloc['resources']))
    if inv['reserved'] != want_reserved:
        wrong.append('%s: reserved %d, expected %d (held by %s)'
                     % (node_uuid, inv['reserved'], want_reserved,
                        sorted(allocations)))
    return wrong


def _check_consumer(placement, consumer_uuid, provider, consumer_type):
    body = _consumer(placement, consumer_uuid)
    got = {rp: a['resources'] for rp, a in body['allocations'].items()}
    wrong = []
    if got != {provider: {PLACEMENT_RC: 1}}:
        wrong.append('consumer %s holds %s, expected one unit of %s'
                     % (consumer_uuid, got, provider))
    if body.get('consumer_type') != consumer_type:
        wrong.append('consumer %s is of type %s, expected %s'
                     % (consumer_uuid, body.get('consumer_type'),
                        consumer_type))
    return wrong


def _binders(conn):
    """The ids of the conductors that own active allocations, and of
    every conductor, as the database has them."""
    owners = {row[0] for row in conn.execute(sa.text(
        "SELECT DISTINCT conductor_affinity FROM "
        "baremetal_allocations WHERE state = 'active'"))}
    every = {row[0] for row in conn.execute(sa.text(
        'SELECT id FROM conductors'))}
    conn.rollback()
    return owners, every


@pytest.fixture
def database(db_url):
    """A connection to the race's database, opened before the cluster
    starts: by the end of a race the connection pools of the clusters
    running at that time may hold most of what PostgreSQL allows."""
    engine = sa.create_engine(db_url)
    conn = engine.connect()
    yield conn
    conn.close()
    engine.dispose()


def test_baremetal_and_nova_race_for_the_same_nodes(database, cluster):
    failures = Failures()
    placement_backend = cluster.backend == 'placement'
    nodes = cluster_mod.enrol(cluster.client, NODES, RC, traits=[TRAIT])
    baremetal = RecordingClient(cluster.port, failures)
    placement = PlacementClient(cluster.port, failures)
    # Every provider there, free, before the race starts.
    first = placement.ok('GET', CANDIDATES.replace('limit=5',
                                                   'limit=1000'))
    assert len(first['allocation_requests']) == NODES

    started = time.monotonic()
    deadline = started + RACE_SECONDS
    race, nova = racing.race(
        lambda: cluster_mod.race(baremetal, BAREMETAL_CLIENTS, RC,
                                 traits=[TRAIT],
                                 on_progress=_bounded(deadline)),
        lambda: Nova(placement, deadline).run())
    elapsed = time.monotonic() - started
    for side in (race, nova):
        if isinstance(side, BaseException):
            raise AssertionError('%r\n%s' % (side, cluster.output()))

    # The race itself: no 5xx, nothing unexpected, both sides finished
    # because nothing was left.
    assert not failures.items, (failures.items[:5], cluster.output())
    assert not race.statuses, race.statuses[:3]
    assert not race.errors, (race.errors[:3], cluster.output())
    assert not nova.unexpected, (nova.unexpected[:3], cluster.output())
    assert nova.endings == {'no candidates': NOVA_CLIENTS}, \
        (nova.endings, elapsed)

    allocations = cluster_mod.settle(baremetal)
    holders = cluster_mod.check_outcome(baremetal, allocations, nodes)
    active = {a['uuid'] for a in allocations if a['state'] == 'active'}
    nova_held = collections.Counter(nova.won.values())
    nova_by_node = {rp: consumer for consumer, rp in nova.won.items()}
    summary = ('%s back end: bare metal %d nodes (%d allocations), nova '
               '%d nodes (%d lost races), %.1fs'
               % (cluster.backend, len(holders), len(allocations),
                  len(nova.won), nova.lost, elapsed))

    # No node held twice, and every node taken by one side or the other.
    twice = [rp for rp, count in nova_held.items() if count > 1]
    assert not twice, ('nova was granted a node twice', twice[:5], summary)
    both = set(holders) & set(nova_held)
    assert not both, ('held by bare metal and nova', sorted(both)[:5],
                      summary)
    assert set(holders) | set(nova_held) == set(nodes), summary
    # What the nodes say: bound to their allocation, or untouched; no
    # lock left.
    for node in _nodes(baremetal):
        assert node['reservation'] is None, node
        if node['uuid'] in holders:
            assert node['allocation_uuid'] == holders[node['uuid']], node
            assert node['provision_state'] == 'available', node
        else:
            assert node['allocation_uuid'] is None, node
            assert node['instance_uuid'] is None, node

    # What the providers say, node by node.
    def check_node(node_uuid):
        view = _provider(placement, node_uuid)
        if node_uuid in holders:
            consumer = holders[node_uuid] if placement_backend else None
            reserved = 0 if placement_backend else 1
        else:
            consumer = nova_by_node[node_uuid]
            reserved = 0
        wrong = _check_provider(node_uuid, view, consumer, reserved)
        if node_uuid in holders and placement_backend:
            wrong += _check_consumer(placement, consumer, node_uuid,
                                     'BAREMETAL_ALLOCATION')
        elif node_uuid not in holders:
            wrong += _check_consumer(placement, consumer, node_uuid,
                                     'INSTANCE')
        return wrong

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        wrong = [w for ws in pool.map(check_node, nodes) for w in ws]
    assert not wrong, (wrong[:10], len(wrong), summary)
    # The claims of allocations that ended in error are gone.
    for alloc in allocations:
        if alloc['uuid'] not in active:
            assert _consumer(placement, alloc['uuid'])['allocations'] == {}, \
                alloc
    assert not placement.ok('GET', CANDIDATES)['allocation_requests']
    assert not failures.items, (failures.items[:5], cluster.output())

    # Three conductors alive, each of which bound allocations.
    conductors = baremetal.ok('GET', '/v1/conductors')['conductors']
    assert sum(c['alive'] for c in conductors) == 3, conductors
    owners, every = _binders(database)
    assert owners == every and len(every) == 3, (owners, every, summary)

    # A real race: each side won some nodes.
    assert holders, summary
    assert nova.won, summary
    print(summary)
