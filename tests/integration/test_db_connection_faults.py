"""Killed database connections under a bare-metal workload, on MariaDB:
``allocsvc-api`` (gunicorn, 2 workers) and 2 conductors over RabbitMQ.

While 8 clients allocate until no node is left, and then delete every
allocation, a killer kills every connection of the service on the
server (``KILL <id>``) several times a second. Asserted: no answer but
201/200/204 (never a 500 or a 503: each lost connection is replaced and
the transaction run again), no allocation left ``allocating`` or failed
for any reason but the lack of nodes, every node taken by exactly one
allocation, and every node free again after the deletes.
"""

import threading
import uuid

import pytest

from tests.helpers import db_faults
from tests.integration import baremetal_cluster as cluster_mod

# Slow: a cluster of processes on MariaDB, its connections killed.
pytestmark = pytest.mark.slow

DB_NAME = 'allocsvc_dbfaults_%s' % uuid.uuid4().hex[:8]
NODES = 12


@pytest.fixture
def cluster(request, tmp_path):
    cluster_mod.require_services('rabbitmq', 'redis')
    db_url = cluster_mod.fresh_database(request, 'mysql', DB_NAME)
    cluster_mod.migrate(db_url)
    cluster = cluster_mod.Cluster(tmp_path, db_url, conductors=2,
                                  workers=2, threads=8)
    yield cluster
    cluster.stop()


class Killer:
    """Kills every connection to the test's database, again and again,
    until stopped; counts the connections it killed."""

    def __init__(self, interval=0.2):
        self.interval = interval
        self.killed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.wait(self.interval):
            self.killed += len(db_faults.kill('mysql', db_name=DB_NAME))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def test_killed_connections_while_clients_allocate(cluster):
    client = cluster.client
    node_uuids = cluster_mod.enrol(client, NODES, 'baremetal')
    with Killer() as killer:
        result = cluster_mod.race(client, 8, 'baremetal')
        allocations = cluster_mod.settle(client)
        holders = cluster_mod.check_outcome(client, allocations, node_uuids)
        statuses = [client.request('DELETE', '/v1/allocations/%s' % a['uuid'])
                    for a in allocations]
    print('killed', killer.killed, 'connections')
    assert killer.killed > 0
    assert not result.statuses, result.statuses[:3]
    assert not result.errors, result.errors[:3]
    assert set(holders) == set(node_uuids)
    assert [(s, body) for s, body in statuses if s != 204] == []
    assert client.list('allocations') == []
    assert all(n['instance_uuid'] is None for n in client.list('nodes'))
