"""The bare-metal state machines: allocations and node provisioning.

Every state change of an allocation or a node is computed here, by an
automaton machine, from the current state and an event; no other code
writes a state string of its own making. The DB layer asks
``allocation_next_state`` / ``node_next_state`` and stores the answer
with a compare-and-swap on the state it started from.

Allocation (Ironic's, unchanged)::

    allocating --success--> active
    allocating --fail-----> error

``active`` and ``error`` are final: an allocation in them can only be
deleted (upstream never implemented the retry the spec mentions).

Node provisioning, Ironic's machine. The API verbs
(``PUT /v1/nodes/{n}/states/provision`` ``target``) map to events by
``PROVISION_VERBS``; each verb enters a transient state whose
``target_provision_state`` is the stable state it heads for, and the
driver finishes it with ``done`` (or ``fail``; a failure state keeps the
target)::

    enroll      --manage--> verifying  --done--> manageable  (fail: enroll)
    manageable  --provide-> cleaning   --done--> available   (fail: clean
                                                              failed)
    manageable  --clean---> cleaning --manage--> manageable  (fail: clean
                                                              failed)
    manageable  --inspect-> inspecting --done--> manageable  (fail: inspect
                                                              failed)
    manageable  --adopt---> adopting   --done--> active      (fail: adopt
                                                              failed)
    available   --manage--> manageable
    available   --deploy--> deploying  --done--> active      (fail: deploy
                                                              failed)
    active      --rebuild-> deploying
    active      --deleted-> deleting   --done--> cleaning -> available
                                                 (fail: error)
    active      --rescue--> rescuing   --done--> rescue      (fail: rescue
                                                              failed)
    rescue      --unrescue> unrescuing --done--> active      (fail: unrescue
                                                              failed)
    rescue      --rescue--> rescuing;  rescue --deleted--> deleting
    active      --service-> servicing  --done--> active      (fail: service
                                                              failed)
    service failed --abort--> active
    service failed --service|rescue|deleted--> servicing|rescuing|deleting
    clean failed / inspect failed / adopt failed --manage--> manageable
    inspect failed --inspect--> inspecting
    adopt failed --adopt--> adopting
    deploy failed / error --deleted--> deleting
    deploy failed / error --rebuild--> deploying
    rescue failed / unrescue failed --rescue|unrescue|deleted--> ...

A driver that waits for its ramdisk parks a step in ``clean wait``,
``wait call-back``, ``inspect wait``, ``rescue wait`` or ``service
wait`` (``wait``, ``resume``), or holds it in ``clean hold``, ``deploy
hold`` or ``service hold`` (``hold``); ``abort`` fails a waiting or held
step, ``unhold`` lets a held one wait again. ``fake-hardware`` never
waits (the service steps that would are refused): these states are
Ironic's, so that the API accepts them in a filter and refuses
``abort`` and ``unhold`` exactly where Ironic does.

The ``fake-hardware`` driver completes each step at once:
``node_settle`` gives the stable state that reaches.
"""

from automaton import exceptions as automaton_exc
from automaton import machines

from allocsvc.common import exception

# -- allocation states -------------------------------------------------------

ALLOCATING = 'allocating'
ACTIVE = 'active'
ERROR = 'error'

ALLOCATION_STATES = (ALLOCATING, ACTIVE, ERROR)
ALLOCATION_INITIAL = ALLOCATING

# Events.
SUCCESS = 'success'
FAIL = 'fail'

# -- node provision states ---------------------------------------------------

ENROLL = 'enroll'
VERIFYING = 'verifying'
MANAGEABLE = 'manageable'
CLEANING = 'cleaning'
CLEANWAIT = 'clean wait'
CLEANHOLD = 'clean hold'
CLEANFAIL = 'clean failed'
AVAILABLE = 'available'
DEPLOYING = 'deploying'
DEPLOYWAIT = 'wait call-back'
DEPLOYHOLD = 'deploy hold'
DEPLOYFAIL = 'deploy failed'
INSPECTING = 'inspecting'
INSPECTWAIT = 'inspect wait'
INSPECTFAIL = 'inspect failed'
# ACTIVE = 'active' (shared with the allocation state of the same name)
DELETING = 'deleting'
# ERROR = 'error' (likewise shared)
ADOPTING = 'adopting'
ADOPTFAIL = 'adopt failed'
RESCUING = 'rescuing'
RESCUEWAIT = 'rescue wait'
RESCUE = 'rescue'
RESCUEFAIL = 'rescue failed'
UNRESCUING = 'unrescuing'
UNRESCUEFAIL = 'unrescue failed'
SERVICING = 'servicing'
SERVICEWAIT = 'service wait'
SERVICEHOLD = 'service hold'
SERVICEFAIL = 'service failed'

