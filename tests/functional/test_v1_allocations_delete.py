"""Allocations and their nodes over ``/v1``: DELETE (of an allocation,
and of a node's allocation), ``GET /v1/nodes/{ident}/allocation``, and
backfill (``POST /v1/allocations`` with ``node``, 1.58).

Scenarios:
* DELETE frees the node in the same transaction; it is refused (409)
  for an active node, or one busy in a state that allows no update,
  unless in maintenance; it waits a little for a node another host has
  locked, then answers 409 NodeLocked and changes nothing.
* An ``allocating`` allocation can be deleted, and a conductor that
  finishes it afterwards cannot bring it back (its bind fails, the node
  stays free).
* ``/v1/nodes/{ident}/allocation``: GET shows the same document as
  ``/v1/allocations/{uuid}``; 404 without an allocation; an unknown node
  is Ironic's 400 for GET (it reads the node as a list filter) and 404
  for DELETE; POST and ``.../allocation/{x}`` are 405; version gate.
* Backfill through the conductor's own backfill code: 201 ``active``,
  defaults from the node; a mismatch is a 400 with no row left behind
  (Ironic: 500 and an ``error`` row); conflicts are 409.

Nodes are created through the DB layer with their states set directly.
"""

import threading

import pytest

from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import locking
from allocsvc.conductor import mirror
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes as db_nodes
from allocsvc.db import models
from tests.functional.ironic_errors import message
from tests.helpers import v1_allocations as base


@pytest.fixture
def env(database):
    return base.Env()


def _allocated(env, name='n1', **node_values):
    """A node bound to a new allocation (as a conductor leaves it)."""
    node = env.node(name)
    doc = env.create(name='for-' + name)
    env.bind(doc, node)
    if node_values:
        mirror.update_node(env.ctx, node.id, node_values)
    return doc, node


def _is_free(env, node):
    node = db_nodes.get_by_id(env.ctx, node.id)
    return node.instance_uuid is None and node.allocation_uuid is None


# -- DELETE /v1/allocations/{ident} -------------------------------------------

def test_delete_frees_the_node(env):
    doc, node = _allocated(env)
    assert db_nodes.get_by_id(env.ctx, node.id).instance_uuid == doc['uuid']
    resp = env.call('DELETE', '/v1/allocations/for-n1', version='1.52')
    assert resp.status_int == 204 and resp.body == b''
    assert env.rows() == []
    assert _is_free(env, node)
    after = db_nodes.get_by_id(env.ctx, node.id)
    assert after.provision_state == states.AVAILABLE
    assert after.reservation is None
    assert env.call('GET', '/v1/allocations/for-n1').status_int == 404


def test_delete_without_node(env):
    allocating = env.create(name='allocating')
    failed = env.create(name='failed')
    db_allocations.fail_allocation(
        env.ctx, db_allocations.get_by_name(env.ctx, 'failed').id,
        env.conductor.id, 'no node')
    for doc in (allocating, failed):
        resp = env.call('DELETE', '/v1/allocations/' + doc['uuid'])
        assert resp.status_int == 204
    assert env.rows() == []
    resp = env.call('DELETE', '/v1/allocations/' + failed['uuid'])
    assert resp.status_int == 404
    assert message(resp) == ('Allocation %s could not be found.'
                             % failed['uuid'])
    resp = env.call('DELETE', '/v1/allocations/ba!na!na')
    assert resp.status_int == 400


def test_a_deleted_allocation_cannot_be_finished(env):
    node = env.node('n1')
    doc = env.create(name='late')
    row = db_allocations.get_by_uuid(env.ctx, doc['uuid'])
    assert env.call('DELETE', '/v1/allocations/late').status_int == 204
    # The conductor, unaware, binds the node it chose.
    with pytest.raises(exception.AllocationNotFound):
        mirror.bind(env.ctx, row.id, node.id, env.conductor.id)
    assert _is_free(env, node)
    assert env.rows() == []
    assert env.call('GET', '/v1/allocations/late').status_int == 404


