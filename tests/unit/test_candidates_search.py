"""The candidate search, the request parser and the loader's pure
helpers without a database: hand-built Snapshots (one root with eight
one-unit children; two small trees)."""

import gc
import itertools

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from allocsvc.common import exception
from allocsvc.placement import candidates
from allocsvc.placement.candidates import loader
from allocsvc.placement.candidates import request
from allocsvc.placement.candidates import search


def _snapshot(children=8, units=1):
    snap = loader.Snapshot()
    snap.providers[1] = loader.Provider(1, 'rp1', None, 1)
    for rp in range(2, 2 + children):
        snap.providers[rp] = loader.Provider(rp, 'rp%d' % rp, 1, 1)
        snap.inventory[(rp, 7)] = loader.Inventory(units, 0, 1, units, 1)
    return snap


def _groups(count, amount=1):
    return [search.Group(str(i), {7: amount}, [], frozenset(), [],
                         frozenset(), None) for i in range(1, count + 1)]


def _search(snap, groups, **kwargs):
    return search.Search(snap, groups, {7: 'CUSTOM_X'}, **kwargs)


def test_isolate_gives_every_permutation_once():
    found = list(_search(_snapshot(), _groups(4), isolate=True).candidates())
    assert len(found) == 8 * 7 * 6 * 5
    assert len({c.key() for c in found}) == len(found)
    for c in found:
        assert all(e['resources'] == {'CUSTOM_X': 1}
                   for e in c.allocations.values())


def test_lazy_first_candidates_are_cheap():
    gen = _search(_snapshot(), _groups(8), isolate=True).candidates()
    assert len(list(itertools.islice(gen, 10))) == 10


def test_capacity_is_shared_between_groups():
    # Policy none: two groups may use one child only if it has room.
    found = list(_search(_snapshot(children=2), _groups(2)).candidates())
    assert all(len(c.allocations) == 2 for c in found)
    found = list(_search(_snapshot(children=2, units=2),
                         _groups(2)).candidates())
    assert len(found) == 4


def test_pigeonhole_prunes_at_once():
    assert list(_search(_snapshot(), _groups(9), isolate=True)
                .candidates()) == []
    assert list(_search(_snapshot(), _groups(9)).candidates()) == []


def test_same_subtree_needs_an_ancestor():
    snap = _snapshot(children=2)
    groups = _groups(2)
    found = list(_search(snap, groups, isolate=True,
                         same_subtrees=[{'1', '2'}]).candidates())
    assert found == []


def test_has_traits():
    assert search.has_traits({'A', 'B'}, [{'A'}, {'C', 'B'}], {'D'})
    assert not search.has_traits({'A'}, [{'B'}], set())
    assert not search.has_traits({'A', 'D'}, [], {'D'})


def _parse(query, want=(1, 39)):
    items = [tuple(p.split('=', 1)) for p in query.split('&')]
    return request.parse(items, want)


def test_parse_groups_and_wide():
    groups, wide = _parse('resources=VCPU:1&required=in:A,B&required=!C'
                          '&resources_X=DISK_GB:2&member_of_X=in:'
                          '%s,%s&group_policy=none&limit=3'
                          % ('a' * 32, 'b' * 32))
    assert groups[''].required == [frozenset(['A', 'B'])]
    assert groups[''].forbidden == {'C'}
    assert groups['_X'].resources == {'DISK_GB': 2}
    assert wide.limit == 3 and wide.group_policy == 'none'


@pytest.mark.parametrize('query,want,code', [
    ('resources1=VCPU:1&resources2=VCPU:1', (1, 25), None),
    ('resources=VCPU:1&required1=A', (1, 25), None),
    ('resources=VCPU:1&root_required=A&root_required=B', (1, 35),
     exception.QUERYPARAM_DUPLICATE_KEY),
    ('resources_A=VCPU:1&required_B=T', (1, 36),
     exception.QUERYPARAM_BAD_VALUE),
    ('required_B=T&same_subtree=_B', (1, 36),
     exception.QUERYPARAM_MISSING_VALUE),
    ('resources=VCPU:1&required=in:A', (1, 38), None),
    ('resources=VCPU:1&member_of=!%s' % ('a' * 32), (1, 31), None),
])
def test_parse_refusals(query, want, code):
    with pytest.raises(exception.BadRequest) as info:
        _parse(query, want)
    if code:
        assert info.value.error_code == code


