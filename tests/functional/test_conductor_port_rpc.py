"""Conductor RPC API 1.2: port and port group writes, over a real
oslo.messaging transport, on every backend.

Scenarios: each call is made under the node's lock (taken by the
conductor, under its host name, and released); a client capped below
1.2 refuses them without sending anything (503) while it still makes
1.1 calls; errors come back as the allocsvc exceptions they are; a node
locked by someone else is NodeLocked (409) and nothing is written.
"""

import pytest

from allocsvc import objects
from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import rpcapi
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import ports as db_ports
from tests.helpers.conductor_rpc import FAST

MAC = '52:54:00:aa:bb:01'


def _node(env):
    row = env.node('n', provision_state=states.MANAGEABLE)
    return objects.Node.get_by_id(env.context, row.id)


def test_port_writes_hold_the_node_lock(harness, held):
    node = _node(harness)
    client = harness.rpcapi
    port = client.create_port(harness.context, node,
                              {'node_id': node.id, 'address': MAC})
    assert isinstance(port, objects.Port) and port.address == MAC
    port = client.update_port(harness.context, node, port,
                              {'extra': {'a': 1}}, {'extra': {}})
    assert port.extra == {'a': 1}
    group = client.create_portgroup(harness.context, node,
                                    {'node_id': node.id, 'name': 'g'})
    group = client.update_portgroup(harness.context, node, group,
                                    {'mode': '802.3ad'})
    assert group.mode == '802.3ad'
    client.destroy_port(harness.context, node, port)
    client.destroy_portgroup(harness.context, node, group)
    host = harness.conductor.host
    assert held == [host] * 6
    assert db_ports.list_ports(harness.context) == []
    assert objects.Node.get_by_id(harness.context,
                                  node.id).reservation is None


def test_errors_come_back_as_themselves(harness):
    node = _node(harness)
    client = harness.rpcapi
    port = client.create_port(harness.context, node,
                              {'node_id': node.id, 'address': MAC})
    with pytest.raises(exception.MACAlreadyExists) as info:
        client.create_port(harness.context, node,
                           {'node_id': node.id, 'address': MAC})
    assert info.value.status == 409
    with pytest.raises(exception.Conflict) as info:
        client.update_port(harness.context, node, port,
                           {'extra': {'b': 2}}, {'extra': {'stale': 1}})
    assert 'was changed by another request' in str(info.value)


def test_a_locked_node_is_409_and_nothing_is_written(harness):
    node = _node(harness)
    node_locks.reserve(harness.context, node.id, 'someone-else')
    with pytest.raises(exception.NodeLocked):
        harness.rpcapi.create_port(harness.context, node,
                                   {'node_id': node.id, 'address': MAC})
    assert db_ports.list_ports(harness.context) == []


def test_capped_client_refuses_1_2(harness):
    node = _node(harness)
    conf = harness.make_conf(rpc_version_cap='1.1', **FAST)
    capped = rpcapi.ConductorAPI(conf, harness.transport)
    with pytest.raises(exception.ConductorTooOld) as info:
        capped.create_port(harness.context, node,
                           {'node_id': node.id, 'address': MAC})
    assert info.value.status == 503
    assert str(info.value) == (
        'The conductors do not support create_port yet (it needs conductor '
        'RPC API 1.2); finish upgrading them.')
    assert db_ports.list_ports(harness.context) == []
    # 1.1 calls still go.
    assert capped.update_node(harness.context, node,
                              {'description': 'd'}).description == 'd'


def test_capped_client_refuses_the_1_5_columns(harness):
    # A conductor older than RPC API 1.5 cannot write a port group's
    # physical network or a port's available_for_dynamic_portgroup;
    # other port writes still go to it.
    node = _node(harness)
    conf = harness.make_conf(rpc_version_cap='1.4', **FAST)
    capped = rpcapi.ConductorAPI(conf, harness.transport)
    with pytest.raises(exception.ConductorTooOld) as info:
        capped.create_port(harness.context, node,
                           {'node_id': node.id, 'address': MAC,
                            'available_for_dynamic_portgroup': False})
    assert 'RPC API 1.5' in str(info.value)
    with pytest.raises(exception.ConductorTooOld):
        capped.create_portgroup(harness.context, node,
                                {'node_id': node.id,
                                 'physical_network': 'p'})
    port = capped.create_port(harness.context, node,
                              {'node_id': node.id, 'address': MAC,
                               'physical_network': 'p'})
    assert port.physical_network == 'p'
    assert port.available_for_dynamic_portgroup is True
    group = capped.create_portgroup(harness.context, node,
                                    {'node_id': node.id})
    with pytest.raises(exception.ConductorTooOld):
        capped.update_portgroup(harness.context, node, group,
                                {'physical_network': 'p'})
    with pytest.raises(exception.ConductorTooOld):
        capped.update_port(harness.context, node, port,
                           {'available_for_dynamic_portgroup': False})
