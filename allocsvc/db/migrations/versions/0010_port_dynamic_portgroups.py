"""Bare metal: the port and port group fields of Ironic's API 1.102 and
1.111.

A port group gets its ``physical_network`` (1.102; the network its
member ports share) and ``dynamic_portgroup`` (1.111; a group a network
driver made, false for the ones the API creates); a port gets
``available_for_dynamic_portgroup`` (1.111; true unless a client says
otherwise). Existing rows get the defaults Ironic gives them: no
physical network, not dynamic, available.

Revision ID: 0010_port_dynamic_portgroups
Revises: 0009_chassis
Create Date: 2026-11-28
"""

from alembic import op
import sqlalchemy as sa

revision = '0010_port_dynamic_portgroups'
down_revision = '0009_chassis'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('portgroups', sa.Column('physical_network', sa.String(64),
                                          nullable=True))
    op.add_column('portgroups', sa.Column('dynamic_portgroup', sa.Boolean,
                                          nullable=False,
                                          server_default=sa.false()))
    op.add_column('ports', sa.Column('available_for_dynamic_portgroup',
                                     sa.Boolean, nullable=False,
                                     server_default=sa.true()))
