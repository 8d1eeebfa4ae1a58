"""Database access plumbing: the oslo.db transaction context manager.

Every engine function declares its transaction with ``@reader`` or
``@writer`` (the one context manager's below) and reads
``context.session``. The outermost transaction of a thread runs again
on a deadlock or a lost connection, and a database that stays
unreachable is ``exception.DatabaseUnavailable`` (503): see ``retry``.
The manager is configured once per process by ``configure(conf)``;
tests patch in other engines with ``patch_engine``.
"""

import functools
import re
import threading

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from allocsvc.common import exception

LOG = logging.getLogger(__name__)

# How long a SQLite transaction waits for another one's lock, in ms.
_SQLITE_BUSY_TIMEOUT_MS = 15000


def _no_reset_on_return(engine):
    """Return connections to the pool without the pool's own ROLLBACK.

    Every transaction here is a Session of the enginefacade, which has
    already ended it when the connection goes back -- a writer commits,
    a reader or a failed writer rolls back -- and so does a Connection
    closed with a transaction open. SQLAlchemy's pool still sent a
    ROLLBACK after each, a round trip more per transaction: a GET of
    one allocation took three (SELECT, ROLLBACK, ROLLBACK). oslo.db
    offers no switch for it (``create_engine``'s
    ``pool_reset_on_return=None``), hence the pool's attribute.
    """
    engine.pool._reset_on_return = None


# Seconds a statement waits for a row lock another transaction holds
# (``configure`` sets it from ``[DEFAULT] database_lock_wait_timeout``).
_lock_wait_timeout = None


def _bound_lock_waits(engine):
    """Every connection of ``engine`` waits at most ``_lock_wait_timeout``
    seconds for a row lock (MariaDB/MySQL ``innodb_lock_wait_timeout``,
    PostgreSQL ``lock_timeout``). A process stopped inside a transaction
    (SIGSTOP, a frozen VM, a debugger) keeps its locks; the servers'
    own bounds (50 s, none) let everyone who needs one of them -- the
    topology row every tree change takes at commit, a node's row --
    wait as long, holding their own locks, and a whole deployment
    queued behind one frozen process. Past the bound the statement
    fails, and its transaction is not run again (``retry``): it is a
    503 (``DatabaseUnavailable``) for an API request and an outage the
    periodic check waits out for a conductor."""
    seconds = _lock_wait_timeout
    if not seconds:
        return
    if engine.dialect.name == 'mysql':
        statement = 'SET SESSION innodb_lock_wait_timeout = %d' % max(
            1, int(round(seconds)))
    elif engine.dialect.name == 'postgresql':
        statement = "SET SESSION lock_timeout = '%dms'" % int(
            seconds * 1000)
    else:
        return

    def _connect(dbapi_connection, connection_record):
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(statement)
        finally:
            cursor.close()
        if engine.dialect.name == 'postgresql':
            # psycopg2 opened a transaction for the SET: end it, or
            # the pool's first user would inherit it.
            dbapi_connection.commit()

    sa.event.listen(engine, 'connect', _connect)


def tune_engine(engine):
    """Make SQLite safe for concurrent writers; elsewhere, see
    ``_no_reset_on_return`` and ``_bound_lock_waits``.

    SQLite starts transactions deferred: one that has read and then wants
    to write while another writer holds the lock is refused at once with
    "database is locked" (waiting could deadlock). Starting every
    transaction with BEGIN IMMEDIATE takes the write lock first, so
    transactions queue on the busy timeout instead of failing: the
    embedded database serialises its transactions, each a few ms long.
    """
    if engine.dialect.name != 'sqlite':
        _no_reset_on_return(engine)
        _bound_lock_waits(engine)
        return

    def _connect(dbapi_connection, connection_record):
        dbapi_connection.execute(
            'PRAGMA busy_timeout = %d' % _SQLITE_BUSY_TIMEOUT_MS)

    def _begin(connection):
        # oslo.db already turned the driver's own BEGIN off and emits a
        # plain (deferred) BEGIN unless 'in_transaction' is set: when
        # this listener runs first, it takes its place.
        if 'in_transaction' not in connection.info:
            connection.exec_driver_sql('BEGIN IMMEDIATE')
            connection.info['in_transaction'] = True

    def _immediate(connection, cursor, statement, parameters, context,
                   executemany):
        # SQLAlchemy 2.1 ignores insert=True for engine listeners, so
        # oslo.db's listener runs first and emits its plain BEGIN: make
        # that BEGIN an immediate one, whichever listener emits it.
        if statement == 'BEGIN':
            statement = 'BEGIN IMMEDIATE'
        return statement, parameters

    sa.event.listen(engine, 'connect', _connect)
    sa.event.listen(engine, 'begin', _begin, insert=True)
    sa.event.listen(engine, 'before_cursor_execute', _immediate,
                    retval=True)


context_manager = enginefacade.transaction_context()
context_manager.append_on_engine_create(tune_engine)


def _sqlite_busy(exc):
    # SQLite refuses at once (no waiting) a writer whose transaction read
    # before another writer took the lock; like a deadlock, the whole
    # transaction can simply run again.
    return (isinstance(exc, (db_exc.DBError, sa_exc.OperationalError)) and
            'database is locked' in str(exc))


# libpq's words for a server it cannot reach: oslo.db knows only the
# older "could not connect to server" and lets these through unwrapped.
_PG_UNREACHABLE = re.compile(
    r'\(psycopg2?\.OperationalError\) (connection to server .* failed|'
    r'could not connect to server)')


