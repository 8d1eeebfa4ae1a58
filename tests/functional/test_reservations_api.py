"""``/reservations``, the Placement API's extension for capacity held in
time, on every database: made, shown, listed, moved and deleted over
HTTP, its errors in Placement's format, its policy (a project sees and
manages its own), its place in the root document, and claims honouring
it (``PUT /allocations``) as the clock moves, with no restart.
"""

import datetime
import uuid

from oslo_utils import timeutils
import pytest
import sqlalchemy as sa

from allocsvc.common import context as context_mod
from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import candidates
from allocsvc.placement import reservations
from allocsvc.placement.candidates import request as request_mod
from tests.client import create_provider
from tests.client import ok
from tests.client import placement_request as call
from tests.helpers.clock import T0

V = '1.39'


pytestmark = pytest.mark.usefixtures('clock')


def _at(hours):
    return (T0 + datetime.timedelta(hours=hours)).isoformat() + 'Z'


def _member(project):
    return {'X-Auth-Token': 'user:%s' % project, 'X-Roles': 'member,reader'}


def _body(rp, vcpu, start=1, end=2, project='p1'):
    body = {'start': _at(start), 'end': _at(end),
            'resources': {rp: {'resources': {'VCPU': vcpu}}}}
    if project:
        body['project_id'] = project
    return body


def _claim(app, rp, amount, project):
    return call(app, 'PUT', '/allocations/%s' % uuid.uuid4(), V, {
        'allocations': {rp: {'resources': {'VCPU': amount}}},
        'project_id': project, 'user_id': 'u',
        'consumer_generation': None, 'consumer_type': 'INSTANCE'})


def test_lifecycle(app):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 8}})
    resp = call(app, 'POST', '/reservations', V, _body(rp, 6))
    made = ok(resp, 201)
    assert resp.location.endswith('/reservations/%s' % made['uuid'])
    assert made['project_id'] == 'p1'
    assert (made['start'], made['end']) == (_at(1), _at(2))
    assert made['resources'] == {rp: {'resources': {'VCPU': 6}}}
    assert made['active'] is False
    assert made['links'][0]['href'].endswith(made['uuid'])
    path = '/reservations/%s' % made['uuid']
    assert ok(call(app, 'GET', path, V)) == made
    listed = ok(call(app, 'GET', '/reservations', V))['reservations']
    assert [r['uuid'] for r in listed] == [made['uuid']]
    for query, count in (('project_id=p1', 1), ('project_id=p2', 0),
                         ('resource_provider=%s' % rp, 1),
                         ('start=%s' % _at(2), 0), ('end=%s' % _at(1), 0),
                         ('start=%s&end=%s' % (_at(0), _at(1.5)), 1)):
        found = ok(call(app, 'GET', '/reservations?' + query, V))
        assert len(found['reservations']) == count, query
    # Overlapping past the capacity: 409, explained.
    resp = call(app, 'POST', '/reservations', V,
                _body(rp, 3, start=1.5, end=3, project='p2'))
    assert resp.status_int == 409
    error = resp.json['errors'][0]
    assert error['code'] == 'placement.reservation.unsatisfied'
    assert 'would hold 9 of a capacity of 8' in error['detail']
    # Shortened, then the other fits after it.
    moved = ok(call(app, 'PUT', path, V, {'end': _at(1.5)}))
    assert moved['end'] == _at(1.5)
    ok(call(app, 'POST', '/reservations', V,
            _body(rp, 3, start=1.5, end=3, project='p2')), 201)
    # Extending into it again is refused, and changes nothing.
    assert call(app, 'PUT', path, V, {'end': _at(2)}).status_int == 409
    assert ok(call(app, 'GET', path, V))['end'] == _at(1.5)
    assert call(app, 'DELETE', path, V).status_int == 204
    assert call(app, 'GET', path, V).status_int == 404
    assert call(app, 'DELETE', path, V).status_int == 404


def test_claims_follow_the_clock(app):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 4}})
    ok(call(app, 'POST', '/reservations', V, _body(rp, 3)), 201)
    assert _claim(app, rp, 4, 'p2').status_int == 204
    timeutils.set_time_override(T0 + datetime.timedelta(hours=1))
    # The other project's claim of 4 was made before the window: it
    # stays, and new claims of others wait while it is over.
    assert _claim(app, rp, 1, 'p2').status_int == 409
    ok(call(app, 'GET', '/reservations/%s' % ok(call(
        app, 'GET', '/reservations', V))['reservations'][0]['uuid'], V))


