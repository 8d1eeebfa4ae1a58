"""The database schema, as SQLAlchemy Core tables.

The schema is created and changed only by the alembic migrations in
``allocsvc/db/migrations``; these tables describe it for queries.

Placement tables
    resource_providers       providers; nested trees through parent/root ids
    resource_classes         standard (os-resource-classes) and CUSTOM_ classes
    traits                   standard (os-traits) and CUSTOM_ traits
    inventories              one row per (provider, class)
    allocations              one row per (consumer, provider, class)
    consumers                consumer generation, project, user and type
    projects / users         external ids, interned
    consumer_types           interned consumer type names
    placement_aggregates     aggregate uuids
    resource_provider_aggregates / resource_provider_traits   associations
    placement_topology       one row: the version of the providers' trees
    placement_topology_changes   the roots each version changed
    placement_reservations   capacity held for a project over a window
    placement_reservation_amounts   what a reservation holds, per
                             (provider, class)
    placement_reservation_stamp   one row: changed by every reservation
                             write

Bare-metal tables (the Ironic-compatible half; see the section at the end)
    conductors               conductor services, their liveness
    nodes                    bare-metal nodes, their states and lock
    node_traits              one row per (node, trait)
    baremetal_allocations    Ironic allocations (``allocations`` is taken)
    baremetal_allocation_groups  N allocations asked for at once
    ports / portgroups       a node's network interfaces and their groups
    chassis                  groups of nodes (a node may name one)
"""

import json

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

metadata = sa.MetaData()


def _timestamps(precise=False):
    kind = PreciseDateTime if precise else sa.DateTime
    return [sa.Column('created_at', kind, nullable=True),
            sa.Column('updated_at', kind, nullable=True)]


# A timestamp to the microsecond on every backend: MySQL's DATETIME keeps
# whole seconds unless told otherwise (SQLite and PostgreSQL keep
# microseconds anyway).
PreciseDateTime = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


resource_providers = sa.Table(
    'resource_providers', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.Unicode(200), nullable=False),
    sa.Column('generation', sa.Integer, nullable=False, default=0),
    sa.Column('root_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), nullable=True),
    sa.Column('parent_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), nullable=True),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
    sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
    sa.Index('resource_providers_root_provider_id_idx', 'root_provider_id'),
    sa.Index('resource_providers_parent_provider_id_idx',
             'parent_provider_id'),
)

resource_classes = sa.Table(
    'resource_classes', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('name', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
)

traits = sa.Table(
    'traits', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('name', sa.Unicode(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('name', name='uniq_traits0name'),
)

inventories = sa.Table(
    'inventories', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), nullable=False),
    sa.Column('resource_class_id', sa.Integer,
              sa.ForeignKey('resource_classes.id'), nullable=False),
    sa.Column('total', sa.Integer, nullable=False),
    sa.Column('reserved', sa.Integer, nullable=False),
    sa.Column('min_unit', sa.Integer, nullable=False),
    sa.Column('max_unit', sa.Integer, nullable=False),
    sa.Column('step_size', sa.Integer, nullable=False),
    sa.Column('allocation_ratio', sa.Float, nullable=False),
    *_timestamps(),
    sa.UniqueConstraint(
        'resource_provider_id', 'resource_class_id',
        name='uniq_inventories0resource_provider_resource_class'),
    sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
)

projects = sa.Table(
    'projects', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('external_id', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('external_id', name='uniq_projects0external_id'),
)

users = sa.Table(
    'users', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('external_id', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('external_id', name='uniq_users0external_id'),
)

consumer_types = sa.Table(
    'consumer_types', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('name', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('name', name='uniq_consumer_types0name'),
)

consumers = sa.Table(
    'consumers', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('project_id', sa.Integer, sa.ForeignKey('projects.id'),
              nullable=False),
    sa.Column('user_id', sa.Integer, sa.ForeignKey('users.id'),
              nullable=False),
    sa.Column('generation', sa.Integer, nullable=False, default=0),
    sa.Column('consumer_type_id', sa.Integer,
              sa.ForeignKey('consumer_types.id'), nullable=True),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
    sa.Index('consumers_project_id_user_id_uuid_idx',
             'project_id', 'user_id', 'uuid'),
)

allocations = sa.Table(
    'allocations', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), nullable=False),
    sa.Column('consumer_id', sa.String(36), nullable=False),
    sa.Column('resource_class_id', sa.Integer,
              sa.ForeignKey('resource_classes.id'), nullable=False),
    sa.Column('used', sa.Integer, nullable=False),
    *_timestamps(),
    sa.Index('allocations_resource_provider_class_used_idx',
             'resource_provider_id', 'resource_class_id', 'used'),
    sa.Index('allocations_consumer_id_idx', 'consumer_id'),
    sa.Index('allocations_resource_class_id_idx', 'resource_class_id'),
)

placement_aggregates = sa.Table(
    'placement_aggregates', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
)

resource_provider_aggregates = sa.Table(
    'resource_provider_aggregates', metadata,
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), primary_key=True),
    sa.Column('aggregate_id', sa.Integer,
              sa.ForeignKey('placement_aggregates.id'), primary_key=True),
    *_timestamps(),
    sa.Index('resource_provider_aggregates_aggregate_id_idx',
             'aggregate_id'),
)

resource_provider_traits = sa.Table(
    'resource_provider_traits', metadata,
    sa.Column('trait_id', sa.Integer, sa.ForeignKey('traits.id'),
              primary_key=True),
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), primary_key=True),
    *_timestamps(),
    sa.Index('resource_provider_traits_resource_provider_trait_idx',
             'resource_provider_id', 'trait_id'),
)


