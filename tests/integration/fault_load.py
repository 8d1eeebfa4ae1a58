"""Clients allocating bare-metal nodes while a fault is injected, and
what they saw: shared by tests/integration/test_fault_injection.py and
benchmarks/fault_bench.py.

``Load`` runs ``clients`` threads on a ``baremetal_cluster.Client``
(whose ``timeout`` is the clients' patience). Most of them allocate:
each loop, a client DELETEs the oldest of its allocations once it holds
``hold`` (2) of them, POSTs a new one with a UUID of its own (so that a
refused or unanswered one can be looked for), and polls it until it is
``active`` or ``error``. A DELETE that is refused or unanswered is tried
again on the client's next loop, and at the end until done; a 404 to a
DELETE of an allocation just seen final is that client's own earlier
DELETE's doing. One client in eight (at least one) only reads: GET
``/v1/allocations`` of the resource class, then GET one allocation it
listed. Once told to stop, the allocating clients delete all they hold
(the churn ends on a burst of DELETEs).

Every request is recorded (``Request``): method, path, status (None
when unanswered), the response headers the checks need (Retry-After),
the body, when it was sent (monotonic), how long it took, whether it was
dropped (the client's timeout expired: ``TimeoutError``, which
``socket.timeout`` is) and, for any other failure to get an answer,
the error. A POST answered 409 counts as created: its UUID is new, so
only the client's own retry on a failed keep-alive connection can have
made it exist.

``run`` injects one fault into such a load on a schedule; ``check``
returns ``Outcome``: the counts the test asserts and the benchmark
tabulates. ``SCENARIOS``/``faults`` are the faults both inject.
"""

import collections
import http.client
import json
import threading
import time
import uuid

import pymysql
import sqlalchemy as sa

from tests.integration import baremetal_cluster

# The response headers a record keeps.
KEPT_HEADERS = ('Retry-After',)

Request = collections.namedtuple(
    'Request', 'method path status headers body sent seconds dropped error')


