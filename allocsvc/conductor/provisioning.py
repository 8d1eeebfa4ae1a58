"""The rules of changing a node through the bare-metal API.

Creating, updating and deleting nodes, maintenance, traits, the power
state changes, and deleting an allocation (which frees its node), with
Ironic's rules and messages; the provisioning verbs are ``verbs``'. A
conductor applies them on the API's behalf
(``allocsvc.conductor.manager``). The only hardware type is
``fake-hardware``: it completes every step at once, so a change is one
transaction; no state string is made up here.

Every change of an existing node holds the node's lock (``locking``) for
its duration, under the conductor's host name, so it never interleaves
with an allocation binding the node; the write itself is also
conditional on the lock and on the state it was decided from. A node
locked by someone else for longer than the ``locking.Locker``'s patience
is NodeLocked (409). The node a change returns is read once the lock is
released. The writes are the database layer's, each with its resource
provider's (``mirror``), in the transaction opened here.
"""

from oslo_utils import uuidutils

from allocsvc.common import exception
from allocsvc.common import hardware
from allocsvc.common import states
from allocsvc.conductor import mirror
from allocsvc.conductor import node_fields
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import nodes

# Where a node's instance_uuid may be removed although an allocation set
# it (Ironic also allows its inspection states, which nodes here never
# enter); maintenance allows it anywhere.
_INSTANCE_REMOVAL_STATES = (states.ENROLL, states.MANAGEABLE,
                            states.AVAILABLE)
# Where a node's resource class may be changed once it has one.
_RESOURCE_CLASS_STATES = _INSTANCE_REMOVAL_STATES


def check_driver(driver, conductor_group='', conf=None):
    """NoValidHost (400) unless nodes may use ``driver`` (an enabled
    hardware type, ``allocsvc.common.hardware``)."""
    hardware.check_hardware_type(conf, driver, conductor_group)


def initial_state(legacy=False):
    """The provision state of a new node: the machine's initial state,
    or, for clients older than API 1.11 (``legacy``), where ``manage``
    and then ``provide`` take it (``available``), as Ironic did."""
    state = states.NODE_INITIAL
    if legacy:
        for verb in ('manage', 'provide'):
            event = states.PROVISION_VERBS[verb]
            state = states.node_settle(state, event)[-1][0]
    return state


def create_node(context, values, legacy=False, conf=None):
    """Insert a node from ``values`` (columns, and ``traits``) in its
    initial state (see ``initial_state``); return it. NoValidHost for
    a driver nodes may not use; the driver interfaces not given get
    their defaults and the given ones are checked (``hardware``, 400s);
    ``parent_node`` (UUID or name) must name a node; the retirement
    rules of ``node_fields.check_flags``; the unique clashes of
    ``nodes.create_node``."""
    check_driver(values['driver'], values.get('conductor_group'), conf)
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    values.update(hardware.node_interfaces(conf, values['driver'], values,
                                           node=values['uuid']))
    node_fields.check_flags(values, values)
    node_fields.sync_instance_name(values, values)
    values['provision_state'] = initial_state(legacy)
    if values.get('parent_node') is not None:
        values['parent_node'] = node_fields.find_parent(
            context, values['parent_node'])
    # Its own transaction, retried whole on a deadlock (not nested in
    # one of ours: a retry inside a rolled back transaction would
    # insert the node twice).
    return mirror.create_node(context, values)


# -- update and delete -------------------------------------------------------

def update_node(context, node_id, changes, locker, expected=None,
                reset_interfaces=False, conf=None):
    """Write ``changes`` (column values) to the node under its lock, in
    one transaction, and return the node. ``expected`` (column values)
    are what the changes were computed from (a JSON patch applied to the
    node as the caller read it): if another writer changed one of those
    columns meanwhile, NodeChanged (409) rather than a lost update.
    Ironic's rules:

    * no change while a state transition is in progress outside the
      states that allow updates (but removing ``instance_uuid`` in
      maintenance is always allowed) -- InvalidState (409);
    * removing ``instance_uuid`` that an allocation set deletes the
      allocation; it is only allowed in maintenance or in enroll,
      manageable or available -- InvalidState;
    * replacing one ``instance_uuid`` with another -- NodeAssociated;
    * changing ``owner`` while the node's allocation has an owner --
      InvalidState;
    * changing ``resource_class`` once set, outside enroll, manageable
      and available -- InvalidState;
    * ``driver`` must be one nodes may use -- NoValidHost (400); with
      ``reset_interfaces`` the interfaces not in ``changes`` go back to
      their defaults;
    * the interfaces are checked and defaulted (``hardware``, 400s) and
      change only in enroll, inspection, manageable or available, or in
      maintenance -- InvalidState;
    * retirement and protection: ``node_fields.check_flags``;
    * ``parent_node`` must name another node (400).
    """
    if 'driver' in changes:
        check_driver(changes['driver'], changes.get('conductor_group'),
                     conf)
    with locker.hold(context, node_id):
        _update(context, node_id, dict(changes), locker.host,
                expected or {}, reset_interfaces, conf)
    return nodes.get_by_id(context, node_id)


