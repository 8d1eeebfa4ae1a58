"""The parsed form of a GET /allocation_candidates query.

``parse(items, want)`` turns the query string (a list of (key, value)
pairs, in order) into request groups and request-wide parameters, with
the 400s and messages Placement gives. Nothing here touches the database
or HTTP: the handler validates the query against its JSON schema first,
and the engine resolves names afterwards.

A ``RequestGroup`` with the empty suffix may spread its resources over a
tree and the providers sharing with it; a suffixed (granular) group is
satisfied by one provider.
"""

import re

from allocsvc.common import exception
from allocsvc.placement import query

# Group suffixes: a number before microversion 1.33, then 1-64 characters.
SUFFIX_1_25 = r'[1-9][0-9]*'
SUFFIX_1_33 = r'[a-zA-Z0-9_-]{1,64}'
_PREFIXES = ('resources', 'required', 'member_of', 'in_tree')

# From 1.36 a suffixed group may have no resources when it is named in
# same_subtree.
SAME_SUBTREE_VERSION = (1, 36)


class RequestGroup:
    """One group of a request.

    ``resources`` {class name: amount}; ``required`` a list of trait name
    sets, each needing one trait at least; ``forbidden`` trait names;
    ``member_of`` a list of aggregate uuid sets, each needing one at least;
    ``forbidden_aggs`` aggregate uuids; ``in_tree`` a provider uuid.
    """

    __slots__ = ('suffix', 'resources', 'required', 'forbidden',
                 'member_of', 'forbidden_aggs', 'in_tree')

    def __init__(self, suffix):
        self.suffix = suffix
        self.resources = {}
        self.required = []
        self.forbidden = set()
        self.member_of = []
        self.forbidden_aggs = set()
        self.in_tree = None

    @property
    def use_same_provider(self):
        return bool(self.suffix)


class RequestWide:
    """Parameters about the request as a whole."""

    __slots__ = ('limit', 'group_policy', 'root_required', 'root_forbidden',
                 'same_subtrees')

    def __init__(self):
        self.limit = None
        self.group_policy = None
        self.root_required = set()
        self.root_forbidden = set()
        self.same_subtrees = []


def _key_pattern(want):
    suffix = SUFFIX_1_33 if want >= (1, 33) else SUFFIX_1_25
    if want < (1, 25):
        suffix = '(?!)'
    return re.compile(r'^(%s)(%s)?\Z' % ('|'.join(_PREFIXES), suffix))


def _values(items, key):
    return [v for k, v in items if k == key]


def _group_values(items, want):
    """[(prefix, suffix, [values, in order])] of the group parameters of
    ``items``, in the order of their first appearance, gathered in one
    pass (looking each key up again in the whole query would cost its
    length squared)."""
    pattern = _key_pattern(want)
    found = {}
    for key, value in items:
        values = found.get(key)
        if values is not None:
            values[2].append(value)
            continue
        match = pattern.match(key)
        if match:
            found[key] = (match.group(1), match.group(2) or '', [value])
    return list(found.values())


def _parse_groups(items, want, limits):
    params = _group_values(items, want)
    query.check_count(limits.groups, len({p[1] for p in params}),
                      'request groups')
    groups = {}
    for prefix, suffix, values in params:
        group = groups.get(suffix)
        if group is None:
            group = groups[suffix] = RequestGroup(suffix)
        if prefix == 'resources':
            group.resources = query.parse_resources(values[-1])
        elif prefix == 'required':
            group.required, group.forbidden = query.parse_required(
                values, want, limits, suffix)
        elif prefix == 'member_of':
            group.member_of, group.forbidden_aggs = query.parse_member_of(
                values, want, suffix, limits)
        else:
            group.in_tree = query.parse_in_tree(values[-1])
    return groups


def _check_orphans(groups):
    """Before 1.36 every group needs resources."""
    orphans = ['required%s' % s for s, g in groups.items()
               if (g.required or g.forbidden) and not g.resources]
    if orphans:
        raise exception.BadRequest(
            'All traits parameters must be associated with resources.  '
            'Found the following orphaned traits keys: %s'
            % ', '.join(orphans))
    orphans = ['member_of%s' % s for s, g in groups.items()
               if (g.member_of or g.forbidden_aggs) and not g.resources]
    if orphans:
        raise exception.BadRequest(
            'All member_of parameters must be associated with resources. '
            'Found the following orphaned member_of keys: %s'
            % ', '.join(orphans))
    if not all(g.resources for g in groups.values()):
        raise exception.BadRequest(
            'All request groups must specify resources.')
    if not groups:
        raise exception.BadRequest(
            'At least one request group (`resources` or `resources{$S}`) '
            'is required.')


