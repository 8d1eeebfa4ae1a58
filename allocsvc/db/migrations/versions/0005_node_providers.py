"""Bare metal: every node becomes a resource provider of Placement.

From this revision on, every node write keeps the node's resource
provider in step (``allocsvc.conductor.mirror``). The nodes that exist
already get theirs here, in the shape the mirror gave them when this
revision was written; the claims of the placement allocation back end
are made by binding, so none exists yet.

Revision ID: 0005_node_providers
Revises: 0004_placement_topology
Create Date: 2026-11-25
"""

import datetime
import re

from alembic import op
from oslo_utils import uuidutils
import sqlalchemy as sa

revision = '0005_node_providers'
down_revision = '0004_placement_topology'
branch_labels = None
depends_on = None


# The tables as this revision finds them: only the columns it reads or
# writes. Frozen here, like everything this revision does: the live
# models and the engine's mirror (``allocsvc.placement.node_providers``)
# may change after it.
_NODES = sa.table(
    'nodes', *(sa.column(name) for name in (
        'id', 'uuid', 'resource_class', 'provision_state', 'maintenance',
        'power_state', 'instance_uuid', 'allocation_id')))
_NODE_TRAITS = sa.table('node_traits', sa.column('node_id'),
                        sa.column('trait'))
_RP = sa.table('resource_providers', *(sa.column(name) for name in (
    'id', 'uuid', 'name', 'generation', 'root_provider_id',
    'created_at')))
_INV = sa.table('inventories', *(sa.column(name) for name in (
    'resource_provider_id', 'resource_class_id', 'total', 'reserved',
    'min_unit', 'max_unit', 'step_size', 'allocation_ratio',
    'created_at')))
_RC = sa.table('resource_classes', sa.column('id'), sa.column('name'),
               sa.column('created_at'))
_TRAITS = sa.table('traits', sa.column('id'), sa.column('name'),
                   sa.column('created_at'))
_RPT = sa.table('resource_provider_traits',
                sa.column('resource_provider_id'), sa.column('trait_id'),
                sa.column('created_at'))
_TOPOLOGY = sa.table('placement_topology', sa.column('epoch'))


def _class_name(node_resource_class):
    # As nova names a node's resource class in Placement.
    return 'CUSTOM_' + re.sub('[^0-9A-Za-z]+', '_',
                              node_resource_class).upper()


def _is_free(node):
    return (node.provision_state == 'available' and not node.maintenance
            and node.power_state is not None and
            node.instance_uuid is None and node.allocation_id is None)


def _ids(connection, table, names, now):
    """{name: id} of ``names`` in ``table``, inserting the missing."""
    found = dict(connection.execute(
        sa.select(table.c.name, table.c.id)).all())
    missing = sorted(set(names) - set(found))
    if missing:
        connection.execute(table.insert(), [
            {'name': name, 'created_at': now} for name in missing])
        found = dict(connection.execute(
            sa.select(table.c.name, table.c.id)).all())
    return found


def upgrade():
    connection = op.get_bind()
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    traits = {}
    for node_id, name in connection.execute(
            sa.select(_NODE_TRAITS.c.node_id, _NODE_TRAITS.c.trait)):
        traits.setdefault(node_id, []).append(name)
    nodes = connection.execute(sa.select(_NODES)).all()
    if not nodes:
        return
    classes = _ids(connection, _RC, [
        _class_name(node.resource_class) for node in nodes
        if node.resource_class], now)
    trait_ids = _ids(connection, _TRAITS,
                     [name for names in traits.values() for name in names],
                     now)
    existing = set(connection.execute(sa.select(_RP.c.uuid)).scalars())
    for node in nodes:
        # A root provider named by the node's UUID, with one unit of its
        # resource class, reserved unless the node is free, and its
        # traits; a provider of that UUID already there is left alone.
        if node.uuid in existing:
            continue
        connection.execute(_RP.insert().values(
            uuid=node.uuid, name=node.uuid, generation=0, created_at=now))
        rp_id = connection.execute(sa.select(_RP.c.id).where(
            _RP.c.uuid == node.uuid)).scalar()
        connection.execute(_RP.update().where(_RP.c.id == rp_id)
                           .values(root_provider_id=rp_id))
        if node.resource_class:
            connection.execute(_INV.insert().values(
                resource_provider_id=rp_id,
                resource_class_id=classes[_class_name(node.resource_class)],
                total=1, reserved=0 if _is_free(node) else 1, min_unit=1,
                max_unit=1, step_size=1, allocation_ratio=1.0,
                created_at=now))
        names = sorted(set(traits.get(node.id, ())))
        if names:
            connection.execute(_RPT.insert(), [
                {'resource_provider_id': rp_id, 'trait_id': trait_ids[name],
                 'created_at': now} for name in names])
    # Processes keeping a copy of the provider trees read them again.
    connection.execute(_TOPOLOGY.update().values(
        epoch=uuidutils.generate_uuid()))
    connection.info.pop('allocsvc.topology', None)
