"""The rules of changing ports and port groups through the bare-metal API.

A conductor applies them on the API's behalf
(``allocsvc.conductor.manager``), as Ironic's conductor does: every
change holds the lock of the node the port or port group belongs to
(``locking.Locker``), and is one transaction. Ironic's rules and
messages:

* a port joins only a port group of its own node (400); a port group
  that does not support standalone ports takes no member with PXE
  enabled (409); all ports of a port group share one physical network
  (409), which the group keeps too: a group without members takes
  the network of its first port that has one, and a change of the
  group's network moves its members along;
* a port's address changes on an active node, or one with an instance,
  only in maintenance; its connectivity (port group, PXE, local link,
  physical network) only in enroll, inspecting, inspect wait or
  manageable, or in maintenance (409);
* a port group with ports is not deleted (400), nor moved to another
  node (409);
* MAC addresses, names and UUIDs are unique (409, ``ports``).
"""

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import nodes
from allocsvc.db.baremetal import ports

# What changes a port's connectivity, in the order messages name them.
CONNECTIVITY = ('portgroup_id', 'pxe_enabled', 'local_link_connection',
                'physical_network')
# Where a port's connectivity may change out of maintenance (Ironic's
# list: nodes here never inspect, but the message names them all).
CONNECTIVITY_STATES = (states.ENROLL, 'inspecting', 'inspect wait',
                       states.MANAGEABLE)


def _portgroup_of_node(context, portgroup_id, node_id):
    portgroup = ports.portgroup_in_transaction(context, 'id', portgroup_id)
    if portgroup.node_id != node_id:
        raise exception.BadRequest('Port can not be added to a portgroup '
                                   'belonging to a different node.')
    return portgroup


def _check_standalone(portgroup, pxe_enabled, port_uuid=None):
    if pxe_enabled and not portgroup.standalone_ports_supported:
        if port_uuid is None:
            raise exception.Conflict(
                "Port group %s doesn't support standalone ports. This port "
                "cannot be created as a member of that port group because "
                "either 'extra/vif_port_id' was specified or 'pxe_enabled' "
                "was set to True." % portgroup.uuid)
        raise exception.Conflict(
            "Port group %s doesn't support standalone ports. This port %s "
            "cannot be a member of that port group because either "
            "'extra/vif_port_id' was specified or 'pxe_enabled' was set to "
            "True." % (portgroup.uuid, port_uuid))


def _check_physnet(context, portgroup, physnet, port_id=None):
    """All ports of a port group are on one physical network (None is
    one too). A group without other members holds its own (1.102): a
    port joins it only on that network, and the first port with a
    network gives it to a group that has none."""
    physnets = ports.physnets_of_portgroup(context, portgroup.id, port_id)
    if not physnets:
        if portgroup.physical_network is not None:
            physnets = {portgroup.physical_network}
        elif physnet is not None:
            ports.update_portgroup_in_transaction(
                context, portgroup, {'physical_network': physnet})
            return
        else:
            return
    if len(physnets) > 1:
        raise exception.Conflict(
            'Port group %s has member ports with inconsistent physical '
            'networks (%s). All ports in a port group must have the same '
            'physical network.'
            % (portgroup.uuid, ', '.join(sorted(map(str, physnets)))))
    current = physnets.pop()
    if physnet != current:
        raise exception.Conflict(
            'Port with physical network %s cannot become a member of port '
            'group %s which has ports in physical network %s.'
            % (physnet, portgroup.uuid, current))


def _check_expected(port, expected, kind='Port'):
    for column, value in (expected or {}).items():
        if getattr(port, column) != value:
            raise exception.Conflict(
                '%s %s was changed by another request (its %s differs); '
                'please retry.' % (kind, port.uuid, column))


# -- ports -------------------------------------------------------------------

def create_port(context, values, locker):
    """Insert a port from ``values`` (columns; ``node_id`` required)
    under its node's lock; return it."""
    with locker.hold(context, values['node_id']):
        port = _create_port(context, values)
    return ports.get_port(context, 'id', port.id)


@db_api.writer
def _create_port(context, values):
    if values.get('portgroup_id') is not None:
        portgroup = _portgroup_of_node(context, values['portgroup_id'],
                                       values['node_id'])
        # The API passes pxe_enabled only when the request set it.
        _check_standalone(portgroup, values.get('pxe_enabled') is True)
        _check_physnet(context, portgroup, values.get('physical_network'))
    return ports.create_port_in_transaction(context, values)


def update_port(context, port_id, changes, locker, expected=None):
    """Write ``changes`` (columns) to port ``port_id`` under its node's
    lock; ``expected``: the values they were computed from (409 if
    another request changed one meanwhile). Returns the port."""
    port = ports.get_port(context, 'id', port_id)
    with locker.hold(context, port.node_id):
        _update_port(context, port_id, changes, expected)
    return ports.get_port(context, 'id', port_id)


