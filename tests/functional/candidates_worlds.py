"""Random worlds and requests for the candidates property tests.

Hypothesis strategies that draw small worlds (provider trees with
inventories, traits, aggregates, sharing roots and some allocations)
and requests (every kind of group parameter, at several
microversions); building a world over HTTP; the query string of a
request; readable reproductions. Used by ``test_candidates_property``
and ``test_candidates_explanation_property``.
"""

import urllib.parse
import uuid as uuidlib

from hypothesis import HealthCheck
from hypothesis import strategies as st

from tests import client
from tests import conftest
from tests.functional import candidates_model as model
from tests.helpers import apps

RCS = ('VCPU', 'MEMORY_MB', 'CUSTOM_MAGIC')
TRAITS = ('CUSTOM_T1', 'CUSTOM_T2', 'HW_CPU_X86_AVX2')
AGGS = ('aaaaaaaa-0000-4000-8000-000000000001',
        'bbbbbbbb-0000-4000-8000-000000000002')
AGG_NAMES = {AGGS[0]: 'AGG1', AGGS[1]: 'AGG2'}
VERSIONS = ((1, 39), (1, 25), (1, 39), (1, 29), (1, 39), (1, 33), (1, 39),
            (1, 36), (1, 39), (1, 39))
# Each example builds its world over HTTP (~0.4 s on SQLite); the two
# properties together stay near 30 s.
SETTINGS = dict(deadline=None, derandomize=True, database=None,
                print_blob=False,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.data_too_large])


def rp_uuid(index):
    return '00000000-0000-4000-8000-%012d' % (index + 1)


def rp_name(uuid):
    return 'rp%d' % int(uuid[-12:]) if uuid.startswith('00000000-') else uuid


# -- strategies -------------------------------------------------------------

def often(value, otherwise):
    """``value`` three times out of four: keeps most draws satisfiable."""
    return st.sampled_from((value, value, value, otherwise))


@st.composite
def inventories(draw):
    total = draw(st.integers(2, 8))
    min_unit = draw(often(1, min(2, total)))
    return {
        'total': total,
        'reserved': draw(often(0, min(1, total - 1))),
        'min_unit': min_unit,
        'max_unit': draw(often(total, draw(st.integers(min_unit, total)))),
        'step_size': draw(often(1, 2)),
        'allocation_ratio': draw(often(1.0, 2.0)),
    }


@st.composite
def worlds(draw):
    """A dict spec: providers (parent index, inventory, traits, aggs) and
    existing allocations (provider index, class, amount)."""
    n_roots = draw(st.integers(1, 3))
    count = draw(st.integers(n_roots, 7))
    parents, depth = [None] * n_roots, [0] * n_roots
    for i in range(n_roots, count):
        parent = draw(st.sampled_from([j for j in range(i) if depth[j] < 2]))
        parents.append(parent)
        depth.append(depth[parent] + 1)
    providers = []
    for i in range(count):
        traits = set(draw(st.sets(st.sampled_from(TRAITS))))
        if parents[i] is None and draw(often(False, True)):
            traits.add(model.SHARING)
        providers.append({
            'parent': parents[i],
            'inventory': draw(st.dictionaries(
                st.sampled_from(RCS), inventories(),
                min_size=draw(st.sampled_from((2, 3, 1, 0))), max_size=3)),
            'traits': sorted(traits),
            'aggregates': sorted(draw(st.sets(st.sampled_from(AGGS)))),
        })
    allocations = draw(st.lists(st.tuples(
        st.integers(0, count - 1), st.sampled_from(RCS), st.integers(1, 3)),
        max_size=2))
    return {'providers': providers, 'allocations': allocations}


@st.composite
def trait_filters(draw, version):
    """(required any-of sets, forbidden traits); disjoint, as Placement
    answers 400 to a trait both required and forbidden."""
    single = st.sampled_from(TRAITS).map(lambda t: frozenset([t]))
    entry = st.one_of(single, st.sets(st.sampled_from(TRAITS), min_size=2,
                                      max_size=2).map(frozenset))
    required = []
    if draw(often(False, True)):
        required = draw(st.lists(entry if version >= (1, 39) else single,
                                 min_size=1, max_size=2))
    free = [t for t in TRAITS if t not in set().union(*required)]
    forbidden = set()
    if free and draw(often(False, True)):
        forbidden = draw(st.sets(st.sampled_from(free), max_size=1))
    return required, forbidden


