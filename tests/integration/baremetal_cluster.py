"""Run the bare-metal service as it is deployed, for end-to-end races.

``Cluster`` starts ``allocsvc-api`` under gunicorn and several
``allocsvc-conductor`` processes over RabbitMQ (a control exchange of
its own, so concurrent runs do not meet) on a real database, or
``allocsvc-all`` alone on SQLite (the embedded default). ``Client`` speaks
Ironic's API with one keep-alive connection per thread, and
``enrol``/``race`` are the workload the tests share.
"""

import concurrent.futures
import http.client
import json
import pathlib
import sys
import threading
import time
import uuid

from tests import backends
from tests.helpers import net
from tests.helpers import processes
from tests.helpers import waiting

RABBIT = 'rabbit://guest:guest@127.0.0.1:5672/'
REDIS = 'redis://127.0.0.1:6379'
BIN = pathlib.Path(sys.executable).parent
API_VERSION = '1.60'
NOTHING_LEFT = ('no available nodes', 'no suitable nodes',
                'could not reserve', 'filtered out during reservation')


def require_services(*names):
    """Skip (fail with CI=true) unless RabbitMQ / Redis answer."""
    ports = {'rabbitmq': 5672, 'redis': 6379}
    import socket
    for name in names:
        try:
            socket.create_connection(('127.0.0.1', ports[name]), 2).close()
        except OSError as exc:
            backends.unavailable('%s is not reachable on 127.0.0.1:%d: %s'
                                 % (name, ports[name], exc))


def fresh_database(request, backend, name):
    """The URL of a new empty database ``name`` on ``backend``, dropped
    when the test ends (skipped, or failed with CI=true, if the server
    is down)."""
    try:
        url = backends._create_database(backend, name)
    except backends.Unavailable as exc:
        backends.unavailable(str(exc))
    request.addfinalizer(lambda: backends.drop_database(backend, name))
    return url


def migrate(url):
    """Upgrade the schema of the database at ``url`` to head."""
    import sqlalchemy as sa
    from allocsvc.db import migration
    engine = sa.create_engine(url)
    try:
        migration.upgrade(engine=engine)
    finally:
        engine.dispose()


class Client:
    """Ironic's API (``headers``), one keep-alive connection per
    thread; ``timeout``: seconds a connect or a read may wait."""

    headers = {'X-OpenStack-Ironic-API-Version': API_VERSION,
               'Accept': 'application/json'}

    def __init__(self, port, timeout=60):
        self.port = port
        self.timeout = timeout
        self._local = threading.local()

    def request(self, method, path, body=None):
        """(status, parsed body)."""
        status, parsed, _headers = self.exchange(method, path, body)
        return status, parsed

    def exchange(self, method, path, body=None):
        """(status, parsed body, response headers as an
        ``http.client.HTTPMessage``). A connection that fails is retried
        once on a new one (a keep-alive connection the server closed);
        a timeout is not: the request was sent and went unanswered, and
        the caller is to know."""
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body)
            headers['Content-Type'] = 'application/json'
        for attempt in (1, 2):
            conn = getattr(self._local, 'conn', None)
            if conn is None:
                conn = http.client.HTTPConnection('127.0.0.1', self.port,
                                                  timeout=self.timeout)
                self._local.conn = conn
            try:
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                raw = resp.read()
                break
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                self._local.conn = None
                if attempt == 2 or isinstance(exc, TimeoutError):
                    raise
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors='replace')
        return resp.status, parsed, resp.headers

    def ok(self, method, path, body=None):
        status, parsed = self.request(method, path, body)
        assert status < 300, (method, path, status, parsed)
        return parsed

    def list(self, resource):
        items, path = [], '/v1/%s?limit=1000' % resource
        while path:
            doc = self.ok('GET', path)
            items.extend(doc[resource])
            nxt = doc.get('next')
            path = nxt[nxt.index('/v1/'):] if nxt else None
        return items


