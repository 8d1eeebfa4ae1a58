"""The bare-metal DB API on SQLite, MariaDB and PostgreSQL.

Scenarios: node CRUD, filters and paging (NULL sort keys included);
traits; allocation CRUD and unique clashes; the candidate query with
trait superset, candidate list, owner/lessee and every exclusion; the
node lock (two threads race for one node: exactly one wins); bind,
conditional on the owner conductor and on the node being free;
take-over (two conductors race for a dead one's allocation: exactly one
wins); listing orphaned and stuck allocations; conductor liveness.
"""

import datetime

from oslo_utils import timeutils
import pytest

from allocsvc import objects
from allocsvc.common import context as ctx
from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import locking
from allocsvc.conductor import mirror
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import allocations
from allocsvc.db.baremetal import candidates
from allocsvc.db.baremetal import conductors
from allocsvc.db.baremetal import node_locks
from allocsvc.db.baremetal import nodes
from allocsvc.db import models
from tests.integration.racing import race


@pytest.fixture
def context(database):
    return ctx.get_admin_context()


def make_node(context, name=None, rc='baremetal', traits=(), **values):
    values.setdefault('driver', 'fake-hardware')
    values.setdefault('provision_state', states.AVAILABLE)
    values.setdefault('power_state', states.POWER_OFF)
    return nodes.create_node(context, dict(
        values, name=name, resource_class=rc, traits=list(traits)))


# -- nodes -------------------------------------------------------------------

def test_node_crud(context):
    node = nodes.create_node(context, {
        'driver': 'fake-hardware', 'name': 'n1', 'properties': {'cpus': 4},
        'traits': ['CUSTOM_B', 'CUSTOM_A']})
    assert node.provision_state == states.ENROLL
    assert node.maintenance is False
    assert node.power_state is None
    assert node.properties == {'cpus': 4}
    assert node.extra == {} and node.instance_info == {}
    assert node.traits == ['CUSTOM_A', 'CUSTOM_B']
    assert node.allocation_uuid is None
    assert nodes.get_by_uuid(context, node.uuid).id == node.id
    assert nodes.get_by_name(context, 'n1').uuid == node.uuid
    assert nodes.get(context, 'n1').uuid == node.uuid
    assert nodes.get(context, node.uuid).name == 'n1'

    updated = nodes.update_node(context, node.id,
                                {'extra': {'a': 1}, 'name': 'n2'})
    assert updated.extra == {'a': 1} and updated.name == 'n2'
    assert updated.updated_at is not None

    nodes.destroy_node(context, node.id)
    with pytest.raises(exception.NodeNotFound):
        nodes.get_by_id(context, node.id)
    with pytest.raises(exception.NodeNotFound):
        nodes.destroy_node(context, node.id)


def test_node_unique_clashes(context):
    node = make_node(context, 'n1')
    with pytest.raises(exception.DuplicateNodeName):
        make_node(context, 'n1')
    with pytest.raises(exception.NodeAlreadyExists):
        make_node(context, 'n2', uuid=node.uuid)
    other = make_node(context, 'n3')
    nodes.update_node(context, node.id, {'instance_uuid': 'i' * 36})
    with pytest.raises(exception.InstanceAssociated):
        nodes.update_node(context, other.id, {'instance_uuid': 'i' * 36})
    with pytest.raises(exception.NodeAssociated):
        nodes.update_node(context, node.id, {'instance_uuid': 'j' * 36})
    with pytest.raises(exception.InvalidParameterValue):
        nodes.update_node(context, node.id, {'uuid': 'x'})