class Load:
    """``clients`` threads allocating, polling, deleting and listing
    ``resource_class`` allocations on ``client`` until ``stop()``; once
    stopped, each finishes what it holds, giving up ``settle`` seconds
    later."""

    def __init__(self, client, clients, resource_class, settle=60, hold=2):
        self.client = client
        self.resource_class = resource_class
        self.settle = settle
        self.hold = hold
        self.lock = threading.Lock()
        self.requests = []      # Request
        self.created = set()    # UUIDs answered 201
        self.refused = {}       # UUID -> Request of a POST not answered 201
        self.deleted = set()
        self.stuck = []         # UUIDs still allocating ``settle`` s late
        self.stopping = threading.Event()
        readers = max(1, clients // 8)
        self.threads = [
            threading.Thread(target=self._reader if i < readers
                             else self._allocator, daemon=True)
            for i in range(clients)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopping.set()

    def join(self):
        for thread in self.threads:
            thread.join(self.settle * 3)
        alive = sum(t.is_alive() for t in self.threads)
        assert not alive, '%d clients still running' % alive

    def _request(self, method, path, body=None):
        start = time.monotonic()
        status = doc = error = None
        headers = {}
        dropped = False
        try:
            status, doc, raw = self.client.exchange(method, path, body)
            headers = {k: raw[k] for k in KEPT_HEADERS if k in raw}
        except TimeoutError as exc:
            dropped, error = True, repr(exc)
        except (OSError, http.client.HTTPException) as exc:
            error = repr(exc)
        record = Request(method, path, status, headers, doc, start,
                         time.monotonic() - start, dropped, error)
        with self.lock:
            self.requests.append(record)
        return record

    def _allocator(self):
        held = collections.deque()  # final allocations, oldest first
        undeleted = []              # whose DELETE was not done
        while not self.stopping.is_set():
            # One retry a loop, so that allocating goes on at its pace.
            if undeleted and self._delete(undeleted[0], patient=False):
                undeleted.pop(0)
            if len(held) >= self.hold:
                ident = held.popleft()
                if not self._delete(ident, patient=False):
                    undeleted.append(ident)
            ident = str(uuid.uuid4())
            record = self._request('POST', '/v1/allocations', {
                'uuid': ident, 'resource_class': self.resource_class})
            # 409: the UUID is this client's own, so an earlier try of
            # this very POST created it (the client retries on a new
            # connection when one fails): it is not an orphan.
            if record.status not in (201, 409):
                with self.lock:
                    self.refused[ident] = record
                time.sleep(0.2)
                continue
            with self.lock:
                self.created.add(ident)
            if self._final(ident) is None:
                with self.lock:
                    self.stuck.append(ident)
                continue
            held.append(ident)
        for ident in list(held) + undeleted:
            self._delete(ident)

    def _reader(self):
        path = ('/v1/allocations?resource_class=%s&limit=50'
                % self.resource_class)
        while not self.stopping.is_set():
            record = self._request('GET', path)
            if record.status == 200 and record.body['allocations']:
                one = record.body['allocations'][-1]
                # It may be deleted meanwhile: any 2xx or 404 will do.
                self._request('GET', '/v1/allocations/%s' % one['uuid'])
            time.sleep(0.1)

    def _final(self, ident):
        """The allocation once final; None if it is not within
        ``settle`` seconds after the load was told to stop."""
        path = '/v1/allocations/%s' % ident
        delay, deadline = 0.05, None
        while True:
            record = self._request('GET', path)
            if record.status == 200 and record.body['state'] != 'allocating':
                return record.body
            if self.stopping.is_set() and deadline is None:
                deadline = time.monotonic() + self.settle
            if deadline is not None and time.monotonic() > deadline:
                return None
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def _delete(self, ident, patient=True):
        """DELETE until it is done (True), or once unless ``patient``;
        a patient one gives up ``settle`` seconds after the load was
        told to stop."""
        path = '/v1/allocations/%s' % ident
        deadline = None
        while True:
            status = self._request('DELETE', path).status
            # The allocation was there a moment ago (final, so nobody
            # else deletes it): a 404 means this client's DELETE did it
            # -- one answered 503 or not at all before, or one whose
            # database commit was answered by a lost connection and
            # retried.
            if status in (204, 404):
                with self.lock:
                    self.deleted.add(ident)
                return True
            if not patient:
                return False
            if self.stopping.is_set() and deadline is None:
                deadline = time.monotonic() + self.settle
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.3)


# -- one run ------------------------------------------------------------------

def run(load, duration, fault_at, fault, repair=None, hold=None):
    """Start ``load``; ``fault()`` at ``fault_at`` seconds, ``repair()``
    ``hold`` seconds later (also after the load ends, if that is
    later: the clients still finish what they hold), stop the load at
    ``duration`` seconds and wait for its clients. Returns (start of
    the fault, its end or None), monotonic."""
    start = time.monotonic()
    events = [(fault_at, 'fault'), (duration, 'stop')]
    if repair is not None:
        events.append((fault_at + hold, 'repair'))
    began = ended = None
    load.start()
    try:
        for at, what in sorted(events):
            time.sleep(max(0, start + at - time.monotonic()))
            if what == 'fault':
                began = time.monotonic()
                fault()
            elif what == 'repair':
                repair()
                ended = time.monotonic()
            else:
                load.stop()
    except BaseException:
        load.stop()
        if repair is not None and began is not None and ended is None:
            repair()
        raise
    load.join()
    return began, ended


# -- what the clients saw, and what the database holds ------------------------

Outcome = collections.namedtuple('Outcome', [
    'requests', 'created', 'n503', 'n503_improper', 'other_5xx',
    'errors', 'drops', 'max_post', 'max_get', 'max_delete', 'max_latency',
    'orphans', 'stuck', 'double', 'inconsistent', 'lost', 'unallocatable',
    'examples'])


def is_proper_503(record):
    """A 503 with Retry-After and Ironic's error body,
    ``{"error_message": "{\\"faultstring\\": ...}"}``."""
    if record.status != 503 or 'Retry-After' not in record.headers:
        return False
    body = record.body
    try:
        return 'faultstring' in json.loads(body['error_message'])
    except (TypeError, KeyError, ValueError):
        return False


def check(client, db_url, load, resource_class, settle=60):
    """The ``Outcome`` of ``load``: what its clients saw (counts,
    slowest answers), then in the database: allocations whose POST was
    not answered 201 (orphans), allocations still ``allocating``
    ``settle`` seconds on (stuck, with those a client gave up on),
    nodes bound twice (double), bindings not the same on both sides
    (inconsistent), 201 allocations neither found nor deleted by their
    client (lost). Last, whether every node can be allocated
    (``allocatable``, which deletes every allocation left first)."""
    requests = load.requests
    examples = []

    def noted(kind, records):
        examples.extend((kind, r) for r in records[:3])
        return len(records)

    def slowest(method):
        return max([r.seconds for r in requests if r.method == method] or
                   [0.0])

    counts = {
        'requests': len(requests),
        'created': len(load.created),
        'n503': sum(r.status == 503 for r in requests),
        'n503_improper': noted('improper 503', [
            r for r in requests
            if r.status == 503 and not is_proper_503(r)]),
        'other_5xx': noted('5xx', [
            r for r in requests
            if r.status is not None and r.status >= 500 and r.status != 503]),
        'errors': noted('error', [r for r in requests
                                  if r.error and not r.dropped]),
        'drops': noted('dropped', [r for r in requests if r.dropped]),
        'max_post': slowest('POST'), 'max_get': slowest('GET'),
        'max_delete': slowest('DELETE'),
        'max_latency': max([r.seconds for r in requests] or [0.0]),
    }
    lost = []
    for ident in load.created - load.deleted:
        status, doc = client.request('GET', '/v1/allocations/%s' % ident)
        if status != 200:
            lost.append((ident, status, doc))
    deadline = time.monotonic() + settle
    while True:
        allocations, nodes = _rows(db_url, resource_class)
        allocating = [a for a in allocations if a.state == 'allocating']
        if not allocating or time.monotonic() > deadline:
            break
        time.sleep(1)
    orphans = [a for a in allocations if a.uuid not in load.created]
    examples.extend(('orphan', a) for a in orphans[:3])
    examples.extend(('lost', x) for x in lost[:3])
    stuck = set(load.stuck) | {a.uuid for a in allocating}
    double, inconsistent = _bindings(allocations, nodes)
    examples.extend(('inconsistent', x) for x in inconsistent[:3])
    unallocatable, why = allocatable(client, db_url, resource_class,
                                     settle=settle)
    examples.extend(('unallocatable', x) for x in why[:3])
    return Outcome(orphans=len(orphans), stuck=len(stuck), double=double,
                   inconsistent=len(inconsistent), lost=len(lost),
                   unallocatable=unallocatable, examples=examples, **counts)


def _rows(db_url, resource_class):
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            allocations = conn.execute(sa.text(
                'SELECT id, uuid, node_id, state FROM baremetal_allocations '
                'WHERE resource_class = :rc'), {'rc': resource_class}).all()
            nodes = conn.execute(sa.text(
                'SELECT id, uuid, instance_uuid, allocation_id, '
                'provision_state, maintenance, reservation FROM nodes '
                'WHERE resource_class = :rc'), {'rc': resource_class}).all()
    finally:
        engine.dispose()
    return allocations, nodes


def _bindings(allocations, nodes):
    """(nodes bound by two allocations or more, bindings not the same
    on both sides)."""
    bound = collections.Counter(a.node_id for a in allocations
                                if a.node_id is not None)
    holders = collections.Counter(n.allocation_id for n in nodes
                                  if n.allocation_id is not None)
    double = sum(1 for count in bound.values() if count > 1) + sum(
        1 for count in holders.values() if count > 1)
    by_id = {a.id: a for a in allocations}
    node_ids = {n.id: n for n in nodes}
    bad = []
    for node in nodes:
        if node.allocation_id is None:
            continue
        allocation = by_id.get(node.allocation_id)
        if allocation is None or allocation.node_id != node.id or \
                allocation.state != 'active' or \
                node.instance_uuid != allocation.uuid:
            bad.append((node, allocation))
    for allocation in allocations:
        if allocation.node_id is not None:
            node = node_ids.get(allocation.node_id)
            if node is None or node.allocation_id != allocation.id:
                bad.append((node, allocation))
    return double, bad


def allocatable(client, db_url, resource_class, settle=60, threads=8):
    """How many of the ``resource_class`` nodes cannot be allocated, and
    why. Every allocation of the class is deleted (orphans included);
    then each node must be ``available``, out of maintenance, unlocked
    (``reservation`` NULL) and unbound; and as many allocations as
    there are nodes, created at once, must all become ``active``, on
    distinct nodes. They are deleted again, so that the next run finds
    the nodes free."""
    import concurrent.futures

    def delete(ident):
        deadline = time.monotonic() + settle
        while True:
            try:
                status, _ = client.request(
                    'DELETE', '/v1/allocations/%s' % ident)
            except OSError:
                status = None
            if status in (204, 404) or time.monotonic() > deadline:
                return status
            time.sleep(0.5)

    allocations, _nodes = _rows(db_url, resource_class)
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(delete, [a.uuid for a in allocations]))
    allocations, nodes = _rows(db_url, resource_class)
    why = [('not deleted', a) for a in allocations]
    why += [('not free', n) for n in nodes
            if n.provision_state != 'available' or n.maintenance or
            n.reservation is not None or n.allocation_id is not None or
            n.instance_uuid is not None]

    def allocate(_):
        ident = str(uuid.uuid4())
        deadline = time.monotonic() + settle
        while True:
            try:
                status, doc = client.request('POST', '/v1/allocations', {
                    'uuid': ident, 'resource_class': resource_class})
            except OSError as exc:
                status, doc = None, repr(exc)
            # 409: an earlier try of this one was created after all.
            if status in (201, 409):
                break
            if time.monotonic() > deadline:
                return ident, ('POST', status, doc)
            time.sleep(0.5)
        delay = 0.1
        while True:
            try:
                status, doc = client.request(
                    'GET', '/v1/allocations/%s' % ident)
            except OSError as exc:
                status, doc = None, repr(exc)
            if status == 200 and doc['state'] != 'allocating':
                return ident, doc
            if time.monotonic() > deadline:
                return ident, ('GET', status, doc)
            time.sleep(delay)
            delay = min(delay * 1.5, 1.0)

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(allocate, range(len(nodes))))
    active = {}
    for ident, doc in results:
        if isinstance(doc, dict) and doc.get('state') == 'active':
            active.setdefault(doc['node_uuid'], ident)
        else:
            why.append(('not allocated', doc))
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(delete, [ident for ident, _doc in results]))
    return len(nodes) - len(active), why


