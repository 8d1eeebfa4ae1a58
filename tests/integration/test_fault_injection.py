"""Faults while many clients allocate, on the service as deployed:
allocsvc-api (gunicorn) and three allocsvc-conductor processes on
MariaDB, over RabbitMQ reached through a TCP proxy the test cuts.

Each scenario runs while 24 client threads each loop: POST
/v1/allocations (with a UUID of their own, so that a refused one can be
looked for), poll it until it is ``active`` or ``error``, DELETE it
(after a 503, again before its next POST, and at the end until done;
a 404 to a DELETE of an allocation just seen final is its own earlier
DELETE's doing). The faults:

* the broker is cut (every connection closed, new ones refused) for 15
  seconds, then restored: allocations are still accepted (201
  ``allocating``) and finished from the database by their conductors;
  writes that need a conductor's answer fail fast with 503;
* the service's database connections are killed (MariaDB ``KILL``),
  five times, a second apart;
* a conductor is killed by SIGKILL: the others take over its
  allocations once its heartbeat is old.

After each one: no 5xx but 503 (with Ironic's error body), and no
request answered later than the configured bounds plus a generous
margin (the machine is shared; this is a bound, not a measure); no
allocation left ``allocating`` once the fault is over (each client's
wait is bounded); none lost (each 201 one is found, or was deleted by
its client) and nothing left of a refused one; in the database no node
bound twice, and each binding consistent on both sides.

The scenarios share one cluster and run in this order (the killed
conductor stays dead). The conductors answer an RPC before the load
starts (a heartbeat alone does not mean their RPC servers consume
yet). With CI=true a missing
MariaDB, RabbitMQ or Redis fails the test instead of skipping it.
"""

import collections
import http.client
import threading
import time
import uuid

import pymysql
import pytest
import sqlalchemy as sa

from tests import backends
from tests.integration import baremetal_cluster as cluster_mod
from tests.integration import tcp_proxy

# Slow: faults held for seconds, then a settling wait.
# One worker runs them all, in this order, on the module's one cluster.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(__name__)]

DB_NAME = backends.DB_NAME + '_faults'
NODES = 40
CLIENTS = 24
RC = 'baremetal-faults'
# The bounds the API is configured with ([api] and [conductor]).
HANDOVER_TIMEOUT = 1.0
CALL_TIMEOUT = 3.0
RESUME_INTERVAL = 1.0
# Every request is answered within the longest configured bound plus
# this (queueing for one of the API's 16 threads included).
MARGIN = 7.0
BOUND = max(HANDOVER_TIMEOUT, CALL_TIMEOUT) + MARGIN
# Once a fault is over, every allocation is final within this.
SETTLE = 60
WARMUP = 3
# Longer than BOUND: a request that waits for the broker to come back
# is too slow.
FAULT = 15
AFTER = 3


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
        extra={'api': {'conductor_handover_timeout': HANDOVER_TIMEOUT,
                       'conductor_call_timeout': CALL_TIMEOUT},
               'conductor': {
                   'resume_allocations_interval': RESUME_INTERVAL}})
    request.addfinalizer(cluster.stop)
    cluster.proxy = proxy
    cluster.db_url = url
    cluster.nodes = cluster_mod.enrol(cluster.client, NODES, RC)
    return cluster


# -- the load -----------------------------------------------------------------

# One request of a client: what it got, when it was sent (monotonic) and
# how long its answer took.
Request = collections.namedtuple(
    'Request', 'method path status body sent seconds')


