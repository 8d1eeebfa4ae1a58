"""Database access plumbing: the oslo.db transaction context manager.

Every engine function declares its transaction with ``@reader`` or
``@writer`` (module-level aliases of the one context manager below) and
reads ``context.session``. The manager is configured once per process by
``configure(conf)``; tests patch in other engines with ``patch_engine``.
"""

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

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


def tune_engine(engine):
    """Make SQLite safe for concurrent writers; elsewhere, see
    ``_no_reset_on_return``.

    SQLite starts transactions deferred: one that has read and then wants
    to write while another writer holds the lock is refused at once with
    "database is locked" (waiting could deadlock). Starting every
    transaction with BEGIN IMMEDIATE takes the write lock first, so
    transactions queue on the busy timeout instead of failing: the
    embedded database serialises its transactions, each a few ms long.
    """
    if engine.dialect.name != 'sqlite':
        _no_reset_on_return(engine)
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

reader = context_manager.reader
writer = context_manager.writer


def _sqlite_busy(exc):
    # SQLite refuses at once (no waiting) a writer whose transaction read
    # before another writer took the lock; like a deadlock, the whole
    # transaction can simply run again.
    return (isinstance(exc, (db_exc.DBError, sa_exc.OperationalError)) and
            'database is locked' in str(exc))


# Deadlocks (and, on Galera, lost certification races; on SQLite, busy
# locks) are retried a bounded number of times, with a short growing
# back-off; the decorated function must be a whole transaction, so it goes
# outside @writer.
retry_on_deadlock = oslo_db_api.wrap_db_retry(
    max_retries=5, retry_on_deadlock=True, retry_interval=0.05,
    inc_retry_interval=True, max_retry_interval=0.5,
    exception_checker=_sqlite_busy)


def configure(conf):
    """Point the context manager at ``[database]`` of ``conf`` (once: the
    engine cannot change after the first transaction)."""
    if context_manager.is_started:
        return
    # thread_checkin makes every connection check-in sleep(0) so that
    # eventlet's green threads take turns; allocsvc runs native threads,
    # where it only gives the GIL away at the end of each transaction.
    context_manager.configure(sqlite_fk=True, thread_checkin=False,
                              **dict(conf.database.items()))


def get_engine():
    return context_manager.writer.get_engine()