def test_bad_requests(app):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 4}})
    cases = [
        {},
        {'start': _at(1), 'end': _at(2)},
        dict(_body(rp, 1), extra=1),
        dict(_body(rp, 1), start='tomorrow'),
        _body(rp, 0),
        {'start': _at(1), 'end': _at(2),
         'resources': {rp: {'resources': {'vcpu': 1}}}},
        _body(rp, 1, start=2, end=1),
        _body(rp, 1, start=-2, end=-1),
        _body(str(uuid.uuid4()), 1),
        {'start': _at(1), 'end': _at(2),
         'resources': {rp: {'resources': {'CUSTOM_NONE': 1}}}},
    ]
    for body in cases:
        resp = call(app, 'POST', '/reservations', V, body)
        assert resp.status_int == 400, (body, resp.text)
        assert resp.json['errors'][0]['status'] == 400
    assert call(app, 'GET', '/reservations?start=never', V).status_int == 400
    assert call(app, 'GET', '/reservations?bogus=1', V).status_int == 400
    assert call(app, 'GET', '/reservations/nope', V).status_int == 404
    assert call(app, 'PUT', '/reservations/%s' % uuid.uuid4(), V,
                {'end': _at(3)}).status_int == 404
    made = ok(call(app, 'POST', '/reservations', V, _body(rp, 1)), 201)
    path = '/reservations/%s' % made['uuid']
    assert call(app, 'PUT', path, V, {}).status_int == 400
    assert call(app, 'PUT', path, V, {'start': _at(5)}).status_int == 400
    # Before the extensions' first microversion, and with a wrong method.
    assert call(app, 'GET', '/reservations', '1.9').status_int == 404
    assert call(app, 'PATCH', path, V).status_int == 405
    assert call(app, 'POST', '/reservations', V, b'{',
                headers={'Content-Type': 'application/json'}
                ).status_int == 400


def test_a_project_sees_and_manages_its_own(app):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 8}})
    mine = call(app, 'POST', '/reservations', V, _body(rp, 1, project=None),
                headers=_member('pa'))
    assert mine.status_int == 201, mine.text
    assert mine.json['project_id'] == 'pa'
    theirs = ok(call(app, 'POST', '/reservations', V,
                     _body(rp, 1, project='pb')), 201)
    # Not for another project.
    resp = call(app, 'POST', '/reservations', V, _body(rp, 1, project='pb'),
                headers=_member('pa'))
    assert resp.status_int == 403
    listed = ok(call(app, 'GET', '/reservations', V,
                     headers=_member('pa')))['reservations']
    assert [r['uuid'] for r in listed] == [mine.json['uuid']]
    assert call(app, 'GET', '/reservations?project_id=pb', V,
                headers=_member('pa')).status_int == 403
    other = '/reservations/%s' % theirs['uuid']
    for method, body in (('GET', None), ('PUT', {'end': _at(3)}),
                         ('DELETE', None)):
        resp = call(app, method, other, V, body, headers=_member('pa'))
        assert resp.status_int == 404, (method, resp.text)
    own = '/reservations/%s' % mine.json['uuid']
    assert call(app, 'PUT', own, V, {'end': _at(3)},
                headers=_member('pa')).status_int == 200
    # A reader reads, and changes nothing.
    reader = {'X-Auth-Token': 'user:pa', 'X-Roles': 'reader'}
    assert call(app, 'GET', own, V, headers=reader).status_int == 200
    assert call(app, 'DELETE', own, V, headers=reader).status_int == 403
    assert call(app, 'DELETE', own, V,
                headers=_member('pa')).status_int == 204


def test_listed_in_the_root_document(app):
    root = ok(call(app, 'GET', '/', V))
    found = {e['name']: e for e in root['extensions']}
    assert found['reservations']['href'].endswith('/reservations')
    assert found['reservations']['methods'] == ['GET', 'POST']
    assert found['reservations_availability']['href'].endswith(
        '/reservations/availability')
    assert root['versions'][0]['max_version'] == '1.39'