# The shape of the provider trees (which providers, their parents, traits,
# aggregates and inventory classes) changes far less often than it is read:
# every allocation candidates request needs it. Each transaction that
# changes it bumps ``version`` in the one row of placement_topology and
# records the roots of the trees it changed under that version, so that a
# process keeping a copy (allocsvc.placement.topology) reloads only those
# trees. ``epoch`` tells databases apart; the changes up to ``floor`` are
# pruned (a copy older than that is reloaded whole).
placement_topology = sa.Table(
    'placement_topology', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=False),
    sa.Column('epoch', sa.String(36), nullable=False),
    sa.Column('version', sa.BigInteger, nullable=False),
    sa.Column('floor', sa.BigInteger, nullable=False),
)

placement_topology_changes = sa.Table(
    'placement_topology_changes', metadata,
    sa.Column('version', sa.BigInteger, primary_key=True,
              autoincrement=False),
    sa.Column('root_provider_id', sa.Integer, primary_key=True,
              autoincrement=False),
)

# Reservations (migration 0012): capacity held for a project over
# [start_at, end_at), one amounts row per (provider, class).
placement_reservations = sa.Table(
    'placement_reservations', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('project_id', sa.Integer, sa.ForeignKey('projects.id'),
              nullable=False),
    sa.Column('start_at', PreciseDateTime, nullable=False),
    sa.Column('end_at', PreciseDateTime, nullable=False),
    *_timestamps(precise=True),
    sa.UniqueConstraint('uuid', name='uniq_placement_reservations0uuid'),
    sa.Index('placement_reservations_window_idx', 'end_at', 'start_at'),
    sa.Index('placement_reservations_project_idx', 'project_id'),
    # Migration 0013: the next window to open.
    sa.Index('placement_reservations_start_idx', 'start_at'),
)

placement_reservation_amounts = sa.Table(
    'placement_reservation_amounts', metadata,
    sa.Column('reservation_id', sa.Integer,
              sa.ForeignKey('placement_reservations.id'), primary_key=True,
              autoincrement=False),
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'), primary_key=True,
              autoincrement=False),
    sa.Column('resource_class_id', sa.Integer,
              sa.ForeignKey('resource_classes.id'), primary_key=True,
              autoincrement=False),
    sa.Column('amount', sa.Integer, nullable=False),
    sa.Index('placement_reservation_amounts_pair_idx',
             'resource_provider_id', 'resource_class_id'),
)

# Migration 0013: one row (id 1) whose stamp every reservation write
# changes; the copies of the active holds kept per process are checked
# against it.
placement_reservation_stamp = sa.Table(
    'placement_reservation_stamp', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=False),
    sa.Column('stamp', sa.String(36), nullable=False),
)

# ---------------------------------------------------------------------------
# Bare-metal tables (migration 0002_baremetal)
#
# nodes.allocation_id and baremetal_allocations.node_id reference each
# other. The nodes side is created by ALTER after both tables exist
# (use_alter), and sets itself NULL when its allocation row goes, so rows
# can always be deleted allocations first.
# ---------------------------------------------------------------------------


