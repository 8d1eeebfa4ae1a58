"""Pure helpers of the inventory and aggregate engines."""

import struct

import pytest

from allocsvc.common import exception
from allocsvc.placement import aggregates
from allocsvc.placement import inventories


def _as_float32(value):
    return struct.unpack('<f', struct.pack('<f', value))[0]


@pytest.mark.parametrize('written', [1.0, 1.1, 0.1, 1.5, 16.0, 3.3333,
                                     1e-5, 123456.7, 3.40282e38])
def test_shortest_float32_gives_back_what_was_written(written):
    assert inventories.shortest_float32(_as_float32(written)) == written


def test_shortest_float32_keeps_float32_value():
    stored = _as_float32(0.123456789)
    shown = inventories.shortest_float32(stored)
    assert _as_float32(shown) == stored
    assert len(repr(shown)) < len(repr(stored))


def test_inventory_defaults_and_types():
    inv = inventories.Inventory.from_request(
        'VCPU', {'total': 8.0, 'allocation_ratio': 2,
                 'resource_provider_generation': 3})
    assert inv.values() == {
        'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 2147483647,
        'step_size': 1, 'allocation_ratio': 2.0}
    assert isinstance(inv.total, int)
    assert isinstance(inv.allocation_ratio, float)


@pytest.mark.parametrize('total,reserved,ratio,capacity', [
    (8, 0, 16.0, 128), (8, 8, 16.0, 0), (10, 9, 0.5, 0), (8, 9, 1.0, -1),
    (8, 1, 1.5, 10)])
def test_capacity(total, reserved, ratio, capacity):
    inv = inventories.Inventory('VCPU', total, reserved=reserved,
                                allocation_ratio=ratio)
    assert inv.capacity == capacity


def test_check_capacity_before_1_26():
    full = inventories.Inventory('VCPU', 8, reserved=8)
    with pytest.raises(exception.BadRequest, match='only from microversion'):
        inventories.check_capacity('rp', [full], False)
    # A capacity rounded down to 0 is refused too, as in Placement.
    tiny = inventories.Inventory('VCPU', 10, reserved=9, allocation_ratio=.5)
    with pytest.raises(exception.BadRequest):
        inventories.check_capacity('rp', [tiny], False)
    inventories.check_capacity(
        'rp', [inventories.Inventory('VCPU', 8, reserved=7)], False)


def test_check_capacity_from_1_26():
    inventories.check_capacity(
        'rp', [inventories.Inventory('VCPU', 8, reserved=8)], True)
    over = inventories.Inventory('DISK_GB', 8, reserved=9)
    with pytest.raises(exception.BadRequest,
                       match=r'DISK_GB on resource provider rp.*\(9\) is '
                             r'greater than total \(8\)'):
        inventories.check_capacity('rp', [over], True)


def test_match_stored_prefers_exact_then_folds_case():
    stored = {1: 'abc', 2: 'ABD'}
    assert aggregates.match_stored(['abc', 'ABC', 'abd', 'xyz'], stored) == {
        'abc': 1, 'ABC': 1, 'abd': 2}
    # Two rows differing in case (possible where the collation is exact).
    assert aggregates.match_stored(['ABC', 'abc'], {1: 'abc', 2: 'ABC'}) == {
        'abc': 1, 'ABC': 2}
