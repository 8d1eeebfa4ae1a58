"""Where the allocation algorithm finds nodes, and what binding one
writes besides the node and the allocation: ``[conductor]
allocation_backend``.

``database`` (Ironic's way): the candidates are the free nodes of the
``nodes`` table (``allocsvc.db.baremetal.candidates``); a bound node's
resource provider gets its unit reserved.

``placement`` (the back end Ironic's allocation spec planned): the
candidates come from the Placement engine's allocation candidates --
``CUSTOM_<RC>:1`` with the allocation's traits required -- among the
providers of the nodes the allocation may take (its candidate nodes,
its owner's nodes); binding a node claims its unit in the engine, for a
consumer that is the allocation (``node_providers.claim``), in the
transaction that binds the node.

Both return candidates with the node's ``uuid`` and ``name`` (the
placement back end knows the name of the node named like the allocation
only; the others' is None), a batch of them for an allocation
(``candidates``) or all of them for a preview (``offered``), from the
same search; and both explain an empty answer alike
(``allocsvc.conductor.explain``: Ironic's words, then the counts of the
nodes table's query), save for the nodes that query finds fitting and
the back end did not offer (``unoffered``).
"""

import collections
import threading

from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.common import exception
from allocsvc.conductor import explain
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import candidates as db_candidates
from allocsvc.db import models
from allocsvc.placement import candidates as engine_candidates
from allocsvc.placement.candidates import request as engine_request
from allocsvc.placement import consumers as engine_consumers
from allocsvc.placement import node_providers
from allocsvc.placement import reservations as engine_reservations

DATABASE = 'database'
PLACEMENT = 'placement'
NAMES = (DATABASE, PLACEMENT)

_NODE = models.nodes

# A node the placement back end offers.
Candidate = collections.namedtuple('Candidate', ('uuid', 'name'),
                                   defaults=(None,))


# How many candidates a back end reads for one allocation. The first
# node that can be locked is taken; reading (and, for the placement back
# end, looking up) every free node of the class for every allocation
# was most of an allocation's cost, and concurrent allocations taking
# nodes at random from the same few hundred rarely meet.
BATCH = 32
# The placement back end's batch is smaller: the engine draws providers
# at random and reads the usage of those it draws (``candidates.
# sampling``), so its cost grows with the batch (and, as the nodes run
# out, with the draws it takes to find that many free ones), where the
# nodes table's query sorts every free node of the class whatever the
# batch. A batch entirely taken by others is asked for again
# (``allocations._BATCHES``).
PLACEMENT_BATCH = 8


class _Backend:
    """What both back ends share: candidates come ``batch`` at a time,
    at random, the node named like the allocation first if there is one
    (it is checked under its lock like any other); ``full(candidates)``
    tells the algorithm a batch may have left nodes out, so that it asks
    again when every node of a batch was taken meanwhile."""

    def __init__(self, batch=BATCH):
        self.batch = batch

    def full(self, candidates):
        return len(candidates) >= self.batch

    def candidates(self, context, allocation):
        rows = self._find(context, allocation, self.batch)
        named = _named(context, allocation.name)
        if named is not None:
            rows = [named] + [row for row in rows if row.uuid != named.uuid]
        return rows

    def offered(self, context, request):
        """Every candidate of ``request`` (an allocation, or what one
        would ask for), in no particular order: what ``candidates``
        draws its batches from."""
        return self._find(context, request, None)


class Database(_Backend):
    """Candidates from the nodes table; no claim."""

    name = DATABASE
    # A node the query finds fitting when the counts are taken, but not
    # when the candidates were: it changed in between.
    unoffered = explain.CHANGED

    def _find(self, context, allocation, limit):
        return db_candidates.find_candidates(
            context, allocation.resource_class, allocation.traits,
            allocation.candidate_nodes, allocation.owner, batch=limit)

    def claimer(self, context, allocation):
        """What binding a node for ``allocation`` claims: nothing."""
        return None