def is_disconnect(exc):
    """Whether ``exc`` says the database connection was lost or could not
    be made: oslo.db's DBConnectionError, a DBError around a DBAPI error
    for which SQLAlchemy invalidated the connection, or PostgreSQL's
    refusal to connect."""
    if isinstance(exc, (db_exc.DBConnectionError,
                        exception.DatabaseUnavailable)):
        return True
    inner = getattr(exc, 'inner_exception', None) if isinstance(
        exc, db_exc.DBError) else exc
    if not isinstance(inner, sa_exc.DBAPIError):
        return False
    return bool(inner.connection_invalidated or (
        isinstance(inner, sa_exc.OperationalError) and
        _PG_UNREACHABLE.match(str(inner))))


# A row lock not granted within the bound (``_bound_lock_waits``):
# MariaDB/MySQL's error 1205 (oslo.db makes it a DBDeadlock), and
# PostgreSQL's lock_timeout (SQLSTATE 55P03), which oslo.db leaves a
# plain DBError.
_LOCK_TIMEOUT = re.compile(r'\b1205\b.*Lock wait timeout exceeded|'
                           r'canceling statement due to lock timeout')


def is_lock_timeout(exc):
    """Whether ``exc`` is a statement that waited out the row lock
    bound."""
    return isinstance(exc, (db_exc.DBError, sa_exc.DBAPIError)) and \
        bool(_LOCK_TIMEOUT.search(str(exc)))


def _disconnect_retried(exc):
    # What oslo.db's own checks (DBDeadlock, DBConnectionError) miss.
    return _sqlite_busy(exc) or is_disconnect(exc) or is_lock_timeout(exc)


# What the outermost transaction of a thread retries, and how often:
# deadlocks (on Galera also lost certification races; on SQLite busy
# locks) and lost connections -- one killed on the server, or dropped by
# a proxy or a fail-over, mid-transaction or while it sat in the pool
# (where oslo.db's pool_pre_ping finds most of them first). A short,
# growing back-off, 1.25 s in all: a lost connection is replaced at once,
# and when the database is really down, a request answers 503 quickly
# (``exception.DatabaseUnavailable``) rather than holding its thread;
# a conductor leaves its work for its periodic check.
_RETRY = oslo_db_api.wrap_db_retry(
    max_retries=5, retry_interval=0.05, inc_retry_interval=True,
    max_retry_interval=0.5, retry_on_deadlock=True,
    retry_on_disconnect=True, exception_checker=_disconnect_retried)
_scope = threading.local()


class _LockStaysHeld(Exception):
    """A statement waited out the row lock bound: not retried (none of
    ``_RETRY``'s checks knows it); ``retry`` answers DatabaseUnavailable."""


def retry(function):
    """Run ``function``, a whole transaction, again on a deadlock or a
    lost connection (see ``_RETRY``); a database still unreachable after
    the retries raises DatabaseUnavailable (503).

    Only the outermost call of a thread retries: a decorated function
    called inside another one's transaction (or retry) runs once, and
    its error reaches the outer one, which runs the whole transaction
    again -- re-running part of a transaction whose connection is gone
    cannot work, and would be wrong if it could. Nothing that is not
    in the database may be changed by ``function`` (it may run again).
    """
    def attempt(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            if is_disconnect(exc):
                _scope.reconnected = True
            elif is_lock_timeout(exc):
                # The bound was the wait: the holder of a lock kept that
                # long is stopped or stuck, and every retry would wait
                # the bound again (six of them held a request 12 s).
                raise _LockStaysHeld() from exc
            raise

    retrying = _RETRY(attempt)

    @functools.wraps(function)
    def outermost(*args, **kwargs):
        if getattr(_scope, 'active', False):
            return function(*args, **kwargs)
        _scope.active = True
        _scope.reconnected = False
        try:
            return retrying(*args, **kwargs)
        except _LockStaysHeld as exc:
            # Another transaction keeps a lock this one needs (its
            # process may be stopped): as good as an outage.
            LOG.warning('A database lock stays held: %s', exc.__cause__)
            raise exception.DatabaseUnavailable() from exc.__cause__
        except (db_exc.DBError, sa_exc.DBAPIError) as exc:
            if is_disconnect(exc):
                LOG.warning('The database is unreachable: %s', exc)
                raise exception.DatabaseUnavailable() from exc
            raise
        finally:
            _scope.active = False
    return outermost


def reconnected():
    """Whether the transaction running in this thread is a re-run after
    a lost connection: the earlier attempt may have committed (when the
    connection died waiting for the answer to its COMMIT), which a
    compare-and-swap of its own value must allow for."""
    return getattr(_scope, 'reconnected', False)


class _RetryingTransactions:
    """``context_manager.reader`` or ``.writer`` whose decorator also
    retries the whole transaction when it is the outermost (``retry``);
    every other attribute is the wrapped one's."""

    def __init__(self, manager):
        self._manager = manager

    def __call__(self, function):
        return retry(self._manager(function))

    def __getattr__(self, name):
        return getattr(self._manager, name)


reader = _RetryingTransactions(context_manager.reader)
writer = _RetryingTransactions(context_manager.writer)


def configure(conf):
    """Point the context manager at ``[database]`` of ``conf`` (once: the
    engine cannot change after the first transaction)."""
    global _lock_wait_timeout
    if context_manager.is_started:
        return
    _lock_wait_timeout = conf.database_lock_wait_timeout
    # thread_checkin makes every connection check-in sleep(0) so that
    # eventlet's green threads take turns; allocsvc runs native threads,
    # where it only gives the GIL away at the end of each transaction.
    context_manager.configure(sqlite_fk=True, thread_checkin=False,
                              **dict(conf.database.items()))


def get_engine():
    return context_manager.writer.get_engine()
