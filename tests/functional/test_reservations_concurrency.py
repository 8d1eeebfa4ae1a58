"""Concurrency: 16 clients creating overlapping reservations on the same
providers while others claim: never over capacity at any instant.

On every database, three providers of 8 VCPU and the clock fixed at T0
(``timeutils.set_time_override`` is process-wide: every thread reads
the same now). Sixteen threads start together against the in-process
application: eight make reservations of random amounts on one or two
providers over random windows (half of them holding T0, the others
opening later, all overlapping), and extend or delete some of their
own; eight claim (``PUT /allocations``) for projects holding
reservations and for others, and free some of their claims.

Then everything is read back over the API and checked against the
rules of ``allocsvc.placement.reservations``: at every instant where
the held amounts can change (T0 and each reservation's start) the
reservations active then hold no more than each provider's capacity;
at T0, where every allocation was made, the load (allocations, plus
what each project's holds keep free beyond its own usage) is no more
than the capacity; every answer was a success or a 409, and there were
both, for reservations and for claims: the race really contended.
"""

import collections
import datetime
import random
import threading
import uuid

from oslo_utils import timeutils
import pytest

from tests.client import create_provider
from tests.client import ok
from tests.client import placement_request as call
from tests.helpers.clock import T0

V = '1.39'
CAPACITY = 8
HOLDERS = ('p1', 'p2', 'p3', 'p4')
# Projects holding nothing: their claims must leave the holds room.
OTHERS = ('q1', 'q2')
ROUNDS = 12
EXPECTED = {'reserve': (201, 409), 'extend': (200, 409), 'unreserve': (204,),
            'claim': (204, 409), 'free': (204,)}


pytestmark = pytest.mark.usefixtures('clock')


def _at(hours):
    return (T0 + datetime.timedelta(hours=hours)).isoformat() + 'Z'


def _moment(iso):
    return timeutils.normalize_time(timeutils.parse_isotime(iso))