def test_node_filters(context):
    a = make_node(context, 'a', rc='gold', owner='p1')
    b = make_node(context, 'b', rc='gold', lessee='p1', maintenance=True)
    c = make_node(context, 'c', rc='iron',
                  provision_state=states.MANAGEABLE)

    def names(**filters):
        return [n.name for n in nodes.list_nodes(context, filters)]

    assert names() == ['a', 'b', 'c']
    assert names(resource_class='gold') == ['a', 'b']
    assert names(maintenance=True) == ['b']
    assert names(maintenance=False, resource_class='gold') == ['a']
    assert names(project='p1') == ['a', 'b']
    assert names(owner='p1') == ['a']
    assert names(provision_state=states.MANAGEABLE) == ['c']
    assert names(provision_state_in=[states.AVAILABLE]) == ['a', 'b']
    assert names(uuid_in=[a.uuid, c.uuid]) == ['a', 'c']
    nodes.update_node(context, b.id, {'instance_uuid': b.uuid})
    assert names(associated=True) == ['b']
    assert names(associated=False) == ['a', 'c']
    with pytest.raises(exception.InvalidParameterValue):
        names(bogus=1)


def test_node_project_filter(context):
    """``project`` (owner or lessee) is what a project scoped caller's
    node list is limited to: it combines with the caller's own filters,
    pages, never matches a node without owner and lessee, and lists a
    node both owned and leased by the project once."""
    make_node(context, 'owned', owner='p1')
    make_node(context, 'leased', owner='p2', lessee='p1')
    make_node(context, 'both', owner='p1', lessee='p1')
    make_node(context, 'other', owner='p2', lessee='p3')
    make_node(context, 'nobody')

    def names(limit=None, marker=None, **filters):
        return [n.name for n in nodes.list_nodes(context, filters, limit,
                                                 marker)]

    assert names(project='p1') == ['owned', 'leased', 'both']
    assert names(project='p1', owner='p2') == ['leased']
    assert names(project='p1', lessee='p1') == ['leased', 'both']
    assert names(project='p3') == ['other']
    assert names(project='nobody') == []
    first = nodes.list_nodes(context, {'project': 'p1'}, limit=2)
    assert [n.name for n in first] == ['owned', 'leased']
    assert names(limit=2, marker=first[-1].uuid, project='p1') == ['both']


def test_node_paging_with_null_sort_values(context):
    made = [make_node(context, name) for name in ('b', None, 'a', None, 'c')]
    for sort_dir in ('asc', 'desc'):
        whole = [n.uuid for n in nodes.list_nodes(
            context, sort_key='name', sort_dir=sort_dir)]
        assert len(whole) == len(made)
        pages, marker = [], None
        while True:
            page = nodes.list_nodes(context, limit=2, marker=marker,
                                    sort_key='name', sort_dir=sort_dir)
            pages.extend(n.uuid for n in page)
            if len(page) < 2:
                break
            marker = page[-1].uuid
        assert pages == whole
    names = [n.name for n in nodes.list_nodes(context, sort_key='name')]
    assert names[2:] == ['a', 'b', 'c'] and names[:2] == [None, None]
    with pytest.raises(exception.NodeNotFound):
        nodes.list_nodes(context,
                         marker='00000000-0000-0000-0000-000000000000')
    with pytest.raises(exception.InvalidParameterValue):
        nodes.list_nodes(context, sort_key='properties')
    with pytest.raises(exception.InvalidParameterValue):
        nodes.list_nodes(context, sort_dir='up')
    with pytest.raises(exception.InvalidParameterValue):
        nodes.list_nodes(context, limit=-1)


def test_node_traits(context):
    node = make_node(context, 'n')
    assert nodes.set_traits(context, node.id, ['CUSTOM_X', 'CUSTOM_A']) == \
        ['CUSTOM_A', 'CUSTOM_X']
    nodes.add_trait(context, node.id, 'CUSTOM_B')
    nodes.add_trait(context, node.id, 'CUSTOM_B')
    assert nodes.get_traits(context, node.id) == \
        ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_X']
    nodes.remove_trait(context, node.id, 'CUSTOM_A')
    with pytest.raises(exception.NodeTraitNotFound):
        nodes.remove_trait(context, node.id, 'CUSTOM_A')
    assert nodes.get_by_id(context, node.id).traits == \
        ['CUSTOM_B', 'CUSTOM_X']
    with pytest.raises(exception.TooManyTraits):
        nodes.set_traits(context, node.id,
                         ['CUSTOM_%d' % i for i in range(51)])
    nodes.remove_all_traits(context, node.id)
    assert nodes.get_traits(context, node.id) == []
    with pytest.raises(exception.NodeNotFound):
        nodes.get_traits(context, node.id + 1000)


