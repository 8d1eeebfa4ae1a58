"""Reservations in the engine (``allocsvc.placement.reservations``), on
every database: capacity held for a project over a window, and the
claims (``PUT /allocations``, ``POST /allocations``) that honour it.

Scenarios: a reservation is made, shown and listed (by project,
provider, window); overlapping reservations past the capacity are
refused (409, explained) and adjacent windows are not overlapping; a
window holding the present is refused when what is allocated and held
leaves no room, a later one is not; while a reservation is active other
projects' claims leave it room and the holding project's claims draw on
it first; with the clock moved before and after the window, it holds
nothing (no process restarted); a window is shortened at will and
extended only where the capacity allows (and not at all if the
reservation was made again under its uuid meanwhile); deleting a
reservation, or a provider it holds amounts on, frees them; the
candidates follow every reservation write and the clock, though each
process keeps a copy of the active holds between them. Then a
property test against a brute-force model: random reservations and
claims of random projects at random instants on a small fleet; every
yes/no of the engine is the model's, the candidates (ordered by room,
all of them, or randomized) are the providers the model leaves room on,
and at no instant do reservations hold more than a capacity.
"""

import datetime
import random
import uuid

import pytest

from allocsvc.common import context as context_mod
from allocsvc.common import exception
from allocsvc.placement import candidates
from allocsvc.placement import reservations
from allocsvc.placement.candidates import request as request_mod
from tests.client import create_provider
from tests.client import ok
from tests.client import placement_request as call
from tests.helpers.clock import T0

HOUR = datetime.timedelta(hours=1)


@pytest.fixture
def ctx(database):
    return context_mod.get_admin_context()


def claim(app, rp, amount, project, consumer=None, rc='VCPU'):
    consumer = consumer or str(uuid.uuid4())
    resp = call(app, 'PUT', '/allocations/%s' % consumer, '1.39', {
        'allocations': {rp: {'resources': {rc: amount}}},
        'project_id': project, 'user_id': 'u',
        'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    return resp, consumer


def free(app, consumer):
    resp = call(app, 'DELETE', '/allocations/%s' % consumer, '1.39')
    assert resp.status_int == 204, resp.text


def test_made_shown_and_listed(app, ctx, clock):
    rp1 = create_provider(app, 'cn1', inventory={'VCPU': {'total': 8}})
    rp2 = create_provider(app, 'cn2', inventory={
        'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}})
    a = reservations.create(ctx, 'p1', T0 + HOUR, T0 + 3 * HOUR,
                            {rp1: {'VCPU': 4}})
    b = reservations.create(ctx, 'p2', T0 + 2 * HOUR, T0 + 4 * HOUR,
                            {rp2: {'VCPU': 2, 'MEMORY_MB': 1024}})
    shown = reservations.get(ctx, b.uuid)
    assert (shown.project_id, shown.start, shown.end) == (
        'p2', T0 + 2 * HOUR, T0 + 4 * HOUR)
    assert shown.amounts == {rp2: {'VCPU': 2, 'MEMORY_MB': 1024}}
    assert shown.created_at is not None
    assert not shown.active() and not a.active()

    def uuids(**filters):
        return [r.uuid for r in reservations.list_(ctx, **filters)]

    assert uuids() == [a.uuid, b.uuid]
    assert uuids(project_id='p1') == [a.uuid]
    assert uuids(provider_uuid=rp2) == [b.uuid]
    assert uuids(start=T0 + 3 * HOUR) == [b.uuid]
    assert uuids(end=T0 + 2 * HOUR) == [a.uuid]
    assert uuids(start=T0, end=T0 + HOUR) == []
    with pytest.raises(exception.NotFound):
        reservations.get(ctx, str(uuid.uuid4()))


def test_bad_requests(app, ctx, clock):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 8}})
    for start, end in ((T0 + HOUR, T0 + HOUR), (T0 + HOUR, T0),
                       (T0 - 2 * HOUR, T0 - HOUR)):
        with pytest.raises(exception.BadRequest):
            reservations.create(ctx, 'p', start, end, {rp: {'VCPU': 1}})
    with pytest.raises(exception.BadRequest):
        reservations.create(ctx, 'p', T0, T0 + HOUR,
                            {str(uuid.uuid4()): {'VCPU': 1}})
    with pytest.raises(exception.BadRequest):
        reservations.create(ctx, 'p', T0, T0 + HOUR,
                            {rp: {'CUSTOM_NOPE': 1}})
    with pytest.raises(exception.Conflict) as info:
        reservations.create(ctx, 'p', T0, T0 + HOUR, {rp: {'DISK_GB': 1}})
    assert 'has no inventory of DISK_GB' in info.value.message
    assert reservations.list_(ctx) == []


def test_overlapping_windows_share_the_capacity(app, ctx, clock):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 8}})
    reservations.create(ctx, 'p1', T0 + HOUR, T0 + 3 * HOUR,
                        {rp: {'VCPU': 5}})
    with pytest.raises(exception.Conflict) as info:
        reservations.create(ctx, 'p2', T0 + 2 * HOUR, T0 + 4 * HOUR,
                            {rp: {'VCPU': 4}})
    assert info.value.error_code == reservations.UNSATISFIED
    assert 'would hold 9 of a capacity of 8' in info.value.message
    # Adjacent windows do not overlap; 3 fits beside the 5.
    reservations.create(ctx, 'p2', T0 + 3 * HOUR, T0 + 4 * HOUR,
                        {rp: {'VCPU': 8}})
    reservations.create(ctx, 'p3', T0, T0 + HOUR, {rp: {'VCPU': 8}})
    reservations.create(ctx, 'p2', T0 + 2 * HOUR, T0 + 3 * HOUR,
                        {rp: {'VCPU': 3}})
    assert len(reservations.list_(ctx)) == 4