class Race:
    """What the threads saw: the status of every answer, by operation."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answers = collections.defaultdict(collections.Counter)
        self.unexpected = []
        self.overheld = set()

    def note(self, operation, resp):
        with self.lock:
            self.answers[operation][resp.status_int] += 1
            if resp.status_int not in EXPECTED[operation]:
                self.unexpected.append((operation, resp.status, resp.text))
        return resp.status_int


def reserver(app, fleet, race, start, seed):
    rng = random.Random(seed)
    project = rng.choice(HOLDERS)
    mine = []
    start.wait()
    for _ in range(ROUNDS):
        # Half the windows hold T0 (some opened an hour ago), half open
        # later; all within a few hours, so that they overlap.
        if rng.random() < 0.5:
            begin = rng.choice((-1, 0))
        else:
            begin = rng.choice((0.5, 1, 1.5, 2))
        end = max(begin, 0) + rng.choice((0.5, 1, 2, 3))
        rps = rng.sample(fleet, rng.choice((1, 1, 2)))
        body = {'project_id': project, 'start': _at(begin), 'end': _at(end),
                'resources': {rp: {'resources': {'VCPU': rng.randint(1, 5)}}
                              for rp in rps}}
        resp = call(app, 'POST', '/reservations', V, body)
        if race.note('reserve', resp) == 201:
            mine.append(resp.json['uuid'])
        if mine and rng.random() < 0.25:
            # Extend the window of one of them, by an hour on one side.
            made = ok(call(app, 'GET', '/reservations/%s' % mine[-1], V))
            if rng.random() < 0.5:
                change = {'end': _at(
                    (_moment(made['end']) - T0).total_seconds() / 3600 + 1)}
            else:
                change = {'start': _at(
                    (_moment(made['start']) - T0).total_seconds() / 3600 - 1)}
            race.note('extend', call(
                app, 'PUT', '/reservations/%s' % mine[-1], V, change))
        if mine and rng.random() < 0.3:
            gone = mine.pop(rng.randrange(len(mine)))
            race.note('unreserve', call(
                app, 'DELETE', '/reservations/%s' % gone, V))


def claimer(app, fleet, race, start, seed):
    rng = random.Random(seed)
    mine = []
    start.wait()
    for _ in range(ROUNDS):
        consumer = str(uuid.uuid4())
        rps = rng.sample(fleet, rng.choice((1, 1, 2)))
        resp = call(app, 'PUT', '/allocations/%s' % consumer, V, {
            'allocations': {rp: {'resources': {'VCPU': rng.randint(1, 4)}}
                            for rp in rps},
            'project_id': rng.choice(HOLDERS + OTHERS), 'user_id': 'u',
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
        if race.note('claim', resp) == 204:
            mine.append(consumer)
        if mine and rng.random() < 0.4:
            gone = mine.pop(rng.randrange(len(mine)))
            race.note('free', call(app, 'DELETE', '/allocations/%s' % gone,
                                   V))


def _reservations(app):
    """[(project, start, end, {provider: VCPU held})] of every
    reservation."""
    found = ok(call(app, 'GET', '/reservations', V))['reservations']
    return [(r['project_id'], _moment(r['start']), _moment(r['end']),
             {rp: entry['resources'].get('VCPU', 0)
              for rp, entry in r['resources'].items()})
            for r in found]


def _allocations(app, fleet):
    """{provider: {project: VCPU used}} of every allocation."""
    used = {}
    projects = {}
    for rp in fleet:
        by_consumer = ok(call(app, 'GET', '/resource_providers/%s/'
                              'allocations' % rp, V))['allocations']
        mine = used[rp] = collections.Counter()
        for consumer, entry in by_consumer.items():
            if consumer not in projects:
                projects[consumer] = ok(call(
                    app, 'GET', '/allocations/%s' % consumer,
                    V))['project_id']
            mine[projects[consumer]] += entry['resources'].get('VCPU', 0)
    return used


def _held_at(reservations, rp, moment):
    """{project: VCPU held on ``rp`` at ``moment``}."""
    held = collections.Counter()
    for project, start, end, amounts in reservations:
        if start <= moment < end:
            held[project] += amounts.get(rp, 0)
    return held


def _overheld(reservations, fleet):
    """[(provider, instant, ((project, held), ...))] where the
    reservations hold more than the capacity: the held amounts only
    change where a window starts, so those instants (and T0) are the
    ones to look at."""
    instants = {T0} | {start for _p, start, _e, _a in reservations}
    return [(rp, moment, tuple(sorted(held.items()))) for rp in fleet
            for moment in sorted(instants)
            for held in [_held_at(reservations, rp, moment)]
            if sum(held.values()) > CAPACITY]


def observer(app, fleet, race, done):
    """Check the reservations all along: an excess made in the race may
    be deleted before it ends. GET /reservations reads them in one
    transaction (on PostgreSQL, one reservation deleted in between
    loses its amounts: what it reads can be less, never more)."""
    while not done.wait(0.05):
        found = _overheld(_reservations(app), fleet)
        with race.lock:
            race.overheld.update(found)


def test_never_over_capacity_at_any_instant(app, database):
    fleet = [create_provider(app, 'cn%d' % n,
                             inventory={'VCPU': {'total': CAPACITY}})
             for n in range(3)]
    race = Race()
    start = threading.Barrier(16)
    threads = [threading.Thread(target=reserver if n % 2 else claimer,
                                args=(app, fleet, race, start, n))
               for n in range(16)]
    done = threading.Event()
    watch = threading.Thread(target=observer, args=(app, fleet, race, done))
    watch.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    watch.join()
    assert race.unexpected == []
    assert sorted(race.overheld) == []
    # The race contended: reservations and claims were made and refused.
    for operation in ('reserve', 'claim'):
        answers = race.answers[operation]
        assert answers[409] and (answers[201] or answers[204]), dict(
            race.answers)
    print('%s: %s' % (database.backend, {
        op: dict(counts) for op, counts in sorted(race.answers.items())}))

    reservations = _reservations(app)
    assert _overheld(reservations, fleet) == []
    used = _allocations(app, fleet)
    for rp in fleet:
        held = _held_at(reservations, rp, T0)
        load = sum(used[rp].values()) + sum(
            max(0, amount - used[rp][project])
            for project, amount in held.items())
        assert load <= CAPACITY, (rp, dict(used[rp]), dict(held))
