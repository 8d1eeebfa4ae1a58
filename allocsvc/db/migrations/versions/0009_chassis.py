"""Bare metal: chassis, and the chassis a node is in.

A chassis has a UUID, a description and ``extra`` (a JSON document,
TEXT as the other extras). ``nodes.chassis_id`` names a node's chassis
through a foreign key, so that no node can be left pointing at a
chassis that was deleted while the node was being attached to it: the
database refuses whichever of the two writes comes second.

SQLite cannot add a constraint to an existing table by ALTER, and
rebuilding ``nodes`` (what alembic's batch mode would do) fails where
other tables refer to its rows with foreign keys enforced. It can add a
column with its reference in one ALTER, which is what it gets; the other
databases add the column, then the named constraint.

Revision ID: 0009_chassis
Revises: 0008_instance_info_longtext
Create Date: 2026-11-28
"""

from alembic import op
import sqlalchemy as sa

revision = '0009_chassis'
down_revision = '0008_instance_info_longtext'
branch_labels = None
depends_on = None

# As in 0007.
_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4',
               'mysql_collate': 'utf8mb4_bin'}


def upgrade():
    op.create_table(
        'chassis',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('extra', sa.Text, nullable=True),
        sa.Column('created_at', sa.DateTime, nullable=True),
        sa.Column('updated_at', sa.DateTime, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),
        **_TABLE_ARGS)

    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE nodes ADD COLUMN chassis_id INTEGER '
                   'CONSTRAINT nodes_chassis_id_fkey '
                   'REFERENCES chassis (id)')
    else:
        op.add_column('nodes', sa.Column('chassis_id', sa.Integer,
                                         nullable=True))
        op.create_foreign_key('nodes_chassis_id_fkey', 'nodes', 'chassis',
                              ['chassis_id'], ['id'])
    op.create_index('nodes_chassis_id_idx', 'nodes', ['chassis_id'])