NODE_INITIAL = ENROLL

# Events (``done`` and ``fail`` finish a transient state; ``wait``,
# ``hold`` and ``resume`` are what a driver that waits for its ramdisk
# sends: fake-hardware never does, but the states they lead to are
# Ironic's and decide what the API accepts).
MANAGE = 'manage'
PROVIDE = 'provide'
DEPLOY = 'deploy'
REBUILD = 'rebuild'
INSPECT = 'inspect'
DELETED = 'deleted'
CLEAN = 'clean'
ADOPT = 'adopt'
RESCUE_EVENT = 'rescue'
UNRESCUE = 'unrescue'
ABORT = 'abort'
SERVICE = 'service'
UNHOLD = 'unhold'
DONE = 'done'
WAIT = 'wait'
HOLD = 'hold'
RESUME = 'resume'

# API provision verb -> event.
PROVISION_VERBS = {'manage': MANAGE, 'provide': PROVIDE,
                   'active': DEPLOY, 'rebuild': REBUILD, 'inspect': INSPECT,
                   'deleted': DELETED, 'clean': CLEAN, 'adopt': ADOPT,
                   'rescue': RESCUE_EVENT, 'unrescue': UNRESCUE,
                   'abort': ABORT, 'service': SERVICE, 'unhold': UNHOLD}

# Transient state -> the stable state it heads for (target_provision_state).
_TARGETS = {VERIFYING: MANAGEABLE, CLEANING: AVAILABLE, CLEANWAIT: AVAILABLE,
            CLEANHOLD: AVAILABLE, INSPECTING: MANAGEABLE,
            INSPECTWAIT: MANAGEABLE, DEPLOYING: ACTIVE, DEPLOYWAIT: ACTIVE,
            DEPLOYHOLD: ACTIVE, DELETING: AVAILABLE, ADOPTING: ACTIVE,
            RESCUING: RESCUE, RESCUEWAIT: RESCUE, UNRESCUING: ACTIVE,
            SERVICING: ACTIVE, SERVICEWAIT: ACTIVE, SERVICEHOLD: ACTIVE}
# Events that head for another stable state than their state's own:
# a manual ``clean`` comes back to manageable.
_EVENT_TARGETS = {CLEAN: MANAGEABLE}

STABLE_STATES = (ENROLL, MANAGEABLE, AVAILABLE, ACTIVE, RESCUE)
FAILURE_STATES = (CLEANFAIL, INSPECTFAIL, DEPLOYFAIL, ERROR, ADOPTFAIL,
                  RESCUEFAIL, UNRESCUEFAIL, SERVICEFAIL)
NODE_STATES = STABLE_STATES + FAILURE_STATES + tuple(_TARGETS)

SERVICING_STATES = (SERVICING, SERVICEWAIT, SERVICEFAIL, SERVICEHOLD)

# Where a node's fields (and an allocation's instance_uuid) may change
# while a provisioning action is in flight, as Ironic's UPDATE_ALLOWED.
UPDATE_ALLOWED_STATES = (ENROLL, MANAGEABLE, AVAILABLE, VERIFYING,
                         INSPECTING, INSPECTWAIT, INSPECTFAIL, CLEANFAIL,
                         DEPLOYFAIL, ERROR, ADOPTFAIL, RESCUEFAIL,
                         UNRESCUEFAIL, SERVICEHOLD, SERVICEFAIL)
# Where a node out of maintenance may always be deleted (``available``
# too, unless [conductor] allow_deleting_available_nodes is off), in
# Ironic's order, which its refusal quotes.
DELETE_ALLOWED_STATES = (MANAGEABLE, ENROLL, ADOPTFAIL)

# -- power states ------------------------------------------------------------

POWER_ON = 'power on'
POWER_OFF = 'power off'
REBOOT = 'rebooting'
POWER_STATES = (POWER_ON, POWER_OFF)
SOFT_REBOOT = 'soft rebooting'
SOFT_POWER_OFF = 'soft power off'
# Power targets (``PUT /v1/nodes/{n}/states/power``) and the power state
# each leaves a node in.
POWER_RESULTS = {
    POWER_ON: POWER_ON,
    POWER_OFF: POWER_OFF,
    REBOOT: POWER_ON,
    SOFT_REBOOT: POWER_ON,
    SOFT_POWER_OFF: POWER_OFF,
}


class InvalidTransition(exception.Conflict):
    """An event that the machine does not accept in the current state."""

    def __init__(self, kind, state, event):
        super().__init__(
            'The requested action "%s" can not be performed on %s in '
            'state "%s".' % (event, kind, state))
        self.state = state
        self.event = event


