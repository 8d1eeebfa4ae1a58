"""Why an allocation candidates query finds what it finds.

``explain`` answers GET /allocation_candidates/explanation: for a query
parsed as GET /allocation_candidates parses it, every request group's
filters in the order the engine applies them, with how many providers
(and trees) each leaves; then the stages of the combination of the
groups; the first step that left nothing, in plain words, with a few of
the providers (or trees) it dropped and the exact reason for each; and
the number of candidates the query returns.

It is the engine's own search, recorded, not a second one that could
drift: the count is the query's (``candidates.find``, its limit and
fast paths included); the groups' steps (``steps``) are the conditions
``planning`` checks, one at a time, on the copy of the trees the search
reads and the usage it read; when nothing fits, the combination's
stages are those the query's own search recorded (``Planner.stages``,
``Search.anchors_found``), and a tree's blocking rule is found by
walking its slots with that rule lifted. What it costs is about what
the query costs: the query without its summaries, one statement for the
usage, and set operations on indexes kept per copy of the trees.
"""

import sqlalchemy as sa

from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import candidates as candidates_mod
from allocsvc.placement.candidates import loader
from allocsvc.placement.candidates import planning
from allocsvc.placement.candidates import request as request_mod
from allocsvc.placement.candidates import search
from allocsvc.placement.candidates import steps as steps_mod
from allocsvc.placement.candidates import walk

_RP = models.resource_providers
Blocked = steps_mod.Blocked
Step = steps_mod.Step
EXAMPLES = steps_mod.EXAMPLES

# The planner's checks on the trees every group can be served at.
_STAGES = {
    'required': 'has, among the providers serving the unsuffixed group, '
                'its required traits',
    'group_policy': 'has a distinct provider for each isolated group',
}


class Explanation:
    """``groups`` [(suffix, steps.GroupSteps)]; ``combination``
    [steps.Step]; ``combination_blocked`` (steps.Blocked or None);
    ``candidates`` the number the query returns; ``limit``; ``partial``
    when the query stopped at its limit (the trees with a candidate are
    a lower bound); ``names`` {rp id: (uuid, name)} of the providers and
    roots the examples name."""

    def __init__(self):
        self.groups = []
        self.combination = []
        self.combination_blocked = None
        self.candidates = 0
        self.limit = None
        self.partial = False
        self.names = {}


def _combination(expl, finder):
    """Record the stages of the combination of a query that found
    nothing: the trees every group can be served at, the planner's
    checks on them, and the search, with the rule that left each of a
    few trees without a candidate."""
    steps = expl.combination
    groups_blocked = any(g.blocked for _s, g in expl.groups)
    every = None
    for _suffix, steps_of in expl.groups:
        every = steps_of.trees if every is None else every & steps_of.trees
    every = every or set()

    def block(why_of, message, before):
        if expl.combination_blocked is None and not groups_blocked:
            dropped = sorted(before)
            expl.combination_blocked = Blocked(
                len(steps) - 1, message, len(dropped),
                [(root, why_of(root)) for root in dropped[:EXAMPLES]])

    steps.append(Step('groups', None, 'can serve every request group',
                      None, len(every)))
    if not every and len(expl.groups) > 1:
        served = set()
        for _suffix, steps_of in expl.groups:
            served |= steps_of.trees

        def why_of(root):
            missing = [s or '(unsuffixed)' for s, g in expl.groups
                       if root not in g.trees]
            return 'no provider of its own or sharing with it serves ' \
                'group %s' % ', '.join(missing)
        block(why_of, 'no tree can serve every request group', served)
    if not finder.first_round_done:
        # The query found none: the same search tries every tree once
        # and finds none either (its first round counts those that had
        # one).
        next(finder.candidates(), None)
    stages = finder.planner.stages if finder.planned else []
    previous = every
    for name, anchors in stages[1:]:
        words = _STAGES[name]
        steps.append(Step(name, None, words, None, len(anchors)))
        if not anchors and previous:
            block(lambda root, words=words: words.replace('has', 'lacks', 1),
                  'no tree that can serve every group also %s' % words,
                  previous)
        previous = anchors
    checked = set(stages[-1][1]) if stages else every
    # Without a plan every candidate is one provider alone: no rule
    # between providers applies.
    rules = _rule_names(finder.rules) if finder.planned else []
    steps.append(Step('search', ', '.join(rules) or None,
                      'has a combination of providers that keeps every '
                      'rule', None, finder.anchors_found))
    if not finder.anchors_found and checked:
        block(lambda root: _diagnose(finder, root),
              'no tree that passed the checks has a combination of '
              'providers that keeps %s' % (' and '.join(rules) or
                                           'every rule'), checked)


