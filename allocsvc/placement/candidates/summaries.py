"""Provider summaries of a list of candidates.

Placement summarises every provider of every tree that contributes
resources to a returned candidate (microversion 1.29 on), or just those
providers (before): capacity and usage of their inventories (the
requested classes only before 1.27), their traits (1.17) and their
parent and root (1.29). The handler keeps the fields its microversion
shows.
"""

from allocsvc.placement.candidates import loader


def summarize(context, snap, candidates, whole_trees, rc_ids=None):
    """{rp uuid: {'resources': {class: {'capacity', 'used'}}, 'traits',
    'parent_provider_uuid', 'root_provider_uuid'}}.

    ``whole_trees``: include every provider of the candidates' trees;
    ``rc_ids``: only these classes (None: all).
    """
    providers = snap.providers
    ids = {p.uuid: rp_id for rp_id, p in providers.items()}
    in_candidates = set()
    for candidate in candidates:
        in_candidates.update(candidate.allocations)
    in_candidates = {ids[rp_uuid] for rp_uuid in in_candidates}
    roots = {providers[rp].root_id for rp in in_candidates}
    if whole_trees:
        shown = [rp for rp, p in providers.items() if p.root_id in roots]
    else:
        shown = sorted(in_candidates)
    inventory = loader.summary_inventories(context, roots, rc_ids)
    result = {}
    for rp_id in sorted(shown):
        provider = providers[rp_id]
        parent = providers.get(provider.parent_id)
        result[provider.uuid] = {
            'resources': {
                name: {'capacity': capacity, 'used': used}
                for name, capacity, used in sorted(inventory.get(rp_id, ()))},
            'traits': sorted(snap.traits.get(rp_id, ())),
            'parent_provider_uuid': parent.uuid if parent else None,
            'root_provider_uuid': providers[provider.root_id].uuid,
        }
    return result