@pytest.mark.parametrize('provision_state,target,text', [
    (states.ACTIVE, None, 'because the node is active (and maintenance '
                          'mode is off)'),
    (states.DEPLOYING, states.ACTIVE, 'because the node is in state '
                                      'deploying where updates are not '
                                      'allowed (and maintenance mode is '
                                      'off)'),
    (states.CLEANING, states.AVAILABLE, 'because the node is in state '
                                        'cleaning where updates are not '
                                        'allowed (and maintenance mode is '
                                        'off)'),
])
def test_delete_refused_for_a_busy_node(env, provision_state, target, text):
    doc, node = _allocated(env, provision_state=provision_state,
                           target_provision_state=target)
    resp = env.call('DELETE', '/v1/allocations/' + doc['uuid'])
    assert resp.status_int == 409
    assert message(resp) == 'Cannot remove allocation %s for node %s, %s' % (
        doc['uuid'], node.uuid, text)
    assert len(env.rows()) == 1
    after = db_nodes.get_by_id(env.ctx, node.id)
    assert after.instance_uuid == doc['uuid'] and after.reservation is None
    # In maintenance, it goes; the node keeps its provision state.
    mirror.update_node(env.ctx, node.id, {'maintenance': True})
    resp = env.call('DELETE', '/v1/allocations/' + doc['uuid'])
    assert resp.status_int == 204
    after = db_nodes.get_by_id(env.ctx, node.id)
    assert after.provision_state == provision_state
    assert _is_free(env, node)


@pytest.mark.parametrize('provision_state,target', [
    (states.VERIFYING, states.MANAGEABLE),
    (states.MANAGEABLE, None),
    (states.DEPLOYFAIL, None),
])
def test_delete_allowed_where_updates_are(env, provision_state, target):
    doc, node = _allocated(env, provision_state=provision_state,
                           target_provision_state=target)
    assert env.call('DELETE', '/v1/allocations/' +
                    doc['uuid']).status_int == 204
    assert _is_free(env, node)


def test_delete_waits_for_a_locked_node_then_409(env, lock_patience):
    lock_patience(1, 0)
    doc, node = _allocated(env)
    node_locks.reserve(env.ctx, node.id, 'other-host')
    resp = env.call('DELETE', '/v1/allocations/' + doc['uuid'])
    assert resp.status_int == 409
    assert message(resp) == (
        'Node %s is locked by host other-host, please retry after the '
        'current operation is completed.' % node.uuid)
    assert len(env.rows()) == 1
    node_locks.release(env.ctx, node.id, 'other-host')
    assert env.call('DELETE', '/v1/allocations/' +
                    doc['uuid']).status_int == 204


def test_delete_gets_the_lock_once_it_is_released(env, monkeypatch,
                                                  lock_patience):
    lock_patience(200, 0.05)
    doc, node = _allocated(env)
    node_locks.reserve(env.ctx, node.id, 'other-host')
    tried = threading.Event()
    real_reserve = locking.take

    def reserve(*args, **kwargs):
        try:
            return real_reserve(*args, **kwargs)
        finally:
            tried.set()

    monkeypatch.setattr(locking, 'take', reserve)
    result = []
    worker = threading.Thread(target=lambda: result.append(
        env.call('DELETE', '/v1/allocations/' + doc['uuid']).status_int))
    worker.start()
    assert tried.wait(30)
    node_locks.release(env.ctx, node.id, 'other-host')
    worker.join()
    assert result == [204]
    assert _is_free(env, node)


