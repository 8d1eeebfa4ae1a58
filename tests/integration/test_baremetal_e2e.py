"""Bare-metal allocation end to end on the embedded default, as deployed:
allocsvc-all on SQLite, in-process RPC, with 50 concurrent clients
creating allocations over HTTP for 50 nodes (one each: every node is
fought over from the first round on) until they are told no node is
left. No 5xx, no error other than running out of nodes, nothing
stuck, every node in exactly one allocation; SQLite's writers queue
("database is locked" never shows). Each allocation back end (database
and placement).

The distributed service (allocsvc-api under gunicorn, three
allocsvc-conductor processes over RabbitMQ, tooz over Redis, MariaDB
and PostgreSQL) races in test_coexistence, with Placement clients
racing for the same nodes, under each back end; a conductor killed by
SIGKILL while clients allocate is taken over in
test_conductor_multiprocess (each back end, each database) and in
test_fault_injection (behind the API).
"""

import pytest

from tests.integration import baremetal_cluster as cluster_mod

# Slow: races of 50 clients for 50 nodes.
pytestmark = pytest.mark.slow

NODES = 50
CLIENTS = 50
RC = 'baremetal-e2e'


def _assert_clean_race(result):
    assert not result.statuses, result.statuses[:3]
    assert not result.errors, result.errors[:3]


def test_embedded_sqlite_50_clients(tmp_path, allocation_backend):
    cluster = cluster_mod.Cluster(tmp_path, backend=allocation_backend)
    try:
        client = cluster.client
        nodes = cluster_mod.enrol(client, NODES, RC)
        result = cluster_mod.race(client, CLIENTS, RC)
        _assert_clean_race(result)
        allocations = cluster_mod.settle(client)
        holders = cluster_mod.check_outcome(client, allocations, nodes)
        assert len(holders) == NODES, cluster.output()
        assert 'database is locked' not in cluster.output()
    finally:
        cluster.stop()
