"""Reservations: capacity held for a project over a window of time.

A reservation holds amounts of resource classes on providers for one
project from ``start`` (included) to ``end`` (excluded): adjacent windows
do not overlap. What it means, at an instant ``t`` and for one
(provider, class) pair:

* ``held(P, t)``: the sum of the amounts of project P's reservations
  active at ``t`` (``start <= t < end``).
* A project's allocations draw on its own holds first: what P's holds
  still keep free for P is ``max(0, held(P, t) - used(P))``, ``used(P)``
  being what the consumers of P have allocated from the pair.
* The load of the pair is what is allocated plus what every project's
  holds still keep free: ``used + sum over P of max(0, held(P, t) -
  used(P))``. A claim of project Q (``allocations.check_capacity``) is
  refused when it would take the load over the capacity (``(total -
  reserved) * allocation_ratio``), as Placement refuses one that takes
  the usage over it: Q may use its own holds, never another's.
* Before and after its window a reservation holds nothing; claims read
  the clock (``now``) and need no process to act when a window opens or
  closes.

A reservation is made (or its window moved) only if, at every instant
of its window, the reservations active then, it included, hold no more
than the capacity of each pair; and, when its window holds the present,
only if it takes the load of the pair no higher than the capacity (or
no higher than it was). Allocations present now are not counted against
a later window: they may be gone by then, and before a window opens its
capacity is everybody's. Allocations still there when a window opens, or
drawing on a reservation when it ends, stay; while the load is over the
capacity, new claims that would raise it wait (Placement's rule for an
inventory below its usage).

Every write takes the row locks of the providers it holds amounts on
(``SELECT ... FOR UPDATE`` in id order), the locks every allocation
write takes first (``allocations.bump_providers``): reservations and
claims of the same providers are serialised, and a check never reads a
state another writer is changing. The locks are the first statements
of the writer transaction; what they need (provider ids) is read
before, in a reader transaction of its own. That is the point, as for
allocations: InnoDB takes its REPEATABLE READ snapshot at the first
plain SELECT, so a transaction that read anything before waiting for
the locks would check against what the writer it waited for had not
yet committed, and two reservations racing for the last room would
both be made.

The engine reads time through ``now`` only (oslo.utils' ``utcnow``,
which tests move with ``timeutils.set_time_override``).
"""

import collections
import contextlib
import re
import threading

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import consumers as consumers_mod
from allocsvc.placement import inventories
from allocsvc.placement import resource_classes

_RES = models.placement_reservations
_STAMP = models.placement_reservation_stamp
_AMT = models.placement_reservation_amounts
_ALLOC = models.allocations
_CONSUMER = models.consumers
_INV = models.inventories
_PROJECT = models.projects
_RC = models.resource_classes
_RP = models.resource_providers
# What a reservation holds, with the names of providers and classes.
_NAMED = (_AMT.join(_RP, _RP.c.id == _AMT.c.resource_provider_id)
          .join(_RC, _RC.c.id == _AMT.c.resource_class_id))

UNSATISFIED = 'placement.reservation.unsatisfied'


def now():
    """The engine's clock: a naive UTC datetime."""
    return timeutils.utcnow()


class Reservation:
    """One reservation: ``uuid``, ``project_id`` (the external id),
    ``start`` and ``end`` (naive UTC), ``amounts`` {provider uuid:
    {class name: amount}}, ``created_at``, ``updated_at``."""

    __slots__ = ('id', 'uuid', 'project_id', 'start', 'end', 'amounts',
                 'created_at', 'updated_at')

    def __init__(self, row, amounts):
        self.id = row.id
        self.uuid = row.uuid
        self.project_id = row.project_external_id
        self.start = row.start_at
        self.end = row.end_at
        self.created_at = row.created_at
        self.updated_at = row.updated_at
        self.amounts = amounts

    def active(self, at=None):
        at = now() if at is None else at
        return self.start <= at < self.end


# -- reading -----------------------------------------------------------------

def _select():
    return (sa.select(_RES.c.id, _RES.c.uuid, _RES.c.start_at,
                      _RES.c.end_at, _RES.c.created_at, _RES.c.updated_at,
                      _PROJECT.c.external_id.label('project_external_id'))
            .select_from(_RES.join(_PROJECT,
                                   _PROJECT.c.id == _RES.c.project_id)))


def _with_amounts(context, rows):
    rows = list(rows)
    amounts = collections.defaultdict(dict)
    if rows:
        found = context.session.execute(
            sa.select(_AMT.c.reservation_id, _RP.c.uuid, _RC.c.name,
                      _AMT.c.amount)
            .select_from(_NAMED)
            .where(_AMT.c.reservation_id.in_([row.id for row in rows])))
        for res_id, rp_uuid, rc_name, amount in found:
            amounts[res_id].setdefault(rp_uuid, {})[rc_name] = amount
    return [Reservation(row, dict(amounts.get(row.id, {}))) for row in rows]


@db_api.reader
def get(context, uuid):
    """The Reservation ``uuid``; NotFound if there is none."""
    found = _with_amounts(context, context.session.execute(
        _select().where(_RES.c.uuid == uuid)))
    if not found:
        raise exception.NotFound('No reservation with uuid %s found' % uuid)
    return found[0]