class JsonText(sa.types.TypeDecorator):
    """A JSON document (dict or list) stored as TEXT on every backend; the
    native JSON types differ between MariaDB, PostgreSQL and SQLite.
    MariaDB's TEXT holds 64 KiB (the API refuses larger values); a
    ``long`` one is LONGTEXT there."""

    impl = sa.Text
    cache_ok = True

    def __init__(self, long=False):
        super().__init__()
        self.long = long

    def load_dialect_impl(self, dialect):
        if self.long and dialect.name == 'mysql':
            return dialect.type_descriptor(mysql.LONGTEXT())
        return dialect.type_descriptor(sa.Text())

    def process_bind_param(self, value, dialect):
        return None if value is None else json.dumps(value)

    def process_result_value(self, value, dialect):
        return None if value is None else json.loads(value)


# Ironic's driver interface types: a node has a ``<type>_interface``
# column for each (allocsvc.common.hardware.INTERFACE_TYPES).
NODE_INTERFACE_TYPES = ('bios', 'boot', 'console', 'deploy', 'firmware',
                        'inspect', 'management', 'network', 'power', 'raid',
                        'rescue', 'storage', 'vendor')


conductors = sa.Table(
    'conductors', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('hostname', sa.String(255), nullable=False),
    sa.Column('drivers', JsonText, nullable=True),
    sa.Column('conductor_group', sa.String(255), nullable=False),
    sa.Column('online', sa.Boolean, nullable=False),
    sa.Column('heartbeat_at', sa.DateTime, nullable=True),
    *_timestamps(),
    sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
)

nodes = sa.Table(
    'nodes', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.String(255), nullable=True),
    sa.Column('driver', sa.String(255), nullable=False),
    sa.Column('driver_info', JsonText, nullable=True),
    sa.Column('resource_class', sa.String(80), nullable=True),
    sa.Column('provision_state', sa.String(15), nullable=False),
    sa.Column('target_provision_state', sa.String(15), nullable=True),
    sa.Column('provision_updated_at', sa.DateTime, nullable=True),
    sa.Column('power_state', sa.String(15), nullable=True),
    sa.Column('target_power_state', sa.String(15), nullable=True),
    sa.Column('maintenance', sa.Boolean, nullable=False),
    sa.Column('maintenance_reason', sa.Text, nullable=True),
    sa.Column('instance_uuid', sa.String(36), nullable=True),
    sa.Column('allocation_id', sa.Integer,
              sa.ForeignKey('baremetal_allocations.id',
                            name='nodes_allocation_id_fkey',
                            use_alter=True, ondelete='SET NULL'),
              nullable=True),
    # Hostname of the conductor holding the node's exclusive lock.
    sa.Column('reservation', sa.String(255), nullable=True),
    sa.Column('conductor_affinity', sa.Integer,
              sa.ForeignKey('conductors.id'), nullable=True),
    sa.Column('conductor_group', sa.String(255), nullable=False),
    sa.Column('owner', sa.String(255), nullable=True),
    sa.Column('lessee', sa.String(255), nullable=True),
    sa.Column('description', sa.Text, nullable=True),
    sa.Column('automated_clean', sa.Boolean, nullable=True),
    sa.Column('properties', JsonText, nullable=True),
    sa.Column('extra', JsonText, nullable=True),
    # Config drives travel in it: LONGTEXT on MariaDB, as in Ironic.
    sa.Column('instance_info', JsonText(long=True), nullable=True),
    sa.Column('last_error', sa.Text, nullable=True),
    *_timestamps(),
    # Migration 0006_node_fields: the rest of Ironic's node.
    *[sa.Column('%s_interface' % kind, sa.String(255), nullable=True)
      for kind in NODE_INTERFACE_TYPES],
    sa.Column('console_enabled', sa.Boolean, nullable=False,
              server_default=sa.false()),
    sa.Column('driver_internal_info', JsonText, nullable=True),
    sa.Column('clean_step', JsonText, nullable=True),
    sa.Column('deploy_step', JsonText, nullable=True),
    sa.Column('service_step', JsonText, nullable=True),
    sa.Column('raid_config', JsonText, nullable=True),
    sa.Column('target_raid_config', JsonText, nullable=True),
    sa.Column('network_data', JsonText, nullable=True),
    sa.Column('inspection_started_at', sa.DateTime, nullable=True),
    sa.Column('inspection_finished_at', sa.DateTime, nullable=True),
    sa.Column('fault', sa.String(255), nullable=True),
    sa.Column('protected', sa.Boolean, nullable=False,
              server_default=sa.false()),
    sa.Column('protected_reason', sa.Text, nullable=True),
    sa.Column('retired', sa.Boolean, nullable=False,
              server_default=sa.false()),
    sa.Column('retired_reason', sa.Text, nullable=True),
    sa.Column('instance_name', sa.String(255), nullable=True),
    sa.Column('boot_mode', sa.String(16), nullable=True),
    sa.Column('secure_boot', sa.Boolean, nullable=True),
    sa.Column('shard', sa.String(255), nullable=True),
    # The UUID of the node's parent node, if it has one.
    sa.Column('parent_node', sa.String(36), nullable=True),
    sa.Column('disable_power_off', sa.Boolean, nullable=False,
              server_default=sa.false()),
    sa.Column('health', sa.String(255), nullable=True),
    # Migration 0009_chassis: the chassis the node is in, if any. The key
    # keeps a node from naming a chassis that a concurrent delete removed.
    sa.Column('chassis_id', sa.Integer,
              sa.ForeignKey('chassis.id', name='nodes_chassis_id_fkey'),
              nullable=True),
    sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
    sa.UniqueConstraint('name', name='uniq_nodes0name'),
    sa.UniqueConstraint('instance_uuid', name='uniq_nodes0instance_uuid'),
    sa.Index('nodes_resource_class_provision_state_idx',
             'resource_class', 'provision_state'),
    sa.Index('nodes_reservation_idx', 'reservation'),
    sa.Index('nodes_allocation_id_idx', 'allocation_id'),
    sa.Index('nodes_conductor_affinity_idx', 'conductor_affinity'),
    sa.Index('nodes_shard_idx', 'shard'),
    sa.Index('nodes_parent_node_idx', 'parent_node'),
    sa.Index('nodes_chassis_id_idx', 'chassis_id'),
)