def test_claims_honour_active_reservations(app, ctx, clock):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 8}})
    reservations.create(ctx, 'holder', T0 + HOUR, T0 + 2 * HOUR,
                        {rp: {'VCPU': 6}})
    # Before the window it holds nothing.
    resp, early = claim(app, rp, 8, 'other')
    assert resp.status_int == 204, resp.text
    free(app, early)
    clock.at(T0 + HOUR)
    resp, _c = claim(app, rp, 3, 'other')
    assert resp.status_int == 409, resp.text
    assert 'reservations of other projects hold part of it' in resp.text
    resp, other = claim(app, rp, 2, 'other')
    assert resp.status_int == 204, resp.text
    # The holder draws on its hold: all 6 are its own.
    resp, mine = claim(app, rp, 6, 'holder')
    assert resp.status_int == 204, resp.text
    resp, _c = claim(app, rp, 1, 'holder')
    assert resp.status_int == 409
    free(app, mine)
    resp, mine = claim(app, rp, 4, 'holder')
    assert resp.status_int == 204, resp.text
    resp, _c = claim(app, rp, 1, 'other')
    assert resp.status_int == 409
    # POST /allocations of several consumers honours it too.
    body = {str(uuid.uuid4()): {
        'allocations': {rp: {'resources': {'VCPU': 1}}},
        'project_id': 'other', 'user_id': 'u',
        'consumer_generation': None, 'consumer_type': 'INSTANCE'}}
    assert call(app, 'POST', '/allocations', '1.39',
                body).status_int == 409
    # At its end it holds nothing again: no process was restarted.
    clock.at(T0 + 2 * HOUR)
    resp, _c = claim(app, rp, 2, 'other')
    assert resp.status_int == 204, resp.text
    usages = ok(call(app, 'GET', '/resource_providers/%s/usages' % rp,
                     '1.39'))['usages']
    assert usages == {'VCPU': 8}
    del other


def test_a_window_holding_the_present_needs_room_now(app, ctx, clock):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 8}})
    resp, _c = claim(app, rp, 6, 'other')
    assert resp.status_int == 204
    with pytest.raises(exception.Conflict) as info:
        reservations.create(ctx, 'p', T0, T0 + HOUR, {rp: {'VCPU': 4}})
    assert 'leaves 2 of a capacity of 8' in info.value.message
    reservations.create(ctx, 'p', T0, T0 + HOUR, {rp: {'VCPU': 2}})
    # A later window is not held against what is allocated now.
    reservations.create(ctx, 'q', T0 + HOUR, T0 + 2 * HOUR,
                        {rp: {'VCPU': 8}})
    # What a project already uses it may reserve.
    resp, _c = claim(app, rp, 2, 'p')
    assert resp.status_int == 204, resp.text


