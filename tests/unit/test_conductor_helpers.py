"""Pure helpers of the conductor: candidate order, the re-check under
the lock, backfill matching, messages, and how errors and objects cross
RPC (oslo.messaging's own serialisation of remote exceptions included).

Scenarios: the name preference wins over the shuffle and the shuffle
uses the given generator; every reason a node stops fitting is named;
every reason a backfill does not match is named; an allocsvc exception
survives oslo.messaging's JSON round trip as the same class, message,
status and attributes (and an untrusted class does not get rebuilt);
the endpoint wrapper marks errors as expected; objects and contexts
survive the serializer; the client and server RPC versions agree.
"""

import random
import sys
import time
import types

from oslo_db import exception as db_exc
from oslo_messaging._drivers import common as driver_common
from oslo_messaging.rpc import dispatcher
import pytest

from allocsvc import objects
from allocsvc.common import context as ctx
from allocsvc.common import exception
from allocsvc.common import rpc
from allocsvc.common import states
from allocsvc.conductor import allocations
from allocsvc.conductor import coordination
from allocsvc.conductor import manager
from allocsvc.conductor import rpcapi
from allocsvc.objects import base as objects_base
from tests import conftest

objects.register_all()


class Cand:
    def __init__(self, ident, name=None):
        self.id = ident
        self.uuid = 'uuid-%d' % ident
        self.name = name


def _node(**values):
    base = dict(uuid='node-uuid', name='node', resource_class='bm',
                provision_state=states.AVAILABLE, maintenance=False,
                power_state=states.POWER_OFF, instance_uuid=None,
                allocation_id=None, traits=['CUSTOM_A', 'CUSTOM_B'],
                owner=None, lessee=None)
    base.update(values)
    return types.SimpleNamespace(**base)


def _allocation(**values):
    base = dict(resource_class='bm', traits=[], candidate_nodes=[],
                owner=None)
    base.update(values)
    return types.SimpleNamespace(**base)


# -- order_candidates --------------------------------------------------------

def test_order_is_a_shuffle_driven_by_the_generator():
    cands = [Cand(i) for i in range(20)]
    first = allocations.order_candidates(cands, None, random.Random(7))
    again = allocations.order_candidates(cands, None, random.Random(7))
    other = allocations.order_candidates(cands, None, random.Random(8))
    assert [c.id for c in first] == [c.id for c in again]
    assert [c.id for c in first] != [c.id for c in other]
    assert sorted(c.id for c in first) == list(range(20))
    # The input is not reordered.
    assert [c.id for c in cands] == list(range(20))


@pytest.mark.parametrize('seed', range(10))
def test_node_named_like_the_allocation_comes_first(seed):
    cands = [Cand(i, 'node-%d' % i) for i in range(20)]
    ordered = allocations.order_candidates(cands, 'node-13',
                                           random.Random(seed))
    assert ordered[0].name == 'node-13'
    assert sorted(c.id for c in ordered) == list(range(20))


def test_unknown_name_changes_nothing_but_the_shuffle():
    cands = [Cand(i, 'node-%d' % i) for i in range(5)]
    plain = allocations.order_candidates(cands, None, random.Random(3))
    named = allocations.order_candidates(cands, 'other', random.Random(3))
    assert [c.id for c in plain] == [c.id for c in named]


# -- unsuitable --------------------------------------------------------------

def test_a_fitting_node_is_suitable():
    assert allocations.unsuitable(_node(), _allocation(
        traits=['CUSTOM_A'], candidate_nodes=['node-uuid'])) is None


@pytest.mark.parametrize('node, allocation, reason', [
    (_node(resource_class='other'), _allocation(), 'resource class'),
    (_node(provision_state=states.MANAGEABLE), _allocation(),
     'provision state'),
    (_node(maintenance=True), _allocation(), 'maintenance'),
    (_node(power_state=None), _allocation(), 'power state'),
    (_node(instance_uuid='x'), _allocation(), 'instance x'),
    (_node(allocation_id=4), _allocation(), 'associated'),
    (_node(), _allocation(traits=['CUSTOM_A', 'CUSTOM_C']), 'CUSTOM_C'),
    (_node(), _allocation(candidate_nodes=['another']), 'candidate'),
    (_node(owner='p1', lessee='p2'), _allocation(owner='p3'), 'p3'),
])
def test_every_reason_a_node_stops_fitting(node, allocation, reason):
    assert reason in allocations.unsuitable(node, allocation)


@pytest.mark.parametrize('field', ['owner', 'lessee'])
def test_owner_or_lessee_fits(field):
    assert allocations.unsuitable(_node(**{field: 'p1'}),
                                  _allocation(owner='p1')) is None


# -- backfill_mismatch -------------------------------------------------------

def _deployed(**values):
    return _node(**dict(dict(provision_state=states.ACTIVE,
                             instance_uuid='i'), **values))


def test_backfill_matching_node():
    assert allocations.backfill_mismatch(_deployed(), {
        'resource_class': 'bm', 'traits': ['CUSTOM_B'],
        'candidate_nodes': ['node-uuid']}) is None
    # candidate_nodes may name the node.
    assert allocations.backfill_mismatch(_deployed(), {
        'resource_class': 'bm', 'candidate_nodes': ['node']}) is None


