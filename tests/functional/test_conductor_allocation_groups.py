"""Allocation groups through a real conductor (cast over ``inproc://``),
on SQLite, MariaDB and PostgreSQL, with each allocation back end
(database and placement).

Scenarios:

* exactly N nodes fit: the group is active, its N members active on N
  distinct nodes, each node pointing back at its member (placement back
  end: each member's claim is its own consumer);
* N-1 fit: the group and its members are in error with the counting
  words, and nothing is held: no node bound, no node lock, no Placement
  claim;
* spread: strict met (one node per conductor group, per aggregate, per
  trait prefix) and unmet (error naming the rule); preferred falls back
  to any node; ``max_per_domain`` above 1;
* a chosen node lost to a race (locked by another holder) is left out
  and the group chooses again;
* a member deleted before the conductor runs: the group has one node
  fewer;
* deleting the group frees every node and its claims;
* members are never resumed alone by the periodic checks (only the
  group binds them).
"""


import pytest
import sqlalchemy as sa

from allocsvc.common import states
from allocsvc.conductor import allocation_groups
from allocsvc.conductor import mirror
from allocsvc.db.baremetal import allocation_groups as db_groups
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import conductors as db_conductors
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes as db_nodes
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import aggregates
from tests.functional import conductor_harness
from tests.helpers import waiting


@pytest.fixture
def harness(database, allocation_backend):
    harness = conductor_harness.Harness(conductor_harness.make_conf(
        allocation_backend=allocation_backend))
    harness.conductor = harness.start_conductor()
    harness.backend = allocation_backend
    yield harness
    harness.stop()


def create_group(harness, count, spread=None, member_names=(), **values):
    """Write a group as the API does and cast it; return it."""
    conductor = harness.rpcapi.pick_conductor(harness.context)
    values = dict({'resource_class': 'baremetal', 'traits': [],
                   'candidate_nodes': [], 'owner': None}, **values)
    group = db_groups.create_group(harness.context, dict(
        values, count=count, spread=spread,
        conductor_affinity=conductor.id), member_names)
    harness.rpcapi.create_allocation_group(harness.context, group,
                                           conductor.hostname)
    return group


def final(harness, group):
    def done():
        found = db_groups.get_by_id(harness.context, group.id)
        return found if found.state != states.ALLOCATING else None
    return waiting.wait_for(done)


def claims(harness, consumers):
    """How many Placement allocations the ``consumers`` hold."""
    table = models.allocations
    with db_api.get_engine().connect() as conn:
        return conn.execute(
            sa.select(sa.func.count()).select_from(table).where(
                table.c.consumer_id.in_(list(consumers)))).scalar()


def test_exactly_n_fit(harness):
    made = harness.nodes(3)
    harness.node('busy', maintenance=True)
    group = final(harness, create_group(harness, 3, name='cp',
                                        member_names=['cp-0', 'cp-1']))
    assert group.state == states.ACTIVE, group.last_error
    assert group.last_error is None
    nodes = [m.node_uuid for m in group.members]
    assert sorted(nodes) == sorted(n.uuid for n in made)
    for member in group.members:
        record = db_allocations.get_by_id(harness.context, member.id)
        assert record.state == states.ACTIVE
        node = db_nodes.get(harness.context, member.node_uuid)
        assert node.allocation_id == member.id
        assert node.instance_uuid == member.uuid
        assert node.reservation is None
    assert [m.name for m in group.members] == ['cp-0', 'cp-1', None]
    if harness.backend == 'placement':
        uuids = [m.uuid for m in group.members]
        assert claims(harness, uuids) == 3


