"""The candidate search and request parser without a database: a
hand-built Snapshot of one root with eight one-unit children."""

import itertools

import pytest

from allocsvc.common import exception
from allocsvc.placement.candidates import loader
from allocsvc.placement.candidates import request
from allocsvc.placement.candidates import search


class _Row:
    def __init__(self, id, parent=None, root=None):
        self.id = id
        self.uuid = 'rp%d' % id
        self.parent_provider_id = parent
        self.root_provider_id = root or id


def _snapshot(children=8, units=1):
    snap = loader.Snapshot()
    snap.providers[1] = loader.Provider(_Row(1))
    for rp in range(2, 2 + children):
        snap.providers[rp] = loader.Provider(_Row(rp, parent=1, root=1))
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
        assert info.value.code == code