# -- allocations -------------------------------------------------------------

def test_allocation_crud(context):
    alloc = allocations.create_allocation(context, {
        'name': 'a1', 'resource_class': 'gold', 'traits': ['CUSTOM_A']})
    assert alloc.state == states.ALLOCATING
    assert alloc.candidate_nodes == [] and alloc.extra == {}
    assert alloc.node_uuid is None
    # What creating returns is not read back: it must be what is stored.
    stored = allocations.get(context, 'a1')
    for name in stored.__slots__:
        assert getattr(alloc, name) == getattr(stored, name), name
    full = allocations.create_allocation(context, {
        'name': 'full', 'resource_class': 'gold', 'owner': 'p',
        'candidate_nodes': ['n1'], 'extra': {'k': ['v']},
        'conductor_affinity': None})
    stored = allocations.get(context, 'full')
    for name in stored.__slots__:
        assert getattr(full, name) == getattr(stored, name), name
    mirror.destroy_allocation(context, full.id)
    assert allocations.get(context, 'a1').uuid == alloc.uuid
    assert allocations.get(context, alloc.uuid).name == 'a1'
    with pytest.raises(exception.AllocationDuplicateName):
        allocations.create_allocation(context, {'name': 'a1'})
    with pytest.raises(exception.AllocationAlreadyExists):
        allocations.create_allocation(context, {'uuid': alloc.uuid})
    with pytest.raises(exception.InvalidParameterValue):
        allocations.create_allocation(context, {'state': states.ACTIVE})

    updated = allocations.update_allocation(
        context, alloc.id, {'name': 'a2', 'extra': {'k': 'v'}})
    assert updated.name == 'a2' and updated.extra == {'k': 'v'}
    with pytest.raises(exception.InvalidParameterValue):
        allocations.update_allocation(context, alloc.id,
                                      {'state': states.ACTIVE})
    mirror.destroy_allocation(context, alloc.id)
    with pytest.raises(exception.AllocationNotFound):
        allocations.get_by_id(context, alloc.id)
    with pytest.raises(exception.AllocationNotFound):
        mirror.destroy_allocation(context, alloc.id)


def test_allocation_list_filters_and_paging(context):
    node = make_node(context, 'n')
    conductor = conductors.register(context, 'c1')
    made = [allocations.create_allocation(context, {
        'resource_class': rc, 'owner': owner,
        'conductor_affinity': conductor.id})
        for rc, owner in [('gold', 'p1'), ('gold', None), ('iron', 'p1')]]
    mirror.bind(context, made[0].id, node.id, conductor.id)

    def uuids(**kwargs):
        return [a.uuid for a in allocations.list_allocations(
            context, **kwargs)]

    assert uuids() == [a.uuid for a in made]
    assert uuids(filters={'resource_class': 'gold'}) == \
        [made[0].uuid, made[1].uuid]
    # Upstream fails this combination with a 500; columns are qualified.
    assert uuids(filters={'node_uuid': node.uuid,
                          'resource_class': 'gold', 'owner': 'p1'}) == \
        [made[0].uuid]
    assert uuids(filters={'state': states.ALLOCATING}) == \
        [made[1].uuid, made[2].uuid]
    assert uuids(limit=2, marker=made[0].uuid) == \
        [made[1].uuid, made[2].uuid]
    assert uuids(sort_dir='desc', limit=1) == [made[2].uuid]
    with pytest.raises(exception.AllocationNotFound):
        uuids(marker='00000000-0000-0000-0000-000000000000')
    with pytest.raises(exception.InvalidParameterValue):
        uuids(sort_key='traits')


