"""Initial Placement schema.

Revision ID: 0001_placement_initial
Revises:
Create Date: 2026-11-21
"""

from alembic import op
import sqlalchemy as sa

revision = '0001_placement_initial'
down_revision = None
branch_labels = None
depends_on = None


# Identifiers compare exactly on every backend: MySQL's default collation
# would fold case (and treat 'a' and 'A' as one consumer's project).
_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4',
               'mysql_collate': 'utf8mb4_bin'}


def _ts():
    return [sa.Column('created_at', sa.DateTime, nullable=True),
            sa.Column('updated_at', sa.DateTime, nullable=True)]


def _id():
    return sa.Column('id', sa.Integer, primary_key=True, autoincrement=True)


def _interned(table, column, length=255):
    """A table that interns a unique name to an integer id."""
    op.create_table(
        table, _id(), sa.Column(column, sa.Unicode(length), nullable=False),
        *_ts(),
        sa.UniqueConstraint(column, name='uniq_%s0%s' % (table, column)),
        **_TABLE_ARGS)


def upgrade():
    _interned('resource_classes', 'name')
    _interned('traits', 'name')
    _interned('projects', 'external_id')
    _interned('users', 'external_id')
    _interned('consumer_types', 'name')
    _interned('placement_aggregates', 'uuid', 36)

    op.create_table(
        'resource_providers', _id(),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.Unicode(200), nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.Column('root_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=True),
        sa.Column('parent_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=True),
        *_ts(),
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
        sa.Index('resource_providers_root_provider_id_idx',
                 'root_provider_id'),
        sa.Index('resource_providers_parent_provider_id_idx',
                 'parent_provider_id'),
        **_TABLE_ARGS)

    op.create_table(
        'inventories', _id(),
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=False),
        sa.Column('resource_class_id', sa.Integer,
                  sa.ForeignKey('resource_classes.id'), nullable=False),
        sa.Column('total', sa.Integer, nullable=False),
        sa.Column('reserved', sa.Integer, nullable=False),
        sa.Column('min_unit', sa.Integer, nullable=False),
        sa.Column('max_unit', sa.Integer, nullable=False),
        sa.Column('step_size', sa.Integer, nullable=False),
        sa.Column('allocation_ratio', sa.Float, nullable=False),
        *_ts(),
        sa.UniqueConstraint(
            'resource_provider_id', 'resource_class_id',
            name='uniq_inventories0resource_provider_resource_class'),
        sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
        **_TABLE_ARGS)

    op.create_table(
        'consumers', _id(),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('project_id', sa.Integer, sa.ForeignKey('projects.id'),
                  nullable=False),
        sa.Column('user_id', sa.Integer, sa.ForeignKey('users.id'),
                  nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.Column('consumer_type_id', sa.Integer,
                  sa.ForeignKey('consumer_types.id'), nullable=True),
        *_ts(),
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        sa.Index('consumers_project_id_user_id_uuid_idx',
                 'project_id', 'user_id', 'uuid'),
        **_TABLE_ARGS)

    op.create_table(
        'allocations', _id(),
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=False),
        sa.Column('consumer_id', sa.String(36), nullable=False),
        sa.Column('resource_class_id', sa.Integer,
                  sa.ForeignKey('resource_classes.id'), nullable=False),
        sa.Column('used', sa.Integer, nullable=False),
        *_ts(),
        sa.Index('allocations_resource_provider_class_used_idx',
                 'resource_provider_id', 'resource_class_id', 'used'),
        sa.Index('allocations_consumer_id_idx', 'consumer_id'),
        sa.Index('allocations_resource_class_id_idx', 'resource_class_id'),
        **_TABLE_ARGS)

    op.create_table(
        'resource_provider_aggregates',
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), primary_key=True),
        sa.Column('aggregate_id', sa.Integer,
                  sa.ForeignKey('placement_aggregates.id'), primary_key=True),
        *_ts(),
        sa.Index('resource_provider_aggregates_aggregate_id_idx',
                 'aggregate_id'),
        **_TABLE_ARGS)

    op.create_table(
        'resource_provider_traits',
        sa.Column('trait_id', sa.Integer, sa.ForeignKey('traits.id'),
                  primary_key=True),
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), primary_key=True),
        *_ts(),
        sa.Index('resource_provider_traits_resource_provider_trait_idx',
                 'resource_provider_id', 'trait_id'),
        **_TABLE_ARGS)
