"""Faults while many clients allocate, on the service as deployed:
allocsvc-api (gunicorn) and three allocsvc-conductor processes on
MariaDB, over RabbitMQ reached through a TCP proxy the test cuts and
partitions. The ``[api]`` options are the defaults; the conductors
heartbeat every second and are declared dead after 10 s (the cluster's
settings), and look for allocations to resume every second.

The load (tests/integration/fault_load.py): 16 client threads (as many
as the API's threads, so that what is measured is the service, not a
queue for its threads on a machine that CI keeps busy) with a
10 s timeout. Two of them list allocations and read one; the others
churn, DELETE-heavy: each holds up to two allocations, deleting the
oldest before it POSTs the next one (with a UUID of its own), polls
that one until final, retries a refused DELETE on its next loop, and
deletes all it holds when the load stops.

The faults, in this order on one cluster (the killed conductor stays
dead), each 3 s into the load, which goes on 3 s after the repair (15 s
after the kill):

* the broker cut (every connection closed, new ones refused) for 15 s,
  then for 45 s;
* the broker partitioned (connections open, no byte passes) for 15 s;
* every database connection killed (MariaDB ``KILL``), five times a
  second apart;
* a conductor SIGSTOPped for 20 s, then SIGCONT;
* a conductor SIGKILLed.

For each: every request answered within 5 s (at the client, queueing
for one of the API's threads included), none dropped at the client's
timeout, no 5xx but 503 with Retry-After and Ironic's error body, no
allocation stuck ``allocating``, no node bound twice, bindings the same
on both sides, every 201 allocation found or deleted by its client, no
orphan (an allocation whose POST was answered anything but 201, or not
at all), and at the end every node allocatable (all allocations
deleted, each node free and unlocked in the database, and as many new
allocations as nodes all ``active``). ``pytest -s`` prints what each
scenario saw.

Before the fix of issue 33 the latency, drop, orphan and Retry-After
assertions failed (every scenario over 5 s with drops but the database
kill, orphans after the broker faults and the stopped conductor, 503s
without Retry-After). With it, alone on the shared 2-CPU machine, the
slowest answer of any scenario was 2.7 s, and the whole file took
3 min 22 s (cluster start and enrolment included); allocations stuck
``allocating`` would add up to 60 s of settling wait
a scenario. With CI=true a missing MariaDB, RabbitMQ or Redis fails the
test instead of skipping it.
"""

import pytest

from tests import backends
from tests.integration import baremetal_cluster as cluster_mod
from tests.integration import fault_load
from tests.integration import tcp_proxy

# Slow: faults held for seconds, then a settling wait.
# One worker runs them all, in this order, on the module's one cluster.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(__name__)]

DB_NAME = backends.DB_NAME + '_faults'
NODES = 60
CLIENTS = 16
CLIENT_TIMEOUT = 10
RC = 'baremetal-faults'
RESUME_INTERVAL = 1.0
# The goal: every request is answered within this, at the client.
BOUND = 5.0
# Once the load stops, every allocation is final within this.
SETTLE = 60
WARMUP = 3
AFTER = 3
# How long the load goes on after a fault that is not repaired.
UNREPAIRED = 15


@pytest.fixture(scope='module')
def cluster(request, tmp_path_factory):
    cluster_mod.require_services('rabbitmq', 'redis')
    url = cluster_mod.fresh_database(request, 'mysql', DB_NAME)
    cluster_mod.migrate(url)
    proxy = tcp_proxy.TCPProxy(('127.0.0.1', 5672))
    request.addfinalizer(proxy.close)
    cluster = cluster_mod.Cluster(
        tmp_path_factory.mktemp('faults'), url, conductors=3,
        transport_url='rabbit://guest:guest@127.0.0.1:%d/' % proxy.port,
        extra={'conductor': {
            'resume_allocations_interval': RESUME_INTERVAL}})
    request.addfinalizer(cluster.stop)
    cluster.proxy = proxy
    cluster.db_url = url
    cluster.nodes = cluster_mod.enrol(cluster.client, NODES, RC)
    cluster.faults = fault_load.faults(cluster, proxy, DB_NAME)
    return cluster


def _scenario(cluster, name):
    fault = cluster.faults[name]
    load = fault_load.Load(fault_load.client(cluster, CLIENT_TIMEOUT),
                           CLIENTS, RC, settle=SETTLE)
    hold = fault.hold if fault.repair is not None else UNREPAIRED
    span = fault_load.run(load, WARMUP + hold + AFTER, WARMUP, fault.fault,
                          fault.repair, fault.hold)
    outcome = fault_load.check(cluster.client, cluster.db_url, load, RC,
                               settle=SETTLE)
    print('\n' + fault_load.summary('%s (%s)' % (name, fault.text),
                                    outcome, load, span))
    found = fault_load.problems(outcome, BOUND)
    assert not found, (name, found, outcome.examples[:5])


def test_broker_cut_15(cluster):
    _scenario(cluster, 'broker-cut-15')


def test_broker_cut_45(cluster):
    _scenario(cluster, 'broker-cut-45')


def test_broker_partitioned_15(cluster):
    _scenario(cluster, 'broker-partition-15')


def test_database_connections_killed(cluster):
    _scenario(cluster, 'db-connections-killed')


def test_conductor_stopped_20(cluster):
    _scenario(cluster, 'conductor-stopped-20')


def test_conductor_killed(cluster):
    _scenario(cluster, 'conductor-killed')
