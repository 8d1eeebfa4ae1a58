"""The bare-metal state machines (pure, no database).

Scenarios: the allocation machine's only paths (allocating -> active |
error) and its refusals; the node provisioning walk enroll -> manageable
-> available -> active -> available through the API verbs, with targets
while a step is in flight; manual clean, adoption, rescue, unrescue,
servicing and abort; a failure keeps its target; refusals name the state
and event; every state Ironic reports is known and classified.
"""

import pytest

from allocsvc.common import states


def test_allocation_paths():
    assert states.ALLOCATION_INITIAL == states.ALLOCATING
    assert states.allocation_next_state(
        states.ALLOCATING, states.SUCCESS) == states.ACTIVE
    assert states.allocation_next_state(
        states.ALLOCATING, states.FAIL) == states.ERROR


@pytest.mark.parametrize('state', [states.ACTIVE, states.ERROR])
@pytest.mark.parametrize('event', [states.SUCCESS, states.FAIL])
def test_allocation_final_states_refuse_everything(state, event):
    assert states.allocation_is_final(state)
    with pytest.raises(states.InvalidTransition) as info:
        states.allocation_next_state(state, event)
    assert info.value.status == 409
    assert state in str(info.value) and event in str(info.value)


def test_allocation_unknown_state_or_event():
    with pytest.raises(states.InvalidTransition):
        states.allocation_next_state('bogus', states.SUCCESS)
    with pytest.raises(states.InvalidTransition):
        states.allocation_next_state(states.ALLOCATING, 'retry')


def walk(state, verb):
    return states.node_settle(state, states.PROVISION_VERBS[verb])


def test_node_lifecycle_with_fake_hardware():
    assert walk(states.ENROLL, 'manage') == [
        (states.VERIFYING, states.MANAGEABLE), (states.MANAGEABLE, None)]
    assert walk(states.MANAGEABLE, 'provide') == [
        (states.CLEANING, states.AVAILABLE), (states.AVAILABLE, None)]
    assert walk(states.AVAILABLE, 'active') == [
        (states.DEPLOYING, states.ACTIVE), (states.ACTIVE, None)]
    assert walk(states.ACTIVE, 'deleted') == [
        (states.DELETING, states.AVAILABLE),
        (states.CLEANING, states.AVAILABLE), (states.AVAILABLE, None)]
    assert walk(states.AVAILABLE, 'manage') == [(states.MANAGEABLE, None)]
    # Inspection and rebuild (the fake interfaces finish them at once).
    assert walk(states.MANAGEABLE, 'inspect') == [
        (states.INSPECTING, states.MANAGEABLE), (states.MANAGEABLE, None)]
    assert walk(states.ACTIVE, 'rebuild') == [
        (states.DEPLOYING, states.ACTIVE), (states.ACTIVE, None)]
    for failed in (states.DEPLOYFAIL, states.ERROR):
        assert walk(failed, 'rebuild')[-1] == (states.ACTIVE, None)


def test_node_failures_and_recoveries():
    assert states.node_next_state(states.VERIFYING, states.FAIL) == \
        (states.ENROLL, None)
    # A failure keeps the target the step was heading for (Ironic's).
    assert states.node_next_state(states.CLEANING, states.FAIL) == \
        (states.CLEANFAIL, states.AVAILABLE)
    assert states.node_next_state(states.CLEANING, states.FAIL,
                                  states.MANAGEABLE) == \
        (states.CLEANFAIL, states.MANAGEABLE)
    assert states.node_next_state(states.CLEANFAIL, states.MANAGE) == \
        (states.MANAGEABLE, None)
    assert states.node_next_state(states.DEPLOYING, states.FAIL) == \
        (states.DEPLOYFAIL, states.ACTIVE)
    assert states.node_next_state(states.DEPLOYFAIL, states.DELETED) == \
        (states.DELETING, states.AVAILABLE)
    assert states.node_next_state(states.DELETING, states.FAIL) == \
        (states.ERROR, None)
    assert states.node_next_state(states.ERROR, states.DELETED) == \
        (states.DELETING, states.AVAILABLE)
    assert states.node_next_state(states.INSPECTING, states.FAIL) == \
        (states.INSPECTFAIL, states.MANAGEABLE)
    for verb, state in (('manage', states.MANAGEABLE),
                        ('inspect', states.INSPECTING)):
        assert states.node_next_state(
            states.INSPECTFAIL, states.PROVISION_VERBS[verb])[0] == state


