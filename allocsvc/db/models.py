"""The database schema, as SQLAlchemy Core tables.

The schema is created and changed only by the alembic migrations in
``allocsvc/db/migrations``; these tables describe it for queries.

Placement tables
    resource_providers       providers; nested trees through parent/root ids
    resource_classes         standard (os-resource-classes) and CUSTOM_ classes
    traits                   standard (os-traits) and CUSTOM_ traits
    inventories              one row per (provider, class)
    allocations              one row per (consumer, provider, class)
    consumers                consumer generation, project, user and type
    projects / users         external ids, interned
    consumer_types           interned consumer type names
    placement_aggregates     aggregate uuids
    resource_provider_aggregates / resource_provider_traits   associations
"""

import sqlalchemy as sa

metadata = sa.MetaData()


def _timestamps():
    return [sa.Column('created_at', sa.DateTime, nullable=True),
            sa.Column('updated_at', sa.DateTime, nullable=True)]


resource_providers = sa.Table(
    'resource_providers', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.Unicode(200), nullable=False),
    sa.Column('generation', sa.Integer, nullable=False, default=0),
    sa.Column('root_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), nullable=True),
    sa.Column('parent_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), nullable=True),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
    sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
    sa.Index('resource_providers_root_provider_id_idx', 'root_provider_id'),
    sa.Index('resource_providers_parent_provider_id_idx',
             'parent_provider_id'),
)

resource_classes = sa.Table(
    'resource_classes', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('name', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
)

traits = sa.Table(
    'traits', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('name', sa.Unicode(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('name', name='uniq_traits0name'),
)

inventories = sa.Table(
    'inventories', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
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
    *_timestamps(),
    sa.UniqueConstraint(
        'resource_provider_id', 'resource_class_id',
        name='uniq_inventories0resource_provider_resource_class'),
    sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
)

projects = sa.Table(
    'projects', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('external_id', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('external_id', name='uniq_projects0external_id'),
)

users = sa.Table(
    'users', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('external_id', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('external_id', name='uniq_users0external_id'),
)

consumer_types = sa.Table(
    'consumer_types', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('name', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('name', name='uniq_consumer_types0name'),
)

consumers = sa.Table(
    'consumers', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('project_id', sa.Integer, sa.ForeignKey('projects.id'),
              nullable=False),
    sa.Column('user_id', sa.Integer, sa.ForeignKey('users.id'),
              nullable=False),
    sa.Column('generation', sa.Integer, nullable=False, default=0),
    sa.Column('consumer_type_id', sa.Integer,
              sa.ForeignKey('consumer_types.id'), nullable=True),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
    sa.Index('consumers_project_id_user_id_uuid_idx',
             'project_id', 'user_id', 'uuid'),
)

allocations = sa.Table(
    'allocations', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), nullable=False),
    sa.Column('consumer_id', sa.String(36), nullable=False),
    sa.Column('resource_class_id', sa.Integer,
              sa.ForeignKey('resource_classes.id'), nullable=False),
    sa.Column('used', sa.Integer, nullable=False),
    *_timestamps(),
    sa.Index('allocations_resource_provider_class_used_idx',
             'resource_provider_id', 'resource_class_id', 'used'),
    sa.Index('allocations_consumer_id_idx', 'consumer_id'),
    sa.Index('allocations_resource_class_id_idx', 'resource_class_id'),
)

placement_aggregates = sa.Table(
    'placement_aggregates', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
)

resource_provider_aggregates = sa.Table(
    'resource_provider_aggregates', metadata,
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), primary_key=True),
    sa.Column('aggregate_id', sa.Integer,
              sa.ForeignKey('placement_aggregates.id'), primary_key=True),
    *_timestamps(),
    sa.Index('resource_provider_aggregates_aggregate_id_idx',
             'aggregate_id'),
)

resource_provider_traits = sa.Table(
    'resource_provider_traits', metadata,
    sa.Column('trait_id', sa.Integer, sa.ForeignKey('traits.id'),
              primary_key=True),
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), primary_key=True),
    *_timestamps(),
    sa.Index('resource_provider_traits_resource_provider_trait_idx',
             'resource_provider_id', 'trait_id'),
)
