"""Bare metal: allocation groups (an allocsvc extension).

A group asks for ``count`` nodes at once, all or none, optionally spread
over failure domains. Its members are ordinary rows of
``baremetal_allocations`` that name it in ``group_id`` (NULL for every
allocation made one at a time, which all existing rows are).

Revision ID: 0011_allocation_groups
Revises: 0010_port_dynamic_portgroups
Create Date: 2026-11-29
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0011_allocation_groups'
down_revision = '0010_port_dynamic_portgroups'
branch_labels = None
depends_on = None

# As in 0002: identifiers compare exactly.
_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4',
               'mysql_collate': 'utf8mb4_bin'}
# Frozen: the timestamps of allocations, to the microsecond (0003).
_PRECISE = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def upgrade():
    op.create_table(
        'baremetal_allocation_groups',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('state', sa.String(15), nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('last_error', sa.Text, nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=False),
        sa.Column('traits', sa.Text, nullable=True),
        sa.Column('candidate_nodes', sa.Text, nullable=True),
        sa.Column('count', sa.Integer, nullable=False),
        sa.Column('spread', sa.Text, nullable=True),
        sa.Column('conductor_affinity', sa.Integer,
                  sa.ForeignKey('conductors.id'), nullable=True),
        sa.Column('created_at', _PRECISE, nullable=True),
        sa.Column('updated_at', _PRECISE, nullable=True),
        sa.UniqueConstraint('uuid',
                            name='uniq_baremetal_allocation_groups0uuid'),
        sa.UniqueConstraint('name',
                            name='uniq_baremetal_allocation_groups0name'),
        **_TABLE_ARGS)
    # As in 0009: SQLite adds a column with its reference in one
    # statement, and cannot add the constraint afterwards.
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE baremetal_allocations ADD COLUMN group_id '
                   'INTEGER CONSTRAINT baremetal_allocations_group_id_fkey '
                   'REFERENCES baremetal_allocation_groups (id)')
    else:
        op.add_column('baremetal_allocations',
                      sa.Column('group_id', sa.Integer, nullable=True))
        op.create_foreign_key('baremetal_allocations_group_id_fkey',
                              'baremetal_allocations',
                              'baremetal_allocation_groups',
                              ['group_id'], ['id'])
    op.create_index('baremetal_allocations_group_id_idx',
                    'baremetal_allocations', ['group_id'])
