"""Placement: a stamp of the reservations, and an index on their starts.

What the active reservations hold changes only when a reservation is
written or a window opens or closes. Allocation candidates requests keep
a per-process copy of it until the next window edge; every reservation
write gives the one row of ``placement_reservation_stamp`` a new value,
which a request reads to know whether its process's copy is still the
database's. The index on ``start_at`` finds the next window to open.

Revision ID: 0013_placement_reservation_stamp
Revises: 0012_placement_reservations
Create Date: 2026-11-29
"""

from alembic import op
from oslo_utils import uuidutils
import sqlalchemy as sa

revision = '0013_placement_reservation_stamp'
down_revision = '0012_placement_reservations'
branch_labels = None
depends_on = None


def upgrade():
    stamp = op.create_table(
        'placement_reservation_stamp',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=False),
        sa.Column('stamp', sa.String(36), nullable=False),
        mysql_engine='InnoDB', mysql_charset='utf8mb4',
        mysql_collate='utf8mb4_bin')
    op.bulk_insert(stamp, [{'id': 1, 'stamp': uuidutils.generate_uuid()}])
    op.create_index('placement_reservations_start_idx',
                    'placement_reservations', ['start_at'])
