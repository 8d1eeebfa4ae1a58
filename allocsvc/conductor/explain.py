"""Why an allocation finds no node, counted: the reason of its
``last_error``, and the allocation preview.

The database counts the nodes of the requested class that the candidate
query leaves out, per reason, in the order the algorithm drops them
(``allocsvc.db.baremetal.candidates.count_drops``, derived from the
conditions of that very query); this module puts the counts in words,
the same under both allocation back ends. Ironic's sentence comes
first, unchanged, since clients match on it; the counts follow::

    no available nodes match the resource class baremetal (12 nodes
    have resource class baremetal: 3 not available, 2 in maintenance,
    1 with no power state, 4 already allocated, 2 neither owned nor
    leased by p1)

Each node counts once, under the first reason that drops it; only the
reasons that dropped a node are named. Three are no condition of the
query:

* ``lost``: a node the reservation stage tried and could not bind
  (locked through every retry, or changed under its lock), that no
  condition drops when counted;
* ``refused`` (placement back end): nodes the query finds fitting but
  the engine does not offer, having no free unit on their resource
  provider;
* ``changed`` (database back end): nodes the query finds fitting when
  counted that the search did not find (they changed in between).

The reason fits the allocation's ``last_error`` column (TEXT: 64 KiB on
MariaDB): the counts are cut first, the trailing ones summed up as
"N for other reasons".
"""

from allocsvc.db import api as db_api
from allocsvc.db.baremetal import candidates as db_candidates

REFUSED = 'refused'
CHANGED = 'changed'

# What each reason says of the nodes it counts ("3 not available").
WORDS = {
    db_candidates.NOT_AVAILABLE: 'not available',
    db_candidates.MAINTENANCE: 'in maintenance',
    db_candidates.NO_POWER_STATE: 'with no power state',
    db_candidates.ALLOCATED: 'already allocated',
    db_candidates.HELD: 'held by a Placement consumer',
    db_candidates.RESERVED: 'reserved for another project now',
    db_candidates.NOT_OWNER: 'neither owned nor leased by {owner}',
    db_candidates.MISSING_TRAIT: 'missing trait {trait}',
    db_candidates.NOT_CANDIDATE: 'not among the candidate nodes',
    db_candidates.LOST: 'locked or changed while being reserved',
    REFUSED: 'refused by Placement (no free unit on their resource '
             'provider)',
    CHANGED: 'changed while the search ran',
}

# The most nodes a preview lists (it counts them all).
PREVIEW_NODES = 100

# The bytes of a reason: with "Failed to process allocation <uuid>: "
# and the final dot, a TEXT column's 65,535 at most.
MAX_REASON_BYTES = 65535 - 80


class Request:
    """What an allocation asks for, as the back ends and the counts read
    it (an allocation record has the same attributes)."""

    __slots__ = ('resource_class', 'traits', 'candidate_nodes', 'owner',
                 'name')

    def __init__(self, resource_class, traits=(), candidate_nodes=(),
                 owner=None, name=None):
        self.resource_class = resource_class
        self.traits = list(traits or ())
        self.candidate_nodes = list(candidate_nodes or ())
        self.owner = owner
        self.name = name


# -- words --------------------------------------------------------------------

def entries(counts, owner, unoffered=None):
    """The reasons ``counts`` (a ``count_drops`` result) found, in
    order, as documents: ``{"reason", "count", "detail"}`` and, for a
    missing trait, ``"trait"``. ``unoffered``: ``(reason, count)`` of
    the nodes the query finds fitting that the back end did not offer
    (REFUSED or CHANGED), last."""
    found = []
    for reason, trait, count in counts.dropped:
        entry = {'reason': reason, 'count': count,
                 'detail': WORDS[reason].format(owner=owner, trait=trait)}
        if trait is not None:
            entry['trait'] = trait
        found.append(entry)
    if unoffered is not None and unoffered[1] > 0:
        found.append({'reason': unoffered[0], 'count': unoffered[1],
                      'detail': WORDS[unoffered[0]]})
    return found


def _head(resource_class, total):
    if not total:
        return 'no node has resource class %s' % resource_class
    if total == 1:
        return '1 node has resource class %s' % resource_class
    return '%d nodes have resource class %s' % (total, resource_class)


def _size(text):
    return len(text.encode('utf-8'))


