"""Bare-metal allocation end to end, as deployed.

Scenarios:

* allocsvc-api (gunicorn) + three allocsvc-conductor processes over
  RabbitMQ, tooz over Redis, on MariaDB and on PostgreSQL: 200 available
  nodes, 50 concurrent clients creating allocations over HTTP until they
  are told no node is left. Every node ends in at most one allocation,
  every allocation ends active or error, all 200 nodes are allocated.
* The same on MariaDB with one conductor killed by SIGKILL in the middle:
  the allocations it had are taken over and finished by the others.
* The embedded default (allocsvc-all on SQLite, in-process RPC) with 50
  concurrent clients: no 5xx, no error other than running out of nodes,
  nothing stuck.

The embedded run uses each allocation back end (database and
placement); the distributed ones the default (database). The placement
back end races as deployed in test_coexistence (the same cluster on
MariaDB and PostgreSQL, with Placement clients racing too), and a
killed conductor's work under it is taken over in
test_conductor_multiprocess.
"""

import threading

import pytest

from tests import backends
from tests.integration import baremetal_cluster as cluster_mod

# Slow: races of 50 clients for 200 nodes.
pytestmark = pytest.mark.slow

NODES = 200
CLIENTS = 50
RC = 'baremetal-e2e'
# A database of its own: the servers started here must not share the
# one the in-process tests use.
DB_NAME = backends.DB_NAME + '_e2e'


@pytest.fixture(params=['mysql', 'postgresql'])
def db_url(request):
    return cluster_mod.fresh_database(request, request.param, DB_NAME)


@pytest.fixture
def distributed(tmp_path, db_url):
    cluster_mod.require_services('rabbitmq', 'redis')
    cluster_mod.migrate(db_url)
    cluster = cluster_mod.Cluster(tmp_path, db_url, conductors=3)
    yield cluster
    cluster.stop()


def _assert_clean_race(result):
    assert not result.statuses, result.statuses[:3]
    assert not result.errors, result.errors[:3]


def test_three_conductors_50_clients_200_nodes(distributed):
    client = distributed.client
    nodes = cluster_mod.enrol(client, NODES, RC, traits=['CUSTOM_E2E'])
    result = cluster_mod.race(client, CLIENTS, RC, traits=['CUSTOM_E2E'])
    _assert_clean_race(result)
    allocations = cluster_mod.settle(client)
    holders = cluster_mod.check_outcome(client, allocations, nodes)
    assert len(holders) == NODES, distributed.output()
    # Every conductor did part of the work.
    conductors = client.ok('GET', '/v1/conductors')['conductors']
    assert sum(c['alive'] for c in conductors) == 3


def test_killed_conductor_work_is_taken_over(tmp_path, request):
    cluster_mod.require_services('rabbitmq', 'redis')
    url = cluster_mod.fresh_database(request, 'mysql', DB_NAME)
    cluster_mod.migrate(url)
    cluster = cluster_mod.Cluster(tmp_path, url, conductors=3)
    request.addfinalizer(cluster.stop)
    client = cluster.client
    nodes = cluster_mod.enrol(client, NODES, RC)
    killed = threading.Event()

    def kill_midway(count):
        if count >= NODES // 3 and not killed.is_set():
            killed.set()
            cluster.kill('conductor-0')

    # Clients do not wait for their allocations here, so that the killed
    # conductor has queued and running work when it dies.
    result = cluster_mod.race(client, CLIENTS, RC, on_progress=kill_midway,
                              wait=False)
    assert killed.is_set()
    assert not [s for s in result.statuses if s[0] >= 500], \
        result.statuses[:3]
    allocations = cluster_mod.settle(client, timeout=120)
    holders = cluster_mod.check_outcome(client, allocations, nodes)
    assert len(holders) == NODES, cluster.output()
    conductors = {c['hostname']: c['alive'] for c in
                  client.ok('GET', '/v1/conductors')['conductors']}
    assert conductors[cluster.hosts[0]] is False


def test_embedded_sqlite_50_clients(tmp_path, allocation_backend):
    cluster = cluster_mod.Cluster(tmp_path, backend=allocation_backend)
    try:
        client = cluster.client
        nodes = cluster_mod.enrol(client, 100, RC)
        result = cluster_mod.race(client, CLIENTS, RC)
        _assert_clean_race(result)
        allocations = cluster_mod.settle(client)
        holders = cluster_mod.check_outcome(client, allocations, nodes)
        assert len(holders) == 100, cluster.output()
        assert 'database is locked' not in cluster.output()
    finally:
        cluster.stop()