@st.composite
def agg_filters(draw, version):
    entry = st.one_of(st.sampled_from(AGGS).map(lambda a: frozenset([a])),
                      st.just(frozenset(AGGS)))
    member_of = []
    if draw(often(False, True)):
        member_of = draw(st.lists(entry, min_size=1, max_size=2))
    forbidden = set()
    if version >= (1, 32) and draw(often(False, True)):
        forbidden = draw(st.sets(st.sampled_from(AGGS), min_size=1))
    return member_of, forbidden


@st.composite
def groups(draw, version, suffix, resourceless=False):
    resources = {}
    if not resourceless:
        resources = draw(st.dictionaries(st.sampled_from(RCS),
                                         often(1, 2), min_size=1,
                                         max_size=draw(often(1, 2))))
    required, forbidden = draw(trait_filters(version))
    member_of, forbidden_aggs = draw(agg_filters(version))
    if resourceless and not (required or forbidden or member_of or
                             forbidden_aggs):
        # A group with no parameter at all would not exist in the query.
        required = [frozenset([draw(st.sampled_from(TRAITS))])]
    return model.Group(suffix, resources, required, forbidden, member_of,
                       forbidden_aggs)


@st.composite
def requests(draw):
    version = draw(st.sampled_from(VERSIONS))
    names = ('_NET', 'acc', '42') if version >= (1, 33) else ('1', '2', '3')
    suffixes = list(names[:draw(st.sampled_from((1, 2, 0, 2, 3)))])
    same_subtree = []
    if version >= (1, 36) and len(suffixes) >= 2 and draw(st.booleans()):
        same_subtree = draw(st.lists(st.sampled_from(suffixes), min_size=2,
                                     max_size=3, unique=True))
    with_unsuffixed = not suffixes or draw(often(True, False))
    chosen = []
    if with_unsuffixed:
        chosen.append(draw(groups(version, '')))
    for suffix in suffixes:
        # Resourceless groups are allowed only inside same_subtree, and at
        # least one group must ask for resources.
        resourceless = (suffix in same_subtree and
                        any(g.resources for g in chosen) and
                        draw(often(False, True)))
        chosen.append(draw(groups(version, suffix, resourceless)))
    root_required, root_forbidden = set(), set()
    if version >= (1, 35) and draw(often(False, True)):
        root_required = draw(st.sets(st.sampled_from(TRAITS), max_size=1))
        root_forbidden = draw(st.sets(st.sampled_from(
            [t for t in TRAITS if t not in root_required]), max_size=1))
    policy = draw(st.sampled_from(('none', 'isolate'))) if suffixes else None
    return model.Request(
        chosen, version=version, group_policy=policy,
        same_subtrees=[same_subtree] if same_subtree else [],
        root_required=root_required, root_forbidden=root_forbidden)


def query(req, limit=None):
    """The query string of ``req``, in the syntax of its microversion."""
    params = []
    for suffix, group in sorted(req.groups.items()):
        if group.resources:
            params.append(('resources' + suffix, ','.join(
                '%s:%d' % item for item in sorted(group.resources.items()))))
        plain = sorted(t for s in group.required if len(s) == 1 for t in s)
        plain += sorted('!' + t for t in group.forbidden)
        if req.version >= (1, 39):
            if plain:
                params.append(('required' + suffix, ','.join(plain)))
            for any_of in group.required:
                if len(any_of) > 1:
                    params.append(('required' + suffix,
                                   'in:' + ','.join(sorted(any_of))))
        elif plain:
            params.append(('required' + suffix, ','.join(plain)))
        for any_of in group.member_of:
            params.append(('member_of' + suffix, (
                'in:' if len(any_of) > 1 else '') + ','.join(sorted(any_of))))
        if group.forbidden_aggs:
            aggs = sorted(group.forbidden_aggs)
            params.append(('member_of' + suffix, '!' + aggs[0] if len(
                aggs) == 1 else '!in:' + ','.join(aggs)))
    if req.group_policy:
        params.append(('group_policy', req.group_policy))
    for names in req.same_subtrees:
        params.append(('same_subtree', ','.join(sorted(names))))
    if req.root_required or req.root_forbidden:
        params.append(('root_required', ','.join(
            sorted(req.root_required) +
            sorted('!' + t for t in req.root_forbidden))))
    if limit is not None:
        params.append(('limit', str(limit)))
    return urllib.parse.urlencode(params, safe=':,!')


# -- HTTP -------------------------------------------------------------------

def call(app, method, path, version='1.39', body=None):
    return client.placement_request(app, method, path, version, body)