@db_api.writer
def _update(context, node_id, changes, host, expected, reset=False,
            conf=None):
    node = nodes.get_in_transaction(context, node_id)
    for column, value in expected.items():
        if getattr(node, column) != value:
            raise exception.NodeChanged(node.uuid, column)
    changes = dict(changes)
    if 'maintenance' in changes and not changes['maintenance']:
        # Out of maintenance: its reason and the fault that caused it go.
        changes.update(maintenance_reason=None, fault=None)
    node_fields.interfaces(node, changes, reset, conf)
    node_fields.check_flags(node, changes)
    node_fields.sync_instance_name(node, changes)
    if changes.get('parent_node') is not None:
        changes['parent_node'] = node_fields.parent_uuid(
            context, changes['parent_node'], child=node.uuid)
    changes = {key: value for key, value in changes.items()
               if getattr(node, key) != value}
    removing_instance = ('instance_uuid' in changes and
                         changes['instance_uuid'] is None)
    if not (node.maintenance and removing_instance and len(changes) == 1):
        if (node.target_provision_state and node.provision_state
                not in states.UPDATE_ALLOWED_STATES):
            raise exception.InvalidState(
                'Node %s can not be updated while a state transition is in '
                'progress.' % node.uuid)
    if 'owner' in changes and node.allocation_id and \
            db_allocations.owner_in_transaction(
                context, node.allocation_id) is not None:
        raise exception.InvalidState(
            'Cannot update owner of node "%s" while it is allocated to an '
            'allocation with an owner.' % node.uuid)
    if 'resource_class' in changes and node.resource_class is not None \
            and node.provision_state not in _RESOURCE_CLASS_STATES:
        raise exception.InvalidState(
            'Node %s can not have resource_class updated unless it is in '
            'one of allowed (%s) states.'
            % (node.uuid, ', '.join(_RESOURCE_CLASS_STATES)))
    if 'instance_uuid' in changes:
        if removing_instance and node.allocation_id:
            if not node.maintenance and \
                    node.provision_state not in _INSTANCE_REMOVAL_STATES:
                raise exception.InvalidState(
                    'Node %s with an allocation can not have instance_uuid '
                    'removed unless it is in one of allowed (%s) states or '
                    'in maintenance mode.'
                    % (node.uuid, ', '.join(_INSTANCE_REMOVAL_STATES)))
            mirror.drop_allocation(context, node)
        elif not removing_instance and node.instance_uuid is not None:
            raise exception.NodeAssociated(node.uuid, node.instance_uuid)
    if not changes:
        return node
    return mirror.update_in_transaction(
        context, node_id, changes, locked_by=host,
        expect={'provision_state': node.provision_state})


def destroy_node(context, node_id, locker, allow_available=True):
    """Delete the node (with its traits and allocation) under its lock.
    Out of maintenance, a node with an instance is NodeAssociated (409)
    and one outside enroll, manageable and (if ``allow_available``, as
    Ironic's ``allow_deleting_available_nodes``) available is
    InvalidState (409)."""
    allowed = states.DELETE_ALLOWED_STATES
    if allow_available:
        allowed += (states.AVAILABLE,)
    destroyed = False
    try:
        with locker.hold(context, node_id):
            _destroy(context, node_id, locker.host, allowed)
            destroyed = True
    except exception.NodeNotFound:
        # Releasing the lock of a node that is gone finds no node.
        if not destroyed:
            raise


@db_api.writer
def _destroy(context, node_id, host, allowed):
    node = nodes.get_in_transaction(context, node_id)
    if node.reservation != host:
        raise exception.NodeNotLocked(node.uuid, host)
    if node.protected:
        raise exception.NodeProtected(node.uuid)
    if not node.maintenance:
        if node.instance_uuid is not None:
            raise exception.NodeAssociated(node.uuid, node.instance_uuid)
        if node.provision_state not in allowed:
            raise exception.InvalidState(
                'Can not delete node "%s" while it is in provision state '
                '"%s". Valid provision states to perform deletion are: '
                '"%s", or set the node into maintenance mode'
                % (node.uuid, node.provision_state, allowed))
    mirror.destroy_in_transaction(context, node_id)


