"""Shared pytest fixtures: one database per backend for the whole run."""

import os
import tempfile

import pytest
import sqlalchemy as sa

from allocsvc.common import config
from allocsvc.conductor import backends as allocation_backends
from allocsvc.db import api as db_api
from tests import backends

_databases = {}
_unavailable = {}


def get_database(backend):
    """The session-wide Database of ``backend``, made on first use.

    A server found unreachable once is not tried again in this run.
    """
    if backend in _unavailable:
        backends.unavailable(_unavailable[backend])
    if backend not in _databases:
        try:
            _databases[backend] = backends.Database(backend)
        except backends.Unavailable as exc:
            _unavailable[backend] = str(exc)
            backends.unavailable(str(exc))
    db = _databases[backend]
    for other in _databases.values():
        if other is not db:
            other.release()
    db.use()
    return db


def pytest_sessionfinish(session, exitstatus):
    # The API tests' conductor first: stopping it writes to a database.
    from tests.functional import conductor_harness
    conductor_harness.stop_api_conductor()
    for db in _databases.values():
        db.close()
    _databases.clear()


@pytest.fixture(params=backends.BACKENDS)
def database(request):
    """Each test using this runs once per backend, on a clean database."""
    db = get_database(request.param)
    db.clean()
    return db


@pytest.fixture(params=backends.BACKENDS)
def scratch_engine(request):
    """An empty database of its own on each backend (not the shared one:
    a test that uses it migrates it step by step, or not at all)."""
    backend = request.param
    get_database(backend)   # skips (or fails in CI) if down
    name = 'allocsvc_scratch_%d' % os.getpid()
    if backend == 'sqlite':
        fd, path = tempfile.mkstemp(suffix='.sqlite')
        os.close(fd)
        url = 'sqlite:///%s' % path
    else:
        url = backends._create_database(backend, name)
    engine = sa.create_engine(url)
    db_api.tune_engine(engine)
    yield engine
    engine.dispose()
    if backend == 'sqlite':
        os.unlink(path)
    else:
        backends.drop_database(backend, name)


@pytest.fixture(params=allocation_backends.NAMES)
def allocation_backend(request):
    """Each test using this runs once per ``[conductor]
    allocation_backend``."""
    return request.param


def make_conf(**api_overrides):
    conf = config.prepare([], default_config_files=[])
    for name, value in api_overrides.items():
        conf.set_override(name, value, group='api')
    return conf


@pytest.fixture
def conf():
    return make_conf()


@pytest.fixture
def app(database):
    """The Placement application on the ``database`` fixture's database
    (a module may define its own ``app``)."""
    from allocsvc.api import app as api_app
    return api_app.placement_app(make_conf())