def test_windows_shortened_and_extended(app, ctx, clock):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 8}})
    a = reservations.create(ctx, 'p1', T0, T0 + 2 * HOUR,
                            {rp: {'VCPU': 6}})
    b = reservations.create(ctx, 'p2', T0 + 2 * HOUR, T0 + 3 * HOUR,
                            {rp: {'VCPU': 6}})
    with pytest.raises(exception.Conflict):
        reservations.update(ctx, a.uuid, end=T0 + 3 * HOUR)
    with pytest.raises(exception.Conflict):
        reservations.update(ctx, b.uuid, start=T0 + HOUR)
    shorter = reservations.update(ctx, a.uuid, end=T0 + HOUR)
    assert shorter.end == T0 + HOUR
    longer = reservations.update(ctx, b.uuid, start=T0 + HOUR)
    assert longer.start == T0 + HOUR
    with pytest.raises(exception.BadRequest):
        reservations.update(ctx, b.uuid, start=T0 + 4 * HOUR)
    # An active reservation moved keeps counting once, not twice.
    clock.at(T0 + HOUR)
    moved = reservations.update(ctx, b.uuid, end=T0 + 5 * HOUR)
    assert moved.end == T0 + 5 * HOUR
    with pytest.raises(exception.NotFound):
        reservations.update(ctx, str(uuid.uuid4()), end=T0 + HOUR)


def test_a_reservation_made_again_under_its_uuid_is_not_moved(
        app, ctx, clock):
    # The providers a move locks are read before its transaction; one
    # deleted and made again meanwhile, elsewhere, may hold others: the
    # move is refused rather than checked without their locks.
    rp1 = create_provider(app, 'cn1', inventory={'VCPU': {'total': 8}})
    rp2 = create_provider(app, 'cn2', inventory={'VCPU': {'total': 8}})
    made = reservations.create(ctx, 'p1', T0, T0 + HOUR, {rp1: {'VCPU': 1}})
    read_before = reservations._providers_of(ctx, made.uuid)
    reservations.delete(ctx, made.uuid)
    reservations.create(ctx, 'p1', T0, T0 + HOUR, {rp2: {'VCPU': 1}},
                        uuid=made.uuid)
    with pytest.raises(exception.ConcurrentUpdate):
        reservations._update(ctx, made.uuid, None, T0 + 2 * HOUR,
                             read_before, T0)
    assert reservations.get(ctx, made.uuid).end == T0 + HOUR


def test_deleted_reservations_and_providers_free_the_capacity(
        app, ctx, clock):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 8}})
    rp2 = create_provider(app, 'cn2', inventory={'VCPU': {'total': 8}})
    a = reservations.create(ctx, 'p1', T0, T0 + HOUR, {rp: {'VCPU': 8}})
    resp, _c = claim(app, rp, 1, 'other')
    assert resp.status_int == 409
    reservations.delete(ctx, a.uuid)
    with pytest.raises(exception.NotFound):
        reservations.delete(ctx, a.uuid)
    resp, consumer = claim(app, rp, 1, 'other')
    assert resp.status_int == 204
    b = reservations.create(ctx, 'p1', T0, T0 + HOUR,
                            {rp: {'VCPU': 7}, rp2: {'VCPU': 1}})
    c = reservations.create(ctx, 'p2', T0, T0 + HOUR, {rp2: {'VCPU': 1}})
    assert call(app, 'DELETE', '/resource_providers/%s' % rp2,
                '1.39').status_int == 204
    assert reservations.get(ctx, b.uuid).amounts == {rp: {'VCPU': 7}}
    with pytest.raises(exception.NotFound):
        reservations.get(ctx, c.uuid)
    free(app, consumer)


# -- the model ---------------------------------------------------------------