# -- reports ------------------------------------------------------------------

def summary(name, outcome, load=None, fault=None):
    """A few lines on ``outcome`` (and, given the ``load`` and the
    fault's (start, end), the requests under way during the fault)."""
    o = outcome._asdict()
    lines = ['== %s: %d requests, %d allocations created' % (
        name, o['requests'], o['created'])]
    lines.append(
        '   503: %d (%d without Retry-After or error body), other 5xx: %d, '
        'errors: %d, dropped: %d' % (
            o['n503'], o['n503_improper'], o['other_5xx'],
            o['errors'], o['drops']))
    lines.append('   slowest POST %.2f s, GET %.2f s, DELETE %.2f s' % (
        o['max_post'], o['max_get'], o['max_delete']))
    if load is not None and fault is not None and fault[0] is not None:
        began, ended = fault
        ended = ended if ended is not None else float('inf')
        # Sent during the fault, or still waiting when it began.
        during = [r.seconds for r in load.requests
                  if r.sent <= ended and r.sent + r.seconds >= began]
        lines.append('   during the fault: %d requests, slowest %.2f s' % (
            len(during), max(during or [0])))
    lines.append(
        '   orphans: %d, stuck: %d, double-bound: %d, inconsistent: %d, '
        'lost: %d, unallocatable nodes: %d' % (
            o['orphans'], o['stuck'], o['double'], o['inconsistent'],
            o['lost'], o['unallocatable']))
    for kind, example in o['examples'][:8]:
        lines.append('   e.g. %s: %s' % (kind, _short(example)))
    return '\n'.join(lines)


