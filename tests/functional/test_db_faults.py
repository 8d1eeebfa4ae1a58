"""A lost or unreachable database, as both APIs and a conductor meet it.

Scenarios (MariaDB and PostgreSQL, whose connections the test kills on
the server: ``KILL <id>``, ``pg_terminate_backend(pid)``):

* Every connection of the service killed between requests (stale in the
  pool): GET, POST and DELETE of Placement and of ``/v1`` succeed.
* A connection killed in the middle of a transaction, just before one of
  its statements: the whole transaction runs again on a new connection
  and the request succeeds, its change written once.
* The database down (nothing listens on its port, or the server refuses
  new connections after it killed the one in use; on every backend, new
  connections failing as the driver fails them): both APIs answer 503
  in their own error format, never a 500, and nothing is half-written.
* A transaction whose COMMIT succeeded but whose connection died before
  the answer came (MariaDB; PostgreSQL's driver does not ask again):
  the re-run finds its own work -- a node lock taken or given back, a
  provider or an allocation created, an allocation deleted -- and the
  request succeeds instead of answering 409/404 about it.
* A conductor whose connection is killed while it binds a node finishes
  the allocation (``active``); one that meets a database that is down
  leaves the allocation ``allocating`` (not ``error``), and its periodic
  check finishes it once the database is back.
* ``last_error`` of an allocation that fails on a database error tells
  the user what to do, and holds no SQL.
"""

import contextlib
import socket
import sqlite3

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import pymysql
import psycopg2
import pytest
import sqlalchemy as sa

from allocsvc.common import context as context_mod
from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import backends as allocation_backends
from allocsvc.conductor import locking
from allocsvc.conductor import mirror
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes as db_nodes
from allocsvc.db import models
from tests import backends
from tests.client import placement_request
from tests import conftest
from tests.functional import conductor_harness
from tests.functional.ironic_errors import fault
from tests.helpers import apps as wsgi_apps
from tests.helpers.db_faults import kill
from tests.helpers import v1_allocations as v1
from tests.helpers import waiting

UNAVAILABLE = 'The database is unavailable. Please try again later.'


@pytest.fixture
def fast_retries(monkeypatch):
    """The DB layer's retries come faster (as many of them)."""
    monkeypatch.setattr(db_api._RETRY, 'retry_interval', 0.001)
    monkeypatch.setattr(db_api._RETRY, 'max_retry_interval', 0.01)


@pytest.fixture(params=('mysql', 'postgresql'))
def server_db(request, fast_retries):
    """A clean database on a server whose connections can be killed."""
    db = conftest.get_database(request.param)
    db.clean()
    return db


# -- faults ------------------------------------------------------------------

def _own_id(backend, dbapi_connection):
    if backend == 'mysql':
        return dbapi_connection.thread_id()
    return dbapi_connection.get_backend_pid()


@contextlib.contextmanager
def killed_before(database, pattern, times=1):
    """Kill the connection about to run a statement containing
    ``pattern`` (``times`` times), on the server, just before it runs:
    the transaction it belongs to loses its connection midway. Yields a
    list of the killed ids."""
    killed = []

    def before(conn, cursor, statement, parameters, context, executemany):
        if len(killed) < times and pattern in statement:
            killed.extend(kill(database.backend,
                               [_own_id(database.backend,
                                        cursor.connection)]))

    sa.event.listen(database.engine, 'before_cursor_execute', before)
    try:
        yield killed
    finally:
        sa.event.remove(database.engine, 'before_cursor_execute', before)


def _refusal(backend):
    """The error the DBAPI driver raises for a server that refuses
    connections (for SQLite, a database file it cannot use any more)."""
    if backend == 'sqlite':
        return sqlite3.ProgrammingError('Cannot operate on a closed '
                                        'database.')
    if backend == 'mysql':
        return pymysql.err.OperationalError(
            2003, "Can't connect to MySQL server on '127.0.0.1' "
                  "([Errno 111] Connection refused)")
    return psycopg2.OperationalError(
        'connection to server at "127.0.0.1", port 5432 failed: '
        'Connection refused')


@contextlib.contextmanager
def refusing(database):
    """New connections fail as ``_refusal`` says; the pooled ones are
    closed."""
    def connect(dialect, conn_rec, cargs, cparams):
        raise _refusal(database.backend)

    sa.event.listen(database.engine, 'do_connect', connect)
    database.engine.pool.dispose()
    try:
        yield
    finally:
        sa.event.remove(database.engine, 'do_connect', connect)


