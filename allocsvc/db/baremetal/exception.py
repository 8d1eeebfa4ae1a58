"""Errors of the bare-metal DB layer, with Ironic's messages.

Each subclasses the allocsvc exception of its HTTP status, so the
bare-metal API can turn it into Ironic's ``error_message`` body as is.
"""

from allocsvc.common import exception


class InvalidParameterValue(exception.BadRequest):
    pass


class NodeNotFound(exception.NotFound):
    def __init__(self, node):
        super().__init__('Node %s could not be found.' % node)


class NodeTraitNotFound(exception.NotFound):
    def __init__(self, node, trait):
        super().__init__("Node %s doesn't have a trait %s" % (node, trait))


class AllocationNotFound(exception.NotFound):
    def __init__(self, allocation):
        super().__init__('Allocation %s could not be found.' % allocation)


class ConductorNotFound(exception.NotFound):
    def __init__(self, conductor):
        super().__init__('Conductor %s could not be found.' % conductor)


class NodeAlreadyExists(exception.Conflict):
    def __init__(self, uuid):
        super().__init__('A node with UUID %s already exists.' % uuid)


class DuplicateNodeName(exception.Conflict):
    def __init__(self, name):
        super().__init__('A node with name %s already exists.' % name)


class AllocationAlreadyExists(exception.Conflict):
    def __init__(self, uuid):
        super().__init__('An allocation with UUID %s already exists.' % uuid)


class AllocationDuplicateName(exception.Conflict):
    def __init__(self, name):
        super().__init__('An allocation with name %s already exists.' % name)


class InstanceAssociated(exception.Conflict):
    def __init__(self, instance_uuid, node):
        super().__init__(
            'Instance %s is already associated with a node, it cannot be '
            'associated with this other node %s' % (instance_uuid, node))


class NodeAssociated(exception.Conflict):
    def __init__(self, node, instance):
        super().__init__('Node %s is associated with instance %s.'
                         % (node, instance))


class NodeNotAvailable(exception.Conflict):
    """The node no longer fits an allocation (state, maintenance, owner
    changed since it was chosen)."""

    def __init__(self, node, reason):
        super().__init__('Node %s cannot be allocated: %s' % (node, reason))


class NodeLocked(exception.Conflict):
    def __init__(self, node, host):
        super().__init__(
            'Node %s is locked by host %s, please retry after the current '
            'operation is completed.' % (node, host))
        self.host = host


class NodeNotLocked(exception.Conflict):
    def __init__(self, node, host):
        super().__init__('Node %s found not to be locked by host %s.'
                         % (node, host))


class AllocationAffinityLost(exception.Conflict):
    """A conductor wrote to an allocation another conductor now owns (or
    that is gone): its work on the allocation must stop."""

    def __init__(self, allocation, conductor_id):
        super().__init__(
            'Allocation %s is no longer handled by conductor %s.'
            % (allocation, conductor_id))


class AllocationFailed(InvalidParameterValue):
    """An allocation cannot be made as asked: a backfill that does not
    match its node (upstream answers this with a 500)."""

    def __init__(self, allocation, reason):
        super().__init__('Failed to process allocation %s: %s.'
                         % (allocation, reason))


class TooManyTraits(InvalidParameterValue):
    def __init__(self, node, maximum):
        super().__init__(
            'Could not modify traits for node %s: would exceed the maximum '
            'of %d traits per node.' % (node, maximum))


class ServiceUnavailable(exception.AllocsvcException):
    status = 503


class NoConductorAvailable(ServiceUnavailable):
    """No conductor is alive to take the work."""

    def __init__(self, reason='no conductor is alive'):
        super().__init__('No conductor can process the request: %s.'
                         % reason)


class NoFreeConductorWorker(ServiceUnavailable):
    def __init__(self):
        super().__init__('Requested action cannot be performed due to lack '
                         'of free conductor workers.')
