"""Placement: a version of the provider trees' shape, and its changes.

Allocation candidates requests keep a per-process copy of the providers,
their traits, aggregates and inventory classes; every change to those
bumps the version and names the roots of the trees it changed, so that a
copy is refreshed tree by tree instead of being read again per request.

Revision ID: 0004_placement_topology
Revises: 0003_allocation_timestamps
Create Date: 2026-11-23
"""

from alembic import op
from oslo_utils import uuidutils
import sqlalchemy as sa

revision = '0004_placement_topology'
down_revision = '0003_allocation_timestamps'
branch_labels = None
depends_on = None


def upgrade():
    topology = op.create_table(
        'placement_topology',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=False),
        sa.Column('epoch', sa.String(36), nullable=False),
        sa.Column('version', sa.BigInteger, nullable=False),
        sa.Column('floor', sa.BigInteger, nullable=False),
        mysql_engine='InnoDB', mysql_charset='utf8mb4',
        mysql_collate='utf8mb4_bin')
    op.create_table(
        'placement_topology_changes',
        sa.Column('version', sa.BigInteger, primary_key=True,
                  autoincrement=False),
        sa.Column('root_provider_id', sa.Integer, primary_key=True,
                  autoincrement=False),
        mysql_engine='InnoDB', mysql_charset='utf8mb4',
        mysql_collate='utf8mb4_bin')
    op.bulk_insert(topology, [{'id': 1, 'epoch': uuidutils.generate_uuid(),
                               'version': 0, 'floor': 0}])
