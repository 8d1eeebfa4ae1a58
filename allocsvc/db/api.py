"""Database access plumbing: the oslo.db transaction context manager.

Every engine function declares its transaction with ``@reader`` or
``@writer`` (module-level aliases of the one context manager below) and
reads ``context.session``. The manager is configured once per process by
``configure(conf)``; tests patch in other engines with ``patch_engine``.
"""

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from sqlalchemy import exc as sa_exc

context_manager = enginefacade.transaction_context()

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
    context_manager.configure(sqlite_fk=True, **dict(conf.database.items()))


def get_engine():
    return context_manager.writer.get_engine()