class Cluster(processes.ProcessGroup):
    """``conductors`` conductor processes + gunicorn API on ``db_url``
    over RabbitMQ; or, with ``db_url=None``, ``allocsvc-all`` on a SQLite
    file in ``workdir``; the conductors allocate through ``backend``.
    ``transport_url``: the broker's (a proxy's, to cut it); ``extra``:
    more configuration, ``{section: {option: value}}``, for every
    process."""

    def __init__(self, workdir, db_url=None, conductors=3, workers=2,
                 threads=8, backend='database', transport_url=RABBIT,
                 extra=None):
        super().__init__(pathlib.Path(workdir))
        self.backend = backend
        self.transport_url = transport_url
        self.extra = extra or {}
        if db_url is None:
            self._start_embedded()
        else:
            self._start_distributed(db_url, conductors, workers, threads)
        self.client = Client(self.port)
        try:
            self.wait_ready(1 if db_url is None else conductors)
        except BaseException:
            # Nobody else would stop what never became ready.
            self.stop()
            raise

    def stop(self, timeout=30):
        """The end of a test: conductor processes are killed, not asked
        to stop. Their graceful stop (two seconds, a second each for the
        broker's consumer and the executor's idle threads) is
        test_shutdown's to check, and nothing here reads what it leaves.
        The API stops gracefully: its workers hold database connections
        that dropping the database would wait for."""
        super().stop(timeout, kill=['conductor-'])

    def _start_embedded(self):
        self.port = net.free_port()
        conf = self.workdir / 'allocsvc.conf'
        conf.write_text('[api]\nport = %d\nplacement_port = 0\n'
                        '[database]\nconnection = sqlite:///%s\n'
                        '[conductor]\nallocation_backend = %s\n'
                        % (self.port, self.workdir / 'allocsvc.sqlite',
                           self.backend))
        self.spawn('all', [str(BIN / 'allocsvc-all'), '--config-file',
                           str(conf)])

    def _start_distributed(self, db_url, conductors, workers, threads):
        # RabbitMQ queues are named after the topic and the host, not the
        # exchange: unique host names keep concurrent runs apart.
        run = uuid.uuid4().hex[:8]
        self.exchange = 'allocsvc_test_%s' % run
        self.hosts = ['conductor-%d-%s' % (i, run) for i in range(conductors)]
        # Heartbeats arrive seconds late on a loaded 2-core machine: a
        # shorter timeout would declare live conductors dead.
        common = ('[DEFAULT]\ntransport_url = %s\ncontrol_exchange = '
                  '%s\n[database]\nconnection = %s\n'
                  'max_pool_size = 5\nmax_overflow = 5\n'
                  '[conductor]\nheartbeat_interval = 1\n'
                  'heartbeat_timeout = 10\ncheck_allocations_interval = 1\n'
                  'coordination_backend_url = %s\n'
                  'allocation_backend = %s\n'
                  % (self.transport_url, self.exchange, db_url, REDIS,
                     self.backend))
        # Later lines of a section win in oslo.config.
        for section, options in self.extra.items():
            common += '[%s]\n' % section + ''.join(
                '%s = %s\n' % item for item in options.items())
        for i, host in enumerate(self.hosts):
            conf = self.workdir / ('conductor-%d.conf' % i)
            conf.write_text(common.replace(
                '[DEFAULT]\n', '[DEFAULT]\nhost = %s\n' % host))
            self.spawn('conductor-%d' % i, [
                str(BIN / 'allocsvc-conductor'), '--config-file', str(conf)])
        api_conf = self.workdir / 'api.conf'
        api_conf.write_text(common + '[api]\nauth_strategy = noauth\n')
        self.port = net.free_port()
        self.spawn('api', [
            sys.executable, '-m', 'gunicorn', '--workers', str(workers),
            '--threads', str(threads), '--worker-class', 'gthread',
            '--bind', '127.0.0.1:%d' % self.port, '--graceful-timeout', '5',
            'allocsvc.api.wsgi:init_application()'],
            env={'ALLOCSVC_CONFIG_FILE': str(api_conf)})

    def wait_ready(self, conductors, timeout=90):
        deadline = time.time() + timeout

        def ready():
            try:
                status, body = self.client.request('GET', '/v1/conductors')
            except OSError:
                return False
            return status == 200 and sum(
                c['alive'] for c in body['conductors']) >= conductors
        if not waiting.wait_for(ready, timeout, interval=0.3,
                                max_interval=0.3, process=self, fail=False):
            raise RuntimeError('not ready\n' + self.output())
        if getattr(self, 'hosts', None):
            self.wait_rpc_servers(deadline)

    def wait_rpc_servers(self, deadline):
        """Until every conductor answers an RPC call: a heartbeat only
        says it registered, not that its RPC server consumes yet (a
        message sent before is lost). The call renames an allocation
        that does not exist; any answer will do."""
        from allocsvc.common import context
        from allocsvc.common import exception
        from allocsvc.common import rpc
        from allocsvc.conductor import rpcapi
        from tests import conftest
        conf = conftest.make_conf(conductor_call_timeout=2.0)
        conf.set_override('transport_url', self.transport_url)
        conf.set_override('control_exchange', self.exchange)
        client = rpcapi.ConductorAPI(conf)
        admin = context.get_admin_context()
        try:
            for host in self.hosts:
                while True:
                    try:
                        client._call(admin, host, '1.1', 'update_allocation',
                                     allocation_id=0, changes={})
                    except exception.NoConductorAvailable:
                        self.check_running()
                        if time.time() > deadline:
                            raise RuntimeError('%s does not answer RPC\n%s'
                                               % (host, self.output()))
                        continue
                    except rpc.RemoteAllocsvcError:
                        pass
                    break
        finally:
            client.transport.cleanup()