@db_api.reader
def list_(context, project_id=None, provider_uuid=None, start=None,
          end=None):
    """The reservations of project ``project_id`` (external id), holding
    something on provider ``provider_uuid``, whose windows overlap
    [``start``, ``end``) (either may be None: unbounded), oldest first."""
    query = _select()
    if project_id is not None:
        query = query.where(_PROJECT.c.external_id == project_id)
    if provider_uuid is not None:
        query = query.where(_RES.c.id.in_(
            sa.select(_AMT.c.reservation_id)
            .select_from(_AMT.join(_RP,
                                   _RP.c.id == _AMT.c.resource_provider_id))
            .where(_RP.c.uuid == provider_uuid)))
    if start is not None:
        query = query.where(_RES.c.end_at > start)
    if end is not None:
        query = query.where(_RES.c.start_at < end)
    return _with_amounts(context, context.session.execute(
        query.order_by(_RES.c.start_at, _RES.c.id)))


# -- what reservations hold -------------------------------------------------

def holds(context, pairs, at):
    """{(provider id, class id): {project id: held}} of the reservations
    active at ``at`` on ``pairs`` (caller's transaction; interned project
    ids)."""
    if not pairs:
        return {}
    rp_ids = sorted({rp for rp, _ in pairs})
    rc_ids = sorted({rc for _, rc in pairs})
    rows = context.session.execute(
        sa.select(_AMT.c.resource_provider_id, _AMT.c.resource_class_id,
                  _RES.c.project_id, sa.func.sum(_AMT.c.amount))
        .select_from(_AMT.join(_RES, _RES.c.id == _AMT.c.reservation_id))
        .where(_AMT.c.resource_provider_id.in_(rp_ids),
               _AMT.c.resource_class_id.in_(rc_ids),
               _RES.c.start_at <= at, _RES.c.end_at > at)
        .group_by(_AMT.c.resource_provider_id, _AMT.c.resource_class_id,
                  _RES.c.project_id))
    found = {}
    for rp_id, rc_id, project, held in rows:
        if (rp_id, rc_id) in pairs:
            found.setdefault((rp_id, rc_id), {})[project] = int(held)
    return found


# Above this many providers, the usage of the projects is read on every
# provider rather than on those named one by one.
_NAMED_PROVIDERS = 500


def usage_by_project(context, pairs, projects):
    """{(provider id, class id): {project id: used}} of the consumers of
    ``projects`` (interned ids) on ``pairs`` (caller's transaction).
    The ids are the database's integers, written into the statement (as
    ``candidates.statements.usage``): binding a thousand of them cost
    more than the query."""
    if not pairs or not projects:
        return {}
    rp_ids = sorted({rp for rp, _ in pairs})
    where = ['a.resource_class_id IN (%s)' % _ints({rc for _, rc in pairs}),
             'c.project_id IN (%s)' % _ints(projects)]
    if len(rp_ids) <= _NAMED_PROVIDERS:
        where.append('a.resource_provider_id IN (%s)' % _ints(rp_ids))
    rows = context.session.connection().exec_driver_sql(
        'SELECT a.resource_provider_id, a.resource_class_id, c.project_id, '
        'SUM(a.used) FROM allocations a '
        'JOIN consumers c ON c.uuid = a.consumer_id WHERE %s '
        'GROUP BY a.resource_provider_id, a.resource_class_id, '
        'c.project_id' % ' AND '.join(where))
    found = {}
    for rp_id, rc_id, project, used in rows:
        if (rp_id, rc_id) in pairs:
            found.setdefault((rp_id, rc_id), {})[project] = int(used)
    return found


def _ints(ids):
    return ','.join(str(int(i)) for i in sorted(ids))


# -- reservation classes ----------------------------------------------------
#
# A request for CUSTOM_RESERVATION_<uuid> (Blazar's name for the class of
# its reservation providers' inventory, with the uuid upper-cased and
# its dashes as underscores) names reservation <uuid>, unless a real
# class of that name exists (Blazar's own flow, untouched): no provider,
# class or inventory is created for it. A candidates request naming it
# finds the trees of the providers the reservation holds amounts on,
# counts what that reservation's project holds there as free, and puts
# the class into the allocation requests, on a provider of those trees;
# a claim naming it (as nova sends the allocation request back) is
# checked against the reservation and written without it.

CLASS_PREFIX = 'CUSTOM_RESERVATION_'
_CLASS = re.compile(r'^CUSTOM_RESERVATION_([0-9A-F]{8})_([0-9A-F]{4})_'
                    r'([0-9A-F]{4})_([0-9A-F]{4})_([0-9A-F]{12})$')


def class_name(uuid):
    """The reservation class of reservation ``uuid``."""
    return CLASS_PREFIX + uuid.upper().replace('-', '_')


def uuid_of_class(name):
    """The reservation uuid a class name stands for, or None."""
    found = _CLASS.match(name)
    return '-'.join(found.groups()).lower() if found else None


class Named:
    """A reservation that a request names by its class: ``uuid``,
    ``project`` (interned id) and ``project_id`` (external), whether it
    is ``active``, the ids of the providers it holds amounts on
    (``providers``) and the uuids of every provider of their trees
    (``trees``)."""

    __slots__ = ('uuid', 'project', 'project_id', 'active', 'providers',
                 'held_uuids', 'trees')