@db_api.writer
def _update_port(context, port_id, changes, expected):
    port = ports.port_in_transaction(context, 'id', port_id)
    _check_expected(port, expected)
    changes = {key: value for key, value in changes.items()
               if getattr(port, key) != value}
    if not changes:
        return port
    node = nodes.get_in_transaction(context, port.node_id,
                                    with_traits=False)
    if 'address' in changes and not node.maintenance and (
            node.provision_state == states.ACTIVE or node.instance_uuid):
        raise exception.InvalidState(
            'Cannot update hardware address for port %s as node %s is '
            'active or has instance UUID assigned' % (port.uuid, node.uuid))
    if set(CONNECTIVITY).intersection(changes) and not (
            node.maintenance or
            node.provision_state in CONNECTIVITY_STATES):
        raise exception.InvalidState(
            'Port %s can not have any connectivity attributes (%s) updated '
            'unless node %s is in a %s state or in maintenance mode. The '
            'current state is %s.'
            % (port.uuid, ', '.join(CONNECTIVITY), node.uuid,
               ', '.join(CONNECTIVITY_STATES), node.provision_state))
    node_id = changes.get('node_id', port.node_id)
    if node_id != port.node_id:
        nodes.get_in_transaction(context, node_id, with_traits=False)
    portgroup_id = changes.get('portgroup_id', port.portgroup_id)
    if portgroup_id is not None:
        portgroup = _portgroup_of_node(context, portgroup_id, node_id)
        if {'portgroup_id', 'pxe_enabled'}.intersection(changes):
            _check_standalone(portgroup,
                              changes.get('pxe_enabled', port.pxe_enabled),
                              port.uuid)
        if {'portgroup_id', 'physical_network'}.intersection(changes):
            _check_physnet(context, portgroup,
                           changes.get('physical_network',
                                       port.physical_network), port.id)
    return ports.update_port_in_transaction(context, port, changes)


def destroy_port(context, port_id, locker):
    """Delete port ``port_id`` under its node's lock."""
    port = ports.get_port(context, 'id', port_id)
    with locker.hold(context, port.node_id):
        _destroy_port(context, port_id)


@db_api.writer
def _destroy_port(context, port_id):
    ports.destroy_port_in_transaction(
        context, ports.port_in_transaction(context, 'id', port_id))


# -- port groups -------------------------------------------------------------

def create_portgroup(context, values, locker):
    """Insert a port group from ``values`` (``node_id`` required) under
    its node's lock; return it."""
    with locker.hold(context, values['node_id']):
        portgroup = _create_portgroup(context, values)
    return ports.get_portgroup(context, 'id', portgroup.id)


@db_api.writer
def _create_portgroup(context, values):
    return ports.create_portgroup_in_transaction(context, values)


def update_portgroup(context, portgroup_id, changes, locker, expected=None):
    """Write ``changes`` to port group ``portgroup_id`` under its node's
    lock; return it."""
    portgroup = ports.get_portgroup(context, 'id', portgroup_id)
    with locker.hold(context, portgroup.node_id):
        _update_portgroup(context, portgroup_id, changes, expected)
    return ports.get_portgroup(context, 'id', portgroup_id)


@db_api.writer
def _update_portgroup(context, portgroup_id, changes, expected):
    portgroup = ports.portgroup_in_transaction(context, 'id', portgroup_id)
    _check_expected(portgroup, expected, 'Portgroup')
    changes = {key: value for key, value in changes.items()
               if getattr(portgroup, key) != value}
    if not changes:
        return portgroup
    if 'node_id' in changes:
        node = nodes.get_in_transaction(context, changes['node_id'],
                                        with_traits=False)
        if ports.portgroup_has_ports(context, portgroup.id):
            raise exception.InvalidState(
                'Portgroup %s can not be associated to node %s because '
                'there are ports associated with the portgroup.'
                % (portgroup.uuid, node.uuid))
    if changes.get('standalone_ports_supported') is False and \
            _has_pxe_member(context, portgroup.id):
        raise exception.Conflict(
            'Port group %s can not have standalone_ports_supported set to '
            'False while member ports have pxe_enabled set to True.'
            % portgroup.uuid)
    updated = ports.update_portgroup_in_transaction(context, portgroup,
                                                    changes)
    if 'physical_network' in changes:
        # The members follow their group's network, whatever their
        # node's state (as Ironic's conductor does).
        ports.set_physnet_of_members(context, portgroup.id,
                                     changes['physical_network'])
    return updated


def _has_pxe_member(context, portgroup_id):
    return any(port.pxe_enabled for port in ports.list_ports_in_transaction(
        context, {'portgroup_id': portgroup_id}))


def destroy_portgroup(context, portgroup_id, locker):
    """Delete port group ``portgroup_id`` under its node's lock;
    PortgroupNotEmpty (400) while it has ports."""
    portgroup = ports.get_portgroup(context, 'id', portgroup_id)
    with locker.hold(context, portgroup.node_id):
        _destroy_portgroup(context, portgroup_id)


@db_api.writer
def _destroy_portgroup(context, portgroup_id):
    ports.destroy_portgroup_in_transaction(
        context, ports.portgroup_in_transaction(context, 'id', portgroup_id))