node_traits = sa.Table(
    'node_traits', metadata,
    sa.Column('node_id', sa.Integer, sa.ForeignKey('nodes.id'),
              primary_key=True),
    sa.Column('trait', sa.String(255), primary_key=True),
    *_timestamps(),
    sa.Index('node_traits_trait_idx', 'trait'),
)

baremetal_allocations = sa.Table(
    'baremetal_allocations', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.String(255), nullable=True),
    sa.Column('node_id', sa.Integer, sa.ForeignKey('nodes.id'),
              nullable=True),
    sa.Column('state', sa.String(15), nullable=False),
    sa.Column('owner', sa.String(255), nullable=True),
    sa.Column('last_error', sa.Text, nullable=True),
    sa.Column('resource_class', sa.String(80), nullable=True),
    sa.Column('traits', JsonText, nullable=True),
    sa.Column('candidate_nodes', JsonText, nullable=True),
    sa.Column('extra', JsonText, nullable=True),
    # The conductor that owns the allocation; every conductor write is a
    # compare-and-swap on it.
    sa.Column('conductor_affinity', sa.Integer,
              sa.ForeignKey('conductors.id'), nullable=True),
    # To the microsecond: when an allocation became active, from the
    # moment it was asked for, is a few milliseconds.
    *_timestamps(precise=True),
    # The allocation group it is a member of (migration 0011); NULL for
    # an allocation asked for alone. Ironic's document never shows it.
    sa.Column('group_id', sa.Integer,
              sa.ForeignKey('baremetal_allocation_groups.id',
                            name='baremetal_allocations_group_id_fkey'),
              nullable=True),
    sa.UniqueConstraint('uuid', name='uniq_baremetal_allocations0uuid'),
    sa.UniqueConstraint('name', name='uniq_baremetal_allocations0name'),
    sa.UniqueConstraint('node_id', name='uniq_baremetal_allocations0node_id'),
    sa.Index('baremetal_allocations_state_affinity_idx',
             'state', 'conductor_affinity'),
    sa.Index('baremetal_allocations_conductor_affinity_idx',
             'conductor_affinity'),
    sa.Index('baremetal_allocations_group_id_idx', 'group_id'),
)