# -- candidates --------------------------------------------------------------

def test_concurrent_adds_of_one_trait(context):
    node = make_node(context, 'racy')
    results = race(*[lambda: nodes.add_trait(context, node.id,
                                             'CUSTOM_RACE')] * 8)
    assert [r for r in results if isinstance(r, Exception)] == []
    assert nodes.get_traits(context, node.id) == ['CUSTOM_RACE']


def test_candidates_traits_superset_and_filters(context):
    both = make_node(context, 'both', traits=['CUSTOM_A', 'CUSTOM_B'])
    more = make_node(context, 'more',
                     traits=['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'])
    only_a = make_node(context, 'only-a', traits=['CUSTOM_A'])
    make_node(context, 'other-rc', rc='iron', traits=['CUSTOM_A'])
    make_node(context, 'maint', traits=['CUSTOM_A'], maintenance=True)
    make_node(context, 'no-power', traits=['CUSTOM_A'], power_state=None)
    make_node(context, 'manageable', traits=['CUSTOM_A'],
              provision_state=states.MANAGEABLE)
    make_node(context, 'taken', traits=['CUSTOM_A'],
              instance_uuid='i' * 36)
    owned = make_node(context, 'owned', owner='p1')
    leased = make_node(context, 'leased', lessee='p1')

    def names(*traits, **kwargs):
        return sorted(c.name for c in candidates.find_candidates(
            context, 'baremetal', traits=list(traits), **kwargs))

    assert names() == ['both', 'leased', 'more', 'only-a', 'owned']
    assert names('CUSTOM_A') == ['both', 'more', 'only-a']
    assert names('CUSTOM_A', 'CUSTOM_B') == ['both', 'more']
    assert names('CUSTOM_A', 'CUSTOM_B', 'CUSTOM_A') == ['both', 'more']
    assert names('CUSTOM_A', 'CUSTOM_Z') == []
    assert names('CUSTOM_A', candidate_uuids=[only_a.uuid, more.uuid]) == \
        ['more', 'only-a']
    assert names(owner='p1') == ['leased', 'owned']
    assert {owned.id, leased.id, both.id} <= {
        c.id for c in candidates.find_candidates(context, 'baremetal')}

    # The counts of the same conditions: each node of the class under
    # the first that drops it.
    counts = candidates.count_drops(context, 'baremetal', ['CUSTOM_A'],
                                    owner='p1')
    assert counts.total == 9
    assert counts.dropped == [
        ('not_available', None, 1), ('maintenance', None, 1),
        ('no_power_state', None, 1), ('allocated', None, 1),
        ('not_owner', None, 3), ('missing_trait', 'CUSTOM_A', 2)]
    assert (counts.fits, counts.untraited) == (0, 2)
    counts = candidates.count_drops(context, 'baremetal',
                                    ['CUSTOM_C', 'CUSTOM_B', 'CUSTOM_Z'])
    assert counts.dropped[4:] == [('missing_trait', 'CUSTOM_B', 3),
                                  ('missing_trait', 'CUSTOM_C', 1),
                                  ('missing_trait', 'CUSTOM_Z', 1)]
    assert (counts.fits, counts.untraited) == (0, 5)
    counts = candidates.count_drops(context, 'baremetal',
                                    candidate_uuids=[both.uuid],
                                    lost=[both.uuid, owned.uuid])
    assert counts.dropped[4:] == [('not_candidate', None, 4),
                                  ('lost', None, 1)]
    assert candidates.count_drops(context, 'nope') == (0, [], 0, 0)
    counts = candidates.count_drops(context, 'baremetal', visible_to='p1')
    assert (counts.total, counts.fits) == (2, 2)


# -- node locks --------------------------------------------------------------