@pytest.mark.parametrize('state,verb', [
    (states.ENROLL, 'provide'), (states.ENROLL, 'active'),
    (states.MANAGEABLE, 'active'), (states.AVAILABLE, 'deleted'),
    (states.ACTIVE, 'manage'), (states.ACTIVE, 'active'),
    (states.DEPLOYING, 'deleted'), (states.ENROLL, 'inspect'),
    (states.AVAILABLE, 'inspect'), (states.AVAILABLE, 'rebuild'),
    (states.MANAGEABLE, 'rebuild')])
def test_node_refusals(state, verb):
    event = states.PROVISION_VERBS[verb]
    assert not states.node_accepts(state, event)
    with pytest.raises(states.InvalidTransition):
        states.node_next_state(state, event)


def test_the_other_verbs_with_fake_hardware():
    assert walk(states.MANAGEABLE, 'clean') == [
        (states.CLEANING, states.MANAGEABLE), (states.MANAGEABLE, None)]
    assert states.node_settle(states.MANAGEABLE, states.CLEAN,
                              fail=True) == [
        (states.CLEANING, states.MANAGEABLE),
        (states.CLEANFAIL, states.MANAGEABLE)]
    assert walk(states.CLEANFAIL, 'manage') == [(states.MANAGEABLE, None)]
    assert walk(states.MANAGEABLE, 'adopt') == [
        (states.ADOPTING, states.ACTIVE), (states.ACTIVE, None)]
    for verb, state in (('adopt', states.ACTIVE),
                        ('manage', states.MANAGEABLE)):
        assert walk(states.ADOPTFAIL, verb)[-1] == (state, None)
    assert walk(states.ACTIVE, 'rescue') == [
        (states.RESCUING, states.RESCUE), (states.RESCUE, None)]
    assert walk(states.RESCUE, 'rescue')[-1] == (states.RESCUE, None)
    assert walk(states.RESCUE, 'unrescue') == [
        (states.UNRESCUING, states.ACTIVE), (states.ACTIVE, None)]
    assert walk(states.RESCUE, 'deleted')[-1] == (states.AVAILABLE, None)
    assert walk(states.ACTIVE, 'service') == [
        (states.SERVICING, states.ACTIVE), (states.ACTIVE, None)]
    assert walk(states.SERVICEFAIL, 'abort') == [(states.ACTIVE, None)]
    # Held and waiting steps (never with fake-hardware) resume.
    assert walk(states.CLEANHOLD, 'unhold')[-1] == (states.AVAILABLE, None)
    assert walk(states.CLEANWAIT, 'abort') == [
        (states.CLEANFAIL, states.AVAILABLE)]


@pytest.mark.parametrize('state', [
    states.ENROLL, states.MANAGEABLE, states.AVAILABLE, states.ACTIVE,
    states.RESCUE, states.CLEANFAIL, states.DEPLOYFAIL, states.ERROR,
    states.ADOPTFAIL, states.INSPECTFAIL, states.RESCUEFAIL])
def test_abort_and_unhold_need_a_waiting_or_held_step(state):
    assert not states.node_accepts(state, states.ABORT)
    assert not states.node_accepts(state, states.UNHOLD)


def test_every_state_is_classified():
    # Every state Ironic 39's machine has (a provision_state filter
    # accepts each).
    assert set(states.NODE_STATES) == {
        'active', 'adopt failed', 'adopting', 'available', 'clean failed',
        'clean hold', 'clean wait', 'cleaning', 'deleting',
        'deploy failed', 'deploy hold', 'deploying', 'enroll', 'error',
        'inspect failed', 'inspect wait', 'inspecting', 'manageable',
        'rescue', 'rescue failed', 'rescue wait', 'rescuing',
        'service failed', 'service hold', 'service wait', 'servicing',
        'unrescue failed', 'unrescuing', 'verifying', 'wait call-back'}
    for state in states.NODE_STATES:
        transient = state in (
            states.VERIFYING, states.CLEANING, states.CLEANWAIT,
            states.CLEANHOLD, states.INSPECTING, states.INSPECTWAIT,
            states.DEPLOYING, states.DEPLOYWAIT, states.DEPLOYHOLD,
            states.DELETING, states.ADOPTING, states.RESCUING,
            states.RESCUEWAIT, states.UNRESCUING, states.SERVICING,
            states.SERVICEWAIT, states.SERVICEHOLD)
        assert states.node_is_stable(state) is not transient
