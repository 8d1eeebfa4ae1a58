"""Killing a database server's connections, as the database fault tests
do to the service's own."""

import sqlalchemy as sa

from tests import backends
from tests.helpers import waiting


def admin_engine(backend):
    """An engine on ``backend``'s server, outside the tests' database."""
    return sa.create_engine(
        backends._SERVER_URLS[backend] +
        ('/postgres' if backend == 'postgresql' else '/'),
        isolation_level='AUTOCOMMIT', poolclass=sa.pool.NullPool)


def server_ids(conn, backend, db_name=backends.DB_NAME):
    """The server-side ids of the connections to database ``db_name``
    but ``conn``'s own."""
    if backend == 'mysql':
        query = ('SELECT id FROM information_schema.processlist '
                 'WHERE db = :db AND id <> CONNECTION_ID()')
    else:
        query = ('SELECT pid FROM pg_stat_activity '
                 'WHERE datname = :db AND pid <> pg_backend_pid()')
    return set(conn.execute(sa.text(query), {'db': db_name}).scalars())


def kill(backend, ids=None, db_name=backends.DB_NAME):
    """Kill the server connections ``ids`` (default: every connection to
    database ``db_name``) and wait until the server has closed them.
    Returns the ids killed."""
    engine = admin_engine(backend)
    try:
        with engine.connect() as conn:
            if ids is None:
                ids = server_ids(conn, backend, db_name)
            for ident in ids:
                if backend == 'mysql':
                    try:
                        conn.execute(sa.text('KILL %d' % ident))
                    except sa.exc.DBAPIError:
                        pass        # closed meanwhile
                else:
                    conn.execute(sa.text('SELECT pg_terminate_backend(:p)'),
                                 {'p': ident})
            waiting.wait_for(
                lambda: not (server_ids(conn, backend, db_name) &
                             set(ids)))
    finally:
        engine.dispose()
    return ids
