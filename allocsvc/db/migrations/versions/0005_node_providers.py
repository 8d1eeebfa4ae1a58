"""Bare metal: every node becomes a resource provider of Placement.

From this revision on, every node write keeps the node's resource
provider (``allocsvc.placement.node_providers``) in step. The nodes that
exist already get theirs here, in the shape the mirror gives them; the
claims of the placement allocation back end are made by binding, so
none exists yet.

Revision ID: 0005_node_providers
Revises: 0004_placement_topology
Create Date: 2026-11-25
"""

from alembic import op
from oslo_utils import uuidutils
import sqlalchemy as sa

revision = '0005_node_providers'
down_revision = '0004_placement_topology'
branch_labels = None
depends_on = None


class _Context:
    """What the mirror needs of a request context: something to run
    statements in (here the migration's connection, in its
    transaction)."""

    def __init__(self, connection):
        self.session = connection


def upgrade():
    # Imported here: the mirror needs the whole schema, which the
    # earlier revisions built.
    from allocsvc.db import models
    from allocsvc.placement import node_providers

    connection = op.get_bind()
    context = _Context(connection)
    node, trait = models.nodes, models.node_traits
    traits = {}
    for node_id, name in connection.execute(
            sa.select(trait.c.node_id, trait.c.trait)):
        traits.setdefault(node_id, []).append(name)
    columns = [node.c[name] for name in (
        'id', 'uuid', 'resource_class', 'provision_state', 'maintenance',
        'power_state', 'instance_uuid', 'allocation_id')]
    for row in connection.execute(sa.select(*columns)).all():
        node_providers.sync(context, row, traits=traits.get(row.id, []))
    # Processes keeping a copy of the provider trees read them again.
    connection.execute(models.placement_topology.update().values(
        epoch=uuidutils.generate_uuid()))
    connection.info.pop('allocsvc.topology', None)