# How many times ``patient`` sends a request the service answered 503.
PATIENCE = 10


def patient(client, method, path, body=None, done_if=None):
    """``client.ok``, sending the request again after a 503 (at its
    Retry-After, at most a second) or a 409 for a locked node, as a
    polite client does: on a loaded machine a conductor may be slow
    enough to be passed over while it still works on the request.
    ``done_if``: a status that, after a 503, means the earlier attempt
    did the work (the parsed body is then None)."""
    for attempt in range(PATIENCE):
        status, parsed, headers = client.exchange(method, path, body)
        # 503, or the node locked by the operation of an earlier attempt
        # (409 "... is locked by host ..."; ironicclient retries it too).
        if attempt + 1 < PATIENCE and (status == 503 or (
                status == 409 and 'is locked by host' in str(parsed))):
            time.sleep(min(1.0, float(headers.get('Retry-After') or 1)))
            continue
        if attempt and status == done_if:
            return None
        assert status < 300, (method, path, status, parsed)
        return parsed


def enrol(client, count, resource_class, traits=(), threads=16):
    """``count`` fake-hardware nodes, powered off and ``available``,
    through ``patient`` requests."""
    def one(i):
        name = 'node-%d' % i
        node = patient(client, 'POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': name,
            'resource_class': resource_class}, done_if=409)
        if node is None:
            node = client.ok('GET', '/v1/nodes/%s' % name)
        for trait in traits:
            patient(client, 'PUT', '/v1/nodes/%s/traits/%s'
                    % (node['uuid'], trait))
        patient(client, 'PUT', '/v1/nodes/%s/states/power' % node['uuid'],
                {'target': 'power off'})
        for verb in ('manage', 'provide'):
            # A 400 after a 503: the earlier attempt moved the node on.
            patient(client, 'PUT', '/v1/nodes/%s/states/provision'
                    % node['uuid'], {'target': verb}, done_if=400)
        return node['uuid']

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, range(count)))


class RaceResult:
    def __init__(self):
        self.lock = threading.Lock()
        self.created = []
        self.statuses = []      # unexpected HTTP answers
        self.errors = []        # allocations in error not for lack of nodes


def wait_final(client, ident, timeout=120):
    """The allocation ``ident`` once it is no longer ``allocating``,
    polled as a client would (from 50 ms, backing off to 250 ms: every
    poll is a request the service under test must answer)."""
    delay, deadline = 0.05, time.time() + timeout
    while time.time() < deadline:
        body = client.ok('GET', '/v1/allocations/%s' % ident)
        if body['state'] != 'allocating':
            return body
        time.sleep(delay)
        delay = min(delay * 1.5, 0.25)
    return body


def race(client, clients, resource_class, traits=(), on_progress=None,
         wait=True):
    """``clients`` threads create allocations until each is told that no
    node is left. With ``wait=False`` a client does not wait for its
    allocation to finish before creating the next one (the test checks
    the outcome later), which keeps many allocations in flight."""
    result = RaceResult()

    def worker(_):
        while True:
            status, body = client.request('POST', '/v1/allocations', {
                'resource_class': resource_class, 'traits': list(traits)})
            if status != 201:
                with result.lock:
                    result.statuses.append((status, body))
                return
            with result.lock:
                result.created.append(body['uuid'])
                count = len(result.created)
            if on_progress:
                on_progress(count)
            if not wait:
                if count >= 400:
                    return
                continue
            final = wait_final(client, body['uuid'])
            if final['state'] == 'active':
                continue
            if final['state'] == 'error' and any(
                    sign in (final['last_error'] or '')
                    for sign in NOTHING_LEFT):
                return
            with result.lock:
                result.errors.append(final)
            return

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(worker, range(clients)))
    return result


def settle(client, timeout=120):
    """Every allocation, once none is ``allocating`` any more."""
    deadline = time.time() + timeout
    while True:
        allocations = client.list('allocations')
        if not any(a['state'] == 'allocating' for a in allocations) or \
                time.time() > deadline:
            return allocations
        time.sleep(0.5)


def check_outcome(client, allocations, node_uuids):
    """No allocation left ``allocating``; every active one on its own
    node; each node's instance is its allocation."""
    stuck = [a for a in allocations if a['state'] == 'allocating']
    assert not stuck, stuck[:3]
    active = [a for a in allocations if a['state'] == 'active']
    holders = {}
    for alloc in active:
        assert alloc['node_uuid'] not in holders, alloc
        holders[alloc['node_uuid']] = alloc['uuid']
    assert set(holders) <= set(node_uuids)
    nodes = {n['uuid']: n for n in client.list('nodes')}
    for node_uuid, alloc_uuid in holders.items():
        assert nodes[node_uuid]['instance_uuid'] == alloc_uuid
    return holders