def _tree_snapshot():
    """Two roots, each with two children of two units of class 7; the
    children of root 1 have trait A, those of root 4 trait B."""
    snap = loader.Snapshot()
    for root, trait in ((1, 'A'), (4, 'B')):
        snap.providers[root] = loader.Provider(root, 'rp%d' % root, None,
                                               root)
        for rp in (root + 1, root + 2):
            snap.providers[rp] = loader.Provider(rp, 'rp%d' % rp, root, root)
            snap.inventory[(rp, 7)] = loader.Inventory(2, 0, 1, 2, 1)
            snap.traits[rp] = {trait}
    return snap


@pytest.mark.parametrize('kwargs,groups', [
    ({}, [search.Group('', {7: 1}, [frozenset(['B'])], frozenset(), [],
                       frozenset(), None)]),
    ({'isolate': True}, _groups(2)),
    ({}, _groups(3)),
    ({'same_subtrees': [{'1', '2'}]}, _groups(2)),
    ({'nested_aware': False}, _groups(2)),
    ({}, _groups(2, amount=2)),
])
def test_enumeration_and_depth_first_agree(monkeypatch, kwargs, groups):
    # Small anchors are enumerated, large ones searched depth-first: the
    # two must find the same candidates, in the same order.
    found = {}
    for limit in (0, 10 ** 6):
        monkeypatch.setattr(search, '_ENUMERATE_UP_TO', limit)
        found[limit] = list(_search(_tree_snapshot(), groups,
                                    **kwargs).candidates())
    assert found[0], kwargs
    assert [c.key() for c in found[0]] == [c.key() for c in found[10 ** 6]]


def test_unsuffixed_traits_come_from_the_tree():
    group = search.Group('', {7: 1}, [frozenset(['B'])], frozenset(), [],
                         frozenset(), None)
    found = list(_search(_tree_snapshot(), [group]).candidates())
    assert {rp for c in found for rp in c.allocations} == {'rp5', 'rp6'}


def test_trees_to_load_need_every_class():
    # Root 1 offers classes 7 and 8 itself; root 2 only 7, but sharing
    # provider 30 (of root 3) serves it with 8; root 4 only 7.
    classes_of = {1: {7, 8}, 2: {7}, 3: {8}, 4: {7}}
    shared = {30: {8}}
    sharing = {30: (3, {2, 3})}
    assert loader._trees_to_load(classes_of, shared, sharing,
                                 {7, 8}) == {1, 2, 3}
    assert loader._trees_to_load(classes_of, {}, {}, {7, 8}) == {1}


def test_anchors_of_a_sharing_provider():
    snap = loader.Snapshot()
    snap.providers[3] = loader.Provider(3, 'rp3', None, 3)
    snap.providers[5] = loader.Provider(5, 'rp5', None, 5)
    snap.traits[3] = {loader.SHARING_TRAIT}
    snap.sharing_anchors[3] = {3, 1, 2}
    assert snap.anchors(3) == (3, 1, 2)
    assert snap.anchors(5) == (5,)


def test_fully_read_follows_the_aggregate_filter():
    snap = _tree_snapshot()
    assert snap.fully_read(2)
    snap.member_aggs = {'agg'}
    snap.aggregates = {2: {'agg'}, 4: {'agg'}}
    assert snap.fully_read(2)
    assert not snap.fully_read(3)
    # Through its root.
    assert snap.fully_read(5)


