"""The preview agrees with what allocations take: a property test over
random fleets and requests, on SQLite, MariaDB and PostgreSQL, with each
allocation back end, through a real conductor (RPC over ``inproc://``).

For each example, a fleet of up to eight nodes of two classes (each
available or not, in maintenance or not, with or without a power
state, an instance, a Placement consumer holding its unit, an owner, a
lessee, traits) and a request (a class, traits, an owner, candidate
nodes); then:

* the preview's nodes are the nodes a model of the rules says fit, and
  exactly those the algorithm's candidate stage offers (one batch holds
  them all here); its counts are the model's, each node under the first
  reason that drops it;
* when it lists none, an allocation asking the same fails with its
  ``last_error``: "Failed to process allocation <uuid>: " + the
  preview's ``last_error`` + ".";
* when it lists some, an allocation asking the same takes one of them.

Each example has resource classes of its own, so that the examples of
one test share the database without cleaning it (which would remove the
conductor too).
"""

import itertools
import uuid

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from allocsvc.common import states
from allocsvc.conductor import allocations
from allocsvc.conductor import backends
from allocsvc.db.baremetal import allocations as db_allocations
from tests import client
from tests.functional import conductor_harness
from tests.helpers import apps

TRAITS = ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C']
ORDER = ['not_available', 'maintenance', 'no_power_state', 'allocated',
         'held', 'not_owner', 'missing_trait', 'not_candidate']
EXAMPLES = 25
_TAGS = itertools.count()


def _weighted(common, rare):
    return st.sampled_from([common] * 4 + [rare])


NODE = st.fixed_dictionaries({
    'rc': _weighted('a', 'b'),
    'provision_state': st.sampled_from([states.AVAILABLE] * 5 + [
        states.MANAGEABLE, states.ENROLL, states.ACTIVE]),
    'maintenance': _weighted(False, True),
    'power_state': _weighted(states.POWER_OFF, None),
    'instance': _weighted(False, True),
    'held': _weighted(False, True),
    'owner': st.sampled_from([None, None, 'p1', 'p2']),
    'lessee': st.sampled_from([None, None, None, 'p1', 'p2']),
    'traits': st.lists(st.sampled_from(TRAITS), unique=True, max_size=3),
})
REQUEST = st.fixed_dictionaries({
    'rc': _weighted('a', 'b'),
    'traits': st.lists(st.sampled_from(TRAITS + ['CUSTOM_D']), unique=True,
                       max_size=2),
    'owner': st.sampled_from([None, None, 'p1', 'p2']),
    # Indices into the fleet, or none.
    'candidates': st.one_of(st.just([]), st.lists(st.integers(0, 9),
                                                  max_size=4)),
})


@pytest.fixture
def harness(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        allocation_backend=allocation_backend))
    harness.conductor = harness.start_conductor()
    harness.placement = apps.placement(harness.conf)
    yield harness
    harness.stop()


def _claim(harness, node, rc):
    """A Placement consumer's claim of the node's unit; True if it got
    it (a node that cannot take an allocation has its unit reserved)."""
    consumer = str(uuid.uuid4())
    resp = client.placement_request(
        harness.placement, 'PUT', '/allocations/%s' % consumer, '1.38', {
            'allocations': {node.uuid: {'resources': {
                'CUSTOM_' + rc.upper().replace('-', '_'): 1}}},
            'project_id': consumer, 'user_id': consumer,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    return resp.status_int == 204


def _build(harness, tag, fleet):
    """The fleet's nodes, as ``(record, its description)``."""
    made = []
    for index, spec in enumerate(fleet):
        rc = '%s-%s' % (tag, spec['rc'])
        node = harness.node(
            '%s-%d' % (tag, index), rc=rc, traits=spec['traits'],
            provision_state=spec['provision_state'],
            maintenance=spec['maintenance'],
            power_state=spec['power_state'], owner=spec['owner'],
            lessee=spec['lessee'],
            instance_uuid=str(uuid.uuid4()) if spec['instance'] else None)
        held = spec['held'] and _claim(harness, node, rc)
        made.append((node, dict(spec, rc=rc, held=held)))
    return made


def _dropped_by(spec, uuid_, request):
    """The model: why the rules drop a node, the first reason only."""
    if spec['provision_state'] != states.AVAILABLE:
        return 'not_available', None
    if spec['maintenance']:
        return 'maintenance', None
    if spec['power_state'] is None:
        return 'no_power_state', None
    if spec['instance']:
        return 'allocated', None
    if spec['held']:
        return 'held', None
    owner = request['owner']
    if owner and owner not in (spec['owner'], spec['lessee']):
        return 'not_owner', None
    missing = sorted(set(request['traits']) - set(spec['traits']))
    if missing:
        return 'missing_trait', missing[0]
    if request['candidate_nodes'] and \
            uuid_ not in request['candidate_nodes']:
        return 'not_candidate', None
    return None


def _expected(made, request):
    fits, counts = set(), {}
    of_class = [(node, spec) for node, spec in made
                if spec['rc'] == request['resource_class']]
    for node, spec in of_class:
        reason = _dropped_by(spec, node.uuid, request)
        if reason is None:
            fits.add(node.uuid)
        else:
            counts[reason] = counts.get(reason, 0) + 1
    ordered = sorted(counts.items(), key=lambda item: (
        ORDER.index(item[0][0]), item[0][1] or ''))
    return fits, len(of_class), [(r, t, n) for (r, t), n in ordered]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          database=None, suppress_health_check=[
              HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(fleet=st.lists(NODE, max_size=8), asked=REQUEST)
def test_preview_is_what_allocations_take(harness, fleet, asked):
    tag = 'x%d' % next(_TAGS)
    made = _build(harness, tag, fleet)
    request = {
        'resource_class': '%s-%s' % (tag, asked['rc']),
        'traits': asked['traits'], 'owner': asked['owner'],
        'candidate_nodes': list(dict.fromkeys(
            made[i][0].uuid for i in asked['candidates'] if i < len(made))),
    }
    fits, of_class, dropped = _expected(made, request)

    preview = harness.rpcapi.preview_allocation(harness.context, request)
    assert {n['uuid'] for n in preview['nodes']} == fits
    assert preview['node_count'] == len(fits)
    assert preview['nodes_of_class'] == of_class
    assert [(d['reason'], d.get('trait'), d['count'])
            for d in preview['dropped']] == dropped

    conductor = harness.conductor
    allocation = harness.write_allocation(
        conductor.conductor_id, request['resource_class'],
        traits=request['traits'], owner=request['owner'],
        candidate_nodes=request['candidate_nodes'])
    backend = backends.from_conf(harness.conf)
    # The candidate stage offers exactly the preview's nodes, or says
    # the same reason.
    record = db_allocations.get_by_id(harness.context, allocation.id)
    offered, why = backends.find(harness.context, backend, record)
    assert {c.uuid for c in offered} == fits
    assert why == preview['last_error']
    final = allocations.allocate(
        harness.context, allocation.id, conductor.host,
        conductor.conductor_id, retry_attempts=0, retry_interval=0,
        sleep=lambda _: None, backend=backend)
    if fits:
        assert preview['last_error'] is None
        assert final.state == states.ACTIVE, final.last_error
        assert final.node_uuid in fits
    else:
        assert final.state == states.ERROR
        assert final.last_error == 'Failed to process allocation %s: %s.' % (
            final.uuid, preview['last_error'])