class Placement(_Backend):
    """Candidates from the engine; binding claims the node's unit for a
    consumer of project ``allocation.owner`` (or, without an owner,
    ``default_project``) and user ``default_user``."""

    name = PLACEMENT
    # A node the nodes table finds fitting and the engine does not
    # offer: its resource provider has no free unit.
    unoffered = explain.REFUSED

    def __init__(self, default_project, default_user,
                 batch=PLACEMENT_BATCH):
        super().__init__(batch)
        self.default_project = default_project
        self.default_user = default_user
        self._ids = {}
        self._ids_lock = threading.Lock()

    def _find(self, context, allocation, limit):
        name = node_providers.resource_class(allocation.resource_class)
        group = engine_request.RequestGroup('')
        group.resources = {name: 1}
        group.required = [frozenset([trait])
                          for trait in sorted(set(allocation.traits))]
        among = None
        if allocation.candidate_nodes or allocation.owner:
            among = _allowed(context, allocation.candidate_nodes,
                             allocation.owner)
            if not among:
                return []
        # The allocation's project may use what its reservations hold
        # (its claim is written for it: ``claimer``).
        project = allocation.owner or self.default_project
        try:
            with engine_reservations.exempting({project}):
                found = engine_candidates.find(
                    context, {'': group}, engine_request.RequestWide(),
                    limit=limit, randomize=limit is not None, among=among,
                    summaries=False)
        except exception.BadRequest:
            # A class or trait Placement has never heard of: no node has
            # it.
            return []
        # A provider's uuid is its node's: the algorithm locks nodes by
        # uuid, and one that is no node is found unsuitable then.
        return [Candidate(next(iter(c.allocations)))
                for c in found.allocation_requests]

    def _interned(self, context, project, user):
        """The ids of ``project``, ``user`` and the claims' consumer
        type, looked up (or created) once per process: such rows are
        never deleted."""
        key = (project, user)
        with self._ids_lock:
            ids = self._ids.get(key)
        if ids is None:
            ids = engine_consumers.intern_ids(
                context, [project], [user], [node_providers.CONSUMER_TYPE])
            with self._ids_lock:
                if len(self._ids) > 10000:
                    self._ids.clear()
                self._ids[key] = ids
        return ids

    def claimer(self, context, allocation):
        project = allocation.owner or self.default_project
        user = self.default_user
        ids = self._interned(context, project, user)

        def claim(context, allocation, node, provider=None):
            node_providers.claim(context, allocation.uuid, node, ids,
                                 project, user, provider)
        return claim


def _allowed(context, candidate_nodes, owner):
    """The UUIDs of the nodes an allocation with ``candidate_nodes``
    (UUIDs) and ``owner`` may take, of those two rules alone."""
    query = sa.select(_NODE.c.uuid)
    if candidate_nodes:
        query = query.where(_NODE.c.uuid.in_(sorted(candidate_nodes)))
    if owner:
        query = query.where(sa.or_(
            _NODE.c.owner == owner, _NODE.c.lessee == owner,
            db_candidates.reserved(_NODE.c.uuid, timeutils.utcnow(),
                                   owner)))
    return frozenset(context.session.execute(query).scalars())


_BY_NAME = sa.select(_NODE.c.id, _NODE.c.uuid, _NODE.c.name).where(
    _NODE.c.name == sa.bindparam('name'))


def _named(context, name):
    return None if not name else context.session.execute(
        _BY_NAME, {'name': name}).first()


def from_conf(conf):
    """The back end ``conf`` chooses."""
    if conf.conductor.allocation_backend == PLACEMENT:
        return Placement(conf.placement.incomplete_consumer_project_id,
                         conf.placement.incomplete_consumer_user_id)
    return Database()


@db_api.reader
def find(context, backend, allocation):
    """``backend``'s candidates for ``allocation`` and, if there are
    none, why (``explain.no_candidates``), in one reader transaction."""
    candidates = backend.candidates(context, allocation)
    if candidates:
        return candidates, None
    return candidates, explain.no_candidates(context, backend, allocation)