def ok(resp, *statuses):
    assert resp.status_int in statuses, (resp.status, resp.text)
    return resp


def build(app, spec):
    """Create the world of ``spec`` over HTTP; return the model World with
    the usages the server reports after the existing allocations."""
    ok(call(app, 'PUT', '/resource_classes/CUSTOM_MAGIC'), 201, 204)
    for trait in TRAITS:
        if trait.startswith('CUSTOM_'):
            ok(call(app, 'PUT', '/traits/%s' % trait), 201, 204)
    uuids = [rp_uuid(i) for i in range(len(spec['providers']))]
    for i, prov in enumerate(spec['providers']):
        body = {'name': 'rp%d' % (i + 1), 'uuid': uuids[i]}
        if prov['parent'] is not None:
            body['parent_provider_uuid'] = uuids[prov['parent']]
        gen = ok(call(app, 'POST', '/resource_providers', body=body),
                 200).json['generation']
        path = '/resource_providers/%s' % uuids[i]
        if prov['inventory']:
            gen = ok(call(app, 'PUT', path + '/inventories', body={
                'resource_provider_generation': gen,
                'inventories': prov['inventory']}),
                200).json['resource_provider_generation']
        if prov['traits']:
            gen = ok(call(app, 'PUT', path + '/traits', body={
                'resource_provider_generation': gen,
                'traits': prov['traits']}),
                200).json['resource_provider_generation']
        if prov['aggregates']:
            ok(call(app, 'PUT', path + '/aggregates', body={
                'resource_provider_generation': gen,
                'aggregates': prov['aggregates']}), 200)
    for n, (index, rc, amount) in enumerate(spec['allocations']):
        # Draws that do not fit are refused (400/409); usages are read
        # back below, so the model sees what the server really holds.
        call(app, 'PUT', '/allocations/%s' % uuidlib.UUID(int=n + 1),
             body=consumer_body({uuids[index]: {'resources': {rc: amount}}}))
    providers = []
    for i, prov in enumerate(spec['providers']):
        used = ok(call(app, 'GET', '/resource_providers/%s/usages'
                       % uuids[i]), 200).json['usages']
        providers.append(model.Provider(
            uuids[i],
            uuids[prov['parent']] if prov['parent'] is not None else None,
            prov['traits'], prov['aggregates'],
            {rc: model.Inventory(**inv)
             for rc, inv in prov['inventory'].items()},
            used))
    return model.World(providers)


def consumer_body(allocations, mappings=None):
    body = {'allocations': allocations, 'project_id': 'p', 'user_id': 'u',
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    if mappings is not None:
        body['mappings'] = mappings
    return body


def candidates(app, req, limit=None):
    version = '%d.%d' % req.version
    resp = call(app, 'GET', '/allocation_candidates?' + query(req, limit),
                version)
    assert resp.status_int == 200, (query(req, limit), resp.text)
    return resp.json


def as_key(areq):
    allocations = frozenset(
        (rp, rc, n) for rp, alloc in areq['allocations'].items()
        for rc, n in alloc['resources'].items())
    mappings = frozenset((s, frozenset(rps))
                         for s, rps in areq.get('mappings', {}).items())
    return allocations, mappings


def describe(world, req, limit=None):
    """A readable reproduction: the providers and the query."""
    lines = ['GET /allocation_candidates?%s  (microversion %d.%d)'
             % (query(req, limit), req.version[0], req.version[1])]
    for u, prov in sorted(world.providers.items()):
        lines.append('  %s parent=%s traits=%s aggs=%s inv=%s used=%s' % (
            rp_name(u), prov.parent and rp_name(prov.parent),
            sorted(prov.traits), sorted(AGG_NAMES[a] for a in prov.aggregates),
            {rc: (i.total, i.reserved, i.min_unit, i.max_unit, i.step_size,
                  i.allocation_ratio) for rc, i in prov.inventory.items()},
            prov.used))
    return '\n'.join(lines)


def show(keys):
    return sorted(
        (sorted((rp_name(u), rc, n) for u, rc, n in allocs),
         sorted((s, sorted(rp_name(u) for u in rps)) for s, rps in maps))
        for allocs, maps in keys)


def fresh_app():
    conftest.get_database('sqlite').clean()
    return apps.placement()


def strip_mappings(keys, req):
    """Before 1.34 there are no mappings to compare."""
    if req.version >= (1, 34):
        return set(keys)
    return {allocs for allocs, _ in keys}