@pytest.mark.parametrize('node, values, reason', [
    (_deployed(provision_state=states.AVAILABLE), {},
     'provision state is available, not active'),
    (_deployed(maintenance=True), {}, 'maintenance'),
    (_deployed(), {'resource_class': 'gpu'},
     'resource class bm is not the requested gpu'),
    (_deployed(), {'traits': ['CUSTOM_Z']}, 'traits CUSTOM_Z'),
    (_deployed(), {'candidate_nodes': ['x']}, 'candidate nodes'),
])
def test_every_backfill_mismatch(node, values, reason):
    values = dict({'resource_class': 'bm'}, **values)
    assert reason in allocations.backfill_mismatch(node, values)


def test_messages():
    assert allocations.failure_message('u', 'no luck') == \
        'Failed to process allocation u: no luck.'
    # What the user reads says what to do, never the exception's text.
    assert allocations.unexpected_message(RuntimeError('boom')) == (
        'Unexpected exception during allocation: an internal error '
        '(RuntimeError) that the conductor logged; delete the allocation '
        'and create it again')
    sql = db_exc.DBError(Exception('(1054, "Unknown column") [SQL: SELECT '
                                   'x FROM nodes]'))
    text = allocations.unexpected_message(sql)
    assert 'SQL' not in text and 'nodes' not in text
    assert text == (
        'Unexpected exception during allocation: the database failed to '
        'process the request (the conductor logged the details); delete '
        'the allocation and create it again')
    assert allocations.unexpected_message(
        exception.NodeLocked('n1', 'h')).startswith(
            'Unexpected exception during allocation: Node n1 is locked')


# -- errors across RPC -------------------------------------------------------

def _raised(exc):
    try:
        raise exc
    except Exception:
        return sys.exc_info()


def _over_the_wire(exc):
    """What an oslo.messaging client raises for ``exc`` raised in the
    server, through the JSON serialisation real drivers use."""
    wire = rpc.RemoteAllocsvcError.wrap(exc)
    data = driver_common.serialize_remote_exception(_raised(wire))
    return driver_common.deserialize_remote_exception(data,
                                                      rpc.ALLOWED_EXMODS)


@pytest.mark.parametrize('exc', [
    exception.NodeLocked('node-1', 'host-a'),
    exception.NodeNotFound('node-9'),
    exception.AllocationFailed('a-1', 'Cannot backfill: no'),
    exception.InstanceAssociated('i-1', 'node-2'),
    exception.NoConductorAvailable(),
    states.InvalidTransition('an allocation', 'active', 'fail'),
])
def test_exception_survives_the_wire(exc):
    received = _over_the_wire(exc)
    assert isinstance(received, rpc.RemoteAllocsvcError)
    rebuilt = received.rebuild()
    assert type(rebuilt) is type(exc)
    assert str(rebuilt) == str(exc)
    assert rebuilt.message == exc.message
    assert rebuilt.status == exc.status
    assert rebuilt.code == exc.code
    assert vars(rebuilt) == vars(exc)


def test_exception_attributes_survive():
    rebuilt = _over_the_wire(
        exception.NodeLocked('node-1', 'host-a')).rebuild()
    assert rebuilt.host == 'host-a'
    transition = _over_the_wire(
        states.InvalidTransition('x', 'active', 'fail')).rebuild()
    assert (transition.state, transition.event) == ('active', 'fail')


@pytest.mark.parametrize('module, name', [
    ('os', 'error'),                      # not ours
    ('allocsvc.common.rpc', 'get_client'),  # not an exception
    ('allocsvc.nowhere', 'Missing'),      # gone
    ('allocsvc.common.exception', 'Missing'),
])
def test_untrusted_exception_becomes_generic(module, name):
    wire = rpc.RemoteAllocsvcError(module, name, 'it failed', 409, {})
    rebuilt = wire.rebuild()
    assert type(rebuilt) is exception.AllocsvcException
    assert rebuilt.message == 'it failed'
    assert rebuilt.status == 409


def test_endpoint_errors_leave_as_expected_exceptions():
    @rpc.translate_errors
    def fails(endpoint, context):
        raise exception.NodeNotFound('n')

    with pytest.raises(dispatcher.ExpectedException) as info:
        fails(_Endpoint(), None)
    wire = info.value.exc_info[1]
    assert isinstance(wire, rpc.RemoteAllocsvcError)
    assert wire.rebuild().message == 'Node n could not be found.'


def test_other_errors_pass_through_the_endpoint_wrapper():
    @rpc.translate_errors
    def fails(endpoint, context):
        raise KeyError('x')

    with pytest.raises(KeyError):
        fails(_Endpoint(), None)


class _Endpoint:
    conf = conftest.make_conf()     # rpc_deadline_leeway: 2 s


def _context(deadline):
    return ctx.RequestContext(deadline=deadline)