def _rule_names(rules, groups=None):
    """The rules the search checks on a combination of providers
    (``groups``: search.Group list, when ``rules`` was not prepared
    with a plan)."""
    found = []
    shared_room = rules.shared_room if groups is None else \
        planning.share_a_class(planning.slot_amounts(groups))
    if rules.isolate:
        found.append('group_policy=isolate')
    if rules.same_subtrees:
        found.append('same_subtree')
    if not rules.nested_aware:
        found.append('one provider per tree before microversion 1.29')
    if shared_room:
        found.append('the room groups asking one class share')
    if rules.plain_required:
        found.append("the unsuffixed group's required traits")
    return found


def _diagnose(finder, root):
    """Which rule the tree ``root`` breaks: the first whose absence
    lets the search find a candidate there."""
    rules = finder.rules
    tries = []
    if rules.same_subtrees:
        tries.append(('same_subtree', dict(same_subtrees=())))
    if rules.isolate:
        tries.append(('group_policy=isolate', dict(isolate=False)))
    if not rules.nested_aware:
        tries.append(('one provider per tree before microversion 1.29',
                      dict(nested_aware=True)))
    if rules.plain_required:
        tries.append(("the unsuffixed group's required traits",
                      dict(plain=False)))
    for label, change in tries:
        if _finds_without(finder, root, **change):
            return 'no combination of its providers keeps %s' % label
    return 'no combination of its providers has room for every group ' \
        'together while keeping the other rules'


def _finds_without(finder, root, same_subtrees=None, isolate=None,
                   nested_aware=None, plain=True):
    """Whether the tree ``root`` has a candidate under the search's
    rules with one changed: the same slots (the plan the search made),
    walked under the changed rules."""
    rules = finder.rules
    trial = planning.Rules(
        finder.snap, rules.isolate if isolate is None else isolate,
        rules.same_subtrees if same_subtrees is None else same_subtrees,
        rules.nested_aware if nested_aware is None else nested_aware,
        rules.plain_required if plain else [])
    trial.prepare(finder.plan)
    slots = finder.planner.slots(finder.plan, root)
    if not slots or not all(slot.choices for slot in slots):
        return False
    return next(walk.Walk(trial, slots).assignments(), None) is not None


def _names(context, ids):
    """{rp id: (uuid, name)} of the providers ``ids`` that exist."""
    if not ids:
        return {}
    rows = context.session.execute(
        sa.select(_RP.c.id, _RP.c.uuid, _RP.c.name).where(
            _RP.c.id.in_(sorted(ids))))
    return {rp_id: (uuid, name) for rp_id, uuid, name in rows}


def _trivial_rules(resolved, wide, nested_aware):
    """Whether no rule between providers can reject a choice of one
    provider per slot (``planning.Rules``): then every tree the planner
    keeps has a candidate."""
    granular = sum(1 for g in resolved if g.suffix)
    plain = next((g for g in resolved if not g.suffix), None)
    return (nested_aware and
            not (wide.group_policy == 'isolate' and granular > 1) and
            not any(len(s) > 1 for s in wide.same_subtrees) and
            not (plain is not None and plain.required) and
            not planning.share_a_class(planning.slot_amounts(resolved)))


def _trees_with(fleet, found, every):
    """The trees among ``every`` the candidates ``found`` belong to: a
    candidate with a provider that shares nothing belongs to that
    provider's tree; one of sharing providers alone, to every tree they
    all serve."""
    by_uuid = fleet.topo.ids_by_uuid()
    root_of, sharing = fleet.root_of, fleet.sharing
    trees = set()
    for candidate in found:
        rps = [by_uuid.get(uuid) for uuid in candidate.allocations]
        for mapped in candidate.mappings.values():
            rps.extend(by_uuid.get(uuid) for uuid in mapped)
        if None in rps:
            # A provider the copy of the trees no longer has (deleted
            # since the query read them).
            continue
        lone = next((rp_id for rp_id in rps if rp_id not in sharing), None)
        if lone is not None:
            trees.add(root_of[lone])
            continue
        anchors = None
        for rp_id in rps:
            served = set(fleet.anchors(rp_id))
            anchors = served if anchors is None else anchors & served
        trees |= anchors or set()
    return trees & every


def _cheap_combination(expl, fleet, resolved, wide, nested_aware, found):
    """The combination's stages when the query found candidates: the
    trees every group can be served at and, of those, the trees with a
    candidate: all of them when no rule between providers applies,
    else those of the candidates found (at least, when the query
    stopped at its limit)."""
    every = None
    for _suffix, steps_of in expl.groups:
        every = steps_of.trees if every is None else every & steps_of.trees
    every = every or set()
    expl.combination.append(Step('groups', None,
                                 'can serve every request group', None,
                                 len(every)))
    if _trivial_rules(resolved, wide, nested_aware):
        rules, trees = None, len(every)
    else:
        rules = ', '.join(_rule_names(planning.Rules(
            None, wide.group_policy == 'isolate',
            [frozenset(s) for s in wide.same_subtrees], nested_aware,
            next((g.required for g in resolved if not g.suffix), []),
            ), resolved))
        trees = len(_trees_with(fleet, found, every))
        if expl.limit is not None and len(found) >= expl.limit:
            expl.partial = True
    expl.combination.append(Step(
        'search', rules or None, 'has a combination of providers that '
        'keeps every rule', None, trees))