def test_delete_racing_a_bind_leaves_no_instance_behind(env, database):
    """A bind commits while the deletion of its allocation waits: the
    deletion must still free the node it took."""
    if database.backend == 'sqlite':
        pytest.skip('SQLite runs one writer at a time: nothing to race')
    node = env.node('n1')
    doc = env.create(name='racing')
    row = db_allocations.get_by_uuid(env.ctx, doc['uuid'])
    alloc = models.baremetal_allocations
    nodes = models.nodes
    with database.engine.connect() as conn:
        # The bind's writes, uncommitted: node first, then allocation.
        txn = conn.begin()
        conn.execute(nodes.update().where(nodes.c.id == node.id).values(
            instance_uuid=row.uuid, allocation_id=row.id))
        conn.execute(alloc.update().where(alloc.c.id == row.id).values(
            node_id=node.id, state=states.ACTIVE))
        deleter = threading.Thread(target=lambda: env.call(
            'DELETE', '/v1/allocations/racing'))
        deleter.start()
        deleter.join(1.0)  # it blocks on the bind's row locks
        txn.commit()
    deleter.join()
    assert env.rows() == []
    assert _is_free(env, node)


# -- /v1/nodes/{ident}/allocation ---------------------------------------------

def test_node_allocation_is_the_allocation(env):
    doc, node = _allocated(env)
    shown = env.call('GET', '/v1/allocations/' + doc['uuid']).json
    for ident in (node.uuid, 'n1'):
        resp = env.call('GET', '/v1/nodes/%s/allocation' % ident)
        assert resp.status_int == 200
        assert resp.json == shown
    resp = env.call('GET', '/v1/nodes/n1/allocation?fields=uuid,node_uuid')
    assert resp.json == {'uuid': doc['uuid'], 'node_uuid': node.uuid,
                         'links': doc['links']}
    assert env.call('GET', '/v1/nodes/n1/allocation?fields=x'
                    ).status_int == 400
    assert env.call('GET', '/v1/nodes/n1/allocation?x=1').status_int == 400
    assert env.call('GET', '/v1/nodes/n1.json/allocation',
                    version='1.90').json == shown


def test_node_allocation_not_found(env):
    env.node('bare')
    resp = env.call('GET', '/v1/nodes/bare/allocation')
    assert resp.status_int == 404
    assert message(resp) == 'Allocation for node bare was not found'
    assert env.call('DELETE', '/v1/nodes/bare/allocation').status_int == 404
    for method, status in (('GET', 400), ('DELETE', 404)):
        resp = env.call(method, '/v1/nodes/ghost/allocation')
        assert resp.status_int == status, method
        assert message(resp) == 'Node ghost could not be found.'
    resp = env.call('GET', '/v1/nodes/11111111-2222-3333-4444-555555555555'
                           '/allocation')
    assert resp.status_int == 400
    assert message(resp) == ('Node 11111111-2222-3333-4444-555555555555 '
                             'could not be found.')
    assert env.call('GET', '/v1/nodes/ba!na!na/allocation'
                    ).status_int == 400


def test_delete_node_allocation(env):
    doc, node = _allocated(env, provision_state=states.ACTIVE)
    resp = env.call('DELETE', '/v1/nodes/n1/allocation')
    assert resp.status_int == 409
    mirror.update_node(env.ctx, node.id, {'maintenance': True})
    resp = env.call('DELETE', '/v1/nodes/%s/allocation' % node.uuid)
    assert resp.status_int == 204
    assert env.rows() == [] and _is_free(env, node)


@pytest.mark.parametrize('method,path,version,status', [
    ('POST', '/v1/nodes/n1/allocation', 'latest', 405),
    ('PUT', '/v1/nodes/n1/allocation', 'latest', 405),
    ('GET', '/v1/nodes/n1/allocation/x', 'latest', 405),
    ('GET', '/v1/nodes/n1/allocation', '1.51', 404),
    ('DELETE', '/v1/nodes/n1/allocation', '1.51', 404),
])
def test_node_allocation_methods(env, method, path, version, status):
    doc, node = _allocated(env)
    resp = env.call(method, path, {}, version=version)
    assert resp.status_int == status
    assert len(env.rows()) == 1


# -- backfill -----------------------------------------------------------------

