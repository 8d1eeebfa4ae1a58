"""Long filter lists in GET /resource_providers, /allocation_candidates
and /traits: what ``[placement] max_member_of``, ``max_required_traits``,
``max_request_groups`` and ``max_in_items`` refuse, with Placement's
error document, and that a request at a limit gets the right answer
(repeated member_of and required AND, in: lists OR, ! forbids).

World (small limits: 3 member_of, 3 in: items, 4 traits, 3 groups):

    p1  aggregates A B C  traits T1 T2 T3
    p2  aggregates A B    traits T1 T2
    p3  aggregate  C      trait  T3
    p4  aggregate  D      no trait

The last test sends requests as large as the default limits allow and
checks they are answered.
"""

import uuid

import pytest

from tests.client import ok
from tests.client import placement_request as call
from tests import conftest
from tests.helpers import apps

A, B, C, D = ('aaaaaaaa-0000-4000-8000-00000000000%d' % i
              for i in range(1, 5))
T1, T2, T3 = 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE'
SMALL = {'max_member_of': 3, 'max_in_items': 3, 'max_required_traits': 4,
         'max_request_groups': 3}


def _app(**limits):
    conf = conftest.make_conf()
    for name, value in limits.items():
        conf.set_override(name, value, group='placement')
    return apps.placement(conf)


def _provider(app, name, aggs=(), traits=(), vcpu=8):
    rp = ok(call(app, 'POST', '/resource_providers', '1.39',
                 {'name': name}))['uuid']
    gen = ok(call(app, 'PUT', '/resource_providers/%s/inventories' % rp,
                  '1.39', {'resource_provider_generation': 0,
                           'inventories': {'VCPU': {'total': vcpu}}})
             )['resource_provider_generation']
    if aggs:
        gen = ok(call(app, 'PUT', '/resource_providers/%s/aggregates' % rp,
                      '1.39', {'resource_provider_generation': gen,
                               'aggregates': list(aggs)})
                 )['resource_provider_generation']
    if traits:
        ok(call(app, 'PUT', '/resource_providers/%s/traits' % rp, '1.39',
                {'resource_provider_generation': gen,
                 'traits': list(traits)}))
    return rp


def _names(app, query):
    body = ok(call(app, 'GET', '/resource_providers?' + query, '1.39'))
    return sorted(rp['name'] for rp in body['resource_providers'])


def _refused(app, path, detail, version='1.39'):
    resp = call(app, 'GET', path, version)
    assert resp.status_int == 400, resp.body
    error = resp.json['errors'][0]
    assert error['status'] == 400
    assert error['title'] == 'Bad Request'
    assert error['code'] == 'placement.query.bad_value'
    assert error['request_id']
    # Placement's detail is webob's explanation, then the message.
    assert error['detail'].endswith(
        ' Invalid query string parameters: Expected at most %s.  ' % detail)


