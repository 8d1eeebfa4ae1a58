"""Bare metal: the rest of Ironic's node document.

Nodes get the columns of Ironic 39's node that allocsvc lacked: one
``<type>_interface`` per driver interface type, the console, step,
RAID, network data, inspection, fault, protection, retirement,
instance name, boot mode, shard, parent node, power-off and health
fields. The boolean ones are false for the nodes that exist; their
interfaces become what a ``fake-hardware`` node gets by default
(``allocsvc.common.hardware`` with its default options), so that no node
is left without them.

Revision ID: 0006_node_fields
Revises: 0005_node_providers
Create Date: 2026-11-25
"""

from alembic import op
import sqlalchemy as sa

revision = '0006_node_fields'
down_revision = '0005_node_providers'
branch_labels = None
depends_on = None

# Frozen here: the migration must not change when the code does.
_INTERFACE_TYPES = ('bios', 'boot', 'console', 'deploy', 'firmware',
                    'inspect', 'management', 'network', 'power', 'raid',
                    'rescue', 'storage', 'vendor')
_FAKE_HARDWARE_DEFAULTS = {
    'bios': 'fake', 'boot': 'fake', 'console': 'fake', 'deploy': 'fake',
    'firmware': 'fake', 'inspect': 'fake', 'management': 'fake',
    'network': 'flat', 'power': 'fake', 'raid': 'fake', 'rescue': 'fake',
    'storage': 'noop', 'vendor': 'fake',
}
_JSON = ('driver_internal_info', 'clean_step', 'deploy_step',
         'service_step', 'raid_config', 'target_raid_config',
         'network_data')


def upgrade():
    with op.batch_alter_table('nodes') as batch:
        for kind in _INTERFACE_TYPES:
            batch.add_column(sa.Column('%s_interface' % kind,
                                       sa.String(255), nullable=True))
        batch.add_column(sa.Column('console_enabled', sa.Boolean,
                                   nullable=False,
                                   server_default=sa.false()))
        for name in _JSON:
            batch.add_column(sa.Column(name, sa.Text, nullable=True))
        batch.add_column(sa.Column('inspection_started_at', sa.DateTime,
                                   nullable=True))
        batch.add_column(sa.Column('inspection_finished_at', sa.DateTime,
                                   nullable=True))
        batch.add_column(sa.Column('fault', sa.String(255), nullable=True))
        batch.add_column(sa.Column('protected', sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('protected_reason', sa.Text,
                                   nullable=True))
        batch.add_column(sa.Column('retired', sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('retired_reason', sa.Text, nullable=True))
        batch.add_column(sa.Column('instance_name', sa.String(255),
                                   nullable=True))
        batch.add_column(sa.Column('boot_mode', sa.String(16),
                                   nullable=True))
        batch.add_column(sa.Column('secure_boot', sa.Boolean, nullable=True))
        batch.add_column(sa.Column('shard', sa.String(255), nullable=True))
        batch.add_column(sa.Column('parent_node', sa.String(36),
                                   nullable=True))
        batch.add_column(sa.Column('disable_power_off', sa.Boolean,
                                   nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('health', sa.String(255), nullable=True))
        batch.create_index('nodes_shard_idx', ['shard'])
        batch.create_index('nodes_parent_node_idx', ['parent_node'])
    nodes = sa.table('nodes', sa.column('driver'), *[
        sa.column('%s_interface' % kind) for kind in _INTERFACE_TYPES])
    op.get_bind().execute(
        nodes.update().where(nodes.c.driver == 'fake-hardware').values(**{
            '%s_interface' % kind: _FAKE_HARDWARE_DEFAULTS[kind]
            for kind in _INTERFACE_TYPES}))