@db_api.reader
def explain(context, groups, wide, limit=None, nested_aware=True):
    """The Explanation of the query ``groups``, ``wide`` (as
    ``request.parse`` gives them) at ``limit``; BadRequest for an
    unknown resource class or trait, as ``candidates.find``.

    The count is the query's own: ``candidates.find`` with its limit,
    without summaries. The groups' steps read the usage of the
    requested classes and the copy of the trees. When the query found
    nothing and no group's step explains it, the record of the query's
    own search says which of the combination's checks left nothing (a
    search is run for it only where the query needed none)."""
    record = {}
    found = candidates_mod.find(context, groups, wide, limit=limit,
                                nested_aware=nested_aware, summaries=False,
                                record=record).allocation_requests
    classes = set()
    for group in groups.values():
        classes.update(group.resources)
    in_trees = {g.in_tree for g in groups.values() if g.in_tree}
    trait_names = request_mod.all_trait_names(groups, wide)
    light = loader.load_usage(context, classes, trait_names, in_trees)
    resolved = candidates_mod.resolve(groups, light.names.classes,
                                      light.names.roots)
    class_names = {rc_id: name for name, rc_id in
                   light.names.classes.items()}
    fleet = steps_mod.Fleet(light, class_names)
    expl = Explanation()
    expl.limit = limit
    expl.candidates = len(found)
    for group in resolved:
        expl.groups.append((group.suffix, steps_mod.GroupSteps(
            fleet, group, wide, groups[group.suffix]).run()))
    finder = record.get('search')
    if found or any(g.blocked for _s, g in expl.groups):
        _cheap_combination(expl, fleet, resolved, wide, nested_aware, found)
    elif finder is not None and finder.first_round_done:
        # The query's own search tried every tree and found nothing:
        # its record says where.
        _combination(expl, finder)
    else:
        min_amounts = {}
        for group in groups.values():
            for name, amount in group.resources.items():
                min_amounts[name] = min(amount,
                                        min_amounts.get(name, amount))
        snap = loader.load(context, min_amounts, trait_names,
                           in_trees=in_trees, any_sharing=True)
        loader.load_trees(context, snap)
        finder = search.Search(
            snap, resolved, class_names,
            isolate=wide.group_policy == 'isolate',
            same_subtrees=wide.same_subtrees,
            root_required=wide.root_required,
            root_forbidden=wide.root_forbidden, nested_aware=nested_aware)
        with candidates_mod.gc_paused():
            _combination(expl, finder)
    named = set()
    for _suffix, steps_of in expl.groups:
        if steps_of.blocked:
            named.update(rp_id for rp_id, _ in steps_of.blocked.examples)
    if expl.combination_blocked:
        named.update(root for root, _ in expl.combination_blocked.examples)
    # (A provider deleted since the search read the trees is no
    # example.)
    expl.names = _names(context, named)
    return expl


def document(expl):
    """The JSON document of an Explanation."""
    def blocked(found, noun):
        if found is None:
            return None
        return {'step': found.index, 'message': found.message,
                'dropped': found.dropped,
                'examples': [{noun: expl.names[rp_id][0],
                              'name': expl.names[rp_id][1],
                              'reason': reason}
                             for rp_id, reason in found.examples
                             if rp_id in expl.names]}

    groups = []
    for suffix, steps_of in expl.groups:
        noun = 'provider'
        if steps_of.blocked is not None and \
                steps_of.steps[steps_of.blocked.index].providers is None:
            noun = 'root_provider'
        groups.append({
            'suffix': suffix,
            'steps': [step.document() for step in steps_of.steps],
            'trees': len(steps_of.trees),
            'blocked_by': blocked(steps_of.blocked, noun)})
    first = None
    for suffix, steps_of in expl.groups:
        if steps_of.blocked is not None:
            first = 'request group %s: %s' % (
                suffix or '(unsuffixed)', steps_of.blocked.message)
            break
    if first is None and expl.combination_blocked is not None:
        first = expl.combination_blocked.message
    combination = [step.document() for step in expl.combination]
    if expl.partial:
        # The query stopped at its limit: more trees may have one.
        combination[-1]['partial'] = True
    return {
        'allocation_candidates': expl.candidates,
        'limit': expl.limit,
        'reason': first,
        'request_groups': groups,
        'combination': {
            'steps': combination,
            'blocked_by': blocked(expl.combination_blocked,
                                  'root_provider')},
    }
