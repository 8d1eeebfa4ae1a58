"""SIGTERM stops a service promptly and cleanly.

* ``allocsvc-all`` on SQLite, after a little bare-metal work and with
  allocations still being created: on SIGTERM it refuses new connections
  at once, answers the request it was reading when the signal came,
  lets the conductor finish or hand back its allocations, unregisters it
  and exits with status 0 well within ``graceful_shutdown_timeout``. No
  node lock is left, no allocation is lost or failed, and those left
  ``allocating`` are finished by the next start.
* ``allocsvc-conductor`` over RabbitMQ (tooz over Redis): SIGTERM makes
  it unregister and exit with status 0.

The bounds asserted are the configured grace plus a wide margin (a
loaded machine), not performance figures.
"""

import concurrent.futures
import json
import socket
import sqlite3
import sys
import time
import uuid

from tests.helpers import net
from tests.helpers import processes
from tests.integration import baremetal_cluster as cluster_mod

GRACE = 20
# A stop that waits out the grace is a failure; the margin covers a
# slow machine starting to exit.
EXIT_BOUND = GRACE + 10
NODES = 6


def _conf(tmp_path, port, extra=''):
    path = tmp_path / 'allocsvc.conf'
    path.write_text(
        '[DEFAULT]\ngraceful_shutdown_timeout = %d\n%s'
        '[api]\nport = %d\nplacement_port = 0\n'
        '[database]\nconnection = sqlite:///%s\n'
        % (GRACE, extra, port, tmp_path / 'allocsvc.sqlite'))
    return path


def _start_all(group, tmp_path, port, name='all'):
    """Start allocsvc-all as ``name`` in ``group``; its client once its
    conductor is up."""
    group.spawn(name, [sys.executable, '-m', 'allocsvc.cmd.all',
                       '--config-file', str(_conf(tmp_path, port))])
    client = cluster_mod.Client(port)
    deadline = time.time() + 90
    while time.time() < deadline:
        group.check_running()
        try:
            status, body = client.request('GET', '/v1/conductors')
        except OSError:
            status = None
        if status == 200 and any(c['alive'] for c in body['conductors']):
            return client
        time.sleep(0.3)
    raise AssertionError('allocsvc-all did not start\n' + group.output())