def test_lock_cas_and_context_manager(context):
    node = make_node(context, 'n')
    with locking.node_lock(context, node.id, 'host-a') as locked:
        assert locked.reservation == 'host-a'
        with pytest.raises(exception.NodeLocked) as info:
            node_locks.reserve(context, node.id, 'host-b')
        assert info.value.host == 'host-a'
        with pytest.raises(exception.NodeNotLocked):
            node_locks.release(context, node.id, 'host-b')
    assert nodes.get_by_id(context, node.id).reservation is None

    with pytest.raises(RuntimeError):
        with locking.node_lock(context, node.id, 'host-a'):
            raise RuntimeError('boom')
    assert nodes.get_by_id(context, node.id).reservation is None

    node_locks.reserve(context, node.id, 'host-a')
    with pytest.raises(exception.NodeLocked):
        with locking.node_lock(context, node.id, 'host-b', retries=1,
                               interval=0.01):
            pass
    assert node_locks.release_all(context, 'host-a') == 1
    with pytest.raises(exception.NodeNotFound):
        node_locks.reserve(context, node.id + 1000, 'host-a')


class _Row:
    def __init__(self, uuid, reservation):
        self.uuid, self.reservation = uuid, reservation


def _released_after_the_update(monkeypatch, times=1):
    """Make the holder give its lock back right after the next ``times``
    UPDATEs of ``reserve`` missed it, before they read who holds it (in
    the caller's own session: the release another transaction commits
    between the two statements)."""
    read = node_locks._holder

    def holder(context, ident, column='id'):
        if times_left[0]:
            times_left[0] -= 1
            context.session.execute(
                models.nodes.update().where(models.nodes.c[column] == ident)
                .values(reservation=None))
        return read(context, ident, column)
    times_left = [times]
    monkeypatch.setattr(node_locks, '_holder', holder)


def test_a_lock_freed_between_update_and_read_is_taken(context, monkeypatch):
    # Seen on PostgreSQL: the UPDATE finds the node locked, its holder
    # commits the release, the read finds no holder. That is no reason
    # to say the node was taken (409 NodeNotAvailable).
    node = make_node(context, 'n')
    node_locks.reserve(context, node.id, 'host-a')
    _released_after_the_update(monkeypatch)
    locked = node_locks.reserve(context, node.id, 'host-b')
    assert locked.reservation == 'host-b'
    # Taken again before each UPDATE, freed before each read: busy, not
    # gone.
    monkeypatch.setattr(node_locks, '_holder',
                        lambda *args, **kwargs: _Row(node.uuid, None))
    with pytest.raises(exception.NodeLocked):
        node_locks.reserve(context, node.id, 'host-c')


def test_a_free_node_the_allocation_update_misses_is_not_available(
        context, monkeypatch):
    node = make_node(context, 'n', maintenance=True)
    node_locks.reserve(context, node.id, 'host-a')
    _released_after_the_update(monkeypatch)
    with pytest.raises(exception.NodeNotAvailable):
        node_locks.reserve(context, node.id, 'host-b', only_free=True)
    node = make_node(context, 'm')
    node_locks.reserve(context, node.id, 'host-a')
    _released_after_the_update(monkeypatch)
    assert node_locks.reserve(context, node.id, 'host-b',
                              only_free=True).reservation == 'host-b'


def test_release_api_locks(context):
    """The locks of API processes (of the previous release) go; those of
    conductors, even one named like ``api...``, stay."""
    one, two, conductor, named, free = (
        make_node(context, name) for name in ('a', 'b', 'c', 'd', 'e'))
    node_locks.reserve(
        context, one.id, node_locks.API_HOLDER_PREFIX + 'here:1')
    node_locks.reserve(
        context, two.id, node_locks.API_HOLDER_PREFIX + 'there:2')
    node_locks.reserve(context, conductor.id, 'conductor-1')
    node_locks.reserve(context, named.id, 'api-conductor')
    assert node_locks.release_api_locks(context) == 2
    assert [nodes.get_by_id(context, n.id).reservation
            for n in (one, two, conductor, named, free)] == \
        [None, None, 'conductor-1', 'api-conductor', None]
    assert node_locks.release_api_locks(context) == 0