def _check_resourceless(groups, same_subtrees):
    """From 1.36 a group without resources must be named in same_subtree."""
    resourceless = sorted(s for s, g in groups.items() if not g.resources)
    if len(resourceless) == len(groups):
        raise exception.BadRequest(
            'There must be at least one resources or resources[$S] '
            'parameter.', error_code=exception.QUERYPARAM_MISSING_VALUE)
    named = set().union(*same_subtrees)
    bad = [s for s in resourceless if s not in named]
    if bad:
        raise exception.BadRequest(
            'Resourceless suffixed group request should be specified in '
            '`same_subtree` query param: bad group(s) - %s.' % bad,
            error_code=exception.QUERYPARAM_BAD_VALUE)
    unknown = sorted(s for s in named if s not in groups)
    if unknown:
        raise exception.BadRequest(
            'Real suffixes should be specified in `same_subtree`: %s not '
            'found in %s.' % (unknown, sorted(groups)),
            error_code=exception.QUERYPARAM_BAD_VALUE)


def _check_conflicts(groups):
    conflicts = []
    for suffix, group in sorted(groups.items()):
        for any_of in group.required:
            if any_of <= group.forbidden:
                conflicts.append('required%s: (%s)'
                                 % (suffix, ', '.join(sorted(any_of))))
    if conflicts:
        raise exception.BadRequest(
            'Conflicting required and forbidden traits found in the '
            'following traits keys: %s' % ', '.join(sorted(conflicts)))


def _parse_wide(items, want, limits):
    wide = RequestWide()
    limit = _values(items, 'limit')
    if limit:
        # The schema has checked it is a positive integer.
        wide.limit = int(limit[0])
    policy = _values(items, 'group_policy')
    if policy:
        wide.group_policy = policy[0]
    root_required = _values(items, 'root_required')
    if root_required:
        if len(root_required) > 1:
            raise exception.BadRequest(
                "Query parameter 'root_required' may be specified only "
                "once.", error_code=exception.QUERYPARAM_DUPLICATE_KEY)
        # root_required has no any-of form.
        query.check_count(limits.required_traits,
                          root_required[0].count(',') + 1,
                          "traits in 'root_required'")
        required, forbidden = query.parse_traits(
            root_required[0], allow_forbidden=True, allow_any_of=False)
        names = {n for any_of in required for n in any_of}
        conflicts = names & forbidden
        if conflicts:
            raise exception.BadRequest(
                'Conflicting required and forbidden traits found in '
                'root_required: %s' % ', '.join(sorted(conflicts)),
                error_code=exception.QUERYPARAM_BAD_VALUE)
        wide.root_required, wide.root_forbidden = names, forbidden
    same_subtrees = _values(items, 'same_subtree')
    query.check_count(limits.groups, len(same_subtrees),
                      "'same_subtree' parameters")
    for value in same_subtrees:
        suffixes = {s.strip() for s in value.split(',')}
        if '' in suffixes:
            raise exception.BadRequest(
                'Empty string (unsuffixed group) can not be specified in '
                '`same_subtree` ', error_code=exception.QUERYPARAM_BAD_VALUE)
        wide.same_subtrees.append(suffixes)
    return wide


def parse(items, want, limits=query.NO_LIMITS):
    """(groups {suffix: RequestGroup}, RequestWide) from the query
    ``items`` at microversion ``want``; BadRequest for what Placement
    refuses, and for a query naming more than ``limits`` allow."""
    wide = _parse_wide(items, want, limits)
    groups = _parse_groups(items, want, limits)
    if want >= SAME_SUBTREE_VERSION:
        _check_resourceless(groups, wide.same_subtrees)
    else:
        _check_orphans(groups)
    if want >= (1, 22):
        _check_conflicts(groups)
    if not wide.group_policy:
        if sum(1 for g in groups.values() if g.use_same_provider) > 1:
            raise exception.BadRequest(
                'The "group_policy" parameter is required when specifying '
                'more than one "resources{N}" parameter.')
    return groups, wide


def all_trait_names(groups, wide):
    names = set(wide.root_required) | set(wide.root_forbidden)
    for group in groups.values():
        names |= query.all_trait_names(group.required, group.forbidden)
    return names
