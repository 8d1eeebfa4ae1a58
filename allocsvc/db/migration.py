"""Schema creation and upgrade, through alembic only."""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script

from allocsvc.db import api as db_api

_MIGRATIONS = os.path.join(os.path.dirname(__file__), 'migrations')


def _config(connection):
    config = alembic_config.Config(os.path.join(_MIGRATIONS, 'alembic.ini'))
    config.set_main_option('script_location', _MIGRATIONS)
    config.attributes['connection'] = connection
    return config


def upgrade(revision='head', engine=None):
    """Upgrade the schema of ``engine`` (default: the configured one)."""
    engine = engine or db_api.get_engine()
    with engine.begin() as connection:
        alembic_command.upgrade(_config(connection), revision)


def current_revision(engine=None):
    engine = engine or db_api.get_engine()
    with engine.connect() as connection:
        return alembic_migration.MigrationContext.configure(
            connection).get_current_revision()


def head_revision():
    return alembic_script.ScriptDirectory.from_config(
        _config(None)).get_current_head()


def needs_upgrade(engine=None):
    return current_revision(engine) != head_revision()


def pending_revisions(current):
    """The revisions an upgrade from ``current`` (None: an empty
    database) to head applies, oldest first; None if ``current`` is no
    revision of this release (a newer release migrated the database)."""
    script = alembic_script.ScriptDirectory.from_config(_config(None))
    try:
        revisions = list(script.iterate_revisions('heads', current))
    except alembic_script.revision.RevisionError:
        return None
    return [revision.revision for revision in reversed(revisions)]