def _refuses_connections(port, timeout=15):
    """True once a new connection to ``port`` is refused."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(('127.0.0.1', port), 1).close()
        except ConnectionRefusedError:
            return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def _start_partial_request(port, method, path, body):
    """A request whose headers and half of whose body are sent: the
    server has it in flight until the rest comes."""
    data = json.dumps(body).encode()
    sock = socket.create_connection(('127.0.0.1', port), 10)
    sock.settimeout(60)
    head = ('%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n'
            'X-OpenStack-Ironic-API-Version: %s\r\n'
            'Content-Type: application/json\r\nContent-Length: %d\r\n'
            'Connection: close\r\n\r\n'
            % (method, path, cluster_mod.API_VERSION, len(data)))
    half = len(data) // 2
    sock.sendall(head.encode() + data[:half])
    return sock, data[half:]


def _finish_request(sock, rest):
    sock.sendall(rest)
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
    sock.close()
    raw = b''.join(chunks)
    head, _sep, body = raw.partition(b'\r\n\r\n')
    status = int(head.split(b' ', 2)[1]) if head else None
    return status, body


def _rows(db_path, query):
    conn = sqlite3.connect(str(db_path))
    try:
        return conn.execute(query).fetchall()
    finally:
        conn.close()


def _wait_exit(group, name):
    proc = group.procs[name]
    start = time.monotonic()
    try:
        code = proc.wait(EXIT_BOUND)
    except Exception:
        raise AssertionError('%s still running %ss after SIGTERM\n%s' % (
            name, EXIT_BOUND, group.output()))
    return code, time.monotonic() - start


def test_all_in_one_stops_cleanly_on_sigterm(tmp_path):
    group = processes.ProcessGroup(tmp_path)
    port = net.free_port()
    try:
        client = _start_all(group, tmp_path, port)
        cluster_mod.enrol(client, NODES, 'shutdown-rc', threads=3)

        def allocate(_):
            return client.request('POST', '/v1/allocations',
                                  {'resource_class': 'shutdown-rc'})

        with concurrent.futures.ThreadPoolExecutor(NODES) as pool:
            answers = list(pool.map(allocate, range(NODES)))
        assert [s for s, _b in answers] == [201] * NODES, answers
        created = {b['uuid'] for _s, b in answers}

        node_name = 'inflight-%s' % uuid.uuid4().hex[:8]
        sock, rest = _start_partial_request(
            port, 'POST', '/v1/nodes',
            {'driver': 'fake-hardware', 'name': node_name,
             'description': 'x' * 2000})
        # Give the listener time to accept the connection (it takes it
        # within its poll interval); only then is it in flight.
        time.sleep(1)
        group.procs['all'].terminate()
        assert _refuses_connections(port), group.output()
        status, body = _finish_request(sock, rest)
        assert status == 201, (status, body, group.output())
        code, _took = _wait_exit(group, 'all')
        assert code == 0, group.output()

        log = group.output()
        assert 'Traceback' not in log, log
        db = tmp_path / 'allocsvc.sqlite'
        assert _rows(db, 'SELECT hostname FROM conductors WHERE online') \
            == []
        assert _rows(db, 'SELECT uuid FROM nodes WHERE reservation IS '
                     'NOT NULL') == []
        assert _rows(db, "SELECT name FROM nodes WHERE name = '%s'"
                     % node_name) == [(node_name,)]
        states = dict(_rows(
            db, 'SELECT uuid, state FROM baremetal_allocations'))
        assert set(states) == created
        assert set(states.values()) <= {'active', 'allocating'}, states

    finally:
        group.stop()
    # What was handed back is finished by the next start.
    again = processes.ProcessGroup(tmp_path)
    try:
        client = _start_all(again, tmp_path, port, name='all-again')
        final = [cluster_mod.wait_final(client, ident, timeout=60)
                 for ident in created]
        assert {a['state'] for a in final} == {'active'}, final
    finally:
        again.stop()


def test_conductor_unregisters_on_sigterm(tmp_path):
    cluster_mod.require_services('rabbitmq', 'redis')
    db = tmp_path / 'allocsvc.sqlite'
    cluster_mod.migrate('sqlite:///%s' % db)
    run = uuid.uuid4().hex[:8]
    host = 'conductor-shutdown-%s' % run
    conf = tmp_path / 'conductor.conf'
    conf.write_text(
        '[DEFAULT]\nhost = %s\ntransport_url = %s\ncontrol_exchange = '
        'allocsvc_test_%s\ngraceful_shutdown_timeout = %d\n'
        '[database]\nconnection = sqlite:///%s\n'
        '[conductor]\ncoordination_backend_url = %s\n'
        % (host, cluster_mod.RABBIT, run, GRACE, db, cluster_mod.REDIS))
    group = processes.ProcessGroup(tmp_path)
    try:
        group.spawn('conductor', [str(cluster_mod.BIN / 'allocsvc-conductor'),
                                  '--config-file', str(conf)])
        deadline = time.time() + 60
        while not _rows(db, 'SELECT 1 FROM conductors WHERE online'):
            group.check_running()
            assert time.time() < deadline, group.output()
            time.sleep(0.2)
        # Started: the row is written before the RPC server starts.
        time.sleep(1)
        group.procs['conductor'].terminate()
        code, _took = _wait_exit(group, 'conductor')
        assert code == 0, group.output()
        assert _rows(db, 'SELECT hostname, online FROM conductors') == [
            (host, 0)]
        assert 'Traceback' not in group.output(), group.output()
    finally:
        group.stop()