def _short(example, limit=300):
    if isinstance(example, Request):
        example = example._replace(body=str(example.body)[:120])
    text = str(example)
    return text if len(text) <= limit else text[:limit] + '...'


def problems(outcome, bound):
    """What ``outcome`` breaks of the goal: every answer within
    ``bound`` seconds, none dropped, no 5xx but a proper 503, nothing
    stuck, bound twice, inconsistent, lost or orphaned, every node
    allocatable at the end."""
    found = []
    if outcome.max_latency > bound:
        found.append('slowest answer %.2f s > %.1f s'
                     % (outcome.max_latency, bound))
    for field in ('drops', 'errors', 'n503_improper', 'other_5xx',
                  'stuck', 'double', 'inconsistent', 'lost', 'orphans',
                  'unallocatable'):
        if getattr(outcome, field):
            found.append('%s: %d' % (field, getattr(outcome, field)))
    if not outcome.created:
        found.append('no allocation created')
    return found


# -- the faults ---------------------------------------------------------------

Fault = collections.namedtuple('Fault', 'name text fault repair hold')

# The scenarios, in the order they run. A conductor killed stays dead:
# it is last on a shared cluster.
SCENARIOS = ('broker-cut-15', 'broker-cut-45', 'broker-partition-15',
             'db-connections-killed', 'conductor-stopped-20',
             'conductor-killed')


