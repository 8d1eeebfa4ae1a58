"""A row lock that another transaction keeps (its process stopped) is
waited for at most ``[DEFAULT] database_lock_wait_timeout``, on MariaDB
and PostgreSQL (SQLite has its own busy timeout, and one writer).

Scenarios: a transaction holds the topology row (what every tree change
takes at commit) and does not end; an UPDATE of it from a connection of
an engine tuned as the service's gives up within the bound plus a
margin, with the error ``is_lock_timeout`` knows; a transaction run
through ``retry`` that meets it is DatabaseUnavailable (503) after one
attempt (a retry would only wait the bound again), and one that meets
a lock held for less than the bound waits and commits. The holder's
transaction is untouched: it commits afterwards. Timing is bounded
generously (a loaded machine): "within the bound" is the bound plus
MARGIN.
"""

import threading
import time

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from tests import conftest

MARGIN = 5.0
BOUND = 1.0
_BUMP = sa.text('UPDATE placement_topology SET version = version + 1 '
                'WHERE id = 1')


@pytest.fixture(params=['mysql', 'postgresql'])
def engines(request, monkeypatch):
    """(the service's engine, a holder's engine) on a clean database."""
    db = conftest.get_database(request.param)
    db.clean()
    monkeypatch.setattr(db_api, '_lock_wait_timeout', BOUND)
    service = sa.create_engine(db.url)
    db_api.tune_engine(service)
    holder = sa.create_engine(db.url)
    yield service, holder
    service.dispose()
    holder.dispose()


def _version(engine):
    with engine.connect() as conn:
        return conn.execute(sa.text(
            'SELECT version FROM placement_topology WHERE id = 1')).scalar()


def test_a_kept_lock_is_waited_for_within_the_bound(engines):
    service, holder = engines
    before = _version(holder)
    with holder.connect() as hold:
        with hold.begin():
            hold.execute(_BUMP)
            start = time.monotonic()
            with pytest.raises(sa.exc.DBAPIError) as info:
                with service.begin() as conn:
                    conn.execute(_BUMP)
            took = time.monotonic() - start
            assert db_api.is_lock_timeout(info.value), info.value
            assert BOUND * 0.5 <= took < BOUND + MARGIN
    # The holder committed its change; the refused one left nothing.
    assert _version(holder) == before + 1


def test_retry_answers_503_while_the_lock_stays_held(engines):
    service, holder = engines
    attempts = []

    @db_api.retry
    def bump():
        attempts.append(1)
        try:
            with service.begin() as conn:
                conn.execute(_BUMP)
        except sa.exc.DBAPIError as exc:
            # As oslo.db's engine facade hands it to the retry.
            raise db_exc.DBError(exc) from exc

    with holder.connect() as hold:
        with hold.begin():
            hold.execute(_BUMP)
            start = time.monotonic()
            with pytest.raises(exception.DatabaseUnavailable) as info:
                bump()
            took = time.monotonic() - start
            assert info.value.status == 503
            assert took < BOUND + MARGIN
    assert len(attempts) == 1


def test_retry_commits_once_a_short_hold_ends(engines, monkeypatch):
    service, holder = engines
    # A bound long enough that the holder surely lets go within it.
    monkeypatch.setattr(db_api, '_lock_wait_timeout', 10)
    service = sa.create_engine(service.url)
    db_api.tune_engine(service)
    before = _version(holder)
    held = threading.Event()

    def hold_for_a_moment():
        with holder.connect() as hold:
            with hold.begin():
                hold.execute(_BUMP)
                held.set()
                time.sleep(BOUND / 2)

    thread = threading.Thread(target=hold_for_a_moment)
    thread.start()
    held.wait(10)
    attempts = []

    @db_api.retry
    def bump():
        attempts.append(1)
        try:
            with service.begin() as conn:
                conn.execute(_BUMP)
        except sa.exc.DBAPIError as exc:
            raise db_exc.DBError(exc) from exc

    bump()
    thread.join(10)
    service.dispose()
    assert attempts == [1]
    assert _version(holder) == before + 2