class Model:
    """What the engine should answer, by brute force over instants."""

    def __init__(self, capacity):
        self.capacity = capacity      # {pair: capacity}
        self.reservations = []        # (project, start, end, {pair: n})
        self.allocations = {}         # consumer: (project, {pair: n})

    def held(self, pair, at):
        found = {}
        for project, start, end, amounts in self.reservations:
            if start <= at < end and pair in amounts:
                found[project] = found.get(project, 0) + amounts[pair]
        return found

    def used(self, pair, project=None):
        return sum(amounts.get(pair, 0) for p, amounts
                   in self.allocations.values()
                   if project is None or p == project)

    def load(self, pair, at, extra_used=None, extra_held=None):
        held = self.held(pair, at)
        if extra_held:
            project, amount = extra_held
            held[project] = held.get(project, 0) + amount
        used_by = {p: self.used(pair, p) for p in held}
        used = self.used(pair)
        if extra_used:
            project, amount = extra_used
            used += amount
            used_by[project] = used_by.get(project, 0) + amount
        return used + sum(max(0, h - used_by.get(p, 0))
                          for p, h in held.items())

    def can_reserve(self, project, start, end, amounts, now):
        for pair, amount in amounts.items():
            instants = {start} | {s for _p, s, _e, _a in self.reservations
                                  if start < s < end}
            for t in instants:
                total = amount + sum(h for h in self.held(pair, t).values())
                if total > self.capacity[pair]:
                    return False
            if start <= now < end:
                before = self.load(pair, now)
                after = self.load(pair, now, extra_held=(project, amount))
                if after > self.capacity[pair] and after > before:
                    return False
        return True

    def can_claim(self, project, amounts, now):
        for pair, amount in amounts.items():
            if self.used(pair) + amount > self.capacity[pair]:
                return False
            before = self.load(pair, now)
            after = self.load(pair, now, extra_used=(project, amount))
            if after > self.capacity[pair] and after > before:
                return False
        return True


@pytest.mark.parametrize('seed', [1, 2])
def test_engine_agrees_with_the_model(app, ctx, clock, seed):
    rng = random.Random(seed)
    providers = [create_provider(app, 'cn%d' % i,
                                 inventory={'VCPU': {'total': 4}})
                 for i in range(3)]
    model = Model({(rp, 'VCPU'): 4 for rp in providers})
    projects = ['p1', 'p2', 'p3']
    now = T0
    agreed = {'reserve': [0, 0], 'claim': [0, 0], 'free': 0}
    for _step in range(60):
        now = now + datetime.timedelta(minutes=rng.choice([0, 10, 30]))
        clock.at(now)
        action = rng.random()
        project = rng.choice(projects)
        if action < 0.45:
            start = now + datetime.timedelta(minutes=rng.choice(
                [0, 0, 20, 60, 90]))
            end = start + datetime.timedelta(minutes=rng.choice([30, 60]))
            chosen = rng.sample(providers, rng.choice([1, 2]))
            amounts = {rp: {'VCPU': rng.randint(1, 3)} for rp in chosen}
            expected = model.can_reserve(
                project, start, end,
                {(rp, 'VCPU'): n['VCPU'] for rp, n in amounts.items()}, now)
            try:
                reservations.create(ctx, project, start, end, amounts)
                got = True
            except exception.Conflict:
                got = False
            assert got == expected, (now, project, start, end, amounts)
            agreed['reserve'][got] += 1
            if got:
                model.reservations.append((project, start, end, {
                    (rp, 'VCPU'): n['VCPU'] for rp, n in amounts.items()}))
        elif action < 0.85 or not model.allocations:
            rp = rng.choice(providers)
            amount = rng.randint(1, 3)
            expected = model.can_claim(project, {(rp, 'VCPU'): amount}, now)
            resp, consumer = claim(app, rp, amount, project)
            assert resp.status_int in (204, 409), resp.text
            got = resp.status_int == 204
            assert got == expected, (now, project, rp, amount, resp.text)
            agreed['claim'][got] += 1
            if got:
                model.allocations[consumer] = (project,
                                               {(rp, 'VCPU'): amount})
        else:
            consumer = rng.choice(sorted(model.allocations))
            free(app, consumer)
            del model.allocations[consumer]
            agreed['free'] += 1
        # No instant ever has reservations holding over a capacity.
        for pair, capacity in model.capacity.items():
            for _p, start, _e, _a in model.reservations:
                assert sum(model.held(pair, start).values()) <= capacity
        # The candidates, however searched, are the providers whose load
        # leaves room.
        amount = rng.randint(1, 4)
        expected = {rp for rp in providers
                    if model.load((rp, 'VCPU'), now) + amount <= 4}
        assert _candidates(app, ctx, amount) == expected, (now, amount)
    # The walk took both answers of both questions.
    assert all(agreed['reserve']) and all(agreed['claim']), agreed