def named(context, class_names, at=None):
    """{class name: Named} of the reservation classes among
    ``class_names`` that are no real class and name a reservation that
    exists (caller's transaction). Any other name is left to be what it
    was: an unknown class (400), as in Placement."""
    wanted = {name: uuid_of_class(name) for name in class_names}
    wanted = {name: uuid for name, uuid in wanted.items() if uuid}
    if not wanted:
        return {}
    real = {row.name for row in context.session.execute(
        sa.select(_RC.c.name).where(_RC.c.name.in_(sorted(wanted))))}
    wanted = {name: uuid for name, uuid in wanted.items()
              if name not in real}
    if not wanted:
        return {}
    at = now() if at is None else at
    rows = context.session.execute(
        sa.select(_RES.c.uuid, _RES.c.project_id, _RES.c.start_at,
                  _RES.c.end_at, _PROJECT.c.external_id,
                  _AMT.c.resource_provider_id, _RP.c.uuid.label('rp_uuid'),
                  _RP.c.root_provider_id)
        .select_from(_RES.join(_PROJECT, _PROJECT.c.id == _RES.c.project_id)
                     .join(_AMT, _AMT.c.reservation_id == _RES.c.id)
                     .join(_RP, _RP.c.id == _AMT.c.resource_provider_id))
        .where(_RES.c.uuid.in_(sorted(set(wanted.values()))))).all()
    by_uuid = {}
    for row in rows:
        entry = by_uuid.get(row.uuid)
        if entry is None:
            entry = by_uuid[row.uuid] = Named()
            entry.uuid = row.uuid
            entry.project = row.project_id
            entry.project_id = row.external_id
            entry.active = row.start_at <= at < row.end_at
            entry.providers, entry.held_uuids = set(), set()
            entry.trees = set()
        entry.providers.add(row.resource_provider_id)
        entry.held_uuids.add(row.rp_uuid)
        entry.trees.add(row.root_provider_id)
    roots = {root for entry in by_uuid.values() for root in entry.trees}
    members = collections.defaultdict(set)
    if roots:
        for rp_uuid, root in context.session.execute(
                sa.select(_RP.c.uuid, _RP.c.root_provider_id)
                .where(_RP.c.root_provider_id.in_(sorted(roots)))):
            members[root].add(rp_uuid)
    for entry in by_uuid.values():
        entry.trees = set().union(*(members[root] for root in entry.trees))
    return {name: by_uuid[uuid] for name, uuid in wanted.items()
            if uuid in by_uuid}


def strip_classes(context, requests, at=None):
    """Take the reservation classes out of the allocations ``requests``
    (``allocations.ConsumerAllocations``) after checking each against
    its reservation: Conflict (409) unless the reservation exists, is
    active, is the consumer's project's and holds amounts in the tree
    of the provider named. Caller's transaction; idempotent."""
    names = {name for req in requests for res in req.resources.values()
             for name in res}
    found = named(context, names, at)
    if not found:
        return
    for req in requests:
        asked = bool(req.resources)
        for rp_uuid in list(req.resources):
            res = req.resources[rp_uuid]
            for name in [n for n in res if n in found]:
                entry = found[name]
                problem = None
                if not entry.active:
                    problem = 'The reservation is not active.'
                elif entry.project_id != req.project_id:
                    problem = 'The reservation is of another project.'
                elif rp_uuid not in entry.trees:
                    problem = ('The reservation holds nothing in the tree '
                               'of this provider.')
                if problem:
                    raise exception.Conflict(
                        "Unable to allocate inventory: Unable to create "
                        "allocation for '%s' on resource provider '%s'. "
                        "%s" % (name, rp_uuid, problem))
                del res[name]
            if not res:
                del req.resources[rp_uuid]
        if asked and not req.resources:
            # Empty allocations remove the consumer's: not what a claim
            # naming a reservation meant.
            raise exception.BadRequest(
                'Unable to allocate inventory: the allocations of consumer '
                '%s name reservation classes alone, which hold nothing.'
                % req.uuid)


_exempt = threading.local()


@contextlib.contextmanager
def exempting(projects):
    """Within the block, in this thread, ``held_back`` leaves out what
    the reservations of ``projects`` (external ids) hold: a candidates
    request naming their reservation classes, or a bare-metal
    allocation of their project, may use it."""
    before = getattr(_exempt, 'projects', frozenset())
    _exempt.projects = before | frozenset(projects)
    try:
        yield
    finally:
        _exempt.projects = before