def _build(states, transitions):
    machine = machines.FiniteMachine()
    for state in states:
        machine.add_state(state)
    for source, event, target in transitions:
        machine.add_transition(source, target, event)
    machine.freeze()
    return machine


_ALLOCATION_MACHINE = _build(
    ALLOCATION_STATES,
    [(ALLOCATING, SUCCESS, ACTIVE),
     (ALLOCATING, FAIL, ERROR)])

_NODE_MACHINE = _build(
    NODE_STATES,
    [(ENROLL, MANAGE, VERIFYING),
     (VERIFYING, DONE, MANAGEABLE),
     (VERIFYING, FAIL, ENROLL),
     # cleaning: automated (provide, tear down) and manual (clean)
     (MANAGEABLE, PROVIDE, CLEANING),
     (MANAGEABLE, CLEAN, CLEANING),
     (CLEANING, DONE, AVAILABLE),
     (CLEANING, MANAGE, MANAGEABLE),
     (CLEANING, FAIL, CLEANFAIL),
     (CLEANING, WAIT, CLEANWAIT),
     (CLEANING, HOLD, CLEANHOLD),
     (CLEANWAIT, RESUME, CLEANING),
     (CLEANWAIT, HOLD, CLEANHOLD),
     (CLEANWAIT, FAIL, CLEANFAIL),
     (CLEANWAIT, ABORT, CLEANFAIL),
     (CLEANHOLD, UNHOLD, CLEANWAIT),
     (CLEANHOLD, ABORT, CLEANFAIL),
     (CLEANFAIL, MANAGE, MANAGEABLE),
     # inspection
     (MANAGEABLE, INSPECT, INSPECTING),
     (INSPECTING, DONE, MANAGEABLE),
     (INSPECTING, FAIL, INSPECTFAIL),
     (INSPECTING, WAIT, INSPECTWAIT),
     (INSPECTWAIT, RESUME, INSPECTING),
     (INSPECTWAIT, DONE, MANAGEABLE),
     (INSPECTWAIT, FAIL, INSPECTFAIL),
     (INSPECTWAIT, ABORT, INSPECTFAIL),
     (INSPECTFAIL, MANAGE, MANAGEABLE),
     (INSPECTFAIL, INSPECT, INSPECTING),
     # adoption
     (MANAGEABLE, ADOPT, ADOPTING),
     (ADOPTING, DONE, ACTIVE),
     (ADOPTING, FAIL, ADOPTFAIL),
     (ADOPTFAIL, ADOPT, ADOPTING),
     (ADOPTFAIL, MANAGE, MANAGEABLE),
     # deployment
     (AVAILABLE, MANAGE, MANAGEABLE),
     (AVAILABLE, DEPLOY, DEPLOYING),
     (DEPLOYING, DONE, ACTIVE),
     (DEPLOYING, FAIL, DEPLOYFAIL),
     (DEPLOYING, WAIT, DEPLOYWAIT),
     (DEPLOYING, HOLD, DEPLOYHOLD),
     (DEPLOYWAIT, RESUME, DEPLOYING),
     (DEPLOYWAIT, HOLD, DEPLOYHOLD),
     (DEPLOYWAIT, FAIL, DEPLOYFAIL),
     (DEPLOYWAIT, ABORT, DEPLOYFAIL),
     (DEPLOYWAIT, DELETED, DELETING),
     (DEPLOYHOLD, UNHOLD, DEPLOYWAIT),
     (DEPLOYHOLD, ABORT, DEPLOYFAIL),
     (DEPLOYFAIL, DEPLOY, DEPLOYING),
     (DEPLOYFAIL, REBUILD, DEPLOYING),
     (DEPLOYFAIL, DELETED, DELETING),
     (ACTIVE, REBUILD, DEPLOYING),
     # tear down
     (ACTIVE, DELETED, DELETING),
     (DELETING, DONE, CLEANING),
     (DELETING, FAIL, ERROR),
     (ERROR, REBUILD, DEPLOYING),
     (ERROR, DELETED, DELETING),
     # rescue
     (ACTIVE, RESCUE_EVENT, RESCUING),
     (RESCUING, DONE, RESCUE),
     (RESCUING, FAIL, RESCUEFAIL),
     (RESCUING, WAIT, RESCUEWAIT),
     (RESCUEWAIT, RESUME, RESCUING),
     (RESCUEWAIT, FAIL, RESCUEFAIL),
     (RESCUEWAIT, ABORT, RESCUEFAIL),
     (RESCUEWAIT, DELETED, DELETING),
     (RESCUE, RESCUE_EVENT, RESCUING),
     (RESCUE, UNRESCUE, UNRESCUING),
     (RESCUE, DELETED, DELETING),
     (RESCUEFAIL, RESCUE_EVENT, RESCUING),
     (RESCUEFAIL, UNRESCUE, UNRESCUING),
     (RESCUEFAIL, DELETED, DELETING),
     (UNRESCUING, DONE, ACTIVE),
     (UNRESCUING, FAIL, UNRESCUEFAIL),
     (UNRESCUEFAIL, RESCUE_EVENT, RESCUING),
     (UNRESCUEFAIL, UNRESCUE, UNRESCUING),
     (UNRESCUEFAIL, DELETED, DELETING),
     # servicing
     (ACTIVE, SERVICE, SERVICING),
     (SERVICING, DONE, ACTIVE),
     (SERVICING, FAIL, SERVICEFAIL),
     (SERVICING, WAIT, SERVICEWAIT),
     (SERVICING, HOLD, SERVICEHOLD),
     (SERVICEWAIT, RESUME, SERVICING),
     (SERVICEWAIT, HOLD, SERVICEHOLD),
     (SERVICEWAIT, FAIL, SERVICEFAIL),
     (SERVICEWAIT, ABORT, SERVICEFAIL),
     (SERVICEWAIT, DELETED, DELETING),
     (SERVICEHOLD, SERVICE, SERVICING),
     (SERVICEHOLD, UNHOLD, SERVICEWAIT),
     (SERVICEHOLD, FAIL, SERVICEFAIL),
     (SERVICEHOLD, ABORT, SERVICEFAIL),
     (SERVICEFAIL, SERVICE, SERVICING),
     (SERVICEFAIL, RESCUE_EVENT, RESCUING),
     (SERVICEFAIL, WAIT, SERVICEWAIT),
     (SERVICEFAIL, HOLD, SERVICEHOLD),
     (SERVICEFAIL, DELETED, DELETING),
     (SERVICEFAIL, ABORT, ACTIVE)])


