"""Who finishes an allocation: the worker pool, start-up, take-over,
the stuck sweep and stopping; real conductor services over fake://, on
SQLite, MariaDB and PostgreSQL (tooz over Redis for membership).

Scenarios:

* pool full: the allocation stays ``allocating`` (nothing lost) and the
  periodic check starts it once a worker is free;
* start-up: a conductor releases the node locks of its previous life
  and finishes the allocations it owned;
* take-over: two live conductors race for the allocations of two dead
  ones (one unregistered, one silent past the heartbeat timeout):
  exactly one takes each, all end active on distinct nodes, and the
  dead ones' node locks are released;
* an allocation stuck ``allocating`` under a live conductor past
  ``stuck_allocation_timeout`` is taken over and finished;
* an allocation whose cast was lost (the broker was down when the API
  wrote it) is started by its own conductor's short periodic check once
  it is older than that check's interval, the newer ones being left to
  their cast; the timer runs it by itself;
* a conductor that stops finishes what runs, leaves what waits, and
  unregisters: another takes the rest over at once;
* with tooz, a conductor whose row looks alive but who is not in the
  group is taken for dead;
* the timers run the heartbeat and the check by themselves;
* a heartbeat after the row vanished registers again.
"""

import datetime
import socket
import threading

from oslo_utils import timeutils
import pytest

from allocsvc.common import states
from allocsvc.conductor import allocations
from allocsvc.conductor import coordination
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import conductors
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes
from allocsvc.db import models
from tests import backends
from tests.functional import conductor_harness
from tests.helpers.waiting import WAIT
from tests.helpers.waiting import wait_for

REDIS = 'redis://127.0.0.1:6379'


@pytest.fixture
def harness(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        allocation_backend=allocation_backend))
    yield harness
    harness.stop()


@db_api.writer
def _age(context, table, row_id, seconds, *columns):
    past = timeutils.utcnow() - datetime.timedelta(seconds=seconds)
    context.session.execute(table.update().where(table.c.id == row_id)
                            .values(**{c: past for c in columns}))


def _gate(monkeypatch, blocked_ids):
    """Make the workers wait on the returned event before running the
    allocations in ``blocked_ids``."""
    gate = threading.Event()
    real = allocations.allocate

    def allocate(context, allocation_id, *args, **kwargs):
        if allocation_id in blocked_ids:
            assert gate.wait(WAIT)
        return real(context, allocation_id, *args, **kwargs)

    monkeypatch.setattr(allocations, 'allocate', allocate)
    return gate


def test_pool_full_leaves_it_for_the_check(harness, monkeypatch):
    conf = harness.make_conf(workers_pool_size=1,
                             workers_pool_backlog=0)
    svc = harness.start_conductor(conf=conf)
    harness.nodes(2)
    first = harness.write_allocation(svc.conductor_id)
    gate = _gate(monkeypatch, {first.id})
    harness.rpcapi.create_allocation(harness.context, first, svc.host)
    wait_for(lambda: first.id in svc.manager.in_flight())

    second = harness.write_allocation(svc.conductor_id)
    svc.manager.create_allocation(harness.context, second)
    assert svc.manager.in_flight() == {first.id}
    assert harness.get(second.id).state == states.ALLOCATING
    assert svc.manager.resume(harness.context) == 0

    gate.set()
    assert harness.final(first.id).state == states.ACTIVE
    wait_for(lambda: not svc.manager.in_flight())
    assert svc.check_allocations() == []
    final = harness.final(second.id)
    assert final.state == states.ACTIVE
    assert final.node_id != harness.get(first.id).node_id


def test_start_resumes_own_and_releases_stale_locks(harness):
    host = harness.host('c')
    previous = conductors.register(harness.context, host)
    made = harness.nodes(2)
    node_locks.reserve(harness.context, made[0].id, host)
    pending = [harness.write_allocation(previous.id) for _ in range(2)]

    svc = harness.start_conductor('c')
    assert svc.conductor_id == previous.id
    finals = [harness.final(a.id) for a in pending]
    assert {f.state for f in finals} == {states.ACTIVE}
    assert {f.node_uuid for f in finals} == {n.uuid for n in made}
    # The stale lock went at start; the locks taken to bind are given
    # back just after the bind commits, so they may take a moment.
    wait_for(lambda: all(
        nodes.get_by_id(harness.context, node.id).reservation is None
        for node in made))


