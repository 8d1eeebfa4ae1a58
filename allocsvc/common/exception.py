"""Exceptions the engines raise and the APIs turn into error responses.

Each exception carries the HTTP status it maps to and, for the Placement
API, a frozen error code (``placement.*``). Codes are wire contract: never
change or reuse one.
"""

# Placement error codes, as documented by the Placement API reference.
DEFAULT = 'placement.undefined_code'
INVENTORY_INUSE = 'placement.inventory.inuse'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = (
    'placement.resource_provider.cannot_delete_parent')
RESOURCE_PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
QUERYPARAM_DUPLICATE_KEY = 'placement.query.duplicate_key'
QUERYPARAM_BAD_VALUE = 'placement.query.bad_value'
QUERYPARAM_MISSING_VALUE = 'placement.query.missing_value'


class AllocsvcException(Exception):
    """Base of every error a user can cause: ``status`` (also ``code``, as
    WSME and Ironic's exceptions name it) is the HTTP status,
    ``error_code`` the Placement error code."""

    status = 500
    error_code = DEFAULT

    def __init__(self, message, error_code=None):
        super().__init__(message)
        self.message = message
        if error_code is not None:
            self.error_code = error_code

    @property
    def code(self):
        return self.status


class BadRequest(AllocsvcException):
    status = 400


class InvalidInventory(BadRequest):
    """An inventory whose values contradict each other (reserved above
    total); the API says which write it refused."""


class NotFound(AllocsvcException):
    status = 404


class ProviderNotFound(NotFound):
    """No resource provider has the uuid asked for."""

    def __init__(self, uuid):
        super().__init__('No resource provider with uuid %s found' % uuid)


class Conflict(AllocsvcException):
    status = 409


class ConcurrentUpdate(Conflict):
    error_code = CONCURRENT_UPDATE


class InventoryInUse(Conflict):
    error_code = INVENTORY_INUSE


class DuplicateName(Conflict):
    error_code = DUPLICATE_NAME


class ProviderInUse(Conflict):
    error_code = PROVIDER_IN_USE


class CannotDeleteParent(Conflict):
    error_code = PROVIDER_CANNOT_DELETE_PARENT


# -- the bare-metal API and its conductor (Ironic's messages) ----------


class InvalidParameterValue(BadRequest):
    pass


class NodeNotFound(NotFound):
    def __init__(self, node):
        super().__init__('Node %s could not be found.' % node)


class NodeTraitNotFound(NotFound):
    def __init__(self, node, trait):
        super().__init__("Node %s doesn't have a trait %s" % (node, trait))


class AllocationNotFound(NotFound):
    def __init__(self, allocation):
        super().__init__('Allocation %s could not be found.' % allocation)


class ConductorNotFound(NotFound):
    def __init__(self, conductor):
        super().__init__('Conductor %s could not be found.' % conductor)


class DriverNotFound(NotFound):
    def __init__(self, driver):
        super().__init__('Could not find the following driver(s) or '
                         'hardware type(s): %s.' % driver)


class NodeAlreadyExists(Conflict):
    def __init__(self, uuid):
        super().__init__('A node with UUID %s already exists.' % uuid)


class DuplicateNodeName(Conflict):
    def __init__(self, name):
        super().__init__('A node with name %s already exists.' % name)


class AllocationGroupNotFound(NotFound):
    def __init__(self, group):
        super().__init__('Allocation group %s could not be found.' % group)


class AllocationGroupDuplicate(Conflict):
    def __init__(self, what):
        super().__init__('An allocation group with %s already exists.'
                         % what)


class AllocationAlreadyExists(Conflict):
    def __init__(self, uuid):
        super().__init__('An allocation with UUID %s already exists.' % uuid)


class AllocationDuplicateName(Conflict):
    def __init__(self, name):
        super().__init__('An allocation with name %s already exists.' % name)


class InstanceAssociated(Conflict):
    def __init__(self, instance_uuid, node):
        super().__init__(
            'Instance %s is already associated with a node, it cannot be '
            'associated with this other node %s' % (instance_uuid, node))


class NodeAssociated(Conflict):
    def __init__(self, node, instance):
        super().__init__('Node %s is associated with instance %s.'
                         % (node, instance))


class NodeNotAvailable(Conflict):
    """The node no longer fits an allocation (state, maintenance, owner
    changed since it was chosen)."""

    def __init__(self, node, reason):
        super().__init__('Node %s cannot be allocated: %s' % (node, reason))