def held_back(context, rc_ids, at=None, exempt=None, rp_ids=None,
              exact=True):
    """{(provider id, class id): amount} that the reservations active at
    ``at`` (now) still hold, beyond their projects' own usage, on the
    classes ``rc_ids`` of the providers ``rp_ids`` (None: of any
    provider), for projects other than ``exempt`` (external ids; by
    default those of ``exempting``): what a candidates request must
    count as used (caller's transaction). Empty when no reservation is
    active. A search that reads the usage of a few providers passes
    them: what is held on the others is not read, nor their usage.
    With ``exact=False``, an ``Unsettled``: the most they may hold back,
    read without their projects' usage, which the caller settles where
    it matters. Inside ``for_window``, what a reservation of the window
    must fit beside (``hold_back``), always exact."""
    rc_ids = sorted(rc_ids)
    if not rc_ids or (rp_ids is not None and not rp_ids):
        return {}
    bounds = getattr(_window, 'bounds', None)
    if bounds is not None:
        at = now() if at is None else at
        future = bounds[0] > at
        _window.bounds = None
        try:
            held = {} if future else held_back(
                context, rc_ids, at, exempt, rp_ids)
        finally:
            _window.bounds = bounds
        peaks = {pair: peak(found, *bounds) for pair, found in _windows(
            context, *bounds, rp_ids=rp_ids, rc_ids=rc_ids).items()}
        return _InWindow(held, peaks, future)
    if exempt is None:
        exempt = getattr(_exempt, 'projects', frozenset())
    at = now() if at is None else at
    active = _active(context, at)
    if not active.by_provider:
        return {}
    skip = active.projects_of(exempt)
    held = {}
    for rp_id in (active.by_provider if rp_ids is None else rp_ids):
        classes = active.by_provider.get(rp_id)
        if classes is None:
            continue
        for rc_id in rc_ids:
            by = classes.get(rc_id)
            if by is None:
                continue
            if skip:
                by = {p: amount for p, amount in by.items()
                      if p not in skip}
                if not by:
                    continue
            held[(rp_id, rc_id)] = by
    if not held:
        return {}
    if not exact:
        return Unsettled(held)
    return _settle(context, held)


def _settle(context, held):
    """{pair: amount held back} of ``held`` {pair: {project id: amount
    held}}: each project's amount beyond its own usage there."""
    used_by = usage_by_project(
        context, held, {p for by in held.values() for p in by})
    found = {}
    for pair, by in held.items():
        own = used_by.get(pair, {})
        extra = sum(max(0, amount - own.get(project, 0))
                    for project, amount in by.items())
        if extra:
            found[pair] = extra
    return found


class Unsettled(dict):
    """``held_back`` without the usage of the holding projects: {pair:
    the whole amount the reservations hold there}, the most they may
    hold back, as if their projects used none of it. ``settle(context,
    pairs)`` makes the amounts of ``pairs`` exact, in place, reading
    that usage on those pairs alone.

    Reading every holding project's usage on every held pair costs a
    join of every allocation of the classes with its consumer; a
    candidates search settles only the pairs where the bound could
    change whether a candidate fits (``candidates.loader.load``)."""

    def __init__(self, held):
        super().__init__((pair, sum(by.values()))
                         for pair, by in held.items())
        self._held = held

    def settle(self, context, pairs):
        held = {pair: self._held.pop(pair) for pair in pairs
                if pair in self._held}
        if not held:
            return
        exact = _settle(context, held)
        for pair in held:
            self[pair] = exact.get(pair, 0)


# -- the active holds, a copy per process ------------------------------------
#
# What the reservations active at an instant hold changes only when a
# reservation is written or when a window opens or closes. Every write
# gives the one row of placement_reservation_stamp a new random value in
# its transaction (``_changed``). A candidates request reads that row
# (by its key, in its own transaction) and uses the copy an earlier
# request of the process made while the stamp is the same and the clock
# has not reached the next window edge the copy found; otherwise it
# reads the holds again, with the stamp, and keeps them for the next.
# Read with the holds in one transaction, a stamp always names what
# that transaction sees: MySQL's and PostgreSQL's snapshots, SQLite's
# single writer. No stamp (a database emptied by hand): no copy.

class _Active:
    """The holds of the reservations active from ``since`` until
    ``until`` (the next window edge; None: none to come):
    ``by_provider`` {provider id: {class id: {project id: amount}}},
    ``projects`` {external id: project id} of the holding projects;
    read at stamp ``stamp``."""

    __slots__ = ('stamp', 'since', 'until', 'by_provider', 'projects')

    def __init__(self, stamp, since, until, by_provider, projects):
        self.stamp = stamp
        self.since = since
        self.until = until
        self.by_provider = by_provider
        self.projects = projects

    def serves(self, stamp, at):
        return (stamp is not None and stamp == self.stamp and
                self.since <= at and (self.until is None or
                                      at < self.until))

    def projects_of(self, externals):
        """The ids of the holding projects among ``externals``."""
        return frozenset(self.projects[ext] for ext in externals
                         if ext in self.projects)


_copy = None


def _active(context, at):
    global _copy
    stamp = context.session.execute(
        sa.select(_STAMP.c.stamp).where(_STAMP.c.id == 1)).scalar()
    copy = _copy
    if copy is not None and copy.serves(stamp, at):
        return copy
    copy = _read_active(context, at, stamp)
    if stamp is not None:
        _copy = copy
    return copy


