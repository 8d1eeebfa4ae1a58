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

Node provisioning, the part an allocation service needs. The API verbs
(``PUT /v1/nodes/{n}/states/provision`` ``target``) map to events by
``PROVISION_VERBS``; each verb enters a transient state whose
``target_provision_state`` is the stable state it heads for, and the
driver finishes it with ``done`` (or ``fail``)::

    enroll      --manage--> verifying  --done--> manageable  (fail: enroll)
    manageable  --provide-> cleaning   --done--> available   (fail: clean
                                                              failed)
    manageable  --inspect-> inspecting --done--> manageable  (fail: inspect
                                                              failed)
    available   --manage--> manageable
    available   --deploy--> deploying  --done--> active      (fail: deploy
                                                              failed)
    active      --rebuild-> deploying
    active      --deleted-> deleting   --done--> cleaning -> available
                                                 (fail: error)
    clean failed / inspect failed --manage--> manageable
    inspect failed --inspect--> inspecting
    deploy failed / error --deleted--> deleting
    deploy failed / error --rebuild--> deploying

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
CLEANFAIL = 'clean failed'
AVAILABLE = 'available'
DEPLOYING = 'deploying'
DEPLOYFAIL = 'deploy failed'
INSPECTING = 'inspecting'
INSPECTFAIL = 'inspect failed'
# ACTIVE = 'active' (shared with the allocation state of the same name)
DELETING = 'deleting'
# ERROR = 'error' (likewise shared)

NODE_INITIAL = ENROLL

# Events (``done`` and ``fail`` finish a transient state).
MANAGE = 'manage'
PROVIDE = 'provide'
DEPLOY = 'deploy'
REBUILD = 'rebuild'
INSPECT = 'inspect'
DELETED = 'deleted'
DONE = 'done'

# API provision verb -> event.
PROVISION_VERBS = {'manage': MANAGE, 'provide': PROVIDE,
                   'active': DEPLOY, 'rebuild': REBUILD, 'inspect': INSPECT,
                   'deleted': DELETED}

# Transient state -> the stable state it heads for (target_provision_state).
_TARGETS = {VERIFYING: MANAGEABLE, CLEANING: AVAILABLE,
            INSPECTING: MANAGEABLE, DEPLOYING: ACTIVE, DELETING: AVAILABLE}

STABLE_STATES = (ENROLL, MANAGEABLE, AVAILABLE, ACTIVE)
FAILURE_STATES = (CLEANFAIL, INSPECTFAIL, DEPLOYFAIL, ERROR)
NODE_STATES = STABLE_STATES + FAILURE_STATES + tuple(_TARGETS)

# Where a node's fields (and an allocation's instance_uuid) may change
# while a provisioning action is in flight, as Ironic's UPDATE_ALLOWED.
UPDATE_ALLOWED_STATES = (ENROLL, MANAGEABLE, AVAILABLE, VERIFYING,
                         INSPECTING, INSPECTFAIL, CLEANFAIL, DEPLOYFAIL,
                         ERROR)
# Where a node out of maintenance may always be deleted (``available``
# too, unless [conductor] allow_deleting_available_nodes is off).
DELETE_ALLOWED_STATES = (ENROLL, MANAGEABLE)

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
     (MANAGEABLE, PROVIDE, CLEANING),
     (CLEANING, DONE, AVAILABLE),
     (CLEANING, FAIL, CLEANFAIL),
     (CLEANFAIL, MANAGE, MANAGEABLE),
     (MANAGEABLE, INSPECT, INSPECTING),
     (INSPECTING, DONE, MANAGEABLE),
     (INSPECTING, FAIL, INSPECTFAIL),
     (INSPECTFAIL, MANAGE, MANAGEABLE),
     (INSPECTFAIL, INSPECT, INSPECTING),
     (AVAILABLE, MANAGE, MANAGEABLE),
     (AVAILABLE, DEPLOY, DEPLOYING),
     (DEPLOYING, DONE, ACTIVE),
     (DEPLOYING, FAIL, DEPLOYFAIL),
     (DEPLOYFAIL, DEPLOY, DEPLOYING),
     (DEPLOYFAIL, REBUILD, DEPLOYING),
     (DEPLOYFAIL, DELETED, DELETING),
     (ACTIVE, REBUILD, DEPLOYING),
     (ACTIVE, DELETED, DELETING),
     (DELETING, DONE, CLEANING),
     (DELETING, FAIL, ERROR),
     (ERROR, REBUILD, DEPLOYING),
     (ERROR, DELETED, DELETING)])


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


def node_next_state(state, event):
    """``(provision_state, target_provision_state)`` after ``event`` in
    ``state``; the target is None once the node rests in a stable or
    failed state. InvalidTransition if the machine refuses it."""
    new_state = _next(_NODE_MACHINE, 'a node', state, event)
    return new_state, _TARGETS.get(new_state)


def node_accepts(state, event):
    """Whether ``event`` is allowed in node state ``state``."""
    try:
        node_next_state(state, event)
    except InvalidTransition:
        return False
    return True


def node_settle(state, event):
    """Every ``(provision_state, target_provision_state)`` a node passes
    through when ``event`` is applied and each transient step then
    finishes at once (the ``fake-hardware`` driver); the last one is
    stable."""
    path = [node_next_state(state, event)]
    while path[-1][1] is not None:
        path.append(node_next_state(path[-1][0], DONE))
    return path


def node_is_stable(state):
    return state in STABLE_STATES or state in FAILURE_STATES