def test_backfill_an_active_node(env):
    node = env.node('deployed', provision_state=states.ACTIVE,
                    resource_class='gold', traits=['CUSTOM_A', 'CUSTOM_B'])
    resp = env.post({'node': 'deployed', 'name': 'bf', 'traits':
                     ['CUSTOM_A'], 'candidate_nodes': ['deployed']},
                    version='1.58')
    assert resp.status_int == 201
    doc = resp.json
    assert doc['state'] == 'active' and doc['node_uuid'] == node.uuid
    assert doc['resource_class'] == 'gold'  # the node's
    assert doc['candidate_nodes'] == [node.uuid]
    assert resp.headers['Location'].endswith('/v1/allocations/' +
                                             doc['uuid'])
    after = db_nodes.get_by_id(env.ctx, node.id)
    assert after.allocation_uuid == doc['uuid']
    assert after.instance_uuid == doc['uuid']
    assert env.rpc.casts == []  # a call, not a cast
    # Same node again: its instance is now that allocation.
    again = env.post({'node': 'deployed'})
    assert again.status_int == 409
    assert len(env.rows()) == 1


def test_backfill_takes_the_node_instance_uuid(env):
    instance = '5e8b6a1c-1b4f-4d8e-9f5a-3c2d1e0f9a8b'
    node = env.node('deployed', provision_state=states.ACTIVE,
                    instance_uuid=instance)
    doc = env.create(node=node.uuid, resource_class='baremetal')
    assert doc['uuid'] == instance and doc['state'] == 'active'
    other = env.post({'node': 'deployed', 'uuid':
                      '6f9c7b2d-2c5a-4e9f-8a6b-4d3e2f1a0b9c'})
    assert other.status_int == 409


@pytest.mark.parametrize('node_values,body', [
    ({'provision_state': states.AVAILABLE}, {}),
    ({}, {'resource_class': 'other'}),
    ({}, {'traits': ['CUSTOM_MISSING']}),
    ({}, {'candidate_nodes': ['elsewhere']}),
    ({'maintenance': True}, {}),
])
def test_backfill_mismatch_is_400_and_leaves_nothing(env, node_values,
                                                     body):
    # Upstream: a 500, and an allocation in error left behind.
    env.node('elsewhere')
    values = dict({'provision_state': states.ACTIVE}, **node_values)
    node = env.node('deployed', **values)
    resp = env.post(dict(body, node='deployed', name='bf'))
    assert resp.status_int == 400
    assert 'Cannot backfill an allocation for node %s' % node.uuid in \
        message(resp)
    assert env.rows() == []
    assert _is_free(env, node)
    assert env.call('GET', '/v1/allocations/bf').status_int == 404


def test_backfill_errors(env):
    resp = env.post({'node': 'ghost'})
    assert resp.status_int == 400
    assert message(resp) == 'Node ghost could not be found.'
    resp = env.post({'node': 'ba!na!na'})
    assert resp.status_int == 400
    env.node('deployed', provision_state=states.ACTIVE)
    env.create(name='taken')
    resp = env.post({'node': 'deployed', 'name': 'taken'})
    assert resp.status_int == 409
    assert len(env.rows()) == 1
    resp = env.post({'node': 'deployed'}, version='1.57')
    assert resp.status_int == 400
    assert _is_free(env, db_nodes.get(env.ctx, 'deployed'))


def test_backfill_and_locked_node(env):
    node = env.node('deployed', provision_state=states.ACTIVE)
    node_locks.reserve(env.ctx, node.id, 'other-host')
    resp = env.post({'node': 'deployed'})
    assert resp.status_int == 409
    assert env.rows() == []
    node_locks.release(env.ctx, node.id, 'other-host')
    assert env.post({'node': 'deployed'}).status_int == 201


def test_deleting_a_backfilled_allocation_of_an_active_node(env):
    node = env.node('deployed', provision_state=states.ACTIVE)
    doc = env.create(node='deployed')
    assert env.call('DELETE', '/v1/allocations/' +
                    doc['uuid']).status_int == 409
    mirror.update_node(env.ctx, node.id, {'maintenance': True})
    assert env.call('DELETE', '/v1/allocations/' +
                    doc['uuid']).status_int == 204
    assert _is_free(env, node)
    assert env.rows() == []