def _read_active(context, at, stamp):
    session = context.session
    # The active reservations by the window index, then their amounts
    # by the primary key (written as one join, SQLite scanned every
    # amount, past and future, and looked its window up).
    rows = session.execute(
        sa.select(_AMT.c.resource_provider_id, _AMT.c.resource_class_id,
                  _RES.c.project_id, _PROJECT.c.external_id,
                  sa.func.sum(_AMT.c.amount))
        .select_from(_AMT.join(_RES, _RES.c.id == _AMT.c.reservation_id)
                     .join(_PROJECT, _PROJECT.c.id == _RES.c.project_id))
        .where(_AMT.c.reservation_id.in_(
            sa.select(_RES.c.id).where(_RES.c.start_at <= at,
                                       _RES.c.end_at > at)))
        .group_by(_AMT.c.resource_provider_id, _AMT.c.resource_class_id,
                  _RES.c.project_id, _PROJECT.c.external_id))
    by_provider, projects = {}, {}
    for rp_id, rc_id, project, ext, amount in rows:
        projects[ext] = project
        by_provider.setdefault(rp_id, {}).setdefault(rc_id, {})[project] = \
            int(amount)
    # The next instant the active set changes: a start or an end to come.
    edges = [session.execute(sa.select(sa.func.min(column))
                             .where(column > at)).scalar()
             for column in (_RES.c.start_at, _RES.c.end_at)]
    edges = [edge for edge in edges if edge is not None]
    return _Active(stamp, at, min(edges) if edges else None, by_provider,
                   projects)


def _changed(context):
    """Give the reservations a new stamp, in the caller's writer
    transaction: every process's copy of the active holds is out of
    date once it commits."""
    session = context.session
    stamp = uuidutils.generate_uuid()
    if session.execute(_STAMP.update().where(_STAMP.c.id == 1).values(
            stamp=stamp)).rowcount == 1:
        return
    # The migrations make the row; only a database emptied by hand
    # lacks it. Two writers making it at once: the loser runs again.
    try:
        session.execute(_STAMP.insert().values(id=1, stamp=stamp))
    except db_exc.DBDuplicateEntry as exc:
        raise db_exc.RetryRequest(exc)


class _InWindow(dict):
    """What ``held_back`` answers inside ``for_window``: ``peak``
    {pair: the most the reservations hold at an instant of the window},
    and whether the window is ``future`` (it does not hold the present);
    the dict itself is what is held back now, as outside a window."""

    def __init__(self, now_held, peak, future):
        super().__init__(now_held)
        self.peak = peak
        self.future = future

    def __bool__(self):
        # Holding nothing now, it still has the window's peaks to add.
        return True


_window = threading.local()


@contextlib.contextmanager
def for_window(start, end):
    """Within the block, in this thread, candidate searches look for
    room over [``start``, ``end``) as a new reservation needs it
    (``check``): against the most the reservations hold at an instant
    of the window, and, when the window holds the present, against the
    load now too; what is allocated now does not count against a later
    window."""
    before = getattr(_window, 'bounds', None)
    _window.bounds = (start, end)
    try:
        yield
    finally:
        _window.bounds = before


def hold_back(usage, held):
    """Add ``held`` (``held_back``) to ``usage`` {(provider id, class
    id): used}, in place; ``usage``. Inside ``for_window``: ``usage``
    becomes what a reservation of the window must fit beside."""
    if isinstance(held, _InWindow):
        if held.future:
            usage.clear()
            usage.update(held.peak)
            return usage
        for pair in set(usage) | set(held) | set(held.peak):
            usage[pair] = max(usage.get(pair, 0) + held.get(pair, 0),
                              held.peak.get(pair, 0))
        return usage
    for pair, extra in held.items():
        usage[pair] = usage.get(pair, 0) + extra
    return usage


def load(used, held, used_by):
    """The load of a pair: ``used`` (everybody's allocations) plus what
    each project's holds (``held`` {project: amount}) still keep free
    beyond that project's own usage (``used_by`` {project: used})."""
    return used + sum(max(0, amount - used_by.get(project, 0))
                      for project, amount in held.items())


def peak(windows, start, end):
    """The most that ``windows`` [(start, end, amount)] hold together at
    any instant of [``start``, ``end``): the sum only changes where a
    window starts, so those instants (and ``start``) are the ones to
    look at."""
    instants = {start} | {s for s, _e, _a in windows if start < s < end}
    return max((sum(a for s, e, a in windows if s <= t < e)
                for t in instants), default=0)


# -- availability ------------------------------------------------------------

class Availability:
    """Where ``amounts`` could be held: ``provider_uuid``, and ``free``,
    the [(start, end)] intervals of the window asked about in which the
    reservations leave the provider room for them (merged, in order)."""

    __slots__ = ('provider_uuid', 'free')

    def __init__(self, provider_uuid, free):
        self.provider_uuid = provider_uuid
        self.free = free

    def covers(self, start, end):
        """Whether one free interval holds the whole of [start, end)."""
        return any(s <= start and end <= e for s, e in self.free)