@pytest.mark.parametrize('extra', ['', '&limit=1', '&limit=1000'])
def test_candidates_leave_active_reservations_alone(app, extra):
    rp = create_provider(app, 'cn', inventory={'VCPU': {'total': 4}})
    other = create_provider(app, 'cn2', inventory={'VCPU': {'total': 4}})
    ok(call(app, 'POST', '/reservations', V, _body(rp, 3, start=0, end=1)),
       201)

    def found(amount):
        doc = ok(call(app, 'GET', '/allocation_candidates?resources=VCPU:%d%s'
                      % (amount, extra), V))
        return sorted(next(iter(r['allocations']))
                      for r in doc['allocation_requests'])

    both = sorted([rp, other])
    if extra == '&limit=1':
        # One at random: the held provider only when it has room.
        both = [rp] if found(1) == [rp] else [other]
    assert found(1) == both
    assert found(2) == [other]
    # The holder's own claim draws on the hold: no change for others.
    assert _claim(app, rp, 2, 'p1').status_int == 204
    assert found(2) == [other]
    # Once the window is over, its capacity is everybody's again: the
    # 2 left beside the holder's claim (the other provider made small).
    timeutils.set_time_override(T0 + datetime.timedelta(hours=1))
    ok(call(app, 'PUT', '/resource_providers/%s/inventories' % other, V,
            {'resource_provider_generation': 1,
             'inventories': {'VCPU': {'total': 1}}}))
    assert found(2) == [rp]


def test_few_candidates_of_many_providers_leave_reservations_alone(app):
    """A request for a few candidates reads the usage and the holds of
    the providers it looks at only (a prefix of the anchors, or a random
    sample): where active reservations hold everything but on the last
    of 40 providers, that one is the answer, on both paths."""
    rps = [create_provider(app, 'cn%02d' % i,
                           inventory={'VCPU': {'total': 4}})
           for i in range(40)]
    for rp in rps[:-1]:
        ok(call(app, 'POST', '/reservations', V,
                _body(rp, 4, start=0, end=1)), 201)
    doc = ok(call(app, 'GET', '/allocation_candidates?resources=VCPU:1'
                  '&limit=1', V))
    assert [next(iter(r['allocations']))
            for r in doc['allocation_requests']] == [rps[-1]]
    groups, wide = request_mod.parse([('resources', 'VCPU:1')], (1, 39))
    found = candidates.find(context_mod.get_admin_context(), groups, wide,
                            limit=3, randomize=True, summaries=False)
    assert [next(iter(r.allocations))
            for r in found.allocation_requests] == [rps[-1]]


def test_candidates_settle_the_holds_where_they_matter(app, monkeypatch):
    """A candidates search counts what reservations hold back without
    their projects' usage (the most they can hold back) where that
    still leaves room for the request, and reads that usage elsewhere:
    its providers are those of the exact search (group claims').
    Summaries show what is allocated, as Placement's do, not what
    reservations hold."""
    ctx = context_mod.get_admin_context()
    rps = {name: create_provider(app, name,
                                 inventory={'VCPU': {'total': total}})
           for name, total in (('a', 8), ('b', 8), ('c', 8), ('d', 64))}
    for rp in rps.values():
        ok(call(app, 'POST', '/reservations', V,
                _body(rp, 6, start=0, end=1)), 201)
    # The holder uses 4 of its 6 on a, 6 of 6 on c: 2 left free of 8 on
    # a, b and c alike.
    for name, amount in (('a', 4), ('c', 6)):
        assert _claim(app, rps[name], amount, 'p1').status_int == 204
    settled = []
    real = reservations.usage_by_project

    def recorded(context, pairs, projects):
        settled.extend(pairs)
        return real(context, pairs, projects)

    monkeypatch.setattr(reservations, 'usage_by_project', recorded)
    uuids = {rp: name for name, rp in rps.items()}
    for amount, expected, doubtful in ((2, 'abcd', {'a', 'c'}),
                                       (3, 'd', {'a', 'b', 'c'})):
        groups, wide = request_mod.parse([('resources', 'VCPU:%d' % amount)],
                                         (1, 39))
        # Counted, as group claims ask: every holder's usage is read.
        del settled[:]
        found = candidates.find(ctx, groups, wide, counted=True)
        exact = sorted(uuids[next(iter(r.allocations))]
                       for r in found.allocation_requests)
        assert ''.join(exact) == expected
        assert _names_of(ctx, settled, uuids) == {'a', 'b', 'c', 'd'}
        for limit in ('', '&limit=9'):
            del settled[:]
            doc = ok(call(app, 'GET', '/allocation_candidates?resources='
                          'VCPU:%d%s' % (amount, limit), V))
            assert sorted(uuids[next(iter(r['allocations']))]
                          for r in doc['allocation_requests']) == exact
            assert _names_of(ctx, settled, uuids) == doubtful
        del settled[:]
        found = candidates.find(ctx, groups, wide, randomize=True)
        assert sorted(uuids[next(iter(r.allocations))]
                      for r in found.allocation_requests) == exact
        # The holder's usage is read where the bound leaves too little
        # room: never on d; on b only for 3 (its bound is the exact
        # amount, its holder using none of it).
        assert _names_of(ctx, settled, uuids) == doubtful
        if amount == 2:
            for shown in (found.provider_summaries,
                          doc['provider_summaries']):
                used = {uuids[rp]: summary['resources']['VCPU']['used']
                        for rp, summary in shown.items()}
                assert used == {'a': 4, 'b': 0, 'c': 6, 'd': 0}