class NodeLocked(Conflict):
    def __init__(self, node, host):
        super().__init__(
            'Node %s is locked by host %s, please retry after the current '
            'operation is completed.' % (node, host))
        self.host = host


class NodeNotLocked(Conflict):
    def __init__(self, node, host):
        super().__init__('Node %s found not to be locked by host %s.'
                         % (node, host))


class AllocationAffinityLost(Conflict):
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


class UnsupportedDriverExtension(InvalidParameterValue):
    """A node's driver does not do what was asked (400, or 404 where
    Ironic says so: ``status`` may be given)."""

    def __init__(self, driver, extension, status=None):
        super().__init__('Driver %s does not support %s (disabled or not '
                         'implemented).' % (driver, extension))
        if status is not None:
            self.status = status


class TooManyTraits(InvalidParameterValue):
    def __init__(self, node, maximum):
        super().__init__(
            'Could not modify traits for node %s: would exceed the maximum '
            'of %d traits per node.' % (node, maximum))


class ServiceUnavailable(AllocsvcException):
    """Answered 503 with ``Retry-After: retry_after`` (seconds): the
    request can be sent again as it is."""

    status = 503
    retry_after = 1


class NoConductorAvailable(ServiceUnavailable):
    """No conductor is alive to take the work."""

    def __init__(self, reason='no conductor is alive', retry_after=None):
        super().__init__('No conductor can process the request: %s.'
                         % reason)
        if retry_after is not None:
            self.retry_after = max(1, int(round(retry_after)))


class RequestExpired(ServiceUnavailable):
    """A conductor received a call after its client stopped waiting."""

    def __init__(self, late):
        super().__init__('The request reached the conductor %.1f seconds '
                         'after its client stopped waiting; it was not '
                         'carried out.' % late)


class ConductorTooOld(ServiceUnavailable):
    """The conductor RPC API version an operation needs is above the
    client's cap (``[conductor] rpc_version_cap``): the conductors are
    not all upgraded yet."""

    def __init__(self, operation, version):
        super().__init__(
            'The conductors do not support %s yet (it needs conductor RPC '
            'API %s); finish upgrading them.' % (operation, version))


class DatabaseUnavailable(ServiceUnavailable):
    """The database could not be reached, even after the retries of
    ``allocsvc.db.api``; the caller may try again."""

    def __init__(self):
        super().__init__('The database is unavailable. Please try again '
                         'later.')


class NoFreeConductorWorker(ServiceUnavailable):
    def __init__(self):
        super().__init__('Requested action cannot be performed due to lack '
                         'of free conductor workers.')


class NoValidHost(BadRequest):
    def __init__(self, driver, group):
        super().__init__(
            'No valid host was found. Reason: No conductor service '
            'registered which supports driver %s for conductor group '
            '"%s".' % (driver, group or ''))


class InvalidStateRequested(BadRequest):
    def __init__(self, action, node, state):
        super().__init__(
            'The requested action "%s" can not be performed on node "%s" '
            'while it is in state "%s".' % (action, node, state))


class InvalidState(Conflict):
    """The node's state forbids the change."""


class NodeInMaintenance(BadRequest):
    def __init__(self, operation, node):
        super().__init__(
            "The %s operation can't be performed on node %s because it's "
            "in maintenance mode." % (operation, node))


class InstanceRescueFailure(BadRequest):
    """Rescue refused by the node's driver (Ironic's text; its status
    there is 500, see doc/source/deviations.rst)."""

    def __init__(self, instance, node, reason):
        super().__init__('Failed to rescue instance %s for node %s: %s'
                         % (instance, node, reason))


class UnsupportedServiceStep(BadRequest):
    """A service step that would leave a fake-hardware node waiting for
    a ramdisk it never boots (see doc/source/deviations.rst)."""

    def __init__(self, step):
        super().__init__('Service step %s.%s would hold or wait, which the '
                         'fake-hardware driver does not support.'
                         % (step['interface'], step['step']))


class NodeChanged(Conflict):
    """A conditional write found the node changed by another writer."""

    def __init__(self, node, column):
        super().__init__('Node %s was changed by another request (its %s '
                         'differs); please retry.' % (node, column))


# -- ports and port groups (Ironic's messages) -------------------------


class PortNotFound(NotFound):
    def __init__(self, port):
        super().__init__('Port %s could not be found.' % port)