def test_a_call_past_its_deadline_and_the_leeway_is_not_run():
    ran = []

    @rpc.translate_errors
    def work(endpoint, context):
        ran.append(context.deadline)
        return 'done'

    now = time.time()
    # Within the deadline, or late by less than the leeway: run.
    assert work(_Endpoint(), _context(now + 5)) == 'done'
    assert work(_Endpoint(), _context(now - 1)) == 'done'
    # No deadline (a cast, or an older client): run.
    assert work(_Endpoint(), _context(None)) == 'done'
    assert len(ran) == 3
    with pytest.raises(dispatcher.ExpectedException) as info:
        work(_Endpoint(), _context(now - 10))
    refused = info.value.exc_info[1].rebuild()
    assert isinstance(refused, exception.RequestExpired)
    assert refused.status == 503
    assert len(ran) == 3


def test_the_deadline_crosses_the_wire_with_the_context():
    sent = ctx.RequestContext(deadline=1234.5, request_id='req-1')
    received = ctx.RequestContext.from_dict(sent.to_dict())
    assert received.deadline == 1234.5
    assert ctx.RequestContext.from_dict(
        ctx.RequestContext().to_dict()).deadline is None


def test_client_wrapper_rebuilds():
    @rpc.rebuild_errors
    def call():
        raise _over_the_wire(exception.NodeNotFound('n'))

    with pytest.raises(exception.NodeNotFound) as info:
        call()
    assert str(info.value) == 'Node n could not be found.'
    assert info.value.status == 404


# -- serializer, versions, options -------------------------------------------

def test_serializer_round_trip():
    serializer = objects_base.rpc_serializer()
    context = ctx.RequestContext(request_id='req-1', is_admin=True)
    allocation = objects.Allocation(
        context, id=3, uuid='7c5bd1c2-3c0c-4b55-8c66-6cbd3a3c0c43',
        name='a', node_id=None, node_uuid=None, state=states.ALLOCATING,
        last_error=None, resource_class='bm', traits=['CUSTOM_A'],
        candidate_nodes=[], extra={'k': [1]}, owner=None,
        conductor_affinity=2, created_at=None, updated_at=None)
    allocation.obj_reset_changes()
    prim = serializer.serialize_entity(context, allocation)
    back = serializer.deserialize_entity(context, prim)
    assert isinstance(back, objects.Allocation)
    assert back.obj_to_primitive() == allocation.obj_to_primitive()
    assert back.extra == {'k': [1]} and back.traits == ['CUSTOM_A']
    ctx_back = serializer.deserialize_context(
        serializer.serialize_context(context))
    assert isinstance(ctx_back, ctx.RequestContext)
    assert ctx_back.request_id == 'req-1' and ctx_back.is_admin


def test_client_and_server_versions_agree():
    assert rpcapi.ConductorAPI.RPC_API_VERSION == manager.RPC_API_VERSION
    assert manager.ConductorManager.target.version == \
        manager.RPC_API_VERSION


def test_only_the_rpc_methods_are_exposed():
    exposed = {name for name in dir(manager.ConductorManager)
               if getattr(getattr(manager.ConductorManager, name),
                          'exposed', False)}
    assert exposed == {
        # 1.0
        'create_allocation', 'backfill_allocation',
        # 1.1
        'destroy_allocation', 'update_allocation', 'create_node',
        'update_node', 'destroy_node', 'set_maintenance',
        'change_node_power_state', 'do_provisioning_action',
        'set_node_traits', 'add_node_trait', 'remove_node_traits',
        # 1.2
        'create_port', 'update_port', 'destroy_port', 'create_portgroup',
        'update_portgroup', 'destroy_portgroup',
        'validate_driver_interfaces', 'vif_attach', 'vif_detach',
        # 1.3
        'set_console_mode', 'set_target_raid_config',
        'change_node_boot_mode', 'change_node_secure_boot',
        'attach_virtual_media', 'detach_virtual_media',
        # 1.6
        'preview_allocation',
        # 1.7
        'create_allocation_group', 'destroy_allocation_group'}
    # The client has a method of each name.
    assert all(callable(getattr(rpcapi.ConductorAPI, name, None))
               for name in exposed)


def test_transport_configured():
    conf = conftest.make_conf()
    assert not rpc.transport_configured(conf)
    conf.set_override('transport_url', 'rabbit://h:5672/')
    assert rpc.transport_configured(conf)


def test_conductor_options_defaults():
    conf = conftest.make_conf()
    options = conf.conductor
    assert options.heartbeat_interval == 10
    assert options.heartbeat_timeout == 60
    assert options.check_allocations_interval == 60
    assert options.node_locked_retry_attempts == 3
    assert options.request_node_locked_retry_attempts == 5
    assert options.request_node_locked_retry_interval == 0.2
    assert options.rpc_version_cap is None
    assert options.coordination_backend_url == ''
    assert conf.control_exchange == 'allocsvc'
    assert conf.host


def test_membership_without_backend_is_inert():
    membership = coordination.Membership('', 'h')
    assert not membership.enabled
    membership.join()
    membership.ensure_member()
    assert membership.members() is None
    membership.leave()