def test_one_too_few_fits_and_nothing_is_held(harness):
    made = harness.nodes(2)
    harness.node('m', maintenance=True)
    group = final(harness, create_group(harness, 3))
    assert group.state == states.ERROR
    assert group.last_error == (
        'Failed to process allocation group %s: only 2 of the 3 nodes the '
        'group needs are suitable (3 nodes have resource class baremetal: '
        '1 in maintenance).' % group.uuid)
    for member in group.members:
        record = db_allocations.get_by_id(harness.context, member.id)
        assert record.state == states.ERROR
        assert record.node_id is None
        assert record.last_error == group.last_error
    for node in made:
        node = db_nodes.get(harness.context, node.uuid)
        assert node.allocation_id is None and node.instance_uuid is None
        assert node.reservation is None
    assert claims(harness, [m.uuid for m in group.members]) == 0


def test_no_node_at_all_says_why_as_an_allocation_does(harness):
    harness.node('m', maintenance=True)
    group = final(harness, create_group(harness, 2, traits=['CUSTOM_X']))
    assert group.state == states.ERROR
    assert 'the group needs 2 nodes: ' in group.last_error
    assert '1 in maintenance' in group.last_error


def _domains(harness, count_per_domain, domains, by):
    made = {}
    for d in range(domains):
        for i in range(count_per_domain):
            name = 'n-%d-%d' % (d, i)
            if by == 'conductor_group':
                node = harness.node(name, conductor_group='cg%d' % d)
            elif by == 'trait':
                node = harness.node(name, traits=['CUSTOM_RACK_%d' % d,
                                                  'CUSTOM_OTHER'])
            else:
                node = harness.node(name)
                aggregates.set_aggregates(
                    harness.context, node.uuid,
                    ['00000000-0000-0000-0000-00000000000%d' % d])
            made[node.uuid] = d
    return made


SPREADS = [('conductor_group', 'conductor_group'),
           ('trait', 'trait:CUSTOM_RACK_'), ('aggregate', 'aggregate')]


@pytest.mark.parametrize('kind,by', SPREADS)
def test_strict_spread_met(harness, kind, by):
    made = _domains(harness, 2, 3, kind)
    group = final(harness, create_group(
        harness, 3, spread={'by': by, 'max_per_domain': 1, 'strict': True}))
    assert group.state == states.ACTIVE, group.last_error
    assert sorted(made[m.node_uuid] for m in group.members) == [0, 1, 2]


@pytest.mark.parametrize('kind,by', SPREADS)
def test_strict_spread_unmet(harness, kind, by):
    made = _domains(harness, 2, 2, kind)
    group = final(harness, create_group(
        harness, 3, spread={'by': by, 'max_per_domain': 1, 'strict': True}))
    assert group.state == states.ERROR
    assert group.last_error == (
        'Failed to process allocation group %s: the spread rule (at most 1 '
        'node per %s) could not be met: 4 suitable nodes in 2 %s domains '
        'allow at most 2 of the 3 nodes the group needs.'
        % (group.uuid, by, by))
    for uuid in made:
        assert db_nodes.get(harness.context, uuid).allocation_id is None
    assert claims(harness, [m.uuid for m in group.members]) == 0


def test_preferred_spread_falls_back(harness):
    made = _domains(harness, 2, 2, 'conductor_group')
    group = final(harness, create_group(
        harness, 3, spread={'by': 'conductor_group', 'max_per_domain': 1,
                            'strict': False}))
    assert group.state == states.ACTIVE, group.last_error
    # Both domains are used before one is used twice.
    assert sorted(made[m.node_uuid] for m in group.members) in (
        [0, 0, 1], [0, 1, 1])


def test_max_per_domain(harness):
    made = _domains(harness, 3, 2, 'conductor_group')
    group = final(harness, create_group(
        harness, 4, spread={'by': 'conductor_group', 'max_per_domain': 2,
                            'strict': True}))
    assert group.state == states.ACTIVE, group.last_error
    assert sorted(made[m.node_uuid] for m in group.members) == [0, 0, 1, 1]


def test_a_locked_node_is_chosen_around(harness):
    made = harness.nodes(3)
    node_locks.reserve(harness.context, made[0].id, 'someone-else')
    group = final(harness, create_group(harness, 2))
    assert group.state == states.ACTIVE, group.last_error
    assert made[0].uuid not in {m.node_uuid for m in group.members}
    assert db_nodes.get(harness.context, made[0].uuid).reservation == \
        'someone-else'


