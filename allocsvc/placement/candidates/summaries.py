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


def _inventories(context, snap, roots, shown, class_names, rc_ids):
    """{rp id: [(class name, capacity, used)]} of the providers ``shown``
    of the trees ``roots``. The inventories of the requested classes the
    loader read are not read again when it read all of them for these
    providers (it always does, but for providers left out by an
    aggregate filter): often they are all there is to show. Neither are
    those of the other classes when the loader read them with the trees
    (``snap.others``)."""
    if not all(snap.fully_read(rp_id) for rp_id in shown):
        return loader.summary_inventories(context, roots, rc_ids)
    if rc_ids is None:
        others = snap.others
        if others is None:
            others = loader.summary_inventories(context, roots,
                                                but=snap.requested)
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


def _by_trait_id(names, trait_ids):
    """The trait ``names`` of one provider in trait id order (``trait_ids``
    {name: id} comes with the traits, and has them all; by name if not)."""
    try:
        return sorted(names, key=trait_ids.__getitem__)
    except KeyError:
        return sorted(names)


def summarize(context, snap, candidates, whole_trees, class_names,
              rc_ids=None):
    """{rp uuid: {'resources': {class: {'capacity', 'used'}}, 'traits',
    'parent_provider_uuid', 'root_provider_uuid'}}.

    ``whole_trees``: include every provider of the candidates' trees;
    ``class_names`` {rc id: name} of the requested classes; ``rc_ids``:
    only these classes (None: all). Each summary is built once, in the
    shape the API shows (the handler drops the fields older microversions
    lack): there can be thousands of them.
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
    uuid_of = {rp_id: p.uuid for rp_id, p in providers.items()}
    traits = snap.traits
    trait_ids = snap.topology.trait_ids
    result = {}
    for rp_id in sorted(shown):
        provider = providers[rp_id]
        rows = inventory.get(rp_id, ())
        if len(rows) > 1:
            rows = sorted(rows)
        found = traits.get(rp_id)
        result[provider.uuid] = {
            'resources': {name: {'capacity': capacity, 'used': used}
                          for name, capacity, used in rows},
            'traits': _by_trait_id(found, trait_ids) if found else [],
            'parent_provider_uuid': uuid_of.get(provider.parent_id),
            'root_provider_uuid': uuid_of[provider.root_id],
        }
    return result
