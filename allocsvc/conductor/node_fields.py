"""The rules of a node's own fields, which creating and updating a node
(``provisioning``) apply: its driver interfaces (checked, defaulted,
changed only in Ironic's states), retirement and protection (a reason
only with its flag), the instance name Nova's display name gives, and
the parent node. Pure functions of the node and the changes, except
the parent's look-up, which reads the caller's transaction.
"""

from allocsvc.common import exception
from allocsvc.common import hardware
from allocsvc.common import states
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import nodes


@db_api.reader
def find_parent(context, ident):
    """``parent_uuid`` for a new node, in a transaction of its own."""
    return parent_uuid(context, ident)


def parent_uuid(context, ident, child=None):
    """The UUID of the node ``ident`` (UUID or name) names, as a parent
    of ``child`` (a UUID, or None for a new node); 400 if there is
    none or it is the child itself."""
    uuid = nodes.uuid_in_transaction(context, ident)
    if uuid is None:
        raise exception.InvalidParameterValue(
            'Node %s could not be found.' % ident)
    if uuid == child:
        raise exception.InvalidParameterValue(
            'Node %s can not be its own parent node.' % child)
    return uuid


def check_flags(node, changes):
    """Ironic's rules on retirement and protection for ``changes`` to
    ``node`` (a mapping or record; for a new node both are its values):
    a reason only goes with its flag (400); unsetting a flag forgets its
    reason; a node is retired outside ``available`` and protected only
    in ``active`` (409)."""
    def current(name):
        if name in changes:
            return changes[name]
        return node.get(name) if isinstance(node, dict) \
            else getattr(node, name)

    uuid = current('uuid')
    state = current('provision_state')
    for flag, reason in (('retired', 'retired_reason'),
                         ('protected', 'protected_reason')):
        if flag in changes and not changes[flag]:
            changes[reason] = None
        if changes.get(reason) and not current(flag):
            raise exception.InvalidParameterValue(
                'The %s field can only be set when %s is True'
                % (reason, flag))
    if changes.get('retired') and node is not changes and \
            state == states.AVAILABLE:
        raise exception.InvalidState(
            "Node %s can not have 'retired' set in provision state "
            "'available', the current state is '%s'" % (uuid, state))
    if changes.get('protected') and state not in (states.ACTIVE,
                                                  states.RESCUE):
        raise exception.InvalidState(
            "Node %s can only be made protected in provision states "
            "'active' or 'rescue', the current state is '%s'"
            % (uuid, state))


def sync_instance_name(node, changes):
    """A node without an ``instance_name`` takes the display name Nova
    puts in ``instance_info`` (as Ironic does); a name set explicitly
    stays."""
    current = node.get('instance_name') if isinstance(node, dict) \
        else node.instance_name
    if 'instance_info' in changes and 'instance_name' not in changes \
            and current is None:
        name = (changes['instance_info'] or {}).get('display_name')
        if name is not None:
            changes['instance_name'] = str(name)[:255]


# Where a node's interfaces may change out of maintenance (Ironic's).
INTERFACE_STATES = (states.ENROLL, 'inspecting', 'inspect wait',
                    states.MANAGEABLE, states.AVAILABLE)


def interfaces(node, changes, reset, conf):
    """The interface changes of ``changes`` checked, with the defaults
    of the ones a driver change resets (``reset``) or leaves unset."""
    driver = changes.get('driver', node.driver)
    changing = [field for field in hardware.FIELDS if field in changes]
    if changing and not (node.maintenance or
                         node.provision_state in INTERFACE_STATES):
        raise exception.InvalidState(
            'Node %s can not have %s updated unless it is in one of '
            'allowed (%s) states or in maintenance mode.'
            % (node.uuid, changing[0], ', '.join(INTERFACE_STATES)))
    if 'driver' not in changes and not changing:
        return
    given = {field: changes[field] if field in changes
             else (None if reset else getattr(node, field))
             for field in hardware.FIELDS}
    for field, name in hardware.node_interfaces(
            conf, driver, given, node=node.uuid).items():
        # A field removed (None) takes its default at once, as in
        # Ironic, also when that is the value it had.
        if field in changes or name != getattr(node, field):
            changes[field] = name
