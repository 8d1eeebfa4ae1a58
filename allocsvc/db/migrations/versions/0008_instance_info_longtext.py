"""Bare metal: a node's ``instance_info`` holds what Ironic's holds.

A config drive travels in ``instance_info`` (as in Ironic), and one is
often larger than the 64 KiB of MariaDB's TEXT: the column becomes
LONGTEXT there, as Ironic made it. Other databases' TEXT has no such
limit; they are left as they are.

Revision ID: 0008_instance_info_longtext
Revises: 0007_ports_portgroups
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0008_instance_info_longtext'
down_revision = '0007_ports_portgroups'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name != 'mysql':
        return
    op.alter_column('nodes', 'instance_info', existing_type=sa.Text,
                    type_=mysql.LONGTEXT, existing_nullable=True)
