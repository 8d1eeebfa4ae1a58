"""The alembic migrations build exactly the schema the code describes, on
every backend."""

from alembic import autogenerate
from alembic import migration as alembic_migration

from allocsvc.db import migration
from allocsvc.db import models


def test_schema_is_at_head(database):
    assert migration.current_revision(database.engine) == \
        migration.head_revision()
    assert not migration.needs_upgrade(database.engine)


def test_models_match_migrations(database):
    with database.engine.connect() as conn:
        context = alembic_migration.MigrationContext.configure(
            conn, opts={'compare_type': True})
        diff = autogenerate.compare_metadata(context, models.metadata)
    # alembic's own version table is not part of the models.
    diff = [d for d in diff if not (d[0] == 'remove_table' and
                                    d[1].name == 'alembic_version')]
    assert diff == []


def test_upgrade_is_idempotent(database):
    migration.upgrade(engine=database.engine)
    assert not migration.needs_upgrade(database.engine)