def test_two_conductors_race_for_dead_ones(harness):
    gone = conductors.register(harness.context, harness.host('gone'))
    conductors.unregister(harness.context, gone.hostname)
    silent = conductors.register(harness.context, harness.host('silent'))
    _age(harness.context, models.conductors, silent.id, 3600,
         'heartbeat_at')
    made = harness.nodes(10)
    stale = harness.node('stale')
    node_locks.reserve(harness.context, stale.id, silent.hostname)
    orphans = [harness.write_allocation(owner.id)
               for owner in (gone, silent) for _ in range(5)]

    one = harness.start_conductor('one')
    two = harness.start_conductor('two')
    won = harness.check_at_once([one, two])

    first, second = set(won[one.host]), set(won[two.host])
    assert not first & second
    assert first | second == {a.id for a in orphans}
    finals = [harness.final(a.id) for a in orphans]
    assert {f.state for f in finals} == {states.ACTIVE}
    assert len({f.node_id for f in finals}) == 10
    for final in finals:
        owner = one if final.id in first else two
        assert final.conductor_affinity == owner.conductor_id
    assert nodes.get_by_id(harness.context, stale.id).reservation is None
    assert {f.node_uuid for f in finals} <= \
        {n.uuid for n in made} | {stale.uuid}


def test_stuck_under_a_live_conductor_is_taken_over(harness):
    conf = harness.make_conf(stuck_allocation_timeout=60)
    svc = harness.start_conductor(conf=conf)
    live = conductors.register(harness.context, harness.host('live'))
    harness.nodes(1)
    fresh = harness.write_allocation(live.id)
    stuck = harness.write_allocation(live.id)
    _age(harness.context, models.baremetal_allocations, stuck.id, 120,
         'created_at', 'updated_at')

    assert svc.check_allocations() == [stuck.id]
    final = harness.final(stuck.id)
    assert final.state == states.ACTIVE
    assert final.conductor_affinity == svc.conductor_id
    # The recent one is left to its (live) owner.
    record = harness.get(fresh.id)
    assert record.state == states.ALLOCATING
    assert record.conductor_affinity == live.id


def test_lost_cast_is_resumed_by_its_conductor(harness):
    conf = harness.make_conf(resume_allocations_interval=60)
    svc = harness.start_conductor(conf=conf)
    harness.nodes(2)
    fresh = harness.write_allocation(svc.conductor_id)
    lost = harness.write_allocation(svc.conductor_id)
    _age(harness.context, models.baremetal_allocations, lost.id, 120,
         'created_at')

    assert svc.resume_lost() == 1
    assert harness.final(lost.id).state == states.ACTIVE
    # Its cast may still be on its way: left alone.
    assert harness.get(fresh.id).state == states.ALLOCATING


def test_resume_timer_finishes_lost_casts(harness):
    conf = harness.make_conf(resume_allocations_interval=0.2)
    svc = harness.start_conductor(conf=conf)
    harness.nodes(1)
    lost = harness.write_allocation(svc.conductor_id)
    final = harness.final(lost.id)
    assert final.state == states.ACTIVE
    assert final.conductor_affinity == svc.conductor_id


def test_stop_hands_waiting_work_over(harness, monkeypatch):
    conf = harness.make_conf(workers_pool_size=1)
    stopping = harness.start_conductor('stopping', conf=conf)
    harness.nodes(3)
    running = harness.write_allocation(stopping.conductor_id)
    gate = _gate(monkeypatch, {running.id})
    stopping.manager.create_allocation(harness.context, running)
    waiting = [harness.write_allocation(stopping.conductor_id)
               for _ in range(2)]
    for allocation in waiting:
        stopping.manager.create_allocation(harness.context, allocation)
    wait_for(lambda: len(stopping.manager.in_flight()) == 3)

    stopper = threading.Thread(target=stopping.stop)
    stopper.start()
    # Stopping waits for the running allocation only.
    wait_for(lambda: stopping.manager.in_flight() == {running.id})
    gate.set()
    stopper.join()
    assert harness.get(running.id).state == states.ACTIVE
    row = conductors.get(harness.context, stopping.host)
    assert row.online is False
    assert {harness.get(a.id).state for a in waiting} == {states.ALLOCATING}

    other = harness.start_conductor('other')
    assert sorted(other.check_allocations()) == sorted(a.id for a in waiting)
    assert {harness.final(a.id).state for a in waiting} == {states.ACTIVE}


