"""Node writes and their resource providers, in one transaction.

Every node is a resource provider of the Placement engine
(``allocsvc.placement.node_providers``). A write that changes what a
node's provider shows -- creating, updating or deleting the node, its
traits, binding it to a bare-metal allocation or freeing it -- is
composed here: the database layer's write (``allocsvc.db.baremetal``),
then the engine's mirror of it, in the one transaction the function
opens (``@db_api.writer``; a caller's transaction, if there is one, is
joined: enginefacade nests writers). Either both are written or
neither. Lock order, as everywhere: the node's row, then its
provider's.

The ``*_in_transaction`` functions run inside a caller's transaction.
"""

from allocsvc.db import api as db_api
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import nodes as db_nodes
from allocsvc.placement import node_providers


# -- nodes --------------------------------------------------------------------

@db_api.writer
def create_node(context, values):
    """``db_nodes.create_node``, and the node's provider."""
    node = db_nodes.create_node(context, values)
    node_providers.sync(context, node, traits=node.traits)
    return node


def update_in_transaction(context, node_id, values, locked_by=None,
                          expect=None):
    """``db_nodes.update_in_transaction``, and the provider follows."""
    node = db_nodes.update_in_transaction(context, node_id, values,
                                          locked_by=locked_by, expect=expect)
    node_providers.sync(context, node)
    return node


@db_api.writer
def update_node(context, node_id, values):
    return update_in_transaction(context, node_id, values)


def destroy_in_transaction(context, node_id):
    """``db_nodes.destroy_in_transaction``, then the provider goes (with
    the claims of the node's allocations). Conflict while another
    consumer holds the provider: the whole transaction rolls back."""
    uuid, allocation_uuids = db_nodes.destroy_in_transaction(context, node_id)
    node_providers.delete(context, uuid, allocation_uuids)


@db_api.writer
def destroy_node(context, node_id):
    destroy_in_transaction(context, node_id)


# -- traits -------------------------------------------------------------------

def _sync_traits(context, node_id):
    node = db_nodes.get_in_transaction(context, node_id)
    node_providers.sync(context, node, traits=node.traits)


@db_api.writer
def set_traits(context, node_id, traits):
    traits = db_nodes.set_traits(context, node_id, traits)
    _sync_traits(context, node_id)
    return traits


@db_api.writer
def add_trait(context, node_id, trait):
    if db_nodes.add_trait(context, node_id, trait):
        _sync_traits(context, node_id)


@db_api.writer
def remove_trait(context, node_id, trait):
    db_nodes.remove_trait(context, node_id, trait)
    _sync_traits(context, node_id)


@db_api.writer
def remove_all_traits(context, node_id):
    db_nodes.remove_all_traits(context, node_id)
    _sync_traits(context, node_id)


# -- bare-metal allocations ---------------------------------------------------

def _bound(context, bound, claim=None, provider=None):
    """The node was just bound to the allocation: its unit is claimed
    (``claim(context, allocation, node, provider)``, the placement back
    end's) or, without a claim, reserved. ``provider``: the node's
    provider as ``node_providers.lock`` left it, if the caller locked
    it. Returns the allocation."""
    if claim is not None:
        claim(context, bound.allocation, bound.node, provider)
    else:
        node_providers.sync(context, bound.node, free=False, locked=provider)
    return bound.allocation


@db_api.writer
def bind(context, allocation_id, node_id, conductor_id, locked_by=None,
         backfill=False, claim=None):
    """``db_allocations.bind``, and the node's unit is claimed or
    reserved (``_bound``); return the allocation."""
    return _bound(context, db_allocations.bind(
        context, allocation_id, node_id, conductor_id, locked_by=locked_by,
        backfill=backfill), claim)


def bind_locked(context, allocation, node, conductor_id, host, claim=None,
                provider=None):
    """``db_allocations.bind_locked`` in the caller's transaction, which
    locked the node's provider first (``provider``); see ``_bound``."""
    return _bound(context, db_allocations.bind_locked(
        context, allocation, node, conductor_id, host), claim, provider)


@db_api.writer
def backfill(context, values, node_id, conductor_id, locked_by=None,
             claim=None):
    """``db_allocations.backfill``; see ``_bound``."""
    return _bound(context, db_allocations.backfill(
        context, values, node_id, conductor_id, locked_by=locked_by), claim)


@db_api.writer
def destroy_allocation(context, allocation_id,
                       conductor_id=db_allocations.ANY):
    """``db_allocations.destroy_allocation``; then the node's unit: the
    claim goes, or the reservation (the node is free again unless its
    state says otherwise)."""
    destroyed = db_allocations.destroy_allocation(context, allocation_id,
                                                  conductor_id)
    if destroyed is None:
        return
    node_providers.release(context, destroyed.uuid)
    if destroyed.node is not None:
        node_providers.sync(context, destroyed.node)


def drop_allocation(context, node):
    """Inside the caller's transaction: delete the node's allocation and
    its claim (``db_allocations.drop_in_transaction``). The caller's
    node write then syncs the provider."""
    uuid = db_allocations.drop_in_transaction(context, node.id,
                                              node.allocation_id)
    if uuid is not None:
        node_providers.release(context, uuid)
