"""The databases tests run on: SQLite always; MariaDB and PostgreSQL on
127.0.0.1 when reachable. With CI=true an unreachable server fails the
test instead of skipping it."""

import os
import tempfile

import pytest
import sqlalchemy as sa
from oslo_db.sqlalchemy import enginefacade
from oslo_utils import uuidutils

from allocsvc.db import api as db_api
from allocsvc.db import migration
from allocsvc.db import models
from allocsvc.placement import sync

BACKENDS = ('sqlite', 'mysql', 'postgresql')

_SERVER_URLS = {
    'mysql': 'mysql+pymysql://root@127.0.0.1:3306',
    'postgresql': 'postgresql+psycopg2://postgres@127.0.0.1:5432',
}
DB_NAME = 'allocsvc_test_%d' % os.getpid()


def in_ci():
    return os.environ.get('CI', '').lower() in ('1', 'true', 'yes')


class Unavailable(Exception):
    """A database server tests need cannot be reached."""


def unavailable(reason):
    """Skip, or fail in CI, because a database server is not there."""
    if in_ci():
        pytest.fail('CI=true but %s' % reason, pytrace=False)
    pytest.skip(reason)


def _create_database(backend, name=DB_NAME):
    """Create an empty database ``name`` on the server; return its URL."""
    server = _SERVER_URLS[backend]
    admin_db = '/postgres' if backend == 'postgresql' else '/'
    engine = sa.create_engine(server + admin_db, isolation_level='AUTOCOMMIT')
    try:
        with engine.connect() as conn:
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
            conn.execute(sa.text('CREATE DATABASE %s' % name))
    except sa.exc.OperationalError as exc:
        raise Unavailable('%s is not reachable at %s: %s'
                          % (backend, server, exc.orig))
    finally:
        engine.dispose()
    suffix = '?charset=utf8mb4' if backend == 'mysql' else ''
    return '%s/%s%s' % (server, name, suffix)


def drop_database(backend, name=DB_NAME):
    server = _SERVER_URLS[backend]
    admin_db = '/postgres' if backend == 'postgresql' else '/'
    engine = sa.create_engine(server + admin_db, isolation_level='AUTOCOMMIT')
    try:
        with engine.connect() as conn:
            if backend == 'postgresql':
                conn.execute(sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = '%s' AND pid <> pg_backend_pid()"
                    % name))
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
    finally:
        engine.dispose()


class Database:
    """A migrated database with the standard classes and traits, patched
    in as the engine of ``allocsvc.db.api`` while ``use()`` is active."""

    def __init__(self, backend):
        self.backend = backend
        if backend == 'sqlite':
            fd, self.path = tempfile.mkstemp(suffix='.sqlite')
            os.close(fd)
            self.url = 'sqlite:///%s' % self.path
        else:
            self.path = None
            self.url = _create_database(backend)
        self.manager = enginefacade.transaction_context()
        self.manager.append_on_engine_create(db_api.tune_engine)
        self.manager.configure(connection=self.url, sqlite_fk=True,
                               max_pool_size=10, max_overflow=20)
        self._reset = None
        self.cleanings = 0
        self._kept = {}
        self.engine = self.manager.writer.get_engine()
        migration.upgrade(engine=self.engine)

    def use(self):
        if self._reset is None:
            self._reset = db_api.context_manager.patch_factory(self.manager)
            sync.ensure_standard()

    def release(self):
        if self._reset is not None:
            self._reset()
            self._reset = None

    def kept(self, key, build):
        """What ``build()`` returned when it last filled this database,
        built again (on a clean database) only if the database has been
        cleaned since: tests that only read can share one build."""
        entry = self._kept.get(key)
        if entry is None or entry[0] != self.cleanings:
            self.clean()
            entry = self._kept[key] = (self.cleanings, build())
        return entry[1]

    def clean(self):
        """Remove everything but the standard classes and traits."""
        self.cleanings += 1
        with self.engine.begin() as conn:
            conn.execute(models.resource_providers.update().values(
                root_provider_id=None, parent_provider_id=None))
            for table in reversed(models.metadata.sorted_tables):
                if table is models.placement_topology:
                    # A new epoch: copies of the trees kept by this
                    # process are of another database now.
                    conn.execute(table.update().values(
                        epoch=uuidutils.generate_uuid(), version=0,
                        floor=0))
                elif table is models.placement_reservation_stamp:
                    # As the topology's epoch: this process's copy of
                    # the active holds is of another database now.
                    conn.execute(table.update().values(
                        stamp=uuidutils.generate_uuid()))
                elif table.name in ('resource_classes', 'traits'):
                    conn.execute(table.delete().where(
                        table.c.name.like('CUSTOM\\_%', escape='\\')))
                else:
                    conn.execute(table.delete())

    def close(self):
        self.release()
        self.manager.dispose_pool()
        self.engine.dispose()
        if self.path:
            os.unlink(self.path)
        else:
            drop_database(self.backend)