def reason(sentence, resource_class, total, found,
           limit=MAX_REASON_BYTES):
    """``sentence (head: count detail, ...)``, at most ``limit`` bytes:
    the trailing counts summed up as "N for other reasons" if need be,
    and a sentence too long even alone cut (it may quote 64 KiB of
    traits)."""
    head = _head(resource_class, total)
    parts = ['%d %s' % (entry['count'], entry['detail']) for entry in found]
    for keep in range(len(parts), -1, -1):
        shown = parts[:keep]
        rest = sum(entry['count'] for entry in found[keep:])
        if rest:
            shown = shown + ['%d for other reasons' % rest]
        counted = head + (': ' + ', '.join(shown) if shown else '')
        text = '%s (%s)' % (sentence, counted)
        if _size(text) <= limit:
            return text
    if _size(sentence) <= limit:
        return sentence
    return sentence.encode('utf-8')[:limit - 3].decode(
        'utf-8', 'ignore') + '...'


def sentence(request, counts):
    """Ironic's words for a candidate stage that found nothing, chosen
    as Ironic chooses them: the class (or candidate nodes) unless some
    node would fit but for the traits. Without traits, the class: the
    placement back end may refuse nodes that fit, and "no suitable nodes
    have the requested traits" of no trait would be a riddle."""
    if not counts.untraited or not request.traits:
        if request.candidate_nodes:
            return ('none of the requested nodes are available and match '
                    'the resource class %s' % request.resource_class)
        return 'no available nodes match the resource class %s' % (
            request.resource_class)
    return 'no suitable nodes have the requested traits %s' % (
        ', '.join(sorted(set(request.traits or ()))))


def _count(context, request, lost=None, visible_to=None):
    return db_candidates.count_drops(
        context, request.resource_class, request.traits,
        request.candidate_nodes, request.owner, lost=lost,
        visible_to=visible_to)


# -- the algorithm's failures --------------------------------------------

def no_candidates(context, backend, request):
    """The reason an allocation asking ``request`` fails with when
    ``backend``'s candidate stage found nothing: Ironic's sentence and
    the counts. Nodes the query finds fitting count as the back end's
    ``unoffered`` reason."""
    counts = _count(context, request)
    found = entries(counts, request.owner, (backend.unoffered, counts.fits))
    return reason(sentence(request, counts), request.resource_class,
                  counts.total, found)


@db_api.reader
def reservation_failed(context, backend, request, said, lost):
    """The reason an allocation fails with when the reservation stage
    bound none of the candidates ``lost`` (UUIDs): its sentence
    ``said`` and the counts, the nodes tried that fit again counted as
    LOST, those that fit and were not tried as the back end's
    ``unoffered`` reason."""
    counts = _count(context, request, lost=lost)
    found = entries(counts, request.owner, (backend.unoffered, counts.fits))
    return reason(said, request.resource_class, counts.total, found)


# -- the preview --------------------------------------------------------------

@db_api.reader
def preview(context, backend, request, visible_to=None,
            limit=PREVIEW_NODES):
    """Which nodes an allocation asking ``request`` could take now,
    through ``backend``'s own candidate stage (every candidate, not a
    batch), and the counts of why the other nodes of the class could
    not; nothing is reserved. ``visible_to``: a project whose nodes
    (owned or leased) are the only ones listed and counted. Returns the
    preview's document (see the bare-metal API's documentation): the
    request as read, ``nodes`` (at most ``limit``, by UUID),
    ``node_count``, ``nodes_of_class``, ``dropped`` and ``last_error``
    (None when some node fits, else the reason an allocation created
    now would fail with)."""
    offered = sorted({row.uuid for row in backend.offered(context,
                                                          request)})
    if visible_to is not None:
        visible = db_candidates.visible_uuids(
            context, request.resource_class, visible_to)
        offered = [uuid for uuid in offered if uuid in visible]
    counts = _count(context, request, visible_to=visible_to)
    found = entries(counts, request.owner,
                    (backend.unoffered, counts.fits - len(offered)))
    shown = offered[:limit]
    names = db_candidates.names(context, shown)
    failure = None
    if not offered:
        failure = reason(sentence(request, counts), request.resource_class,
                         counts.total, found)
    return {
        'resource_class': request.resource_class,
        'traits': list(request.traits),
        'candidate_nodes': list(request.candidate_nodes),
        'owner': request.owner,
        'nodes': [{'uuid': uuid, 'name': names.get(uuid)}
                  for uuid in shown],
        'node_count': len(offered),
        'nodes_of_class': counts.total,
        'dropped': found,
        'last_error': failure,
    }