@db_api.reader
def _names_of(context, pairs, names):
    """The ``names`` {uuid: name} of the providers of (provider id,
    class id) ``pairs``."""
    rp = models.resource_providers
    return {names[uuid] for uuid in context.session.execute(
        sa.select(rp.c.uuid).where(
            rp.c.id.in_(sorted({rp_id for rp_id, _rc in pairs})))).scalars()}


def test_nova_lands_on_its_reservation_by_its_class(app):
    """A flavor with resources:CUSTOM_RESERVATION_<uuid>=1, unchanged
    nova: the candidates are the reserved hosts, the holder's hold is
    free for it there, and the allocation request nova sends back is
    accepted (the class is checked, not stored)."""
    held = create_provider(app, 'held', inventory={'VCPU': {'total': 4}})
    create_provider(app, 'free', inventory={'VCPU': {'total': 4}})
    made = ok(call(app, 'POST', '/reservations', V,
                   _body(held, 4, start=0, end=1)), 201)
    name = 'CUSTOM_RESERVATION_' + made['uuid'].upper().replace('-', '_')
    doc = ok(call(app, 'GET', '/allocation_candidates?resources=VCPU:2,%s:1'
                  % name, V))
    (request,) = doc['allocation_requests']
    assert request['allocations'] == {
        held: {'resources': {'VCPU': 2, name: 1}}}
    assert name in doc['provider_summaries'][held]['resources']
    # Without the class, nothing is left there for anybody.
    plain = ok(call(app, 'GET', '/allocation_candidates?resources=VCPU:2',
                    V))
    assert [next(iter(r['allocations']))
            for r in plain['allocation_requests']] != [held]
    consumer = str(uuid.uuid4())
    body = {'allocations': request['allocations'], 'project_id': 'p1',
            'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'INSTANCE'}
    # Another project cannot claim through it.
    resp = call(app, 'PUT', '/allocations/%s' % consumer, V,
                dict(body, project_id='p2'))
    assert resp.status_int == 409
    assert 'The reservation is of another project.' in resp.text
    resp = call(app, 'PUT', '/allocations/%s' % consumer, V, body)
    assert resp.status_int == 204, resp.text
    stored = ok(call(app, 'GET', '/allocations/%s' % consumer, V))
    assert stored['allocations'][held]['resources'] == {'VCPU': 2}
    # The class alone holds nothing: refused, the allocations kept.
    resp = call(app, 'PUT', '/allocations/%s' % consumer, V, dict(
        body, consumer_generation=1,
        allocations={held: {'resources': {name: 1}}}))
    assert resp.status_int == 400, resp.text
    stored = ok(call(app, 'GET', '/allocations/%s' % consumer, V))
    assert stored['allocations'][held]['resources'] == {'VCPU': 2}
    # Outside the window the class finds nothing, and claims through it
    # are refused.
    timeutils.set_time_override(T0 + datetime.timedelta(hours=1))
    doc = ok(call(app, 'GET', '/allocation_candidates?resources=VCPU:1,%s:1'
                  % name, V))
    assert doc['allocation_requests'] == []
    resp = call(app, 'PUT', '/allocations/%s' % uuid.uuid4(), V, body)
    assert resp.status_int == 409
    assert 'The reservation is not active.' in resp.text
    # A class naming no reservation is an unknown class, as in
    # Placement.
    nobody = 'CUSTOM_RESERVATION_' + str(uuid.uuid4()).upper().replace(
        '-', '_')
    resp = call(app, 'GET', '/allocation_candidates?resources=VCPU:1,%s:1'
                % nobody, V)
    assert resp.status_int == 400
    assert 'No such resource class %s' % nobody in resp.text
    resp = call(app, 'PUT', '/allocations/%s' % uuid.uuid4(), V, dict(
        body, allocations={held: {'resources': {nobody: 1}}}))
    assert resp.status_int == 400


def test_blazar_flow_works_unchanged(app):
    """Blazar's own reservation providers (its spec's flow: a child
    provider, a custom class named after the reservation, its inventory
    while the lease runs, claims, teardown) are untouched: a real class
    of that name is a class like any other."""
    host = create_provider(app, 'compute-1',
                           inventory={'VCPU': {'total': 8}})
    lease = str(uuid.uuid4())
    name = 'CUSTOM_RESERVATION_' + lease.upper().replace('-', '_')
    child = ok(call(app, 'POST', '/resource_providers', V, {
        'name': 'blazar_compute-1', 'parent_provider_uuid': host}))['uuid']
    assert call(app, 'PUT', '/resource_classes/%s' % name,
                V).status_int == 201
    ok(call(app, 'PUT', '/resource_providers/%s/inventories' % child, V, {
        'resource_provider_generation': 0,
        'inventories': {name: {'total': 3, 'max_unit': 1}}}))
    doc = ok(call(app, 'GET', '/allocation_candidates?resources=VCPU:2,%s:1'
                  % name, V))
    (request,) = doc['allocation_requests']
    assert request['allocations'] == {
        host: {'resources': {'VCPU': 2}}, child: {'resources': {name: 1}}}
    consumer = str(uuid.uuid4())
    assert call(app, 'PUT', '/allocations/%s' % consumer, V, {
        'allocations': request['allocations'], 'project_id': 'p1',
        'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'}).status_int == 204
    stored = ok(call(app, 'GET', '/allocations/%s' % consumer, V))
    assert stored['allocations'][child]['resources'] == {name: 1}
    # Teardown, as Blazar does it at the end of the lease.
    assert call(app, 'DELETE', '/allocations/%s' % consumer,
                V).status_int == 204
    assert call(app, 'DELETE', '/resource_providers/%s/inventories' % child,
                V).status_int == 204
    assert call(app, 'DELETE', '/resource_classes/%s' % name,
                V).status_int == 204
    assert call(app, 'DELETE', '/resource_providers/%s' % child,
                V).status_int == 204


def test_availability_in_time(app):
    a = create_provider(app, 'a', inventory={'VCPU': {'total': 8},
                                             'MEMORY_MB': {'total': 1024}})
    b = create_provider(app, 'b', inventory={'VCPU': {'total': 8}})
    create_provider(app, 'small', inventory={'VCPU': {'total': 2}})
    ok(call(app, 'POST', '/reservations', V, _body(a, 6, start=1, end=3)),
       201)
    ok(call(app, 'POST', '/reservations', V, _body(b, 8, start=2, end=4)),
       201)

    def ask(query):
        return ok(call(app, 'GET', '/reservations/availability?' + query,
                       V))['availability']

    window = 'start=%s&end=%s' % (_at(0), _at(5))
    found = {e['resource_provider']: e for e in ask('resources=VCPU:4&' +
                                                    window)}
    assert set(found) == {a, b}
    assert found[a]['free'] == [{'start': _at(0), 'end': _at(1)},
                                {'start': _at(3), 'end': _at(5)}]
    assert found[b]['free'] == [{'start': _at(0), 'end': _at(2)},
                                {'start': _at(4), 'end': _at(5)}]
    assert not found[a]['whole_window']
    # 2 VCPU fit beside a's 6 all along; adjacent intervals are merged.
    (only,) = ask('resources=VCPU:2,MEMORY_MB:512&' + window)
    assert only['resource_provider'] == a
    assert only['free'] == [{'start': _at(0), 'end': _at(5)}]
    assert only['whole_window']
    # For one provider (a node), when it is free of any hold of 8.
    (node,) = ask('resources=VCPU:8&resource_provider=%s&%s' % (b, window))
    assert node['free'] == [{'start': _at(0), 'end': _at(2)},
                            {'start': _at(4), 'end': _at(5)}]
    assert ask('resources=VCPU:8&resource_provider=%s&start=%s&end=%s'
               % (b, _at(2), _at(4))) == []
    for query in ('resources=VCPU:1', 'resources=VCPU&' + window,
                  'resources=VCPU:0&' + window,
                  'resources=CUSTOM_NOPE:1&' + window,
                  'resources=VCPU:1&start=%s&end=%s' % (_at(2), _at(1)),
                  'resources=VCPU:1&bogus=1&' + window):
        resp = call(app, 'GET', '/reservations/availability?' + query, V)
        assert resp.status_int == 400, (query, resp.text)
    resp = call(app, 'GET', '/reservations/availability?resources=VCPU:1&'
                'resource_provider=%s&%s' % (uuid.uuid4(), window), V)
    assert resp.status_int == 404
    # Not a reservation's uuid: the path is the availability's.
    assert call(app, 'DELETE', '/reservations/availability',
                V).status_int == 405


def _query_body(count, start=1, end=2, **extra):
    body = {'project_id': 'p1', 'start': _at(start), 'end': _at(end),
            'query': {'resources': 'VCPU:2'}, 'count': count}
    body.update(extra)
    return body


def test_made_from_a_candidates_query(app):
    """The engine picks N slots of a query for the window, jointly and
    spread as a group claim, and holds them as one reservation."""
    rack = {}
    for name, trait in (('a1', 'CUSTOM_RACK_A'), ('a2', 'CUSTOM_RACK_A'),
                        ('b1', 'CUSTOM_RACK_B')):
        rack[name] = create_provider(app, name, traits=[trait],
                                     inventory={'VCPU': {'total': 4}})
    # What is allocated now does not count against a later window.
    assert _claim(app, rack['b1'], 4, 'other').status_int == 204
    resp = call(app, 'POST', '/reservations', V, _query_body(
        2, spread={'by': 'trait:CUSTOM_RACK_', 'max_per_domain': 1,
                   'strict': True}))
    made = ok(resp, 201)
    assert resp.location.endswith(made['uuid'])
    assert made['spread']['met'] is True
    held = made['resources']
    assert sum(e['resources']['VCPU'] for e in held.values()) == 4
    assert rack['b1'] in held
    # 8 VCPU are left in the window (b1's allocation of now does not
    # count), in 2-VCPU slots: 4 fit, 5 do not.
    resp = call(app, 'POST', '/reservations', V, _query_body(5))
    assert resp.status_int == 409
    assert resp.json['errors'][0]['code'] == \
        'placement.group_claim.unsatisfied'
    assert 'Only 4 of the 5' in resp.json['errors'][0]['detail']
    packed = ok(call(app, 'POST', '/reservations', V,
                     _query_body(4, order='pack')), 201)
    assert sum(e['resources']['VCPU']
               for e in packed['resources'].values()) == 8
    # Nothing left in that window; the next one is free again.
    assert call(app, 'POST', '/reservations', V,
                _query_body(1)).status_int == 409
    ok(call(app, 'POST', '/reservations', V,
            _query_body(6, start=2, end=3)), 201)
    # A window holding the present needs the room now too: b1 is full.
    now = ok(call(app, 'POST', '/reservations', V,
                  _query_body(4, start=0, end=0.5, order='pack')), 201)
    assert rack['b1'] not in now['resources']
    for body in (dict(_query_body(1), resources={}),
                 {'start': _at(1), 'end': _at(2), 'count': 1},
                 {'start': _at(1), 'end': _at(2), 'query': {
                     'resources': 'VCPU:1'}},
                 _query_body(0), _query_body(1, query={'resources': 'x'}),
                 _query_body(1, order='best')):
        resp = call(app, 'POST', '/reservations', V, body)
        assert resp.status_int == 400, (body, resp.text)