class Load:
    """``CLIENTS`` threads allocating, polling and deleting until
    ``finish``; what each request got and how long it took."""

    def __init__(self, client):
        self.client = client
        self.lock = threading.Lock()
        self.requests = []      # Request
        self.created = set()    # UUIDs answered 201
        self.refused = {}       # UUID -> answer of a POST not 201
        self.deleted = set()
        self.stuck = []
        self.stopping = threading.Event()
        # Set on an answer the checks refuse anyway (a 5xx but 503, no
        # answer): the clients stop at once instead of waiting for
        # their allocations, so that a failing run fails fast.
        self.broken = threading.Event()
        self.threads = [threading.Thread(target=self._client, daemon=True)
                        for _ in range(CLIENTS)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def finish(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(SETTLE * 3)
        assert not any(t.is_alive() for t in self.threads)

    def _request(self, method, path, body=None):
        start = time.monotonic()
        try:
            status, doc = self.client.request(method, path, body)
        except (OSError, http.client.HTTPException) as exc:
            status, doc = None, repr(exc)
        record = Request(method, path, status, doc, start,
                         time.monotonic() - start)
        with self.lock:
            self.requests.append(record)
        if status is None or (status >= 500 and status != 503):
            self.broken.set()
        return status, doc

    def _client(self):
        undeleted = []      # (path, ident) whose DELETE was refused
        while not (self.stopping.is_set() or self.broken.is_set()):
            # One a round, so that allocating goes on at its pace.
            if undeleted and self._delete(*undeleted[0], patient=False):
                undeleted.pop(0)
            ident = str(uuid.uuid4())
            status, doc = self._request('POST', '/v1/allocations', {
                'uuid': ident, 'resource_class': RC})
            if status != 201:
                with self.lock:
                    self.refused[ident] = (status, doc)
                time.sleep(0.2)
                continue
            with self.lock:
                self.created.add(ident)
            path = '/v1/allocations/%s' % ident
            if self._final(path) is None:
                with self.lock:
                    self.stuck.append(ident)
                continue
            if not self._delete(path, ident, patient=False):
                # Allocate on meanwhile; delete it later.
                undeleted.append((path, ident))
        for path, ident in undeleted:
            self._delete(path, ident)

    def _final(self, path):
        """The allocation once final; None if it is not within
        SETTLE seconds after the load was told to stop."""
        delay, deadline = 0.05, None
        while True:
            status, doc = self._request('GET', path)
            if status == 200 and doc['state'] != 'allocating':
                return doc
            if self.broken.is_set():
                return None
            if self.stopping.is_set() and deadline is None:
                deadline = time.monotonic() + SETTLE
            if deadline is not None and time.monotonic() > deadline:
                return None
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def _delete(self, path, ident, patient=True):
        """DELETE until it is done (True), or once unless ``patient``;
        a patient one gives up SETTLE seconds after the load was told
        to stop."""
        deadline = None
        while True:
            status, _doc = self._request('DELETE', path)
            # The allocation was there a moment ago (final, so nobody
            # else deletes it): a 404 means this client's DELETE did it
            # -- one answered 503 before, or one whose database commit
            # was answered by a lost connection and retried.
            if status in (204, 404):
                with self.lock:
                    self.deleted.add(ident)
                return True
            if not patient or self.broken.is_set():
                return False
            if self.stopping.is_set() and deadline is None:
                deadline = time.monotonic() + SETTLE
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.3)


def _run(cluster, fault, repair=None):
    """The load with ``fault()`` after WARMUP seconds, ``repair()``
    FAULT seconds later, AFTER more seconds of load; then the checks.
    Returns the load and the (start, end) of the fault, monotonic."""
    load = Load(cluster.client)
    load.start()
    time.sleep(WARMUP)
    began = time.monotonic()
    fault()
    time.sleep(FAULT)
    if repair is not None:
        repair()
    ended = time.monotonic()
    time.sleep(AFTER)
    load.finish()
    print(_summary(load, began, ended))
    _check(cluster, load)
    return load, (began, ended)


def _summary(load, began, ended):
    """Per method: requests, 503s, the slowest answer, all and during
    the fault (shown with ``pytest -s``)."""
    lines = []
    for method in ('POST', 'GET', 'DELETE'):
        mine = [r for r in load.requests if r.method == method]
        during = [r.seconds for r in mine if began <= r.sent <= ended]
        lines.append('%s: %d requests (%d during the fault), %d x 503, '
                     'slowest %.2f s (%.2f s during the fault)' % (
                         method, len(mine), len(during),
                         sum(r.status == 503 for r in mine),
                         max([r.seconds for r in mine] or [0]),
                         max(during or [0])))
    return '\n'.join(lines)


# -- the checks --------------------------------------------------------------

def _check(cluster, load):
    requests = load.requests
    assert requests
    failed = [r for r in requests if r.status is None or
              (r.status >= 500 and r.status != 503)]
    assert not failed, (failed[:5], cluster.output())
    for record in requests:
        if record.status == 503:
            assert 'faultstring' in record.body['error_message'], record
    slow = [r[:3] + r[-1:] for r in requests if r.seconds > BOUND]
    assert not slow, slow[:5]
    assert not load.stuck, load.stuck[:5]
    assert load.created
    client = cluster.client
    for ident in load.created:
        status, doc = client.request('GET', '/v1/allocations/%s' % ident)
        if ident in load.deleted:
            assert status == 404, (ident, status, doc)
        else:
            assert status == 200, (ident, status, doc)
            assert doc['state'] in ('active', 'error'), doc
    _check_database(cluster, load)


def _check_database(cluster, load):
    engine = sa.create_engine(cluster.db_url)
    try:
        with engine.connect() as conn:
            allocations = conn.execute(sa.text(
                'SELECT id, uuid, node_id, state FROM '
                'baremetal_allocations')).all()
            nodes = conn.execute(sa.text(
                'SELECT id, uuid, instance_uuid, allocation_id FROM nodes '
                'WHERE resource_class = :rc'), {'rc': RC}).all()
    finally:
        engine.dispose()
    by_id = {a.id: a for a in allocations}
    uuids = {a.uuid for a in allocations}
    # A POST that was not answered 201 left nothing.
    left = uuids & set(load.refused)
    assert not left, [load.refused[ident] for ident in left]
    assert not [a for a in allocations if a.state == 'allocating']
    bound = [a.node_id for a in allocations if a.node_id is not None]
    assert len(bound) == len(set(bound)), 'a node in two allocations'
    holders = [n.allocation_id for n in nodes if n.allocation_id]
    assert len(holders) == len(set(holders))
    for node in nodes:
        if node.allocation_id is None:
            continue
        allocation = by_id[node.allocation_id]
        assert allocation.node_id == node.id, (node, allocation)
        assert allocation.state == 'active', allocation
        assert node.instance_uuid == allocation.uuid, (node, allocation)
    node_ids = {n.id: n for n in nodes}
    for allocation in allocations:
        if allocation.node_id is not None:
            node = node_ids[allocation.node_id]
            assert node.allocation_id == allocation.id, (node, allocation)


# -- the scenarios -----------------------------------------------------------

def test_broker_cut(cluster):
    load, (began, ended) = _run(cluster, cluster.proxy.cut,
                                cluster.proxy.restore)
    # Allocations were still accepted late in the cut.
    accepted = [r for r in load.requests
                if r.method == 'POST' and r.status == 201 and
                (began + ended) / 2 < r.sent < ended]
    assert accepted, 'no allocation was accepted in the second half of ' \
        'the cut'


def test_database_connections_killed(cluster):
    stop = threading.Event()

    def kill_connections():
        for _ in range(5):
            _kill_database_connections()
            if stop.wait(1):
                return

    killer = threading.Thread(target=kill_connections)
    _run(cluster, killer.start, lambda: (stop.set(), killer.join()))


def _kill_database_connections():
    """KILL every MariaDB connection to the test's database."""
    conn = pymysql.connect(host='127.0.0.1', user='root', autocommit=True)
    try:
        with conn.cursor() as cursor:
            cursor.execute(
                'SELECT id FROM information_schema.processlist '
                'WHERE db = %s AND id <> CONNECTION_ID()', (DB_NAME,))
            for (ident,) in cursor.fetchall():
                try:
                    cursor.execute('KILL %d' % ident)
                except pymysql.MySQLError:
                    pass    # gone meanwhile
    finally:
        conn.close()


def test_conductor_killed(cluster):
    _run(cluster, lambda: cluster.kill('conductor-2'))