@contextlib.contextmanager
def commit_answer_lost(database, pattern, meanwhile=None):
    """The first transaction that runs a statement containing ``pattern``
    commits, and its connection is killed before the answer to its
    COMMIT is read: the client cannot know that it committed. Yields a
    list that is not empty once that happened. ``meanwhile`` (SQL) runs
    on another connection between the commit and the kill."""
    armed, done = [], []

    def before(conn, cursor, statement, parameters, context, executemany):
        if not done and pattern in statement:
            armed.append(cursor.connection)

    def commit(conn):
        if armed and not done:
            dbapi_connection = armed.pop()
            dbapi_connection.commit()
            if meanwhile is not None:
                other = sa.create_engine(database.url)
                try:
                    with other.begin() as conn:
                        conn.execute(sa.text(meanwhile))
                finally:
                    other.dispose()
            kill(database.backend, [_own_id(database.backend,
                                            dbapi_connection)])
            done.append(pattern)

    sa.event.listen(database.engine, 'before_cursor_execute', before)
    sa.event.listen(database.engine, 'commit', commit)
    try:
        yield done
    finally:
        sa.event.remove(database.engine, 'commit', commit)
        sa.event.remove(database.engine, 'before_cursor_execute', before)


@contextlib.contextmanager
def going_down(database, pattern):
    """Kill the connection about to run a statement containing
    ``pattern``, and from then on refuse new connections (close the
    pooled ones): a server that went down in the middle of a
    transaction. Yields a list that is not empty once it went down."""
    down = []

    def connect(dialect, conn_rec, cargs, cparams):
        if down:
            raise _refusal(database.backend)

    def before(conn, cursor, statement, parameters, context, executemany):
        if not down and pattern in statement:
            kill(database.backend, [_own_id(database.backend,
                                            cursor.connection)])
            down.append(pattern)
            database.engine.pool.dispose()

    sa.event.listen(database.engine, 'do_connect', connect)
    sa.event.listen(database.engine, 'before_cursor_execute', before)
    try:
        yield down
    finally:
        sa.event.remove(database.engine, 'before_cursor_execute', before)
        sa.event.remove(database.engine, 'do_connect', connect)


def _closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def database_down(backend):
    """Every transaction goes to a server address where nothing
    listens."""
    url = backends._SERVER_URLS[backend].rsplit(':', 1)[0]
    manager = enginefacade.transaction_context()
    url = '%s:%d/%s' % (url, _closed_port(), backends.DB_NAME)
    manager.configure(connection=url, max_retries=0)
    reset = db_api.context_manager.patch_factory(manager)
    try:
        yield
    finally:
        reset()
        manager.dispose_pool()


# -- the APIs ----------------------------------------------------------------

class Apps:
    """Both APIs, in process, with the API tests' conductor."""

    def __init__(self):
        self.env = v1.Env()
        self.placement = wsgi_apps.placement()

    def p(self, method, path, body=None):
        return placement_request(self.placement, method, path, '1.39',
                                 body)

    def v1(self, method, path, body=None):
        return self.env.call(method, path, body)

    def providers(self):
        return [rp['name'] for rp in
                self.p('GET', '/resource_providers').json[
                    'resource_providers']]


@pytest.fixture
def apps(server_db):
    return Apps()


def test_requests_after_every_connection_was_killed(apps, server_db):
    backend = server_db.backend
    node = apps.env.node('n1')
    kill(backend)
    resp = apps.p('POST', '/resource_providers', {'name': 'rp1'})
    assert resp.status_int == 200, resp.text
    rp = resp.json['uuid']
    kill(backend)
    assert apps.p('GET', '/resource_providers').status_int == 200
    kill(backend)
    assert apps.p('DELETE', '/resource_providers/%s' % rp).status_int == 204
    kill(backend)
    resp = apps.v1('POST', '/v1/allocations', {'resource_class': 'baremetal'})
    assert resp.status_int == 201, resp.text
    allocation = resp.json['uuid']
    apps.env.bind(resp.json, node)
    kill(backend)
    resp = apps.v1('GET', '/v1/allocations/%s' % allocation)
    assert resp.status_int == 200 and resp.json['state'] == 'active'
    # The API's conductor frees the node: its connections are gone too.
    kill(backend)
    resp = apps.v1('DELETE', '/v1/allocations/%s' % allocation)
    assert resp.status_int == 204, resp.text
    assert apps.v1('GET', '/v1/allocations').json['allocations'] == []
    assert 'rp1' not in apps.providers()
    assert db_nodes.get_by_id(apps.env.ctx, node.id).instance_uuid is None