def _next(template, kind, state, event):
    machine = template.copy()
    try:
        machine.initialize(state)
        machine.process_event(event)
    except (automaton_exc.NotFound, automaton_exc.InvalidState):
        raise InvalidTransition(kind, state, event)
    return machine.current_state


def allocation_next_state(state, event):
    """The allocation state after ``event`` (SUCCESS or FAIL) in ``state``;
    InvalidTransition if the machine refuses it."""
    return _next(_ALLOCATION_MACHINE, 'an allocation', state, event)


def allocation_is_final(state):
    return state in (ACTIVE, ERROR)


def node_next_state(state, event, target=None):
    """``(provision_state, target_provision_state)`` after ``event`` in
    ``state``, whose target is ``target`` (by default the one its state
    has). A transient state heads for its own target (a manual ``clean``
    for manageable); a failure keeps the target it failed on its way
    to; a stable state has none. InvalidTransition if the machine
    refuses the event."""
    # (A failure, or an aborted step, keeps the target.)
    new_state = _next(_NODE_MACHINE, 'a node', state, event)
    if new_state in _TARGETS:
        return new_state, _EVENT_TARGETS.get(event, _TARGETS[new_state])
    if event in (FAIL, ABORT) and new_state in FAILURE_STATES and \
            new_state != ERROR:
        return new_state, target or _TARGETS.get(state)
    return new_state, None


def node_accepts(state, event):
    """Whether ``event`` is allowed in node state ``state``."""
    try:
        node_next_state(state, event)
    except InvalidTransition:
        return False
    return True


def _finish(state, target):
    """The event that ends transient ``state`` well: the one that leads
    to ``target`` at once if there is one (``manage`` ends a manual
    clean), else ``done``, or ``resume`` for a waiting step."""
    for event in (DONE, MANAGE):
        if node_accepts(state, event) and \
                node_next_state(state, event)[0] == target:
            return event
    return RESUME if node_accepts(state, RESUME) else DONE


def node_settle(state, event, fail=False):
    """Every ``(provision_state, target_provision_state)`` a node passes
    through when ``event`` is applied and each transient step then
    finishes at once (the ``fake-hardware`` driver); the last one is
    stable. With ``fail`` the first step fails instead (the node rests
    in the failure state, keeping its target)."""
    path = [node_next_state(state, event)]
    if fail:
        current, target = path[-1]
        path.append(node_next_state(current, FAIL, target))
        return path
    while path[-1][0] in _TARGETS:
        current, target = path[-1]
        path.append(node_next_state(current, _finish(current, target),
                                    target))
    return path


def node_is_stable(state):
    return state in STABLE_STATES or state in FAILURE_STATES