def _candidates(app, ctx, amount):
    """The providers of the candidates for VCPU:``amount``, the same
    through the API with a limit (ordered by room) and without one, and
    from the engine randomized and counted (as group claims ask: what
    reservations hold back read exactly everywhere; the others settle
    it only where it matters)."""
    found = []
    for limit in ('&limit=10', ''):
        resp = call(app, 'GET', '/allocation_candidates?resources=VCPU:%d%s'
                    % (amount, limit), '1.39')
        assert resp.status_int == 200, resp.text
        found.append({next(iter(r['allocations']))
                      for r in resp.json['allocation_requests']})
    groups, wide = request_mod.parse([('resources', 'VCPU:%d' % amount)],
                                     (1, 39))
    for options in ({'randomize': True}, {'counted': True}):
        result = candidates.find(ctx, groups, wide, **options)
        found.append({next(iter(r.allocations))
                      for r in result.allocation_requests})
    assert all(each == found[-1] for each in found), found
    return found[-1]


def test_candidates_follow_every_write_and_the_clock(app, ctx, clock,
                                                     monkeypatch):
    # Candidates requests keep a copy of the active holds per process
    # (``reservations._active``): read again after every reservation
    # write (its stamp) and at each window edge, never in between.
    reads = []
    real = reservations._read_active

    def counted(*args):
        reads.append(args[1])
        return real(*args)

    monkeypatch.setattr(reservations, '_read_active', counted)
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 8}})

    def found(amount=3):
        resp = call(app, 'GET', '/allocation_candidates?resources=VCPU:%d'
                    % amount, '1.39')
        assert resp.status_int == 200, resp.text
        return len(resp.json['allocation_requests'])

    assert found() == 1
    made = reservations.create(ctx, 'holder', T0 + HOUR, T0 + 3 * HOUR,
                               {rp: {'VCPU': 6}})
    assert found() == 1 and found(8) == 1
    clock.at(T0 + HOUR)
    assert found() == 0 and found(2) == 1
    count = len(reads)
    assert found(2) == 1 and found(3) == 0
    assert len(reads) == count             # the copy served both
    # The holder's own usage is read with each request, not kept.
    _resp, mine = claim(app, rp, 4, 'holder')
    assert found(2) == 1 and found(3) == 0
    free(app, mine)
    # A write: shortened, it ends at T0 + 2h.
    reservations.update(ctx, made.uuid, end=T0 + 2 * HOUR)
    assert found(3) == 0 and len(reads) == count + 1
    clock.at(T0 + 2 * HOUR - datetime.timedelta(microseconds=1))
    assert found(3) == 0 and len(reads) == count + 1
    clock.at(T0 + 2 * HOUR)                 # the window edge
    assert found(8) == 1 and len(reads) == count + 2
    clock.at(T0 + HOUR)                     # back in time
    assert found(3) == 0 and len(reads) == count + 3
    reservations.delete(ctx, made.uuid)
    assert found(8) == 1
    reservations.create(ctx, 'holder', T0, T0 + 2 * HOUR, {rp: {'VCPU': 7}})
    assert found(2) == 0 and found(1) == 1
    resp = call(app, 'DELETE', '/resource_providers/%s' % rp, '1.39')
    assert resp.status_int == 204, resp.text
    assert reservations.list_(ctx) == []