def test_lock_race_exactly_one_wins(context):
    for round_ in range(5):
        node = make_node(context, 'n%d' % round_)
        results = race(*[
            (lambda host=host: node_locks.reserve(context, node.id, host))
            for host in ('h1', 'h2', 'h3', 'h4')])
        winners = [r for r in results if isinstance(r, nodes.Node)]
        assert len(winners) == 1, results
        assert all(isinstance(r, exception.NodeLocked)
                   for r in results if r not in winners)
        assert nodes.get_by_id(context, node.id).reservation == \
            winners[0].reservation


# -- bind --------------------------------------------------------------------

def _allocation(context, conductor_id, **values):
    values.setdefault('resource_class', 'baremetal')
    values['conductor_affinity'] = conductor_id
    return allocations.create_allocation(context, values)


def test_bind_sets_both_sides(context):
    me = conductors.register(context, 'me')
    node = make_node(context, 'n', instance_info={'keep': 1})
    alloc = _allocation(context, me.id, traits=['CUSTOM_A'])
    with locking.node_lock(context, node.id, 'me'):
        bound = mirror.bind(context, alloc.id, node.id, me.id,
                            locked_by='me')
    assert bound.state == states.ACTIVE and bound.node_uuid == node.uuid
    node = nodes.get_by_id(context, node.id)
    assert node.instance_uuid == alloc.uuid
    assert node.allocation_uuid == alloc.uuid
    assert node.instance_info == {'keep': 1, 'traits': ['CUSTOM_A']}
    # A second allocation cannot take the same node.
    other = _allocation(context, me.id)
    with pytest.raises(exception.NodeAssociated):
        mirror.bind(context, other.id, node.id, me.id)
    assert allocations.get_by_id(context, other.id).state == \
        states.ALLOCATING
    # Deleting the allocation frees the node.
    mirror.destroy_allocation(context, alloc.id)
    node = nodes.get_by_id(context, node.id)
    assert node.instance_uuid is None and node.allocation_uuid is None


def test_bind_is_conditional_on_affinity_and_node(context):
    me = conductors.register(context, 'me')
    thief = conductors.register(context, 'thief')
    node = make_node(context, 'n')
    alloc = _allocation(context, me.id)
    assert allocations.take_over(context, alloc.id, me.id, thief.id)
    with pytest.raises(exception.AllocationAffinityLost):
        mirror.bind(context, alloc.id, node.id, me.id)
    # Nothing half-written: the node is still free.
    assert nodes.get_by_id(context, node.id).instance_uuid is None
    with pytest.raises(exception.AllocationAffinityLost):
        allocations.fail_allocation(context, alloc.id, me.id, 'x')
    with pytest.raises(exception.AllocationAffinityLost):
        allocations.update_allocation(context, alloc.id, {'name': 'x'},
                                      conductor_id=me.id)

    maint = make_node(context, 'maint', maintenance=True)
    with pytest.raises(exception.NodeNotAvailable):
        mirror.bind(context, alloc.id, maint.id, thief.id)
    with pytest.raises(exception.NodeNotAvailable):
        mirror.bind(context, alloc.id, node.id, thief.id,
                    locked_by='thief')  # not locked by it
    failed = allocations.fail_allocation(context, alloc.id, thief.id,
                                         'no luck')
    assert failed.state == states.ERROR and failed.last_error == 'no luck'
    with pytest.raises(states.InvalidTransition):
        mirror.bind(context, alloc.id, node.id, thief.id)
    assert nodes.get_by_id(context, node.id).instance_uuid is None