def test_over_the_limits_is_400(database):
    app = _app(**SMALL)
    rps = '/resource_providers?'
    acs = '/allocation_candidates?resources=VCPU:1&'
    four = '&'.join('member_of=%s' % agg for agg in (A, B, C, D))
    _refused(app, rps + four, "3 'member_of' parameters. Got: 4")
    _refused(app, acs + four, "3 'member_of' parameters. Got: 4")
    _refused(app, acs.replace('resources', 'resources_X') +
             four.replace('member_of', 'member_of_X') + '&group_policy=none',
             "3 'member_of_X' parameters. Got: 4")
    # Repeating the same aggregate counts too.
    _refused(app, rps + '&'.join(['member_of=%s' % A] * 4),
             "3 'member_of' parameters. Got: 4")
    in_list = 'member_of=in:%s,%s,%s,%s' % (A, B, C, D)
    _refused(app, rps + in_list,
             "3 items in an 'in:' list of 'member_of'. Got: 4")
    _refused(app, rps + 'member_of=!in:%s,%s,%s,%s' % (A, B, C, D),
             "3 items in an 'in:' list of 'member_of'. Got: 4")
    _refused(app, acs + in_list,
             "3 items in an 'in:' list of 'member_of'. Got: 4")
    five = 'required=%s,!%s&required=in:%s,%s&required=%s' % (
        T1, T2, T3, T1, T2)
    _refused(app, rps + five, "4 traits in 'required'. Got: 5")
    _refused(app, acs + five, "4 traits in 'required'. Got: 5")
    _refused(app, rps + 'required=in:%s,%s,%s,%s' % (T1, T2, T3, T1),
             "3 items in an 'in:' list of 'required'. Got: 4")
    _refused(app, acs + 'root_required=%s,%s,%s,!%s,!%s' % (
        T1, T2, T3, 'HW_CPU_X86_SSE2', 'HW_CPU_X86_SSE3'),
        "4 traits in 'root_required'. Got: 5")
    groups = '&'.join('resources%d=VCPU:1' % i for i in range(1, 4))
    _refused(app, acs + groups + '&group_policy=none',
             '3 request groups. Got: 4')
    _refused(app, acs + 'resources1=VCPU:1&group_policy=none&' +
             '&'.join(['same_subtree=1'] * 4),
             "3 'same_subtree' parameters. Got: 4")
    _refused(app, '/traits?name=in:%s,%s,%s,%s' % (T1, T2, T3, T1),
             "3 items in an 'in:' list of 'name'. Got: 4")
    # Nothing was written, nothing is listed.
    assert _names(app, '') == []


def test_at_the_limits_the_answer_is_right(database):
    app = _app(**SMALL)
    rps = {_provider(app, 'p1', (A, B, C), (T1, T2, T3)): 'p1',
           _provider(app, 'p2', (A, B), (T1, T2)): 'p2',
           _provider(app, 'p3', (C,), (T3,)): 'p3',
           _provider(app, 'p4', (D,)): 'p4'}
    # Repeated member_of: in one of each (AND); in: one of the list (OR).
    assert _names(app, 'member_of=%s&member_of=%s&member_of=%s'
                  % (A, B, C)) == ['p1']
    assert _names(app, 'member_of=%s&member_of=%s&member_of=%s'
                  % (A, A, B)) == ['p1', 'p2']
    assert _names(app, 'member_of=in:%s,%s' % (B, C)) == ['p1', 'p2', 'p3']
    assert _names(app, 'member_of=in:%s,%s,%s' % (B, C, D)) == [
        'p1', 'p2', 'p3', 'p4']
    assert _names(app, 'member_of=in:%s,%s&member_of=in:%s,%s'
                  % (B, C, A, D)) == ['p1', 'p2']
    assert _names(app, 'member_of=!in:%s,%s&member_of=in:%s,%s,%s'
                  % (A, D, B, C, D)) == ['p3']
    assert _names(app, 'member_of=!%s&member_of=!%s&member_of=!%s'
                  % (A, C, D)) == []
    # Repeated required (1.39): every one (AND); in: one of them (OR).
    assert _names(app, 'required=%s&required=%s&required=in:%s,%s'
                  % (T1, T2, T3, T1)) == ['p1', 'p2']
    assert _names(app, 'required=%s,%s,%s' % (T1, T2, T3)) == ['p1']
    assert _names(app, 'required=%s,!%s' % (T1, T3)) == ['p2']
    assert _names(app, 'required=in:%s,%s,%s' % (T1, T2, T3)) == [
        'p1', 'p2', 'p3']
    assert _names(app, 'required=!%s,!%s&member_of=in:%s,%s'
                  % (T1, T3, C, D)) == ['p4']
    assert _names(app, 'required=%s&member_of=%s&member_of=!%s'
                  % (T3, C, A)) == ['p3']
    # Before 1.39 only the last required counts.
    body = ok(call(app, 'GET', '/resource_providers?required=%s&required=%s'
                   % (T1, T3), '1.38'))
    assert sorted(rp['name'] for rp in body['resource_providers']) == [
        'p1', 'p3']
    # Three groups, each on a provider in its aggregates with its traits:
    # only p1 serves them all.
    body = ok(call(
        app, 'GET', '/allocation_candidates?resources=VCPU:1'
        '&member_of=in:%s,%s&resources1=VCPU:1&member_of1=%s'
        '&member_of1=%s&resources2=VCPU:1&required2=%s&required2=in:%s,%s'
        '&member_of2=!%s&group_policy=none' % (B, D, A, C, T3, T1, T2, D),
        '1.39'))
    found = [{rps[rp]: res['resources'] for rp, res in
              candidate['allocations'].items()}
             for candidate in body['allocation_requests']]
    assert found == [{'p1': {'VCPU': 3}}]
    body = ok(call(
        app, 'GET', '/allocation_candidates?resources1=VCPU:1'
        '&member_of1=in:%s,%s,%s&required1=!%s&resources2=VCPU:1'
        '&required2=%s&group_policy=isolate' % (B, C, D, T1, T3), '1.39'))
    found = sorted(sorted((rps[rp], res['resources']['VCPU']) for rp, res in
                          candidate['allocations'].items())
                   for candidate in body['allocation_requests'])
    # Separate trees cannot share a candidate: group 1 only on p3 or
    # p4, group 2 only on p1 or p3, one provider each, never the same.
    assert found == []
    traits = ok(call(app, 'GET', '/traits?name=in:%s,%s,%s'
                     % (T1, T3, 'CUSTOM_NONE'), '1.39'))['traits']
    assert sorted(traits) == sorted([T1, T3])