def faults(cluster, proxy, db_name, conductor='conductor-2'):
    """``Fault`` of each of ``SCENARIOS`` on ``cluster`` (a
    ``baremetal_cluster.Cluster`` whose conductors reach the broker
    through ``proxy``, on the MariaDB database ``db_name``). ``hold``:
    seconds until ``repair`` (None: no repair)."""
    killer = {}

    def kill_connections():
        stop = threading.Event()

        def loop():
            for _ in range(5):
                kill_database_connections(db_name)
                if stop.wait(1):
                    return
        thread = threading.Thread(target=loop, daemon=True)
        killer.update(stop=stop, thread=thread)
        thread.start()

    def stop_killing():
        killer['stop'].set()
        killer['thread'].join()

    return {f.name: f for f in [
        Fault('broker-cut-15', 'broker cut (connections closed, new ones '
              'refused) for 15 s', proxy.cut, proxy.restore, 15),
        Fault('broker-cut-45', 'broker cut for 45 s', proxy.cut,
              proxy.restore, 45),
        Fault('broker-partition-15', 'broker partitioned (connections '
              'open, no byte passes) for 15 s', proxy.partition,
              proxy.heal, 15),
        Fault('db-connections-killed', 'every database connection killed '
              '(MariaDB KILL) 5 times, a second apart', kill_connections,
              stop_killing, 5),
        Fault('conductor-stopped-20', '%s SIGSTOPped for 20 s, then '
              'SIGCONT' % conductor, lambda: cluster.pause(conductor),
              lambda: cluster.resume(conductor), 20),
        Fault('conductor-killed', '%s SIGKILLed (stays dead)' % conductor,
              lambda: cluster.kill(conductor), None, None),
    ]}


def kill_database_connections(db_name):
    """KILL every MariaDB connection to ``db_name``."""
    conn = pymysql.connect(host='127.0.0.1', user='root', autocommit=True)
    try:
        with conn.cursor() as cursor:
            cursor.execute(
                'SELECT id FROM information_schema.processlist '
                'WHERE db = %s AND id <> CONNECTION_ID()', (db_name,))
            for (ident,) in cursor.fetchall():
                try:
                    cursor.execute('KILL %d' % ident)
                except pymysql.MySQLError:
                    pass    # gone meanwhile
    finally:
        conn.close()


def client(cluster, timeout):
    """A client of ``cluster``'s API that waits ``timeout`` seconds."""
    return baremetal_cluster.Client(cluster.port, timeout=timeout)
