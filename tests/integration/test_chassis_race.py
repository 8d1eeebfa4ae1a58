"""A node joining a chassis while the chassis is deleted, with real
threads on MariaDB and PostgreSQL (and SQLite, which serialises them).

The database must never hold a node that names a deleted chassis, and
each side gets Ironic's answer: the node write "Chassis X could not be
found." (400), the delete "... contains nodes." (400).

Scenarios:
* each interleaving forced, at the two points where the check of one
  write and the other write can pass each other: the chassis is deleted
  after the node write looked it up (the foreign key refuses the node
  write), a node joins after the delete found the chassis empty (the
  foreign key refuses the delete);
* free races, round after round: node updates and chassis deletes at
  the DB layer, then node creations and chassis deletes through the
  HTTP API and its conductor; exactly one side wins each round.
"""

import threading

import pytest
import sqlalchemy as sa

from allocsvc.common import context as ctx
from allocsvc.common import exception
from allocsvc.conductor import mirror
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import chassis as db_chassis
from allocsvc.db.baremetal import nodes
from allocsvc.db import models
from tests.functional import conductor_harness
from tests.functional.ironic_errors import message
from tests.helpers.v1 import call
from tests.integration.racing import race

ROUNDS = 15
# Generous: the other thread may wait for a lock a while on a busy host.
WAIT = 30


@pytest.fixture
def context(database):
    return ctx.get_admin_context()


def _dangling():
    """Nodes that name a chassis that does not exist."""
    # SELECT count(*) FROM nodes LEFT OUTER JOIN chassis ON chassis.id =
    # nodes.chassis_id WHERE nodes.chassis_id IS NOT NULL AND chassis.id
    # IS NULL
    n, c = models.nodes, models.chassis
    with db_api.get_engine().connect() as conn:
        return conn.execute(
            sa.select(sa.func.count()).select_from(
                n.outerjoin(c, c.c.id == n.c.chassis_id))
            .where(n.c.chassis_id.is_not(None), c.c.id.is_(None))).scalar()


def _not_found(chassis):
    return 'Chassis %s could not be found.' % chassis.uuid


def _not_empty(chassis):
    return ('Cannot complete the requested action because chassis %s '
            'contains nodes.' % chassis.uuid)


def _serialised(database):
    if database.backend == 'sqlite':
        pytest.skip('SQLite runs one writer at a time (BEGIN IMMEDIATE): '
                    'these writes cannot interleave there')


def _pause_after(monkeypatch, module, name, reached, resume):
    """Make ``module.name`` signal ``reached`` once it returned, then wait
    for ``resume`` (the first call only)."""
    original = getattr(module, name)
    first = threading.Event()

    def paused(*args, **kwargs):
        result = original(*args, **kwargs)
        if not first.is_set():
            first.set()
            reached.set()
            assert resume.wait(WAIT), 'the other writer never came'
        return result

    monkeypatch.setattr(module, name, paused)


def test_delete_between_the_node_writes_look_up_and_write(
        database, context, monkeypatch):
    _serialised(database)
    chassis = db_chassis.create_chassis(context, {})
    node = mirror.create_node(context, {'driver': 'fake-hardware'})
    looked_up, deleted = threading.Event(), threading.Event()
    _pause_after(monkeypatch, db_chassis, 'id_for_node', looked_up, deleted)

    def attach():
        return mirror.update_node(context, node.id,
                                  {'chassis_uuid': chassis.uuid})

    def delete():
        assert looked_up.wait(WAIT)
        try:
            db_chassis.destroy_chassis(context, chassis.id)
        finally:
            deleted.set()

    attached, gone = race(attach, delete)
    assert gone is None
    assert isinstance(attached, exception.InvalidParameterValue), attached
    assert attached.status == 400
    assert str(attached) == _not_found(chassis)
    assert nodes.get_by_id(context, node.id).chassis_id is None
    assert _dangling() == 0


def test_a_node_joins_between_the_deletes_check_and_delete(
        database, context, monkeypatch):
    _serialised(database)
    chassis = db_chassis.create_chassis(context, {})
    node = mirror.create_node(context, {'driver': 'fake-hardware'})
    checked, attached = threading.Event(), threading.Event()
    _pause_after(monkeypatch, db_chassis, 'has_nodes', checked, attached)

    def attach():
        assert checked.wait(WAIT)
        try:
            return mirror.update_node(context, node.id,
                                      {'chassis_uuid': chassis.uuid})
        finally:
            attached.set()

    def delete():
        return db_chassis.destroy_chassis(context, chassis.id)

    joined, refused = race(attach, delete)
    assert joined.chassis_uuid == chassis.uuid, joined
    assert isinstance(refused, exception.ChassisNotEmpty), refused
    assert refused.status == 400 and str(refused) == _not_empty(chassis)
    assert db_chassis.get_chassis(context, 'id', chassis.id).uuid == \
        chassis.uuid
    assert _dangling() == 0


def test_free_races_of_node_updates_and_chassis_deletes(database, context):
    for _round in range(ROUNDS):
        chassis = db_chassis.create_chassis(context, {})
        node = mirror.create_node(context, {'driver': 'fake-hardware'})
        attached, deleted = race(
            lambda: mirror.update_node(context, node.id,
                                       {'chassis_uuid': chassis.uuid}),
            lambda: db_chassis.destroy_chassis(context, chassis.id))
        if isinstance(attached, Exception):
            # The delete won: the node is in no chassis.
            assert deleted is None, deleted
            assert str(attached) == _not_found(chassis)
            assert nodes.get_by_id(context, node.id).chassis_id is None
        else:
            # The node won: the chassis stays.
            assert attached.chassis_uuid == chassis.uuid
            assert isinstance(deleted, exception.ChassisNotEmpty), deleted
            mirror.destroy_node(context, node.id)
            db_chassis.destroy_chassis(context, chassis.id)
        assert _dangling() == 0


def test_free_races_through_the_api(database):
    conductor_harness.api_conductor()
    outcomes = set()
    for _round in range(ROUNDS):
        chassis = call('POST', '/v1/chassis', {}).json
        created, deleted = race(
            lambda: call('POST', '/v1/nodes', {
                'driver': 'fake-hardware',
                'chassis_uuid': chassis['uuid']}),
            lambda: call('DELETE', '/v1/chassis/' + chassis['uuid']))
        statuses = (created.status_int, deleted.status_int)
        outcomes.add(statuses)
        if statuses == (201, 400):
            assert message(deleted) == _not_empty(_Named(chassis['uuid']))
            assert created.json['chassis_uuid'] == chassis['uuid']
            listed = call('GET', '/v1/chassis/%s/nodes' % chassis['uuid'])
            assert [n['uuid'] for n in listed.json['nodes']] == \
                [created.json['uuid']]
        else:
            assert statuses == (400, 204), (created.text, deleted.text)
            assert message(created) == _not_found(_Named(chassis['uuid']))
        assert _dangling() == 0
    assert outcomes <= {(201, 400), (400, 204)}


class _Named:
    """What the messages need of a chassis known by its UUID only."""

    def __init__(self, uuid):
        self.uuid = uuid
