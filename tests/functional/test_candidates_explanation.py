"""GET /allocation_candidates/explanation: why a query finds nothing.

For each kind of filter (and each rule of the combination of groups), a
fleet where that filter alone empties the answer, on every database:

- the real query returns nothing, and the explanation says 0;
- the explanation names that filter as the blocking step, in its group
  (or in the combination), with the counts of the steps before it, and
  gives the dropped providers (or trees) with a reason for each;
- the same query without that filter returns candidates, and the
  explanation then says how many, with no blocking step.

Then the API's edges: the microversions and 400s of GET
/allocation_candidates, its policy, the limit, both roots' documents.
Every answer is checked against the explanation's JSON schema.
"""

import uuid as uuidlib

import jsonschema
import pytest

from allocsvc.api.controllers.placement.schemas import \
    allocation_candidate_explanation as explanation_schema
from tests.client import create_provider
from tests.client import ok
from tests.client import placement_request as call

AGG_A = 'aaaaaaaa-1111-4111-8111-000000000001'
AGG_B = 'bbbbbbbb-2222-4222-8222-000000000002'

_VALIDATOR = jsonschema.Draft4Validator(
    explanation_schema.RESPONSE, format_checker=jsonschema.FormatChecker())


def explain(app, query, version='1.39'):
    resp = call(app, 'GET', '/allocation_candidates/explanation?' + query,
                version)
    assert resp.status_int == 200, resp.text
    _VALIDATOR.validate(resp.json)
    return resp.json


def count(app, query, version='1.39'):
    found = ok(call(app, 'GET', '/allocation_candidates?' + query, version))
    return len(found['allocation_requests'])


def blocked_step(found, suffix=None):
    """(step document, blocked_by) of group ``suffix`` (None: the
    combination)."""
    if suffix is None:
        part = found['combination']
    else:
        part = next(g for g in found['request_groups']
                    if g['suffix'] == suffix)
    blocked = part['blocked_by']
    assert blocked is not None, found
    return part['steps'][blocked['step']], blocked


def check(app, query, without, filter, suffix='', version='1.39',
          value=None, reason=None, without_version=None):
    """``query`` finds nothing because of ``filter`` of group ``suffix``
    (None: a stage of the combination); ``without`` (the query without
    it) finds candidates."""
    assert count(app, query, version) == 0
    found = explain(app, query, version)
    assert found['allocation_candidates'] == 0
    assert found['reason'], found
    step, blocked = blocked_step(found, suffix)
    assert step['filter'] == filter, found
    assert step['trees'] == 0
    if value is not None:
        assert step['value'] == value, found
    assert blocked['message'] in found['reason']
    assert blocked['dropped'] >= len(blocked['examples']) >= 1, found
    if reason is not None:
        assert any(reason in e['reason'] for e in blocked['examples']), (
            found)
    steps = (found['combination']['steps'] if suffix is None else
             next(g for g in found['request_groups']
                  if g['suffix'] == suffix)['steps'])
    # Every step before the blocking one left something.
    assert all(s['trees'] > 0 for s in steps[:blocked['step']]), found
    if suffix is not None:
        # The combination does not claim a second blocking step.
        assert found['combination']['blocked_by'] is None
    version = without_version or version
    got = count(app, without, version)
    assert got > 0, without
    again = explain(app, without, version)
    assert again['allocation_candidates'] == got
    assert again['reason'] is None, again
    return found


def custom(app, *names):
    """Create the custom traits and resource classes ``names``."""
    for name in names:
        kind = 'resource_classes' if 'FPGA' in name else 'traits'
        assert call(app, 'PUT', '/%s/%s' % (kind, name),
                    '1.39').status_int in (201, 204)


def compute(app, name='cn1', vcpu=None, traits=(), aggs=(), parent=None,
            **extra):
    inventory = {'VCPU': vcpu or {'total': 8}}
    inventory.update(extra)
    return create_provider(app, name, parent=parent, inventory=inventory,
                           traits=traits, aggs=aggs)


# -- each filter of a group ---------------------------------------------