@db_api.reader
def availability(context, amounts, start, end, provider_uuid=None):
    """[Availability] of the providers with inventory of every class of
    ``amounts`` {class name: amount} (or of provider ``provider_uuid``
    alone) over [``start``, ``end``): the intervals in which another
    reservation of ``amounts`` fits beside those made (ESI-Leap's
    "availabilities"). Providers without any are left out. What is
    allocated is not counted: a window holding the present also needs
    the room now (``check``). BadRequest for an unknown class,
    NotFound for an unknown provider."""
    if start >= end:
        raise exception.BadRequest(
            'The end of a window must be after its start.')
    try:
        class_ids = resource_classes.ids_by_name(context, amounts)
    except exception.NotFound as exc:
        raise exception.BadRequest(exc.message)
    wanted = {class_ids[name]: amount for name, amount in amounts.items()}
    query = (sa.select(_RP.c.id, _RP.c.uuid, _INV.c.resource_class_id,
                       _INV.c.total, _INV.c.reserved,
                       _INV.c.allocation_ratio)
             .select_from(_INV.join(_RP,
                                    _RP.c.id == _INV.c.resource_provider_id))
             .where(_INV.c.resource_class_id.in_(sorted(wanted))))
    if provider_uuid is not None:
        found = context.session.execute(sa.select(_RP.c.id).where(
            _RP.c.uuid == provider_uuid)).first()
        if found is None:
            raise exception.NotFound(
                'No resource provider with uuid %s found' % provider_uuid)
        query = query.where(_RP.c.id == found.id)
    ratio = inventories.stored_ratio(context)
    capacity, uuids = {}, {}
    for row in context.session.execute(query):
        capacity[(row.id, row.resource_class_id)] = (
            (row.total - row.reserved) * ratio(row.allocation_ratio))
        uuids[row.id] = row.uuid
    providers = [rp for rp in uuids
                 if all((rp, rc) in capacity and
                        capacity[(rp, rc)] >= amount
                        for rc, amount in wanted.items())]
    if not providers:
        return []
    windows = _windows(context, start, end, rp_ids=providers,
                       rc_ids=wanted)
    found = []
    for rp in sorted(providers, key=uuids.get):
        free = _free(start, end, {
            rc: (capacity[(rp, rc)] - amount, windows.get((rp, rc), []))
            for rc, amount in wanted.items()})
        if free:
            found.append(Availability(uuids[rp], free))
    return found


def _free(start, end, limits):
    """The merged intervals of [start, end) in which, for every class
    of ``limits`` {class: (most others may hold, [(start, end, amount)]
    of the others)}, the others hold no more than that."""
    bounds = {start, end}
    for _most, windows in limits.values():
        for s, e, _a in windows:
            bounds.update(t for t in (s, e) if start < t < end)
    bounds = sorted(bounds)
    free = []
    for s, e in zip(bounds, bounds[1:]):
        ok = all(sum(a for ws, we, a in windows if ws <= s < we) <= most
                 for most, windows in limits.values())
        if not ok:
            continue
        if free and free[-1][1] == s:
            free[-1] = (free[-1][0], e)
        else:
            free.append((s, e))
    return free


# -- writing -----------------------------------------------------------------

def _capacities(context, pairs):
    """{(provider id, class id): capacity} of the inventories of
    ``pairs`` that exist."""
    rp_ids = sorted({rp for rp, _ in pairs})
    ratio = inventories.stored_ratio(context)
    rows = context.session.execute(
        sa.select(_INV.c.resource_provider_id, _INV.c.resource_class_id,
                  _INV.c.total, _INV.c.reserved, _INV.c.allocation_ratio)
        .where(_INV.c.resource_provider_id.in_(rp_ids)))
    return {(row.resource_provider_id, row.resource_class_id):
            (row.total - row.reserved) * ratio(row.allocation_ratio)
            for row in rows
            if (row.resource_provider_id, row.resource_class_id) in pairs}


def _lock(context, rp_ids):
    """Take the row locks of providers ``rp_ids`` in id order (those an
    allocation write takes first); the ids of those that still exist.
    The first statements of a writer transaction (see the module
    docstring)."""
    locked = set()
    for rp_id in sorted(rp_ids):
        if context.session.execute(
                sa.select(_RP.c.id).where(_RP.c.id == rp_id)
                .with_for_update()).first() is not None:
            locked.add(rp_id)
    return locked


def _windows(context, start, end, rp_ids=None, rc_ids=None, but=None):
    """{(provider id, class id): [(start, end, amount)]} of the
    reservations (but ``but``) whose windows overlap [``start``,
    ``end``), on the providers ``rp_ids`` and classes ``rc_ids`` (None:
    all)."""
    query = (sa.select(_AMT.c.resource_provider_id, _AMT.c.resource_class_id,
                       _RES.c.start_at, _RES.c.end_at, _AMT.c.amount)
             .select_from(_AMT.join(_RES, _RES.c.id == _AMT.c.reservation_id))
             .where(_RES.c.start_at < end, _RES.c.end_at > start))
    if rp_ids is not None:
        query = query.where(_AMT.c.resource_provider_id.in_(sorted(rp_ids)))
    if rc_ids is not None:
        query = query.where(_AMT.c.resource_class_id.in_(sorted(rc_ids)))
    if but is not None:
        query = query.where(_RES.c.id != but)
    found = collections.defaultdict(list)
    for rp_id, rc_id, s, e, amount in context.session.execute(query):
        found[(rp_id, rc_id)].append((s, e, amount))
    return found


def _refuse(message):
    return exception.Conflict(
        'Unable to hold the reservation: %s' % message,
        error_code=UNSATISFIED)