def test_timers_heartbeat_and_check(harness):
    conf = harness.make_conf(heartbeat_interval=0.1,
                             check_allocations_interval=0.1)
    gone = conductors.register(harness.context, harness.host('gone'))
    conductors.unregister(harness.context, gone.hostname)
    harness.nodes(1)
    orphan = harness.write_allocation(gone.id)
    svc = harness.start_conductor(conf=conf)
    _age(harness.context, models.conductors, svc.conductor_id, 3600,
         'heartbeat_at')
    wait_for(lambda: conductors.get(harness.context, svc.host,
                                    heartbeat_timeout=60).alive)
    final = harness.final(orphan.id)
    assert final.state == states.ACTIVE
    assert final.conductor_affinity == svc.conductor_id


@db_api.writer
def _delete_conductor(context, conductor_id):
    table = models.conductors
    context.session.execute(table.delete().where(table.c.id == conductor_id))


def test_heartbeat_registers_again(harness):
    svc = harness.start_conductor()
    old = svc.conductor_id
    _delete_conductor(harness.context, old)
    svc.heartbeat()
    row = conductors.get(harness.context, svc.host, heartbeat_timeout=60)
    assert row.alive and row.id == svc.conductor_id
    assert svc.manager.conductor_id == row.id


# -- tooz --------------------------------------------------------------------

@pytest.fixture
def redis():
    try:
        socket.create_connection(('127.0.0.1', 6379), 2).close()
    except OSError as exc:
        backends.unavailable('redis is not reachable on 127.0.0.1:6379: %s'
                             % exc)
    return REDIS


def test_membership_makes_a_silent_member_dead(harness, redis):
    conf = harness.make_conf(coordination_backend_url=redis)
    one = harness.start_conductor('one', conf=conf)
    two = harness.start_conductor('two', conf=conf)
    members = one.membership.members()
    assert {one.host, two.host} <= members
    # Registered, heartbeat fresh, but never joined the group.
    ghost = conductors.register(harness.context, harness.host('ghost'))
    harness.nodes(1)
    orphan = harness.write_allocation(ghost.id)

    by_database, by_membership = one.dead_conductors(harness.context)
    assert by_database == []
    assert [c.hostname for c in by_membership] == [ghost.hostname]
    assert one.check_allocations() == [orphan.id]
    assert harness.final(orphan.id).state == states.ACTIVE

    two.stop()
    assert two.host not in one.membership.members()
    by_database, by_membership = one.dead_conductors(harness.context)
    assert two.host in {c.hostname for c in by_database}


def test_membership_lost_is_joined_again(harness, redis):
    conf = harness.make_conf(coordination_backend_url=redis)
    svc = harness.start_conductor(conf=conf)
    ghost = conductors.register(harness.context, harness.host('ghost'))
    by_membership = svc.dead_conductors(harness.context)[1]
    assert [c.hostname for c in by_membership] == [ghost.hostname]
    # Another member cleaned this one out (it looked expired).
    svc.membership._coordinator.leave_group(coordination.GROUP).get()
    # Not a member itself: it does not judge the others by the group.
    assert svc.membership.members() is None
    assert svc.dead_conductors(harness.context) == ([], [])
    svc.heartbeat()
    assert svc.host in svc.membership.members()


def test_conductors_register_at_once(harness):
    # New host names and one name several times, all at once (MariaDB
    # answers some of these inserts with a deadlock: they are retried).
    names = [harness.host('new-%d' % i) for i in range(6)] + \
        [harness.host('same')] * 4
    barrier = threading.Barrier(len(names))
    results, errors = [], []

    def register(name):
        barrier.wait()
        try:
            results.append(conductors.register(harness.context, name))
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=register, args=(name,))
               for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    ids = {r.hostname: set() for r in results}
    for record in results:
        ids[record.hostname].add(record.id)
        assert record.online
    assert set(ids) == set(names)
    assert all(len(found) == 1 for found in ids.values())
