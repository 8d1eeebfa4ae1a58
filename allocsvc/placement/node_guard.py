"""What Placement writes may not do to the resource provider of a bound
bare-metal node (see ``node_providers``): take the node's unit from
under its instance by deleting the provider or its inventory, directly
or by a reshape. Kept apart from ``node_providers`` so that the
engine's own modules can ask without importing the mirror."""

import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import models

_NODE = models.nodes

# SELECT nodes.uuid, nodes.instance_uuid FROM nodes
# WHERE nodes.uuid = :uuid
#   AND (instance_uuid IS NOT NULL OR allocation_id IS NOT NULL)
_BOUND = sa.select(_NODE.c.uuid, _NODE.c.instance_uuid).where(
    _NODE.c.uuid == sa.bindparam('uuid'),
    sa.or_(_NODE.c.instance_uuid.is_not(None),
           _NODE.c.allocation_id.is_not(None)))


def bound_node(context, provider_uuid):
    """The node whose provider is ``provider_uuid``, if it is bound to
    an instance or an allocation: (uuid, instance_uuid); else None."""
    return context.session.execute(_BOUND, {'uuid': provider_uuid}).first()


def refuse(context, provider_uuid, what):
    """ProviderInUse (409) if ``provider_uuid`` is the provider of a
    bound node: ``what`` ('delete resource provider', ...) would take
    the node's unit from under its instance."""
    node = bound_node(context, provider_uuid)
    if node is not None:
        raise exception.ProviderInUse(
            'Unable to %s %s: it is the resource provider of bare-metal '
            'node %s, which is bound to instance %s.'
            % (what, provider_uuid, node.uuid, node.instance_uuid))


_BAREMETAL = models.baremetal_allocations.c.uuid
_CLAIMS = sa.select(_BAREMETAL).where(
    _BAREMETAL.in_(sa.bindparam('uuids', expanding=True)))


def refuse_claims(context, consumer_uuids):
    """Conflict (409) if one of ``consumer_uuids`` is a bare-metal
    allocation: its claim (placement back end) changes with the
    allocation, through ``/v1/allocations``, never on its own -- or
    the node would be bound with its unit free for anyone."""
    if not consumer_uuids:
        return
    found = sorted(context.session.execute(
        _CLAIMS, {'uuids': sorted(set(consumer_uuids))}).scalars())
    if found:
        raise exception.Conflict(
            'Unable to change the allocations of consumer %s: it is a '
            'bare-metal allocation, whose allocations change only through '
            'the bare-metal API (/v1/allocations).' % found[0])