def check(context, project, wanted, start, end, names, but=None, at=None):
    """Refuse (409) holding ``wanted`` {(provider id, class id): amount}
    for project ``project`` (interned id) over [``start``, ``end``):
    a pair without inventory, a pair whose reservations would hold more
    than its capacity at some instant of the window, or, when the window
    holds ``at`` (now), a pair whose load it would take over the
    capacity. ``but``: the id of the reservation being changed (its
    current window does not count). ``names``: {(provider id, class
    id): (provider uuid, class name)} for the messages."""
    capacity = _capacities(context, wanted)
    for pair in sorted(wanted):
        if pair not in capacity:
            raise _refuse("resource provider '%s' has no inventory of %s."
                          % names[pair])
    windows = _windows(context, start, end,
                       rp_ids={rp for rp, _ in wanted},
                       rc_ids={rc for _, rc in wanted}, but=but)
    for pair in sorted(wanted):
        others = windows.get(pair, [])
        most = peak(others + [(start, end, wanted[pair])], start, end)
        if most > capacity[pair]:
            raise _refuse(
                "%d %s on resource provider '%s' would be held from %s to "
                "%s, and at some instant of that window the reservations "
                "would hold %d of a capacity of %s."
                % (wanted[pair], names[pair][1], names[pair][0],
                   _iso(start), _iso(end), most, _number(capacity[pair])))
    at = now() if at is None else at
    if not start <= at < end:
        return
    held = holds(context, wanted, at)
    if but is not None:
        # The reservation being changed may be active already: its hold
        # is counted below, as its new window's.
        mine = context.session.execute(
            sa.select(_AMT.c.resource_provider_id, _AMT.c.resource_class_id,
                      _AMT.c.amount)
            .select_from(_AMT.join(_RES, _RES.c.id == _AMT.c.reservation_id))
            .where(_AMT.c.reservation_id == but,
                   _RES.c.start_at <= at, _RES.c.end_at > at))
        for rp_id, rc_id, amount in mine:
            pair_held = held.setdefault((rp_id, rc_id), {})
            pair_held[project] = pair_held.get(project, 0) - amount
    projects = {p for pair in held.values() for p in pair} | {project}
    used_by = usage_by_project(context, wanted, projects)
    used = _usage(context, wanted)
    for pair in sorted(wanted):
        pair_held = dict(held.get(pair, {}))
        before = load(used.get(pair, 0), pair_held, used_by.get(pair, {}))
        pair_held[project] = pair_held.get(project, 0) + wanted[pair]
        after = load(used.get(pair, 0), pair_held, used_by.get(pair, {}))
        if after > capacity[pair] and after > before:
            raise _refuse(
                "%d %s on resource provider '%s' would be held from now, "
                "and what is allocated and held there already leaves %s of "
                "a capacity of %s."
                % (wanted[pair], names[pair][1], names[pair][0],
                   _number(max(0, capacity[pair] - before)),
                   _number(capacity[pair])))


def _usage(context, pairs):
    rows = context.session.execute(
        sa.select(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id,
                  sa.func.sum(_ALLOC.c.used))
        .where(_ALLOC.c.resource_provider_id.in_(
                   sorted({rp for rp, _ in pairs})),
               _ALLOC.c.resource_class_id.in_(
                   sorted({rc for _, rc in pairs})))
        .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id))
    return {(rp, rc): int(used) for rp, rc, used in rows}


def _iso(moment):
    return moment.isoformat() + 'Z'


def _number(value):
    return ('%d' % value) if float(value).is_integer() else ('%g' % value)


@db_api.reader
def _resolve(context, amounts):
    """({(provider id, class id): amount}, {(provider id, class id):
    (provider uuid, class name)}, provider ids) of ``amounts`` {provider
    uuid: {class name: amount}}; BadRequest for an unknown provider or
    class."""
    uuids = sorted(amounts)
    rows = context.session.execute(
        sa.select(_RP.c.id, _RP.c.uuid).where(_RP.c.uuid.in_(uuids)))
    providers = {row.uuid: row.id for row in rows}
    for uuid in uuids:
        if uuid not in providers:
            raise exception.BadRequest(
                "Reservation on resource provider '%s' that does not "
                "exist." % uuid)
    classes = {name for res in amounts.values() for name in res}
    try:
        class_ids = resource_classes.ids_by_name(context, classes)
    except exception.NotFound as exc:
        raise exception.BadRequest(exc.message)
    wanted, names = {}, {}
    for uuid, res in amounts.items():
        for name, amount in res.items():
            pair = (providers[uuid], class_ids[name])
            wanted[pair] = amount
            names[pair] = (uuid, name)
    return wanted, names, set(providers.values())


def check_window(start, end, at):
    if start >= end:
        raise exception.BadRequest(
            'The end of a reservation must be after its start.')
    if end <= at:
        raise exception.BadRequest(
            'The end of a reservation must be in the future.')


def create(context, project_id, start, end, amounts, uuid=None):
    """Hold ``amounts`` {provider uuid: {class name: amount}} for project
    ``project_id`` (external id) over [``start``, ``end``); the new
    Reservation. BadRequest for a bad window or an unknown provider or
    class, Conflict (409) when the capacity is not there (see
    ``check``) or the uuid is taken."""
    at = now()
    check_window(start, end, at)
    if not amounts or not any(amounts.values()):
        raise exception.BadRequest('A reservation must hold something.')
    ids = consumers_mod.intern_ids(context, {project_id}, (), ())
    project = ids.projects[project_id]
    uuid = uuid or uuidutils.generate_uuid()
    wanted, names, rp_ids = _resolve(context, amounts)
    _create(context, uuid, project, start, end, wanted, names, rp_ids, at)
    return get(context, uuid)