def test_no_inventory_of_a_class(app):
    compute(app, MEMORY_MB={'total': 2048})
    found = check(app, 'resources=VCPU:1,DISK_GB:10',
                  'resources=VCPU:1', 'resources', value='DISK_GB:10',
                  reason='has no inventory of DISK_GB')
    step, blocked = blocked_step(found, '')
    assert step['description'] == 'has an inventory of DISK_GB'
    assert step['providers'] == 0


def test_not_enough_free(app):
    rp = compute(app)
    ok(call(app, 'PUT', '/allocations/%s' % uuidlib.uuid4(), '1.39', {
        'allocations': {rp: {'resources': {'VCPU': 6}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'}),
        204)
    found = check(app, 'resources=VCPU:4', 'resources=VCPU:2', 'resources',
                  value='VCPU:4',
                  reason='VCPU: 4 requested, 2 free (capacity 8, used 6)')
    assert found['reason'] == ('request group (unsuffixed): no provider '
                               'with an inventory of VCPU also has 4 VCPU '
                               'free')


def test_max_unit(app):
    compute(app, vcpu={'total': 8, 'max_unit': 2})
    check(app, 'resources=VCPU:4', 'resources=VCPU:2', 'resources',
          reason='above its max_unit 2')


def test_step_size(app):
    compute(app, vcpu={'total': 8, 'step_size': 4})
    check(app, 'resources=VCPU:3', 'resources=VCPU:4', 'resources',
          reason='not a multiple of its step_size 4')


def test_required_trait(app):
    compute(app, traits=['HW_CPU_X86_AVX2'])
    found = check(app, 'resources=VCPU:4&required=HW_CPU_X86_AVX512F',
                  'resources=VCPU:4', 'required', value='HW_CPU_X86_AVX512F',
                  reason='has trait HW_CPU_X86_AVX512F')
    assert 'HW_CPU_X86_AVX512F' in found['reason']
    assert 'with 4 VCPU free' in found['reason']


def test_required_trait_of_a_granular_group(app):
    compute(app, traits=['HW_CPU_X86_AVX2'])
    found = check(app, 'resources1=VCPU:1&required1=HW_CPU_X86_AVX512F',
                  'resources1=VCPU:1', 'required', suffix='1',
                  reason='lacks trait HW_CPU_X86_AVX512F')
    assert found['reason'] == (
        'request group 1: no provider with 1 VCPU free also has trait '
        'HW_CPU_X86_AVX512F')


def test_any_of_traits(app):
    compute(app, traits=['HW_CPU_X86_AVX2'])
    custom(app, 'CUSTOM_GOLD', 'CUSTOM_SILVER')
    check(app, 'resources1=VCPU:1&required1=in:CUSTOM_GOLD,CUSTOM_SILVER',
          'resources1=VCPU:1', 'required', suffix='1',
          value='in:CUSTOM_GOLD,CUSTOM_SILVER',
          reason='has none of the traits CUSTOM_GOLD, CUSTOM_SILVER')


def test_forbidden_trait(app):
    compute(app, traits=['HW_CPU_X86_AVX2'])
    check(app, 'resources=VCPU:1&required=!HW_CPU_X86_AVX2',
          'resources=VCPU:1', 'required', value='!HW_CPU_X86_AVX2',
          reason='has the forbidden trait HW_CPU_X86_AVX2')


def test_member_of(app):
    compute(app, aggs=[AGG_A])
    check(app, 'resources=VCPU:1&member_of=%s' % AGG_B, 'resources=VCPU:1',
          'member_of', value=AGG_B,
          reason='neither it nor its root is in the aggregates')


def test_forbidden_aggregate(app):
    compute(app, aggs=[AGG_A])
    check(app, 'resources1=VCPU:1&member_of1=!%s' % AGG_A,
          'resources1=VCPU:1', 'member_of', suffix='1',
          reason='is in the forbidden aggregate %s' % AGG_A)


def test_in_tree(app):
    compute(app)
    other = create_provider(app, 'empty-root')
    check(app, 'resources=VCPU:1&in_tree=%s' % other, 'resources=VCPU:1',
          'in_tree', value=other, reason='its tree is that of')


def test_root_required(app):
    compute(app, traits=['HW_CPU_X86_AVX2'])
    custom(app, 'CUSTOM_BLESSED')
    check(app, 'resources=VCPU:1&root_required=CUSTOM_BLESSED',
          'resources=VCPU:1', 'root_required',
          reason='lacks the trait CUSTOM_BLESSED')


def test_root_forbidden(app):
    compute(app, traits=['COMPUTE_STATUS_DISABLED'])
    check(app, 'resources=VCPU:1&root_required=!COMPUTE_STATUS_DISABLED',
          'resources=VCPU:1', 'root_required',
          reason='has the forbidden trait COMPUTE_STATUS_DISABLED')


def test_unsuffixed_traits_among_the_tree(app):
    root = compute(app, vcpu={'total': 8}, traits=['HW_CPU_X86_AVX2'])
    create_provider(app, 'disk', parent=root,
                    inventory={'DISK_GB': {'total': 100}})
    custom(app, 'CUSTOM_GOLD')
    # The tree's providers between them have the trait: it fits.
    assert count(app, 'resources=VCPU:1,DISK_GB:10&'
                      'required=HW_CPU_X86_AVX2') == 1
    found = check(app, 'resources=VCPU:1,DISK_GB:10&required=CUSTOM_GOLD',
                  'resources=VCPU:1,DISK_GB:10', 'required',
                  reason='has trait CUSTOM_GOLD')
    step, blocked = blocked_step(found, '')
    assert blocked['examples'][0]['root_provider'] == root


# -- the combination of groups ----------------------------------------------

def test_no_tree_serves_every_group(app):
    compute(app, name='cpu-only')
    custom(app, 'CUSTOM_FPGA')
    create_provider(app, 'fpga-only',
                    inventory={'CUSTOM_FPGA': {'total': 1}})
    found = check(app, 'resources1=VCPU:1&resources2=CUSTOM_FPGA:1&'
                       'group_policy=none',
                  'resources1=VCPU:1&group_policy=none', 'groups',
                  suffix=None, reason='serves group')
    assert [g['trees'] for g in found['request_groups']] == [1, 1]


def test_isolate_without_enough_providers(app):
    compute(app)
    check(app, 'resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate',
          'resources1=VCPU:1&resources2=VCPU:1&group_policy=none',
          'group_policy', suffix=None)


def test_same_subtree(app):
    root = create_provider(app, 'root')
    compute(app, name='numa0', parent=root)
    custom(app, 'CUSTOM_FPGA')
    create_provider(app, 'fpga', parent=root,
                    inventory={'CUSTOM_FPGA': {'total': 1}})
    found = check(
        app, 'resources_A=VCPU:1&resources_B=CUSTOM_FPGA:1&'
             'group_policy=none&same_subtree=_A,_B',
        'resources_A=VCPU:1&resources_B=CUSTOM_FPGA:1&group_policy=none',
        'search', suffix=None, reason='keeps same_subtree')
    assert found['combination']['steps'][-1]['value'] == 'same_subtree'


def test_room_shared_between_groups(app):
    compute(app, vcpu={'total': 4})
    check(app, 'resources1=VCPU:3&resources2=VCPU:3&group_policy=none',
          'resources1=VCPU:3&resources2=VCPU:1&group_policy=none',
          'search', suffix=None, reason='has room for every group')


def test_one_provider_per_tree_before_1_29(app):
    root = create_provider(app, 'root', inventory={
        'MEMORY_MB': {'total': 2048}})
    compute(app, name='numa0', parent=root)
    check(app, 'resources=VCPU:1,MEMORY_MB:10',
          'resources=VCPU:1,MEMORY_MB:10', 'search', suffix=None,
          version='1.28', without_version='1.29',
          reason='one provider per tree before microversion 1.29')


# -- counts ----------------------------------------------------------------

def test_counts_follow_the_steps_and_the_limit(app):
    for n in range(5):
        compute(app, name='cn%d' % n,
                traits=['HW_CPU_X86_AVX2'] if n % 2 else [],
                aggs=[AGG_A] if n < 4 else [])
    query = 'resources=VCPU:1&required=HW_CPU_X86_AVX2&member_of=%s' % AGG_A
    found = explain(app, query)
    group = found['request_groups'][0]
    # The unsuffixed group's traits are a rule on trees: 2 of the 4
    # trees left have a provider with the trait.
    assert [(s['filter'], s.get('providers'), s['trees'])
            for s in group['steps']] == [
        ('resources', 5, 5), ('resources', 5, 5), ('member_of', 4, 4),
        ('required', None, 2)]
    assert found['combination']['steps'][0]['trees'] == 2
    assert found['allocation_candidates'] == count(app, query) == 2
    limited = explain(app, query + '&limit=1')
    assert limited['limit'] == 1
    assert limited['allocation_candidates'] == 1
    assert limited['reason'] is None


def test_a_tree_with_sharing_storage(app):
    cn = compute(app, aggs=[AGG_A])
    create_provider(app, 'shared-disk', inventory={
        'DISK_GB': {'total': 100}}, traits=['MISC_SHARES_VIA_AGGREGATE'],
        aggs=[AGG_A])
    query = 'resources=VCPU:1,DISK_GB:10'
    found = explain(app, query)
    assert found['allocation_candidates'] == count(app, query) == 1
    disk = found['request_groups'][0]['steps'][2]
    # The trees that can have both classes: the compute node's.
    assert (disk['providers'], disk['trees']) == (1, 1)
    # The sharing provider alone serves its own tree and the compute
    # node's.
    disk = explain(app, 'resources=DISK_GB:10')['request_groups'][0][
        'steps'][1]
    assert (disk['providers'], disk['trees']) == (1, 2)
    found = explain(app, 'resources=VCPU:1,DISK_GB:200')
    assert found['allocation_candidates'] == 0
    assert 'DISK_GB' in found['reason']
    assert cn not in str(found['request_groups'][0]['blocked_by'])


# -- the API --------------------------------------------------------------

def test_versions_and_errors_are_those_of_the_query(app):
    compute(app)
    for query, version in (('resources=VCPU:1', '1.9'),
                           ('resources=CUSTOM_NOPE:1', '1.39'),
                           ('resources=VCPU:0', '1.39'),
                           ('resources=VCPU:1&limit=0', '1.39'),
                           ('resources1=VCPU:1&resources2=VCPU:1', '1.39'),
                           ('resources=VCPU:1&required=!in:A,B', '1.38'),
                           ('bogus=1', '1.39'), ('', '1.39'),
                           ('resources=VCPU:1&root_required=X', '1.34')):
        real = call(app, 'GET', '/allocation_candidates?' + query, version)
        got = call(app, 'GET',
                   '/allocation_candidates/explanation?' + query, version)
        assert real.status_int >= 400, query
        assert got.status_int == real.status_int, (query, got.text)
        if real.status_int == 400:
            assert got.json['errors'][0]['detail'] == \
                real.json['errors'][0]['detail']
            assert got.json['errors'][0]['code'] == \
                real.json['errors'][0]['code']


def test_only_get(app):
    resp = call(app, 'POST', '/allocation_candidates/explanation', '1.39',
                {})
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'GET'


def test_policy_is_the_candidates_one(app):
    headers = {'X-Auth-Token': 'alice:project-a'}
    resp = call(app, 'GET', '/allocation_candidates/explanation?'
                'resources=VCPU:1', '1.39', headers=headers)
    assert resp.status_int == 403
    assert 'placement:allocation_candidates:explain' in \
        resp.json['errors'][0]['detail']
    resp = call(app, 'GET', '/allocation_candidates/explanation?'
                'resources=VCPU:1', '1.39',
                headers={'X-Auth-Token': 'nova:svc', 'X-Roles': 'service'})
    assert resp.status_int == 200


@pytest.mark.parametrize('prefix', ['', '/placement'])
def test_root_documents_list_it(prefix, database):
    from tests.helpers import apps
    app = apps.whole() if prefix else apps.placement()
    doc = ok(call(app, 'GET', prefix + '/'))
    assert doc['versions'][0]['max_version'] == '1.39'
    assert [e['name'] for e in doc['extensions']] == [
        'allocation_candidates_explanation', 'allocation_candidates_claim',
        'reservations', 'reservations_availability']
    (found,) = [e for e in doc['extensions']
                if e['name'] == 'allocation_candidates_explanation']
    assert found['href'] == 'http://localhost%s/allocation_candidates/' \
        'explanation' % prefix
    assert found['methods'] == ['GET']
    path = found['href'][len('http://localhost'):]
    resp = call(app, 'GET', path + '?resources=VCPU:1')
    assert resp.status_int == 200
    assert resp.json['allocation_candidates'] == 0
