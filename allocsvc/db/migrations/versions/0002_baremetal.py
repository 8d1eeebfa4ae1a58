"""Bare-metal schema: conductors, nodes, node traits, allocations.

The Ironic-compatible half. Its allocations table is named
``baremetal_allocations`` because Placement's ``allocations`` exists.
JSON documents are TEXT (see ``models.JsonText``).

Revision ID: 0002_baremetal
Revises: 0001_placement_initial
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0002_baremetal'
down_revision = '0001_placement_initial'
branch_labels = None
depends_on = None


# As in 0001: identifiers (names, hostnames, traits) compare exactly.
_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4',
               'mysql_collate': 'utf8mb4_bin'}


def _ts():
    return [sa.Column('created_at', sa.DateTime, nullable=True),
            sa.Column('updated_at', sa.DateTime, nullable=True)]


def _id():
    return sa.Column('id', sa.Integer, primary_key=True, autoincrement=True)


def upgrade():
    op.create_table(
        'conductors', _id(),
        sa.Column('hostname', sa.String(255), nullable=False),
        sa.Column('drivers', sa.Text, nullable=True),
        sa.Column('conductor_group', sa.String(255), nullable=False),
        sa.Column('online', sa.Boolean, nullable=False),
        sa.Column('heartbeat_at', sa.DateTime, nullable=True),
        *_ts(),
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
        **_TABLE_ARGS)

    # allocation_id gets its foreign key at the end, once the allocations
    # table it points to exists (the two tables reference each other).
    op.create_table(
        'nodes', _id(),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('driver', sa.String(255), nullable=False),
        sa.Column('driver_info', sa.Text, nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('provision_state', sa.String(15), nullable=False),
        sa.Column('target_provision_state', sa.String(15), nullable=True),
        sa.Column('provision_updated_at', sa.DateTime, nullable=True),
        sa.Column('power_state', sa.String(15), nullable=True),
        sa.Column('target_power_state', sa.String(15), nullable=True),
        sa.Column('maintenance', sa.Boolean, nullable=False),
        sa.Column('maintenance_reason', sa.Text, nullable=True),
        sa.Column('instance_uuid', sa.String(36), nullable=True),
        sa.Column('allocation_id', sa.Integer, nullable=True),
        sa.Column('reservation', sa.String(255), nullable=True),
        sa.Column('conductor_affinity', sa.Integer,
                  sa.ForeignKey('conductors.id'), nullable=True),
        sa.Column('conductor_group', sa.String(255), nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('lessee', sa.String(255), nullable=True),
        sa.Column('description', sa.Text, nullable=True),
        sa.Column('automated_clean', sa.Boolean, nullable=True),
        sa.Column('properties', sa.Text, nullable=True),
        sa.Column('extra', sa.Text, nullable=True),
        sa.Column('instance_info', sa.Text, nullable=True),
        sa.Column('last_error', sa.Text, nullable=True),
        *_ts(),
        sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
        sa.UniqueConstraint('name', name='uniq_nodes0name'),
        sa.UniqueConstraint('instance_uuid', name='uniq_nodes0instance_uuid'),
        sa.Index('nodes_resource_class_provision_state_idx',
                 'resource_class', 'provision_state'),
        sa.Index('nodes_reservation_idx', 'reservation'),
        sa.Index('nodes_allocation_id_idx', 'allocation_id'),
        sa.Index('nodes_conductor_affinity_idx', 'conductor_affinity'),
        **_TABLE_ARGS)

    op.create_table(
        'node_traits',
        sa.Column('node_id', sa.Integer, sa.ForeignKey('nodes.id'),
                  primary_key=True),
        sa.Column('trait', sa.String(255), primary_key=True),
        *_ts(),
        sa.Index('node_traits_trait_idx', 'trait'),
        **_TABLE_ARGS)

    op.create_table(
        'baremetal_allocations', _id(),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('node_id', sa.Integer, sa.ForeignKey('nodes.id'),
                  nullable=True),
        sa.Column('state', sa.String(15), nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('last_error', sa.Text, nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('traits', sa.Text, nullable=True),
        sa.Column('candidate_nodes', sa.Text, nullable=True),
        sa.Column('extra', sa.Text, nullable=True),
        sa.Column('conductor_affinity', sa.Integer,
                  sa.ForeignKey('conductors.id'), nullable=True),
        *_ts(),
        sa.UniqueConstraint('uuid', name='uniq_baremetal_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_baremetal_allocations0name'),
        sa.UniqueConstraint('node_id',
                            name='uniq_baremetal_allocations0node_id'),
        sa.Index('baremetal_allocations_state_affinity_idx',
                 'state', 'conductor_affinity'),
        sa.Index('baremetal_allocations_conductor_affinity_idx',
                 'conductor_affinity'),
        **_TABLE_ARGS)

    # Batch mode: SQLite cannot add a constraint by ALTER, so alembic
    # rebuilds the (still empty) table there; elsewhere this is one ALTER.
    with op.batch_alter_table('nodes') as batch:
        batch.create_foreign_key(
            'nodes_allocation_id_fkey', 'baremetal_allocations',
            ['allocation_id'], ['id'], ondelete='SET NULL')
