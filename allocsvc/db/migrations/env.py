"""Alembic environment: runs migrations on the connection that
``allocsvc.db.migration`` hands over in ``config.attributes``."""

from alembic import context

config = context.config


def run_migrations_online():
    connection = config.attributes['connection']
    context.configure(connection=connection, target_metadata=None,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit('Offline migrations are not supported.')
run_migrations_online()