def test_member_aggs_only_when_every_group_has_some():
    def group(suffix, resources, member_of):
        return search.Group(suffix, resources, [], frozenset(),
                            [frozenset(s) for s in member_of], frozenset(),
                            None)
    assert candidates._member_aggs([
        group('', {7: 1}, [{'a', 'b'}, {'c'}]),
        group('1', {8: 1}, [{'d'}]),
        group('2', {}, [])]) == {'a', 'b', 'c', 'd'}
    assert candidates._member_aggs([
        group('', {7: 1}, [{'a'}]), group('1', {8: 1}, [])]) is None


def test_gc_paused_nests_and_restores():
    assert gc.isenabled()
    with candidates.gc_paused():
        assert not gc.isenabled()
        with candidates.gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with candidates.gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- lone providers: the flat path against the general search ------------

_FLAT_TRAITS = ('T1', 'T2', 'T3')
_FLAT_AGGS = ('A1', 'A2')


@st.composite
def _flat_worlds(draw):
    """A Snapshot of 0-6 lone roots with inventories of classes 7 and 8
    (some full, some with odd units), traits and aggregates."""
    snap = loader.Snapshot()
    for rp in range(1, draw(st.integers(0, 6)) + 1):
        snap.providers[rp] = loader.Provider(rp, 'rp%d' % rp, None, rp)
        for rc in draw(st.sets(st.sampled_from((7, 8)))):
            total = draw(st.integers(1, 4))
            snap.inventory[(rp, rc)] = loader.Inventory(
                total, draw(st.integers(0, total)), draw(st.integers(1, 2)),
                draw(st.integers(1, 4)), draw(st.integers(1, 2)))
        traits = draw(st.sets(st.sampled_from(_FLAT_TRAITS)))
        if traits:
            snap.traits[rp] = traits
        aggs = draw(st.sets(st.sampled_from(_FLAT_AGGS)))
        if aggs:
            snap.aggregates[rp] = aggs
    return snap


def _any_of(values):
    return st.lists(st.frozensets(st.sampled_from(values), min_size=1),
                    max_size=2)


@given(snap=_flat_worlds(),
       resources=st.dictionaries(st.sampled_from((7, 8)),
                                 st.integers(1, 3), min_size=1),
       required=_any_of(_FLAT_TRAITS),
       forbidden=st.frozensets(st.sampled_from(_FLAT_TRAITS)),
       member_of=_any_of(_FLAT_AGGS),
       bad=st.frozensets(st.sampled_from(_FLAT_AGGS)),
       in_tree=st.one_of(st.none(), st.integers(1, 7)),
       root_required=st.frozensets(st.sampled_from(_FLAT_TRAITS)),
       nested_aware=st.booleans())
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
def test_lone_providers_found_as_the_general_search_finds_them(
        snap, resources, required, forbidden, member_of, bad, in_tree,
        root_required, nested_aware):
    group = search.Group('', resources, required, forbidden, member_of,
                         bad, in_tree)
    kwargs = dict(root_required=root_required, nested_aware=nested_aware)
    names = {7: 'CUSTOM_X', 8: 'CUSTOM_Y'}
    lone = search.Search(snap, [group], names, **kwargs)
    assert lone._lone_group() is group
    general = search.Search(snap, [group], names, **kwargs)
    general._lone_group = lambda: None
    assert ([(c.allocations, c.mappings) for c in lone.candidates()] ==
            [(c.allocations, c.mappings) for c in general.candidates()])


def test_trees_and_sharing_take_the_general_search():
    snap = _snapshot(children=2)
    group = search.Group('', {7: 1}, [], frozenset(), [], frozenset(), None)
    assert _search(snap, [group])._lone_group() is None
    flat = loader.Snapshot()
    flat.providers[1] = loader.Provider(1, 'rp1', None, 1)
    flat.inventory[(1, 7)] = loader.Inventory(1, 0, 1, 1, 1)
    assert _search(flat, [group])._lone_group() is group
    assert _search(flat, _groups(1))._lone_group() is None
    flat.sharing_anchors = {1: {2}}
    assert _search(flat, [group])._lone_group() is None