def test_bind_backfill_needs_an_active_node(context):
    me = conductors.register(context, 'me')
    node = make_node(context, 'n', provision_state=states.ACTIVE)
    alloc = _allocation(context, me.id)
    with pytest.raises(exception.NodeNotAvailable):
        mirror.bind(context, alloc.id, node.id, me.id)
    bound = mirror.bind(context, alloc.id, node.id, me.id,
                        backfill=True)
    assert bound.state == states.ACTIVE


def test_bind_race_one_node_two_allocations(context):
    me = conductors.register(context, 'me')
    for round_ in range(5):
        node = make_node(context, 'n%d' % round_)
        allocs = [_allocation(context, me.id) for _ in range(3)]
        results = race(*[
            (lambda a=a: mirror.bind(context, a.id, node.id, me.id))
            for a in allocs])
        winners = [r for r in results
                   if isinstance(r, allocations.Allocation)]
        assert len(winners) == 1, results
        assert nodes.get_by_id(context, node.id).instance_uuid == \
            winners[0].uuid


def test_destroy_node_removes_its_allocation(context):
    me = conductors.register(context, 'me')
    node = make_node(context, 'n')
    alloc = _allocation(context, me.id)
    mirror.bind(context, alloc.id, node.id, me.id)
    nodes.destroy_node(context, node.id)
    with pytest.raises(exception.AllocationNotFound):
        allocations.get_by_id(context, alloc.id)


# -- conductors and take-over ------------------------------------------------

def test_conductor_liveness(context):
    c1 = conductors.register(context, 'c1', drivers=['fake-hardware'])
    assert c1.alive and c1.drivers == ['fake-hardware']
    again = conductors.register(context, 'c1')
    assert again.id == c1.id
    conductors.register(context, 'c2')
    # c2 last heard from long ago.
    with database_connection(context) as conn:
        conn.execute(models.conductors.update()
                     .where(models.conductors.c.hostname == 'c2')
                     .values(heartbeat_at=timeutils.utcnow() -
                             datetime.timedelta(seconds=120)))
    alive = {c.hostname: c.alive
             for c in conductors.list_conductors(context, 60)}
    assert alive == {'c1': True, 'c2': False}
    conductors.heartbeat(context, 'c2')
    assert conductors.get(context, 'c2', 60).alive
    conductors.unregister(context, 'c2')
    assert not conductors.get(context, 'c2', 60).alive
    assert conductors.alive_ids(context, 60) == [c1.id]
    with pytest.raises(exception.ConductorNotFound):
        conductors.heartbeat(context, 'nope')


def database_connection(context):
    """A raw connection, to age rows as time would."""
    return db_api.get_engine().begin()


def test_orphans_of_silent_conductors(context):
    silent = conductors.register(context, 'silent')
    alive = conductors.register(context, 'alive')
    theirs = _allocation(context, silent.id)
    _allocation(context, alive.id)
    assert allocations.list_orphaned(context, 60) == []
    with database_connection(context) as conn:
        conn.execute(models.conductors.update()
                     .where(models.conductors.c.id == silent.id)
                     .values(heartbeat_at=timeutils.utcnow() -
                             datetime.timedelta(seconds=120)))
    assert [a.id for a in allocations.list_orphaned(context, 60)] == \
        [theirs.id]


def test_take_over_race_exactly_one_wins(context):
    dead = conductors.register(context, 'dead')
    rivals = [conductors.register(context, 'r%d' % i) for i in range(3)]
    conductors.unregister(context, 'dead')
    allocs = [_allocation(context, dead.id) for _ in range(5)]
    orphans = allocations.list_orphaned(context, 60)
    assert [a.id for a in orphans] == [a.id for a in allocs]
    for alloc in allocs:
        results = race(*[
            (lambda r=r: allocations.take_over(context, alloc.id, dead.id,
                                               r.id))
            for r in rivals])
        assert results.count(True) == 1, results
        assert results.count(False) == len(rivals) - 1
        owner = rivals[results.index(True)]
        assert allocations.get_by_id(context, alloc.id).conductor_affinity \
            == owner.id
    assert allocations.list_orphaned(context, 60) == []