@db_api.writer
def _create(context, uuid, project, start, end, wanted, names, rp_ids, at):
    session = context.session
    # The locks first: nothing may be read before them (module docstring).
    gone = set(rp_ids) - _lock(context, rp_ids)
    for pair in sorted(wanted):
        if pair[0] in gone:
            raise exception.BadRequest(
                "Reservation on resource provider '%s' that does not "
                "exist." % names[pair][0])
    if session.execute(sa.select(_RES.c.id).where(
            _RES.c.uuid == uuid)).first() is not None:
        raise exception.Conflict('Reservation %s already exists.' % uuid)
    check(context, project, wanted, start, end, names, at=at)
    stamp = timeutils.utcnow()
    result = session.execute(_RES.insert().values(
        uuid=uuid, project_id=project, start_at=start, end_at=end,
        created_at=stamp))
    res_id = result.inserted_primary_key[0]
    session.execute(_AMT.insert(), [
        {'reservation_id': res_id, 'resource_provider_id': rp_id,
         'resource_class_id': rc_id, 'amount': amount}
        for (rp_id, rc_id), amount in sorted(wanted.items())])
    _changed(context)


def update(context, uuid, start=None, end=None):
    """Move the window of reservation ``uuid`` (None keeps a bound); the
    Reservation. Shortening always succeeds; a window that grows is
    checked as a new reservation would be (``check``)."""
    at = now()
    _update(context, uuid, start, end, _providers_of(context, uuid), at)
    return get(context, uuid)


@db_api.reader
def _providers_of(context, uuid):
    """The ids of the providers reservation ``uuid`` holds amounts on
    (none if there is no such reservation)."""
    return {rp for rp, in context.session.execute(
        sa.select(_AMT.c.resource_provider_id)
        .select_from(_AMT.join(_RES, _RES.c.id == _AMT.c.reservation_id))
        .where(_RES.c.uuid == uuid))}


@db_api.writer
def _update(context, uuid, start, end, rp_ids, at):
    session = context.session
    # The locks first: nothing may be read before them (module docstring).
    # What a reservation holds only ever shrinks (``forget_provider``),
    # so ``rp_ids``, read before, covers what is read below -- unless it
    # was deleted and made again under the same uuid meanwhile.
    _lock(context, rp_ids)
    row = session.execute(
        sa.select(_RES.c.id, _RES.c.project_id, _RES.c.start_at,
                  _RES.c.end_at).where(_RES.c.uuid == uuid)).first()
    if row is None:
        raise exception.NotFound('No reservation with uuid %s found' % uuid)
    start = row.start_at if start is None else start
    end = row.end_at if end is None else end
    check_window(start, end, at)
    pairs = {(rp, rc): amount for rp, rc, amount in session.execute(
        sa.select(_AMT.c.resource_provider_id, _AMT.c.resource_class_id,
                  _AMT.c.amount).where(_AMT.c.reservation_id == row.id))}
    if {rp for rp, _ in pairs} - set(rp_ids):
        raise exception.ConcurrentUpdate(
            'Reservation %s was replaced by another request. Please '
            'retry.' % uuid)
    if start < row.start_at or end > row.end_at:
        names = _names(context, pairs)
        check(context, row.project_id, pairs, start, end, names,
              but=row.id, at=at)
    session.execute(_RES.update().where(_RES.c.id == row.id).values(
        start_at=start, end_at=end, updated_at=timeutils.utcnow()))
    _changed(context)


def _names(context, pairs):
    rows = context.session.execute(
        sa.select(_AMT.c.resource_provider_id, _AMT.c.resource_class_id,
                  _RP.c.uuid, _RC.c.name)
        .select_from(_NAMED)
        .where(_AMT.c.resource_provider_id.in_(
            sorted({rp for rp, _ in pairs}))))
    return {(rp, rc): (rp_uuid, name) for rp, rc, rp_uuid, name in rows}


@db_api.writer
def delete(context, uuid):
    """Delete reservation ``uuid``; NotFound if there is none."""
    session = context.session
    row = session.execute(sa.select(_RES.c.id).where(
        _RES.c.uuid == uuid)).first()
    if row is None:
        raise exception.NotFound('No reservation with uuid %s found' % uuid)
    session.execute(_AMT.delete().where(_AMT.c.reservation_id == row.id))
    session.execute(_RES.delete().where(_RES.c.id == row.id))
    _changed(context)


def forget_provider(context, rp_id):
    """Drop what reservations hold on provider ``rp_id``, which is being
    deleted (caller's transaction); a reservation left holding nothing
    is deleted."""
    session = context.session
    touched = [row.reservation_id for row in session.execute(
        sa.select(_AMT.c.reservation_id)
        .where(_AMT.c.resource_provider_id == rp_id))]
    if not touched:
        return
    session.execute(_AMT.delete().where(
        _AMT.c.resource_provider_id == rp_id))
    left = {row.reservation_id for row in session.execute(
        sa.select(_AMT.c.reservation_id)
        .where(_AMT.c.reservation_id.in_(touched)))}
    empty = sorted(set(touched) - left)
    if empty:
        session.execute(_RES.delete().where(_RES.c.id.in_(empty)))
    _changed(context)