def test_a_deleted_member_is_one_node_fewer(harness):
    harness.nodes(2)
    conductor = harness.rpcapi.pick_conductor(harness.context)
    group = db_groups.create_group(harness.context, dict(
        resource_class='baremetal', traits=[], candidate_nodes=[],
        count=2, conductor_affinity=conductor.id))
    mirror.destroy_allocation(harness.context, group.members[0].id)
    harness.rpcapi.create_allocation_group(harness.context, group,
                                           conductor.hostname)
    group = final(harness, group)
    assert group.state == states.ACTIVE, group.last_error
    assert len(group.members) == 1 and group.members[0].node_uuid


def test_deleting_the_group_frees_every_node(harness):
    made = harness.nodes(3)
    group = final(harness, create_group(harness, 3))
    assert group.state == states.ACTIVE
    harness.rpcapi.destroy_allocation_group(harness.context, group)
    with pytest.raises(Exception):
        db_groups.get_by_id(harness.context, group.id)
    assert db_allocations.list_allocations(harness.context) == []
    for node in made:
        node = db_nodes.get(harness.context, node.uuid)
        assert node.allocation_id is None and node.instance_uuid is None
    assert claims(harness, [m.uuid for m in group.members]) == 0
    # The nodes can be taken again.
    again = final(harness, create_group(harness, 3))
    assert again.state == states.ACTIVE, again.last_error


def test_members_are_not_resumed_alone(harness):
    harness.nodes(2)
    conductor = harness.conductor
    group = db_groups.create_group(harness.context, dict(
        resource_class='baremetal', traits=[], candidate_nodes=[],
        count=2, conductor_affinity=conductor.conductor_id))
    assert db_allocations.list_allocating_of(
        harness.context, conductor.conductor_id) == []
    assert db_allocations.list_stuck(harness.context, 0) == []
    # The group is resumed, as a whole.
    assert conductor.manager.resume(harness.context) == 1
    group = final(harness, group)
    assert group.state == states.ACTIVE, group.last_error


def test_choose_is_joint():
    # Pure: two domains of two, three wanted at most one per domain.
    domains = {'a': 1, 'b': 1, 'c': 2, 'd': 2, 'e': None}
    spread = {'by': 'conductor_group', 'max_per_domain': 1, 'strict': True}
    with pytest.raises(allocation_groups._Failure):
        allocation_groups.choose(list(domains), 3, spread, domains)
    spread['strict'] = False
    chosen = allocation_groups.choose(list(domains), 3, spread, domains)
    assert len(set(chosen)) == 3
    assert {domains[u] for u in chosen} >= {1, 2}


def test_a_dead_conductors_groups_are_taken_over_whole(harness):
    # Groups written for a conductor that died before running them (a
    # group binds its nodes in one transaction: a dead owner left none
    # bound); two live conductors race for them, each group goes whole
    # to one of them and ends active with all its nodes.
    harness.nodes(6)
    gone = db_conductors.register(harness.context, harness.host('gone'))
    groups = [db_groups.create_group(harness.context, dict(
        resource_class='baremetal', traits=[], candidate_nodes=[],
        owner=None, count=3, spread=None, conductor_affinity=gone.id))
        for _ in range(2)]
    db_conductors.unregister(harness.context, gone.hostname)
    one = harness.start_conductor('one')
    two = harness.start_conductor('two')
    harness.check_at_once([one, two])
    bound = []
    for group in groups:
        done = final(harness, group)
        assert done.state == states.ACTIVE, done.last_error
        assert done.conductor_affinity in (one.conductor_id,
                                           two.conductor_id)
        for member in done.members:
            record = db_allocations.get_by_id(harness.context, member.id)
            assert record.state == states.ACTIVE
            assert record.conductor_affinity == done.conductor_affinity
            bound.append(member.node_uuid)
    assert len(set(bound)) == 6