def set_maintenance(context, node_id, maintenance, reason, locker):
    """Put the node into maintenance with ``reason`` (True), or take it
    out, forgetting the reason (False); return the node."""
    with locker.hold(context, node_id):
        _set_maintenance(context, node_id, maintenance, reason, locker.host)
    return nodes.get_by_id(context, node_id)


@db_api.writer
def _set_maintenance(context, node_id, maintenance, reason, host):
    values = {'maintenance': bool(maintenance),
              'maintenance_reason': reason if maintenance else None}
    if not maintenance:
        values['fault'] = None
    return mirror.update_in_transaction(context, node_id, values,
                                        locked_by=host)


# -- power -------------------------------------------------------------------

def set_power_state(context, node_id, target, locker):
    """Apply the power ``target`` (a key of ``states.POWER_RESULTS``) and
    return the node, now in the power state that leaves it in.
    InvalidStateRequested (400) for another target, or while the node is
    being cleaned."""
    with locker.hold(context, node_id):
        _set_power_state(context, node_id, target, locker.host)
    return nodes.get_by_id(context, node_id)


@db_api.writer
def _set_power_state(context, node_id, target, host):
    node = nodes.get_in_transaction(context, node_id)
    if target not in states.POWER_RESULTS:
        raise exception.InvalidStateRequested(target, node.uuid,
                                              node.power_state)
    if node.provision_state == states.CLEANING:
        raise exception.InvalidStateRequested(target, node.uuid,
                                              node.provision_state)
    # UPDATE nodes SET power_state = :new, target_power_state = NULL, ...
    # WHERE id = :id AND reservation = :host AND power_state = :current
    # A power action that succeeds clears the node's last error, as in
    # Ironic.
    return mirror.update_in_transaction(
        context, node_id,
        {'power_state': states.POWER_RESULTS[target],
         'target_power_state': None, 'last_error': None},
        locked_by=host, expect={'power_state': node.power_state})


# -- traits ------------------------------------------------------------------

def set_traits(context, node_id, traits, locker):
    """Replace the node's traits (under its lock: a conductor re-checks
    traits under it before allocating the node); return them."""
    with locker.hold(context, node_id):
        return mirror.set_traits(context, node_id, traits)


def add_trait(context, node_id, trait, locker):
    with locker.hold(context, node_id):
        mirror.add_trait(context, node_id, trait)


def remove_trait(context, node_id, trait, locker):
    with locker.hold(context, node_id):
        mirror.remove_trait(context, node_id, trait)


def remove_all_traits(context, node_id, locker):
    with locker.hold(context, node_id):
        mirror.remove_all_traits(context, node_id)


# -- allocations -------------------------------------------------------------

def check_deletable(allocation, node):
    """Ironic's rule: a node out of maintenance keeps its allocation while
    it is active, or busy in a state where it may not be updated
    (Conflict, 409)."""
    if node.maintenance:
        return
    if node.target_provision_state and \
            node.provision_state not in states.UPDATE_ALLOWED_STATES:
        raise exception.Conflict(
            'Cannot remove allocation %s for node %s, because the node is '
            'in state %s where updates are not allowed (and maintenance '
            'mode is off)' % (allocation.uuid, node.uuid,
                              node.provision_state))
    if node.provision_state == states.ACTIVE:
        raise exception.Conflict(
            'Cannot remove allocation %s for node %s, because the node is '
            'active (and maintenance mode is off)'
            % (allocation.uuid, node.uuid))


def destroy_allocation(context, allocation, locker):
    """Delete ``allocation`` (its ``id``, ``uuid`` and ``node_id`` as the
    caller read it) and free its node, in one transaction, under the
    node's lock (NodeLocked, 409, if another holder keeps it); see
    ``check_deletable``. AllocationNotFound (404) if it is gone, also
    when its node was deleted meanwhile (the allocation went with it).

    Without a node (``allocating`` or ``error``), no lock is needed: if a
    conductor binds it meanwhile, the deletion frees that node in the
    same transaction, and a bind that comes after the deletion finds no
    allocation and rolls back (``db.baremetal.allocations.bind``).
    """
    if allocation.node_id is None:
        mirror.destroy_allocation(context, allocation.id)
        return
    try:
        with locker.hold(context, allocation.node_id) as node:
            if node.allocation_id == allocation.id:
                check_deletable(allocation, node)
            mirror.destroy_allocation(context, allocation.id)
    except exception.NodeNotFound:
        raise exception.AllocationNotFound(allocation.uuid)
