"""The provisioning verbs of ``PUT /v1/nodes/{n}/states/provision``,
applied under the node's lock with Ironic 39's rules and messages.

``fake-hardware`` completes every step at once, so a verb is one
transaction that walks the node machine of ``allocsvc.common.states``
from the current state to the stable (or failure) state the step ends
in (``states.node_settle``); no state string is made up here. What the
steps of a manual clean or a service come to is
``allocsvc.common.fake_steps``'s; this module stores the outcome with a
compare-and-swap on the state it was decided from, under the lock
(``locking.Locker``).
"""

import hashlib
import secrets

from oslo_utils import timeutils

from allocsvc.common import exception
from allocsvc.common import fake_driver
from allocsvc.common import fake_steps
from allocsvc.common import states
from allocsvc.conductor import mirror
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import nodes

# The events that deploy an instance (and refuse a node in maintenance).
_DEPLOYING = (states.DEPLOY, states.REBUILD)
# The most a TEXT column keeps on MariaDB, in bytes.
_MAX_TEXT_BYTES = 65535


def provision(context, node_id, verb, locker, configdrive=None,
              clean_steps=None, rescue_password=None,
              disable_ramdisk=False, service_steps=None):
    """Apply the provisioning ``verb`` (a key of
    ``states.PROVISION_VERBS``) and let ``fake-hardware`` finish it:
    the node ends in the stable (or failure) state the machine leads
    to, in one transaction; return it.

    * InvalidStateRequested (400): the machine refuses the verb in the
      node's state (or does not know it);
    * NodeInMaintenance (400): deploying (``active``), rebuilding,
      cleaning, rescuing or unrescuing a node in maintenance;
    * NodeProtected (403): rebuilding or tearing down a protected node,
      checked before the node's state, as Ironic's conductor does;
    * ``active`` and ``rebuild`` keep the node's instance and allocation
      (and store ``configdrive`` in ``instance_info``, as Ironic does);
    * ``inspect`` records when inspection finished; UnsupportedDriver-
      Extension (400) for a node whose inspect interface is ``no-*``;
    * ``clean`` runs ``clean_steps`` (checked by
      ``fake_steps.clean_errors``): back to manageable, or, if they do
      not check out, ``clean failed`` (target manageable) with Ironic's
      message in ``last_error``;
    * ``rescue`` keeps ``rescue_password`` (and its hash) in
      ``instance_info``; InstanceRescueFailure (400) for a node whose
      rescue interface is ``no-rescue``;
    * ``service`` runs ``service_steps`` as Ironic's conductor would
      (``fake_steps.service_plan``): back to active, or ``service
      failed`` (target active) in maintenance with Ironic's message as
      ``last_error``, ``maintenance_reason`` and fault ``service
      failure``; steps that would hold or wait are refused
      (UnsupportedServiceStep, 400);
    * ``abort`` of a failed service: back to active, with Ironic's
      words in ``last_error``; a Conflict (409) in maintenance;
    * ``deleted`` (tear down) clears ``instance_uuid`` and
      ``instance_info`` and deletes the node's allocation.

    ``last_error`` is cleared when the verb starts work (enters a
    transient state), as Ironic's conductor clears it when it spawns
    that work, and kept by a verb that only moves the node (``manage``
    from a failure state or from available).
    """
    with locker.hold(context, node_id):
        _provision(context, node_id, verb, locker.host,
                   _Request(configdrive, clean_steps, rescue_password,
                            disable_ramdisk, service_steps))
    return nodes.get_by_id(context, node_id)


class _Request:
    """The arguments that came with a verb."""

    __slots__ = ('configdrive', 'clean_steps', 'rescue_password',
                 'disable_ramdisk', 'service_steps')

    def __init__(self, configdrive=None, clean_steps=None,
                 rescue_password=None, disable_ramdisk=False,
                 service_steps=None):
        self.configdrive = configdrive
        self.clean_steps = clean_steps
        self.rescue_password = rescue_password
        self.disable_ramdisk = bool(disable_ramdisk)
        self.service_steps = service_steps


# Events refused for a node in maintenance, and the operation Ironic's
# refusal names.
_MAINTENANCE_OPERATIONS = {states.DEPLOY: 'provisioning',
                           states.REBUILD: 'provisioning',
                           states.CLEAN: 'cleaning',
                           states.RESCUE_EVENT: 'rescuing',
                           states.UNRESCUE: 'unrescuing',
                           states.SERVICE: 'service'}
# What an aborted service leaves in last_error (Ironic's).
_SERVICE_ABORTED = 'By request, the service operation was aborted'


def _check_rescue(node):
    if not fake_driver.supports(node.rescue_interface):
        # Ironic's conductor validates the rescue interface once the
        # node is locked (its answer is a 500; a client error here).
        raise exception.InstanceRescueFailure(
            node.instance_uuid, node.uuid,
            'Validation failed: %s' % fake_driver.unsupported(
                node.driver, 'rescue'))


