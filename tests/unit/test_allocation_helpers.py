"""Pure helpers of the allocation write path: schema choice per
microversion and which providers a write (or a reshape) bumps, and by
how much."""

import jsonschema

from allocsvc.api.controllers.placement.schemas import allocation as schema
from allocsvc.api.controllers.placement.schemas import reshaper
from allocsvc.placement import allocations
from allocsvc.placement import reshaper as reshaper_mod


def test_put_schema_per_version():
    assert schema.put_schema((1, 0)) is schema.PUT_1_0
    assert schema.put_schema((1, 7)) is schema.PUT_1_0
    assert schema.put_schema((1, 8)) is schema.PUT_1_8
    assert schema.put_schema((1, 12)) is schema.PUT_1_12
    assert schema.put_schema((1, 27)) is schema.PUT_1_12
    assert schema.put_schema((1, 28)) is schema.PUT_1_28
    assert schema.put_schema((1, 34)) is schema.PUT_1_34
    assert schema.put_schema((1, 38)) is schema.PUT_1_38
    assert schema.put_schema((1, 39)) is schema.PUT_1_38


def test_post_schema_per_version():
    assert schema.post_schema((1, 13)) is schema.POST_1_13
    assert schema.post_schema((1, 28)) is schema.POST_1_28
    assert schema.post_schema((1, 34)) is schema.POST_1_34
    assert schema.post_schema((1, 39)) is schema.POST_1_38
    assert reshaper.post_schema((1, 30)) is reshaper.POST_1_30
    assert reshaper.post_schema((1, 38)) is reshaper.POST_1_38


def _valid(data, sch):
    try:
        jsonschema.validate(data, sch)
    except jsonschema.ValidationError:
        return False
    return True


def test_empty_allocations_only_from_1_28_in_put():
    body = {'allocations': {}, 'project_id': 'p', 'user_id': 'u'}
    assert not _valid(body, schema.PUT_1_12)
    assert _valid(dict(body, consumer_generation=None), schema.PUT_1_28)
    assert not _valid(body, schema.PUT_1_28)


def test_post_allows_empty_allocations_but_not_an_empty_body():
    consumer = {'allocations': {}, 'project_id': 'p', 'user_id': 'u'}
    assert _valid({'0' * 36: consumer}, schema.POST_1_13)
    assert not _valid({}, schema.POST_1_13)


def _plan(requests, providers, old):
    return allocations.Plan(requests, providers, {}, {}, old)


def test_touched_providers():
    moving = allocations.ConsumerAllocations(
        'c1', 'p', 'u', {'rp-b': {'VCPU': 1}})
    emptied = allocations.ConsumerAllocations('c2', 'p', 'u', {})
    plan = _plan([moving, emptied], {'rp-b': (2, 5), 'rp-c': (3, 0)},
                 {'c1': [(1, 10, 1)], 'c2': [(3, 10, 2)]})
    # The consumer moving away from provider 1 bumps only its new
    # provider; the emptied consumer bumps the providers it leaves.
    assert plan.touched_provider_ids() == {2, 3}
    assert plan.lock_targets() == {2: ('rp-b', 5), 3: ('rp-c', 0)}


def test_reshape_steps_follow_placement():
    moving = allocations.ConsumerAllocations(
        'c1', 'p', 'u', {'rp-b': {'VCPU': 1}, 'rp-d': {'DISK_GB': 1}})
    alloc_plan = _plan([moving], {'rp-b': (2, 5), 'rp-d': (4, 1)},
                       {'c1': [(1, 10, 1)]})
    inventory_providers = {'rp-a': (1, 7), 'rp-b': (2, 5), 'rp-c': (3, 0)}
    wanted = {'rp-a': {}, 'rp-b': {10: object()}, 'rp-c': {11: object()}}
    plan = reshaper_mod._Plan(alloc_plan, inventory_providers, wanted)
    assert plan.steps() == {
        1: 1,  # emptied inventory, allocations moved away: final write
        2: 3,  # interim and final inventory writes, allocations written
        3: 2,  # interim and final inventory writes
        4: 1,  # only allocated from
    }
    assert set(plan.lock_targets()) == set(plan.steps())
