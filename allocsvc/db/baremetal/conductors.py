"""Conductors: registration, heartbeats, liveness.

A conductor is alive while its row is ``online`` and its heartbeat is
younger than the caller's ``heartbeat_timeout`` (passed in: nothing here
reads configuration). Heartbeats are stamped with this process's clock,
and liveness is judged with the reader's clock, so hosts need NTP, as
with Ironic.
"""

import datetime

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models

_COND = models.conductors


class Conductor:
    """A conductor row; ``alive`` as judged when it was read."""

    __slots__ = tuple(c.key for c in _COND.c) + ('alive',)

    def __init__(self, row, heartbeat_timeout=None, now=None):
        for column in _COND.c:
            setattr(self, column.key, getattr(row, column.key))
        if self.drivers is None:
            self.drivers = []
        self.alive = is_alive(self, heartbeat_timeout, now)


def is_alive(conductor, heartbeat_timeout, now=None):
    """Online, and (given a timeout) heard from within it."""
    if not conductor.online:
        return False
    if heartbeat_timeout is None:
        return True
    if conductor.heartbeat_at is None:
        return False
    now = now or timeutils.utcnow()
    return now - conductor.heartbeat_at <= datetime.timedelta(
        seconds=heartbeat_timeout)


def _get(context, hostname):
    row = context.session.execute(
        sa.select(_COND).where(_COND.c.hostname == hostname)).first()
    if row is None:
        raise exception.ConductorNotFound(hostname)
    return row


@db_api.writer
def register(context, hostname, drivers=None, conductor_group='',
             online=True):
    """Record conductor ``hostname`` with a fresh heartbeat, creating its
    row or reusing the one of its previous life (so its id, which
    allocations refer to, survives restarts); return it. With
    ``online=False`` it is recorded but not yet alive: nobody sends it
    work until ``heartbeat`` marks it online."""
    now = timeutils.utcnow()
    values = {'drivers': list(drivers or []),
              'conductor_group': conductor_group or '',
              'online': online, 'heartbeat_at': now, 'updated_at': now}
    result = context.session.execute(
        _COND.update().where(_COND.c.hostname == hostname).values(**values))
    if result.rowcount != 1:
        try:
            context.session.execute(_COND.insert().values(
                hostname=hostname, created_at=now, **values))
        except db_exc.DBDuplicateEntry as exc:
            # Another process registered the same host name at once: run
            # the whole transaction again, and the update finds its row.
            # (No savepoint here: a deadlock between conductors starting
            # together -- gap locks of the update that matched nothing --
            # rolls MySQL's transaction back, savepoint included, and must
            # reach the retry decorator as the deadlock it is.)
            raise db_exc.RetryRequest(exc)
    return Conductor(_get(context, hostname))


@db_api.retry
def heartbeat(context, hostname):
    """Stamp the heartbeat of ``hostname`` (and mark it online again);
    ConductorNotFound if it never registered.

    One statement the server commits itself (autocommit), not a
    transaction the client ends: the conductor row's lock is what every
    new allocation of the conductor needs (the foreign key of its
    ``conductor_affinity``), and a conductor stopped between its UPDATE
    and its COMMIT would keep it, and the API's POSTs waiting on it,
    for as long as it stays stopped."""
    now = timeutils.utcnow()
    update = _COND.update().where(_COND.c.hostname == hostname).values(
        online=True, heartbeat_at=now, updated_at=now)
    engine = db_api.get_engine()
    if engine.dialect.name == 'sqlite':
        # One process, one writer at a time: nobody else to hold up,
        # and SQLite's connections keep oslo.db's own BEGIN handling.
        count = _update_in_transaction(context, update)
    else:
        with engine.connect().execution_options(
                isolation_level='AUTOCOMMIT') as conn:
            count = conn.execute(update).rowcount
    if count != 1:
        raise exception.ConductorNotFound(hostname)


@db_api.writer
def _update_in_transaction(context, update):
    return context.session.execute(update).rowcount


@db_api.writer
def unregister(context, hostname):
    """Mark ``hostname`` offline, as a conductor does on a clean stop: its
    allocations become orphans at once, without waiting for the
    heartbeat timeout. The row stays (allocations may refer to it)."""
    result = context.session.execute(
        _COND.update().where(_COND.c.hostname == hostname)
        .values(online=False, updated_at=timeutils.utcnow()))
    if result.rowcount != 1:
        raise exception.ConductorNotFound(hostname)


@db_api.reader
def get(context, hostname, heartbeat_timeout=None):
    return Conductor(_get(context, hostname), heartbeat_timeout)


@db_api.reader
def get_by_id(context, conductor_id, heartbeat_timeout=None):
    row = context.session.execute(
        sa.select(_COND).where(_COND.c.id == conductor_id)).first()
    if row is None:
        raise exception.ConductorNotFound(conductor_id)
    return Conductor(row, heartbeat_timeout)


@db_api.reader
def list_conductors(context, heartbeat_timeout):
    """Every conductor, by host name, each with ``alive`` judged against
    ``heartbeat_timeout`` seconds."""
    now = timeutils.utcnow()
    rows = context.session.execute(
        sa.select(_COND).order_by(_COND.c.hostname))
    return [Conductor(row, heartbeat_timeout, now) for row in rows]


def alive_ids(context, heartbeat_timeout):
    """The ids of the live conductors (its own transaction)."""
    return [c.id for c in list_conductors(context, heartbeat_timeout)
            if c.alive]