@db_api.writer
def _provision(context, node_id, verb, host, request):
    node = nodes.get_in_transaction(context, node_id)
    event = states.PROVISION_VERBS.get(verb)
    if event in _MAINTENANCE_OPERATIONS and node.maintenance:
        raise exception.NodeInMaintenance(_MAINTENANCE_OPERATIONS[event],
                                          node.uuid)
    if event is None:
        raise exception.InvalidStateRequested(verb, node.uuid,
                                              node.provision_state)
    if event in (states.DELETED, states.REBUILD) and node.protected:
        raise exception.NodeProtected(node.uuid)
    if event == states.PROVIDE and node.retired and \
            node.provision_state == states.MANAGEABLE:
        raise exception.NodeIsRetired('providing', node.uuid)
    if event == states.RESCUE_EVENT:
        _check_rescue(node)
    if event == states.ABORT and node.maintenance and \
            node.provision_state in states.SERVICING_STATES:
        raise exception.Conflict(
            'Can not abort service on node "%s" while it is in maintenance '
            'mode. Please remove the node from maintenance prior to '
            'issuing the request to abort the service operation.'
            % node.uuid)
    failure = None
    values = {}
    if event == states.CLEAN:
        failure = fake_steps.clean_errors(node, request.clean_steps or [],
                                          request.disable_ramdisk)
        if failure is not None:
            failure = 'Cannot clean node %s: %s' % (node.uuid, failure)
    if event == states.SERVICE and \
            states.node_accepts(node.provision_state, event):
        failure = _service(node, request, values)
    try:
        path = states.node_settle(node.provision_state, event,
                                  fail=failure is not None)
    except states.InvalidTransition:
        raise exception.InvalidStateRequested(verb, node.uuid,
                                              node.provision_state)
    if event == states.INSPECT and \
            not fake_driver.supports(node.inspect_interface):
        # Ironic's conductor validates the inspect interface first.
        raise fake_driver.unsupported(node.driver, 'inspect')
    if node.retired and path[-1][0] == states.AVAILABLE and \
            node.automated_clean is not False:
        # A retired node is never made available again: once cleaned it
        # rests in manageable (Ironic's), the machine's way there. A
        # node that opted out of automated cleaning skips it, and with
        # it that rule, as in Ironic (cleaning is on by default).
        path += states.node_settle(states.AVAILABLE, states.MANAGE)
    provision_state, target = path[-1]
    values.update(provision_state=provision_state,
                  target_provision_state=target)
    if path[0][1] is not None:
        # The verb started work: its outcome is the node's last error.
        values['last_error'] = _storable(failure)
    if event == states.ABORT and node.provision_state == states.SERVICEFAIL:
        values['last_error'] = _SERVICE_ABORTED
    if event in _DEPLOYING and request.configdrive is not None:
        values['instance_info'] = dict(node.instance_info,
                                       configdrive=request.configdrive)
    if event == states.INSPECT:
        # Ironic stamps the start on entering inspection and, once done,
        # the end, forgetting the start.
        values.update(inspection_started_at=None,
                      inspection_finished_at=timeutils.utcnow())
    if event == states.RESCUE_EVENT:
        # Ironic keeps the password (shown masked) and its hash; unrescue
        # with its fake interface leaves both.
        values['instance_info'] = dict(
            node.instance_info, rescue_password=request.rescue_password,
            hashed_rescue_password=_hash(request.rescue_password))
    if event == states.DELETED:
        values.update(instance_uuid=None, instance_info={},
                      instance_name=None)
        if node.allocation_id is not None:
            mirror.drop_allocation(context, node)
    # UPDATE nodes SET provision_state = :settled, ...
    # WHERE id = :id AND reservation = :host
    #   AND provision_state = :current
    return mirror.update_in_transaction(
        context, node_id, values, locked_by=host,
        expect={'provision_state': node.provision_state})


def _service(node, request, values):
    """Run the node's service steps (``fake_steps.service_plan``): add
    what they change to ``values``; return the failure message, if
    any."""
    plan = fake_steps.service_plan(node, request.service_steps or [],
                                   request.disable_ramdisk)
    if plan.parks is not None:
        raise exception.UnsupportedServiceStep(plan.parks)
    if plan.power is not None:
        values.update(power_state=plan.power, target_power_state=None)
    if plan.failure is None or plan.failed_step is None:
        return plan.failure
    # A step that failed puts the node in maintenance (Ironic's
    # servicing error handler), keeping a reason already given.
    failure = 'Node %s failed step %r: %s' % (node.uuid, plan.failed_step,
                                              plan.failure)
    values.update(maintenance=True, fault='service failure')
    if not node.maintenance_reason:
        values['maintenance_reason'] = _storable(failure)
    return failure


def _storable(text):
    """``text`` as every database can keep it: a NUL character (which
    PostgreSQL refuses) shown as ``\\x00``, at most a TEXT column's
    bytes (the messages quote the caller's steps)."""
    if text is None:
        return None
    text = text.replace('\x00', '\\x00')
    encoded = text.encode('utf-8')
    if len(encoded) <= _MAX_TEXT_BYTES:
        return text
    return encoded[:_MAX_TEXT_BYTES].decode('utf-8', 'ignore')


def _hash(password):
    """A salted SHA-512 digest of ``password``, kept beside it as Ironic
    keeps a hash for the rescue ramdisk (the API masks both)."""
    salt = secrets.token_hex(8)
    digest = hashlib.sha512((salt + password).encode()).hexdigest()
    return 'sha512$%s$%s' % (salt, digest)
