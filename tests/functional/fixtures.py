"""Gabbi fixtures: data a YAML file needs before its first request.

Each YAML file starts on a clean database (see test_gabbi.py). Fixtures
put the uuids they make into the environment for ``$ENVIRON[...]``.
"""

import os

from gabbi import fixture
from oslo_utils import uuidutils
import sqlalchemy as sa

from allocsvc.common import context as ctx_mod
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import inventories
from allocsvc.placement import providers


class APIFixture(fixture.GabbiFixture):
    """Fresh uuids for the resources a file creates over HTTP."""

    def start_fixture(self):
        for name in ('RP_UUID', 'RP_NAME', 'PARENT_PROVIDER_UUID',
                     'ALT_PARENT_PROVIDER_UUID', 'CHILD_UUID',
                     'GRANDCHILD_UUID', 'ALT_RP_UUID', 'AGGA_UUID',
                     'AGGB_UUID', 'AGGC_UUID', 'CONSUMER_UUID',
                     'ALT_CONSUMER_UUID', 'PROJECT_ID', 'USER_ID',
                     'ALT_PROJECT_ID', 'ALT_USER_ID'):
            os.environ[name] = uuidutils.generate_uuid()

    def stop_fixture(self):
        pass


class AllocationFixture(APIFixture):
    """Two providers with inventory, and allocations against them.

    Nothing in the API writes allocations yet, so they are inserted into
    the tables directly. The data, by provider (RP_UUID "cn1", ALT_RP_UUID
    "cn2"), consumer (project, user, consumer type) and amounts:

    inventory  cn1: VCPU 8 (ratio 16), MEMORY_MB 4096 (reserved 512),
                    DISK_GB 100
               cn2: VCPU 4, MEMORY_MB 2048, DISK_GB 50
    CONSUMER_UUID         PROJECT_ID/USER_ID      INSTANCE
                          cn1 VCPU 2, MEMORY_MB 1024; cn2 DISK_GB 10
    ALT_CONSUMER_UUID     PROJECT_ID/USER_ID      INSTANCE
                          cn1 VCPU 1, MEMORY_MB 512
    MIGRATION_CONSUMER_UUID  PROJECT_ID/ALT_USER_ID  MIGRATION
                          cn1 VCPU 4, DISK_GB 20
    UNTYPED_CONSUMER_UUID PROJECT_ID/USER_ID      (no type)
                          cn1 VCPU 3
    OTHER_CONSUMER_UUID   ALT_PROJECT_ID/USER_ID  INSTANCE
                          cn2 VCPU 1

    Provider generations after the fixture: 1 each.
    """

    def start_fixture(self):
        super().start_fixture()
        for name in ('MIGRATION_CONSUMER_UUID', 'UNTYPED_CONSUMER_UUID',
                     'OTHER_CONSUMER_UUID'):
            os.environ[name] = uuidutils.generate_uuid()
        env = os.environ
        # Ids that differ only in case: MySQL's collation would match them.
        env['UPPER_PROJECT_ID'] = env['PROJECT_ID'].upper()
        env['UPPER_USER_ID'] = env['USER_ID'].upper()
        ctx = ctx_mod.get_admin_context()
        inv = inventories.Inventory
        for uuid, name, invs in (
                (env['RP_UUID'], 'cn1',
                 [inv('VCPU', 8, allocation_ratio=16.0),
                  inv('MEMORY_MB', 4096, reserved=512),
                  inv('DISK_GB', 100)]),
                (env['ALT_RP_UUID'], 'cn2',
                 [inv('VCPU', 4), inv('MEMORY_MB', 2048),
                  inv('DISK_GB', 50)])):
            providers.create(ctx, name, uuid=uuid)
            inventories.replace_all(ctx, uuid, 0, invs, True)
        _insert_allocations(env, [
            ('CONSUMER_UUID', 'PROJECT_ID', 'USER_ID', 'INSTANCE',
             [('RP_UUID', 'VCPU', 2), ('RP_UUID', 'MEMORY_MB', 1024),
              ('ALT_RP_UUID', 'DISK_GB', 10)]),
            ('ALT_CONSUMER_UUID', 'PROJECT_ID', 'USER_ID', 'INSTANCE',
             [('RP_UUID', 'VCPU', 1), ('RP_UUID', 'MEMORY_MB', 512)]),
            ('MIGRATION_CONSUMER_UUID', 'PROJECT_ID', 'ALT_USER_ID',
             'MIGRATION',
             [('RP_UUID', 'VCPU', 4), ('RP_UUID', 'DISK_GB', 20)]),
            ('UNTYPED_CONSUMER_UUID', 'PROJECT_ID', 'USER_ID', None,
             [('RP_UUID', 'VCPU', 3)]),
            ('OTHER_CONSUMER_UUID', 'ALT_PROJECT_ID', 'USER_ID', 'INSTANCE',
             [('ALT_RP_UUID', 'VCPU', 1)]),
        ])


def _insert_allocations(env, consumers):
    """Insert consumers and their allocations, with the projects, users
    and consumer types they name. ``consumers``: (consumer env name,
    project env name, user env name, type or None, [(provider env name,
    class, used)])."""
    def intern(conn, table, column, value, cache):
        if value not in cache:
            cache[value] = conn.execute(
                table.insert().values(**{column: value})
            ).inserted_primary_key[0]
        return cache[value]

    projects, users, types = {}, {}, {}
    with db_api.get_engine().begin() as conn:
        def ids(table, column):
            rows = conn.execute(sa.select(table.c[column], table.c.id))
            return {row[0]: row[1] for row in rows}
        rps = ids(models.resource_providers, 'uuid')
        classes = ids(models.resource_classes, 'name')
        for consumer, project, user, ctype, allocs in consumers:
            project_id = intern(conn, models.projects, 'external_id',
                                env[project], projects)
            user_id = intern(conn, models.users, 'external_id', env[user],
                             users)
            type_id = None
            if ctype is not None:
                type_id = intern(conn, models.consumer_types, 'name', ctype,
                                 types)
            conn.execute(models.consumers.insert().values(
                uuid=env[consumer], project_id=project_id, user_id=user_id,
                generation=1, consumer_type_id=type_id))
            for rp, rc, used in allocs:
                conn.execute(models.allocations.insert().values(
                    resource_provider_id=rps[env[rp]],
                    consumer_id=env[consumer],
                    resource_class_id=classes[rc], used=used))


class ConsumersFixture(APIFixture):
    """APIFixture plus uuids for a third consumer and a third provider."""

    def start_fixture(self):
        super().start_fixture()
        for name in ('MIGRATION_UUID', 'THIRD_RP_UUID'):
            os.environ[name] = uuidutils.generate_uuid()


class OvercommitFixture(AllocationFixture):
    """AllocationFixture, then cn1's VCPU allocation ratio is cut to 1.0
    behind the API's back: 10 VCPU are allocated of a capacity of 8 (the
    API refuses to shrink inventory below what is allocated)."""

    def start_fixture(self):
        super().start_fixture()
        inv = models.inventories
        with db_api.get_engine().begin() as conn:
            rp_id = conn.execute(
                sa.select(models.resource_providers.c.id).where(
                    models.resource_providers.c.uuid ==
                    os.environ['RP_UUID'])).scalar()
            vcpu = conn.execute(
                sa.select(models.resource_classes.c.id).where(
                    models.resource_classes.c.name == 'VCPU')).scalar()
            conn.execute(inv.update().where(
                inv.c.resource_provider_id == rp_id,
                inv.c.resource_class_id == vcpu).values(allocation_ratio=1.0))