def test_resume_orphans_and_stuck(context):
    me = conductors.register(context, 'me')
    mine = _allocation(context, me.id)
    nobody = _allocation(context, None)
    done = _allocation(context, me.id)
    allocations.fail_allocation(context, done.id, me.id, 'x')
    assert [a.id for a in allocations.list_allocating_of(context, me.id)] \
        == [mine.id]
    assert [a.id for a in allocations.list_allocating_of(context, None)] \
        == [nobody.id]
    # A row nobody owns becomes an orphan once it is old enough.
    assert allocations.list_orphaned(context, 60) == []
    long_ago = timeutils.utcnow() - datetime.timedelta(seconds=300)
    with database_connection(context) as conn:
        conn.execute(models.baremetal_allocations.update()
                     .where(models.baremetal_allocations.c.id == nobody.id)
                     .values(created_at=long_ago))
    assert [a.id for a in allocations.list_orphaned(context, 60)] == \
        [nobody.id]
    # The API-written row is claimed from NULL.
    assert allocations.take_over(context, nobody.id, None, me.id)
    assert not allocations.take_over(context, nobody.id, None, me.id)

    assert allocations.list_stuck(context, 60) == []
    with database_connection(context) as conn:
        conn.execute(models.baremetal_allocations.update()
                     .where(models.baremetal_allocations.c.id == mine.id)
                     .values(created_at=long_ago, updated_at=long_ago))
    assert [a.id for a in allocations.list_stuck(context, 60)] == [mine.id]
    assert [a.id for a in allocations.list_stuck(
        context, 60, conductor_id=me.id + 1000)] == []


# -- objects over the DB API -------------------------------------------------

def test_objects_wrap_the_db_api(context):
    objects.register_all()
    created = nodes.create_node(context, {
        'driver': 'fake-hardware', 'name': 'n', 'resource_class': 'baremetal',
        'traits': ['CUSTOM_A'], 'properties': {'cpus': 2}})
    node = objects.Node.get(context, 'n')
    assert node.id == created.id and node.traits == ['CUSTOM_A']
    assert node.provision_state == states.ENROLL
    state, target = states.node_next_state(node.provision_state,
                                           states.MANAGE)
    nodes.update_node(context, node.id, {'provision_state': state,
                                         'target_provision_state': target})
    node.refresh()
    assert node.provision_state == states.VERIFYING
    assert [n.uuid for n in objects.Node.list(
        context, {'provision_state': states.VERIFYING})] == [node.uuid]

    me = objects.Conductor.register(context, 'me')
    assert [c.hostname for c in objects.Conductor.list(context, 60)
            if c.alive] == ['me']
    alloc = objects.Allocation(context, resource_class='baremetal',
                               conductor_affinity=me.id)
    alloc.create()
    assert alloc.state == states.ALLOCATING
    alloc.name = 'a'
    alloc.save(conductor_id=me.id)
    assert objects.Allocation.get(context, 'a').uuid == alloc.uuid
    alloc.fail(me.id, 'nothing fits')
    assert alloc.state == states.ERROR and not alloc.obj_what_changed()
    assert alloc.withdraw()
    assert not alloc.withdraw()
    assert objects.Allocation.list(context) == []


def test_withdraw_leaves_a_bound_allocation(context):
    me = conductors.register(context, 'me')
    node = nodes.create_node(context, {'driver': 'fake-hardware',
                                       'resource_class': 'baremetal',
                                       'provision_state': states.AVAILABLE,
                                       'power_state': states.POWER_OFF})
    alloc = allocations.create_allocation(context, {
        'resource_class': 'baremetal', 'conductor_affinity': me.id})
    mirror.bind(context, alloc.id, node.id, me.id)
    assert not allocations.withdraw_allocation(context, alloc.id)
    assert allocations.get_by_id(context, alloc.id).node_id == node.id