def test_the_largest_allowed_requests_are_answered(database):
    """As many member_of, traits, in: items and groups as the default
    limits allow (no timing asserted: they must simply come back)."""
    app = _app()
    conf = conftest.make_conf().placement
    standard = ok(call(app, 'GET', '/traits', '1.39'))['traits']
    traits = sorted(standard)[:conf.max_required_traits]
    assert len(traits) == conf.max_required_traits
    aggs = [str(uuid.UUID(int=i + 1)) for i in range(conf.max_member_of)]
    _provider(app, 'full', aggs, traits, vcpu=1024)
    _provider(app, 'almost', aggs[1:], traits[1:], vcpu=1024)
    member_of = '&'.join('member_of=%s' % agg for agg in aggs)
    assert _names(app, member_of) == ['full']
    # Many in: items, most naming no aggregate.
    unknown = [str(uuid.UUID(int=10 ** 6 + i))
               for i in range(conf.max_in_items - 1)]
    assert _names(app, 'member_of=in:%s' % ','.join(
        unknown + [aggs[0]])) == ['full']
    assert _names(app, 'member_of=!in:%s' % ','.join(
        unknown + [aggs[0]])) == ['almost']
    required = '&'.join('required=%s' % t for t in traits)
    assert _names(app, required) == ['full']
    assert _names(app, 'required=!%s&required=%s' % (
        traits[0], ','.join(traits[1:]))) == ['almost']
    body = ok(call(app, 'GET', '/allocation_candidates?resources=VCPU:1&%s&%s'
                   % (member_of, required), '1.39'))
    assert len(body['allocation_requests']) == 1
    groups = '&'.join(
        'resources%d=VCPU:1&member_of%d=%s&required%d=%s'
        % (i, i, aggs[i % len(aggs)], i, traits[i % len(traits)])
        for i in range(1, conf.max_request_groups + 1))
    body = ok(call(app, 'GET', '/allocation_candidates?%s'
                   '&group_policy=none&limit=2' % groups, '1.39'))
    assert [list(c['allocations'].values()) for c in
            body['allocation_requests']] == [
        [{'resources': {'VCPU': conf.max_request_groups}}]]


@pytest.mark.parametrize('version', ['1.24', '1.39'])
def test_default_limits_allow_what_nova_sends(database, version):
    app = _app()
    _provider(app, 'p1', (A, B), (T1,))
    assert ok(call(app, 'GET', '/resource_providers?member_of=in:%s,%s'
                   '&member_of=%s&required=%s' % (A, C, B, T1),
                   version))['resource_providers'][0]['name'] == 'p1'
