"""Bare metal: ports and port groups, a node's network interfaces.

MAC addresses are unique among ports and, separately, among port groups
(stored lower-case). Every port and port group belongs to a node; a port
may be a member of a port group of the same node.

Revision ID: 0007_ports_portgroups
Revises: 0006_node_fields
Create Date: 2026-11-25
"""

from alembic import op
import sqlalchemy as sa

revision = '0007_ports_portgroups'
down_revision = '0006_node_fields'
branch_labels = None
depends_on = None

# As in 0002: identifiers (names, addresses) compare exactly.
_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4',
               'mysql_collate': 'utf8mb4_bin'}


def _ts():
    return [sa.Column('created_at', sa.DateTime, nullable=True),
            sa.Column('updated_at', sa.DateTime, nullable=True)]


def upgrade():
    op.create_table(
        'portgroups',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('node_id', sa.Integer, sa.ForeignKey('nodes.id'),
                  nullable=False),
        sa.Column('address', sa.String(18), nullable=True),
        sa.Column('extra', sa.Text, nullable=True),
        sa.Column('internal_info', sa.Text, nullable=True),
        sa.Column('standalone_ports_supported', sa.Boolean,
                  nullable=False),
        sa.Column('mode', sa.String(255), nullable=True),
        sa.Column('properties', sa.Text, nullable=True),
        sa.Column('category', sa.String(80), nullable=True),
        *_ts(),
        sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
        sa.UniqueConstraint('name', name='uniq_portgroups0name'),
        sa.UniqueConstraint('address', name='uniq_portgroups0address'),
        sa.Index('portgroups_node_id_idx', 'node_id'),
        **_TABLE_ARGS)

    op.create_table(
        'ports',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('address', sa.String(18), nullable=False),
        sa.Column('node_id', sa.Integer, sa.ForeignKey('nodes.id'),
                  nullable=False),
        sa.Column('portgroup_id', sa.Integer,
                  sa.ForeignKey('portgroups.id'), nullable=True),
        sa.Column('extra', sa.Text, nullable=True),
        sa.Column('internal_info', sa.Text, nullable=True),
        sa.Column('local_link_connection', sa.Text, nullable=True),
        sa.Column('pxe_enabled', sa.Boolean, nullable=False),
        sa.Column('physical_network', sa.String(64), nullable=True),
        sa.Column('is_smartnic', sa.Boolean, nullable=False),
        sa.Column('description', sa.Text, nullable=True),
        sa.Column('vendor', sa.String(255), nullable=True),
        sa.Column('category', sa.String(80), nullable=True),
        *_ts(),
        sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
        sa.UniqueConstraint('name', name='uniq_ports0name'),
        sa.UniqueConstraint('address', name='uniq_ports0address'),
        sa.Index('ports_node_id_idx', 'node_id'),
        sa.Index('ports_portgroup_id_idx', 'portgroup_id'),
        **_TABLE_ARGS)