# An allocation group (migration 0011, an allocsvc extension): ``count``
# nodes asked for at once, all or none, its members rows of
# ``baremetal_allocations`` naming it in ``group_id``. ``spread``: the
# failure-domain rule as a JSON object, or NULL.
baremetal_allocation_groups = sa.Table(
    'baremetal_allocation_groups', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.String(255), nullable=True),
    sa.Column('state', sa.String(15), nullable=False),
    sa.Column('owner', sa.String(255), nullable=True),
    sa.Column('last_error', sa.Text, nullable=True),
    sa.Column('resource_class', sa.String(80), nullable=False),
    sa.Column('traits', JsonText, nullable=True),
    sa.Column('candidate_nodes', JsonText, nullable=True),
    sa.Column('count', sa.Integer, nullable=False),
    sa.Column('spread', JsonText, nullable=True),
    sa.Column('conductor_affinity', sa.Integer,
              sa.ForeignKey('conductors.id'), nullable=True),
    *_timestamps(precise=True),
    sa.UniqueConstraint('uuid',
                        name='uniq_baremetal_allocation_groups0uuid'),
    sa.UniqueConstraint('name',
                        name='uniq_baremetal_allocation_groups0name'),
)

# ---------------------------------------------------------------------------
# Ports and port groups (migration 0007_ports_portgroups)
#
# A node's network interfaces. ``address`` is a MAC address, stored
# lower-case (the API normalises it), unique among ports and, separately,
# among port groups. Both belong to one node; a port may be a member of a
# port group of the same node.
# ---------------------------------------------------------------------------

portgroups = sa.Table(
    'portgroups', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.String(255), nullable=True),
    sa.Column('node_id', sa.Integer, sa.ForeignKey('nodes.id'),
              nullable=False),
    sa.Column('address', sa.String(18), nullable=True),
    sa.Column('extra', JsonText, nullable=True),
    sa.Column('internal_info', JsonText, nullable=True),
    sa.Column('standalone_ports_supported', sa.Boolean, nullable=False),
    sa.Column('mode', sa.String(255), nullable=True),
    sa.Column('properties', JsonText, nullable=True),
    sa.Column('category', sa.String(80), nullable=True),
    # Migration 0010_port_dynamic_portgroups: the physical network the
    # member ports share, and whether a network driver made the group.
    sa.Column('physical_network', sa.String(64), nullable=True),
    sa.Column('dynamic_portgroup', sa.Boolean, nullable=False,
              server_default=sa.false()),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
    sa.UniqueConstraint('name', name='uniq_portgroups0name'),
    sa.UniqueConstraint('address', name='uniq_portgroups0address'),
    sa.Index('portgroups_node_id_idx', 'node_id'),
)

ports = sa.Table(
    'ports', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.String(255), nullable=True),
    sa.Column('address', sa.String(18), nullable=False),
    sa.Column('node_id', sa.Integer, sa.ForeignKey('nodes.id'),
              nullable=False),
    sa.Column('portgroup_id', sa.Integer, sa.ForeignKey('portgroups.id'),
              nullable=True),
    sa.Column('extra', JsonText, nullable=True),
    sa.Column('internal_info', JsonText, nullable=True),
    sa.Column('local_link_connection', JsonText, nullable=True),
    sa.Column('pxe_enabled', sa.Boolean, nullable=False),
    sa.Column('physical_network', sa.String(64), nullable=True),
    sa.Column('is_smartnic', sa.Boolean, nullable=False),
    sa.Column('description', sa.Text, nullable=True),
    sa.Column('vendor', sa.String(255), nullable=True),
    sa.Column('category', sa.String(80), nullable=True),
    # Migration 0010_port_dynamic_portgroups.
    sa.Column('available_for_dynamic_portgroup', sa.Boolean, nullable=False,
              server_default=sa.true()),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
    sa.UniqueConstraint('name', name='uniq_ports0name'),
    sa.UniqueConstraint('address', name='uniq_ports0address'),
    sa.Index('ports_node_id_idx', 'node_id'),
    sa.Index('ports_portgroup_id_idx', 'portgroup_id'),
)

# ---------------------------------------------------------------------------
# Chassis (migration 0009_chassis)
#
# Ironic's chassis: a UUID, a description and ``extra``, and the nodes
# whose ``chassis_id`` is theirs. A chassis with nodes cannot be deleted
# (the nodes' foreign key refuses it even to a writer that raced the
# check).
# ---------------------------------------------------------------------------

chassis = sa.Table(
    'chassis', metadata,
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('description', sa.String(255), nullable=True),
    sa.Column('extra', JsonText, nullable=True),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),
)