class PortgroupNotFound(NotFound):
    def __init__(self, portgroup):
        super().__init__('Portgroup %s could not be found.' % portgroup)


class MACAlreadyExists(Conflict):
    def __init__(self, mac):
        super().__init__('A port with MAC address %s already exists.' % mac)


class PortAlreadyExists(Conflict):
    def __init__(self, uuid):
        super().__init__('A port with UUID %s already exists.' % uuid)


class PortDuplicateName(Conflict):
    def __init__(self, name):
        super().__init__('A port with name %s already exists.' % name)


class PortgroupAlreadyExists(Conflict):
    def __init__(self, uuid):
        super().__init__('A portgroup with UUID %s already exists.' % uuid)


class PortgroupDuplicateName(Conflict):
    def __init__(self, name):
        super().__init__('A portgroup with name %s already exists.' % name)


class PortgroupMACAlreadyExists(Conflict):
    def __init__(self, mac):
        super().__init__('A portgroup with MAC address %s already exists.'
                         % mac)


class PortgroupNotEmpty(BadRequest):
    def __init__(self, portgroup):
        super().__init__('Cannot complete the requested action because '
                         'portgroup %s contains ports.' % portgroup)


class InvalidMAC(BadRequest):
    def __init__(self, mac):
        super().__init__('Expected a MAC address but received %s.' % mac)


class OperationNotPermitted(AllocsvcException):
    status = 403

    def __init__(self):
        super().__init__('Operation not permitted.')


class VifAlreadyAttached(Conflict):
    def __init__(self, vif, kind, uuid):
        super().__init__('Unable to attach VIF because VIF %s is already '
                         'attached to Ironic %s %s' % (vif, kind, uuid))


class NoFreePhysicalPorts(InvalidParameterValue):
    def __init__(self, vif):
        super().__init__('Unable to attach VIF %s, not enough free '
                         'physical ports.' % vif)


class VifNotAttached(InvalidParameterValue):
    def __init__(self, vif, node):
        super().__init__('Unable to detach VIF %s from node %s because it '
                         'is not attached to it.' % (vif, node))


# -- chassis (Ironic's messages) ---------------------------------------


class ChassisNotFound(NotFound):
    def __init__(self, chassis):
        super().__init__('Chassis %s could not be found.' % chassis)


class ChassisAlreadyExists(Conflict):
    def __init__(self, uuid):
        super().__init__('A chassis with UUID %s already exists.' % uuid)


class ChassisNotEmpty(BadRequest):
    def __init__(self, chassis):
        super().__init__('Cannot complete the requested action because '
                         'chassis %s contains nodes.' % chassis)


class ChassisChanged(Conflict):
    """A conditional write found the chassis changed by another
    writer."""

    def __init__(self, chassis, column):
        super().__init__('Chassis %s was changed by another request (its '
                         '%s differs); please retry.' % (chassis, column))


# -- drivers and their interfaces (Ironic's messages) ------------------


class InterfaceNotFoundInEntrypoint(InvalidParameterValue):
    """A node names an interface implementation that is not enabled."""

    def __init__(self, name, entrypoint, valid):
        super().__init__(
            "Could not find the following interface in the '%s' "
            "entrypoint: %s. Valid interfaces are %s."
            % (entrypoint, name, valid))


class IncompatibleInterface(InvalidParameterValue):
    """A node names an implementation its hardware type does not
    support."""

    def __init__(self, kind, name, hardware_type):
        super().__init__(
            "%s interface implementation '%s' is not supported by hardware "
            "type %s." % (kind, name, hardware_type))


class NoValidDefaultForInterface(InvalidParameterValue):
    """No enabled implementation of an interface type fits a node that
    names none."""

    def __init__(self, kind, hardware_type, node=None):
        node_info = ' node %s with' % node if node else ''
        super().__init__(
            "For%s hardware type '%s', no default value found for %s "
            "interface could be determined. Please ensure the interfaces "
            "are enabled." % (node_info, hardware_type, kind))


class NodeProtected(AllocsvcException):
    """A protected node may not be torn down or deleted (Ironic: 403)."""

    status = 403

    def __init__(self, node):
        super().__init__('Node %s is protected and cannot be undeployed, '
                         'rebuilt or deleted' % node)


class NodeIsRetired(BadRequest):
    """A retired node is not made available again."""

    def __init__(self, operation, node):
        super().__init__("The %s operation can't be performed on node %s "
                         "because it is retired." % (operation, node))