def test_placement_writes_survive_a_connection_killed_midway(apps,
                                                             server_db):
    with killed_before(server_db, 'INSERT INTO resource_providers') as k:
        resp = apps.p('POST', '/resource_providers', {'name': 'rp1'})
    assert k and resp.status_int == 200, resp.text
    rp = resp.json['uuid']
    assert apps.providers() == ['rp1']
    with killed_before(server_db, 'INSERT INTO inventories') as k:
        resp = apps.p('PUT', '/resource_providers/%s/inventories' % rp, {
            'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': 8}}})
    assert k and resp.status_int == 200, resp.text
    consumer = '0d7a4c3e-8b1f-4e2a-9c6d-5f4e3d2c1b0a'
    with killed_before(server_db, 'INSERT INTO allocations') as k:
        resp = apps.p('PUT', '/allocations/%s' % consumer, {
            'allocations': {rp: {'resources': {'VCPU': 2}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'INSTANCE'})
    assert k and resp.status_int == 204, resp.text
    # Written once, whole.
    assert apps.p('GET', '/resource_providers/%s/usages' % rp).json[
        'usages'] == {'VCPU': 2}
    with killed_before(server_db, 'FROM resource_providers') as k:
        resp = apps.p('GET', '/resource_providers/%s' % rp)
    assert k and resp.status_int == 200, resp.text
    with killed_before(server_db, 'DELETE FROM allocations') as k:
        resp = apps.p('DELETE', '/allocations/%s' % consumer)
    assert k and resp.status_int == 204, resp.text
    assert apps.p('GET', '/resource_providers/%s/usages' % rp).json[
        'usages'] == {'VCPU': 0}


def test_baremetal_requests_survive_a_connection_killed_midway(apps,
                                                               server_db):
    node = apps.env.node('n1')
    with killed_before(server_db, 'INSERT INTO baremetal_allocations') as k:
        resp = apps.v1('POST', '/v1/allocations',
                       {'resource_class': 'baremetal', 'name': 'a1'})
    assert k and resp.status_int == 201, resp.text
    assert [a.name for a in apps.env.rows()] == ['a1']
    apps.env.bind(resp.json, node)
    with killed_before(server_db, 'FROM baremetal_allocations') as k:
        resp = apps.v1('GET', '/v1/allocations')
    assert k and resp.status_int == 200, resp.text
    assert [a['name'] for a in resp.json['allocations']] == ['a1']
    # In the conductor, which deletes it and frees its node in one
    # transaction.
    with killed_before(server_db, 'DELETE FROM baremetal_allocations') as k:
        resp = apps.v1('DELETE', '/v1/allocations/a1')
    assert k and resp.status_int == 204, resp.text
    assert apps.env.rows() == []
    assert db_nodes.get_by_id(apps.env.ctx, node.id).instance_uuid is None


def test_provider_whose_commit_answer_was_lost(apps, server_db):
    """The provider was created, but the answer to the COMMIT was lost:
    the re-run returns it rather than a 409 for the client's own name."""
    with commit_answer_lost(server_db, 'INSERT INTO resource_providers') \
            as lost:
        resp = apps.p('POST', '/resource_providers', {'name': 'rp1'})
    assert lost
    assert resp.status_int == 200, resp.text
    assert apps.providers() == ['rp1']
    assert apps.p('POST', '/resource_providers',
                  {'name': 'rp1'}).status_int == 409


def test_allocation_whose_commit_answer_was_lost(apps, server_db):
    """The API's insert committed, its connection died before the answer:
    the re-run finds its own row (the UUID is the API's) rather than
    answering 409 for the client's own allocation."""
    with commit_answer_lost(server_db, 'INSERT INTO baremetal_allocations') \
            as lost:
        resp = apps.v1('POST', '/v1/allocations',
                       {'resource_class': 'baremetal', 'name': 'a1'})
    assert lost
    assert resp.status_int == 201, resp.text
    assert [a.uuid for a in apps.env.rows()] == [resp.json['uuid']]
    assert [c[0].uuid for c in apps.env.rpc.casts] == [resp.json['uuid']]
    # A client's own clash is still one.
    resp = apps.v1('POST', '/v1/allocations',
                   {'resource_class': 'baremetal', 'name': 'a1'})
    assert resp.status_int == 409
    # Deleting it: 204, not a 404 from the re-run.
    with commit_answer_lost(server_db, 'DELETE FROM baremetal_allocations') \
            as lost:
        resp = apps.v1('DELETE', '/v1/allocations/a1')
    assert lost
    assert resp.status_int == 204, resp.text
    assert apps.env.rows() == []
    # The conductor's periodic check may run the row before the re-run
    # reads it: still the API's own row, not a 409.
    with commit_answer_lost(
            server_db, 'INSERT INTO baremetal_allocations',
            meanwhile="UPDATE baremetal_allocations SET state = 'error' "
                      "WHERE name = 'a2'") as lost:
        resp = apps.v1('POST', '/v1/allocations',
                       {'resource_class': 'baremetal', 'name': 'a2'})
    assert lost
    assert resp.status_int == 201, resp.text
    assert resp.json['name'] == 'a2'


def _placement_503(resp):
    assert resp.status_int == 503, resp.text
    (error,) = resp.json['errors']
    assert error['status'] == 503
    assert error['title'] == 'Service Unavailable'
    assert UNAVAILABLE in error['detail']
    assert error['code'] == 'placement.undefined_code'
    assert error['request_id']


def _baremetal_503(resp):
    assert resp.status_int == 503, resp.text
    assert fault(resp) == {'faultcode': 'Server', 'faultstring': UNAVAILABLE,
                           'debuginfo': None}


def test_database_down_is_503(apps, server_db):
    node = apps.env.node('n1')
    doc = apps.env.create(name='a1')
    with database_down(server_db.backend):
        _placement_503(apps.p('GET', '/resource_providers'))
        _placement_503(apps.p('POST', '/resource_providers',
                              {'name': 'rp1'}))
        _placement_503(apps.p('GET', '/allocation_candidates'
                              '?resources=VCPU:1'))
        _baremetal_503(apps.v1('GET', '/v1/allocations'))
        _baremetal_503(apps.v1('POST', '/v1/allocations',
                               {'resource_class': 'baremetal'}))
        _baremetal_503(apps.v1('DELETE', '/v1/allocations/a1'))
        _baremetal_503(apps.v1('GET', '/v1/nodes/%s' % node.uuid))
    assert 'rp1' not in apps.providers()
    assert [a.uuid for a in apps.env.rows()] == [doc['uuid']]


def test_refused_connections_are_503_on_every_backend(database,
                                                      fast_retries):
    apps = Apps()
    with refusing(database):
        _placement_503(apps.p('POST', '/resource_providers',
                              {'name': 'rp1'}))
        _baremetal_503(apps.v1('POST', '/v1/allocations',
                               {'resource_class': 'baremetal'}))
        _baremetal_503(apps.v1('GET', '/v1/allocations'))
    assert 'rp1' not in apps.providers()
    assert apps.env.rows() == []


def test_database_lost_midway_is_503_and_nothing_half_written(apps,
                                                              server_db):
    resp = apps.p('POST', '/resource_providers', {'name': 'rp1'})
    rp = resp.json['uuid']
    apps.p('PUT', '/resource_providers/%s/inventories' % rp, {
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 8}}})
    consumer = '0d7a4c3e-8b1f-4e2a-9c6d-5f4e3d2c1b0a'
    # The consumer row is written, then the connection dies and the
    # server takes no new ones.
    with going_down(server_db, 'INSERT INTO allocations') as k:
        resp = apps.p('PUT', '/allocations/%s' % consumer, {
            'allocations': {rp: {'resources': {'VCPU': 2}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'INSTANCE'})
    assert k
    _placement_503(resp)
    with server_db.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(
            models.consumers)).scalar() == 0
    assert apps.p('GET', '/resource_providers/%s' % rp).json[
        'generation'] == 1

    with going_down(server_db, 'INSERT INTO baremetal_allocations') as k:
        resp = apps.v1('POST', '/v1/allocations',
                       {'resource_class': 'baremetal'})
    assert k
    _baremetal_503(resp)
    assert apps.env.rows() == []
    assert apps.env.rpc.casts == []

    # In the conductor, across RPC: the allocation and its node stay as
    # they were.
    node = apps.env.node('n1')
    doc = apps.env.create(name='a1')
    apps.env.bind(doc, node)
    with going_down(server_db, 'DELETE FROM baremetal_allocations') as k:
        resp = apps.v1('DELETE', '/v1/allocations/a1')
    assert k
    _baremetal_503(resp)
    assert [a.node_id for a in apps.env.rows()] == [node.id]
    assert db_nodes.get_by_id(apps.env.ctx,
                              node.id).instance_uuid == doc['uuid']


# -- node locks --------------------------------------------------------------

@pytest.mark.parametrize('pattern', ['AND nodes.reservation IS NULL',
                                     'AND nodes.reservation = '])
def test_lock_whose_commit_answer_was_lost(server_db, pattern):
    """Taking or giving back a node's lock commits, but the connection
    dies before the COMMIT's answer arrives: the re-run finds the lock
    already taken (or already free) and is content; no lock is left."""
    ctx = context_mod.get_admin_context()
    node = mirror.create_node(ctx, {'driver': 'fake-hardware',
                                    'name': 'n1'})
    with commit_answer_lost(server_db, pattern) as lost:
        with locking.node_lock(ctx, node.id, 'host-a') as locked:
            assert locked.reservation == 'host-a'
    assert lost
    assert db_nodes.get_by_id(ctx, node.id).reservation is None
    # Another holder's lock is still refused, after a re-run too.
    node_locks.reserve(ctx, node.id, 'host-b', read=False)
    with killed_before(server_db, 'AND nodes.reservation IS NULL') as k:
        with pytest.raises(exception.NodeLocked):
            node_locks.reserve(ctx, node.id, 'host-a', read=False)
    assert k
    assert db_nodes.get_by_id(ctx, node.id).reservation == 'host-b'


# -- the conductor -----------------------------------------------------------

@pytest.fixture
def harness(server_db):
    harness = conductor_harness.Harness()
    harness.service = harness.start_conductor()
    yield harness
    harness.stop()


def test_conductor_connection_killed_while_binding(harness, server_db):
    harness.nodes(2)
    with killed_before(server_db, 'UPDATE baremetal_allocations') as k:
        final = harness.final(harness.allocate().id)
    assert k
    assert final.state == states.ACTIVE, final.last_error
    node = db_nodes.get_by_uuid(harness.context, final.node_uuid)
    assert node.instance_uuid == final.uuid
    waiting.wait_for(lambda: db_nodes.get_by_uuid(
        harness.context, final.node_uuid).reservation is None)


def test_conductor_outage_leaves_the_allocation_for_its_check(harness,
                                                              server_db):
    harness.nodes(1)
    conductor = harness.service
    allocation = harness.write_allocation(conductor.conductor_id)
    with going_down(server_db, 'FROM nodes') as k:
        harness.rpcapi.create_allocation(harness.context, allocation,
                                         conductor.host)
        waiting.wait_for(
            lambda: k and not conductor.manager.in_flight())
    record = harness.get(allocation.id)
    assert record.state == states.ALLOCATING
    assert record.last_error is None
    assert record.conductor_affinity == conductor.conductor_id
    # The database is back: the periodic check runs it again.
    conductor.check_allocations()
    final = harness.final(allocation.id)
    assert final.state == states.ACTIVE, final.last_error


def test_database_error_last_error_has_no_sql(database, monkeypatch):
    harness = conductor_harness.Harness()
    harness.start_conductor()
    try:
        harness.nodes(1)

        def broken(*args, **kwargs):
            raise db_exc.DBError(sa.exc.ProgrammingError(
                'SELECT nodes.id FROM nodes WHERE x', {}, Exception('bad')))

        monkeypatch.setattr(allocation_backends, 'find', broken)
        final = harness.final(harness.allocate().id)
    finally:
        harness.stop()
    assert final.state == states.ERROR
    assert final.last_error == (
        'Unexpected exception during allocation: the database failed to '
        'process the request (the conductor logged the details); delete '
        'the allocation and create it again')
    assert db_allocations.get_by_id(harness.context,
                                    final.id).node_id is None
