"""The alembic migrations build exactly the schema the code describes, on
every backend, and carry existing data forward (nodes get their resource
providers)."""

from alembic import autogenerate
from alembic import migration as alembic_migration
from oslo_utils import uuidutils
import sqlalchemy as sa

from allocsvc.db import migration
from allocsvc.db import models


def test_schema_is_at_head(database):
    assert migration.current_revision(database.engine) == \
        migration.head_revision()
    assert not migration.needs_upgrade(database.engine)


def test_models_match_migrations(database):
    with database.engine.connect() as conn:
        context = alembic_migration.MigrationContext.configure(
            conn, opts={'compare_type': True})
        diff = autogenerate.compare_metadata(context, models.metadata)
    # alembic's own version table is not part of the models.
    diff = [d for d in diff if not (d[0] == 'remove_table' and
                                    d[1].name == 'alembic_version')]
    assert diff == []


def test_upgrade_is_idempotent(database):
    migration.upgrade(engine=database.engine)
    assert not migration.needs_upgrade(database.engine)


def test_existing_nodes_get_their_providers(scratch_engine):
    # Nodes enrolled before revision 0005 get the resource provider every
    # node write keeps from then on.
    migration.upgrade('0004_placement_topology', engine=scratch_engine)
    nodes = models.nodes
    free, bare = uuidutils.generate_uuid(), uuidutils.generate_uuid()
    common = dict(driver='fake-hardware', maintenance=False,
                  conductor_group='')
    with scratch_engine.begin() as conn:
        conn.execute(nodes.insert(), [
            dict(common, uuid=free, resource_class='gold.large',
                 provision_state='available', power_state='power off'),
            dict(common, uuid=bare, resource_class=None,
                 provision_state='enroll', power_state=None)])
        free_id = conn.execute(sa.select(nodes.c.id).where(
            nodes.c.uuid == free)).scalar()
        conn.execute(models.node_traits.insert(), [
            {'node_id': free_id, 'trait': 'CUSTOM_GOLD'},
            {'node_id': free_id, 'trait': 'HW_CPU_X86_VMX'}])
    migration.upgrade(engine=scratch_engine)
    rp, inv, rc = (models.resource_providers, models.inventories,
                   models.resource_classes)
    with scratch_engine.connect() as conn:
        providers = {row.uuid: row for row in conn.execute(sa.select(rp))}
        assert set(providers) == {free, bare}
        for uuid, row in providers.items():
            assert row.name == uuid
            assert row.root_provider_id == row.id
            assert row.parent_provider_id is None
        inventories = conn.execute(
            sa.select(inv.c.resource_provider_id, rc.c.name, inv.c.total,
                      inv.c.reserved, inv.c.max_unit)
            .join(rc, rc.c.id == inv.c.resource_class_id)).all()
        assert [tuple(row) for row in inventories] == [
            (providers[free].id, 'CUSTOM_GOLD_LARGE', 1, 0, 1)]
        traits = conn.execute(
            sa.select(models.traits.c.name)
            .join(models.resource_provider_traits,
                  models.resource_provider_traits.c.trait_id ==
                  models.traits.c.id)
            .where(models.resource_provider_traits.c.resource_provider_id ==
                   providers[free].id)).scalars().all()
        assert sorted(traits) == ['CUSTOM_GOLD', 'HW_CPU_X86_VMX']


def test_existing_nodes_get_the_new_node_fields(scratch_engine):
    # Nodes enrolled before revision 0006 get fake-hardware's default
    # interfaces and false flags.
    migration.upgrade('0005_node_providers', engine=scratch_engine)
    old_nodes = sa.table('nodes', *[sa.column(name) for name in (
        'uuid', 'driver', 'maintenance', 'conductor_group',
        'provision_state')])
    node_uuid = uuidutils.generate_uuid()
    with scratch_engine.begin() as conn:
        conn.execute(old_nodes.insert().values(
            uuid=node_uuid, driver='fake-hardware', maintenance=False,
            conductor_group='', provision_state='enroll'))
    migration.upgrade(engine=scratch_engine)
    with scratch_engine.connect() as conn:
        row = conn.execute(sa.select(models.nodes).where(
            models.nodes.c.uuid == node_uuid)).one()
    assert row.boot_interface == 'fake'
    assert row.network_interface == 'flat'
    assert row.storage_interface == 'noop'
    assert row.retired is False and row.protected is False
    assert row.console_enabled is False and row.disable_power_off is False
    assert row.shard is None and row.network_data is None


def test_existing_allocations_belong_to_no_group(scratch_engine):
    # Allocations made before revision 0011 were asked for alone; the
    # groups table starts empty and takes groups whose members refer to
    # it.
    migration.upgrade('0010_port_dynamic_portgroups', engine=scratch_engine)
    old = sa.table('baremetal_allocations', *[sa.column(name) for name in (
        'uuid', 'state', 'resource_class')])
    allocation_uuid = uuidutils.generate_uuid()
    with scratch_engine.begin() as conn:
        conn.execute(old.insert().values(uuid=allocation_uuid,
                                         state='error',
                                         resource_class='baremetal'))
    migration.upgrade(engine=scratch_engine)
    groups = models.baremetal_allocation_groups
    allocations = models.baremetal_allocations
    with scratch_engine.begin() as conn:
        row = conn.execute(sa.select(allocations).where(
            allocations.c.uuid == allocation_uuid)).one()
        assert row.group_id is None
        assert conn.execute(sa.select(groups)).all() == []
        group_id = conn.execute(groups.insert().values(
            uuid=uuidutils.generate_uuid(), state='allocating',
            resource_class='baremetal', count=1)).inserted_primary_key[0]
        conn.execute(allocations.update().where(
            allocations.c.uuid == allocation_uuid).values(
                group_id=group_id))
