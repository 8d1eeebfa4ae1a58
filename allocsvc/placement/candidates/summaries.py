"""Provider summaries of a list of candidates.

Placement summarises every provider of every tree that contributes
resources to a returned candidate (microversion 1.29 on), or just those
providers (before): capacity and usage of their inventories (the
requested classes only before 1.27), their traits (1.17) and their
parent and root (1.29). The handler keeps the fields its microversion
shows.

A provider's traits are listed in trait id order, as Placement's
answers show them (it reads them unordered, and its databases give them
by trait id): the standard traits, loaded at start-up, first, then the
custom ones in the order they were created. Clients compare these lists
as they come.
"""

from allocsvc.placement.candidates import loader
from allocsvc.placement.candidates import statements


def _inventories(context, snap, roots, shown, class_names, rc_ids):
    """{rp id: [(class name, capacity, used)]} of the providers ``shown``
    of the trees ``roots``. The inventories of the requested classes the
    loader read are not read again when it read all of them for these
    providers (it always does, but for providers left out by an
    aggregate filter): often they are all there is to show. Those of
    the other classes come from the copy of the trees, with their usage
    (``_other_inventories``), or need nothing when the loader knows
    there are none (``snap.others``)."""
    if not all(snap.fully_read(rp_id) for rp_id in shown):
        return loader.summary_inventories(context, roots, rc_ids)
    if rc_ids is None:
        others = snap.others
        if others is None:
            others = _other_inventories(context, snap, shown)
    else:
        others = {}
        rc_ids = set(rc_ids) - snap.requested
        if rc_ids:
            others = loader.summary_inventories(context, roots, rc_ids)
    found = {}
    for rp_id in shown:
        entries = [(class_names[rc_id], int(capacity), used)
                   for rc_id, capacity, used in snap.read.get(rp_id, ())]
        more = others.get(rp_id)
        if more:
            entries.extend(more)
        if entries:
            found[rp_id] = entries
    return found


def _other_inventories(context, snap, shown):
    """{rp id: [(class name, capacity, used)]} of the inventories of the
    providers ``shown`` of the classes the request did not name: their
    capacity from the copy of the trees the loader used, their usage and
    the classes' names in one small statement about these inventories
    alone (reading them whole, by tree, was a tenth of a request that
    shows a thousand trees)."""
    topo, requested = snap.topology, snap.requested
    wanted = {}
    for rp_id in shown:
        classes = topo.classes.get(rp_id)
        if classes and not classes <= requested:
            wanted[rp_id] = classes - requested
    if not wanted:
        return {}
    names, used = statements.usage(
        context.session.connection(), sorted(wanted),
        sorted(set().union(*wanted.values())), with_names=True)
    stocks = topo.inventories
    found = {}
    for rp_id, classes in wanted.items():
        # A class created after this transaction's snapshot, whose
        # inventory a newer copy of the trees already has, is left out
        # as the database would.
        found[rp_id] = [(names[rc_id], int(stocks[rc_id][rp_id].capacity),
                         used.get((rp_id, rc_id), 0))
                        for rc_id in classes if rc_id in names]
    return found


def summarize(context, snap, candidates, whole_trees, class_names,
              rc_ids=None):
    """{rp uuid: {'resources': {class: {'capacity', 'used'}}, 'traits',
    'parent_provider_uuid', 'root_provider_uuid'}}.

    ``whole_trees``: include every provider of the candidates' trees;
    ``class_names`` {rc id: name} of the requested classes; ``rc_ids``:
    only these classes (None: all). Each summary is built once, in the
    shape the API shows (the handler drops the fields older microversions
    lack): there can be thousands of them. What does not change between
    requests comes from the copy of the trees (``Topology.shown``).
    """
    providers = snap.providers
    used_uuids = set()
    for candidate in candidates:
        used_uuids.update(candidate.allocations)
    shown = [rp_id for rp_id, p in providers.items() if p.uuid in used_uuids]
    roots = {providers[rp_id].root_id for rp_id in shown}
    if whole_trees:
        shown = [rp_id for rp_id, p in providers.items()
                 if p.root_id in roots]
    inventory = _inventories(context, snap, roots, shown, class_names,
                             rc_ids)
    listing = snap.topology.shown
    result = {}
    for rp_id in sorted(shown):
        rows = inventory.get(rp_id, ())
        if len(rows) > 1:
            rows = sorted(rows)
        uuid, traits, parent, root = listing(rp_id)
        result[uuid] = {
            'resources': {name: {'capacity': capacity, 'used': used}
                          for name, capacity, used in rows},
            'traits': traits,
            'parent_provider_uuid': parent,
            'root_provider_uuid': root,
        }
    return result
