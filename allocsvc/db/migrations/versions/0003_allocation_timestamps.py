"""Bare-metal allocations: created_at and updated_at to the microsecond.

MySQL's DATETIME keeps whole seconds, so an allocation created and made
active within the same second showed the same time twice; SQLite and
PostgreSQL already keep microseconds, and nothing changes there.

Revision ID: 0003_allocation_timestamps
Revises: 0002_baremetal
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0003_allocation_timestamps'
down_revision = '0002_baremetal'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name != 'mysql':
        return
    for column in ('created_at', 'updated_at'):
        op.alter_column('baremetal_allocations', column,
                        existing_type=sa.DateTime(),
                        type_=mysql.DATETIME(fsp=6), existing_nullable=True)
