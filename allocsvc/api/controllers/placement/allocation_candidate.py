"""Handlers for GET /allocation_candidates (microversion 1.10 on), and
two allocsvc extensions at the same microversions: its explanation, GET
/allocation_candidates/explanation, taking the same query, and the
group claim, POST /allocation_candidates/claim, writing N consumers'
allocations chosen together from such a query."""

import json

import orjson

from allocsvc.api.controllers.placement.schemas import allocation_candidate \
    as schema
from allocsvc.api.controllers.placement.schemas import \
    allocation_candidate_explanation as explanation_schema
from allocsvc.api.controllers.placement.schemas import group_claim \
    as claim_schema
from allocsvc.api.controllers.placement import util
from allocsvc.placement import candidates
from allocsvc.placement.candidates import explain
from allocsvc.placement import group_claims
from allocsvc.placement.candidates import request
from allocsvc.placement import query


def _allocation_requests(req, result):
    want = util.want_version(req)
    found = []
    for candidate in result.allocation_requests:
        if want < (1, 12):
            # The list form PUT /allocations took before 1.12.
            found.append({'allocations': [
                {'resource_provider': {'uuid': rp_uuid},
                 'resources': entry['resources']}
                for rp_uuid, entry in candidate.allocations.items()]})
            continue
        item = {'allocations': candidate.allocations}
        if want >= (1, 34):
            item['mappings'] = candidate.mappings
        found.append(item)
    return found


def _provider_summaries(req, result):
    want = util.want_version(req)
    if want >= (1, 29):
        # The engine builds them with every field this version shows.
        return result.provider_summaries
    shown = {}
    for rp_uuid, summary in result.provider_summaries.items():
        item = {'resources': summary['resources']}
        if want >= (1, 17):
            item['traits'] = summary['traits']
        if want >= (1, 29):
            item['parent_provider_uuid'] = summary['parent_provider_uuid']
            item['root_provider_uuid'] = summary['root_provider_uuid']
        shown[rp_uuid] = item
    return shown


def encode(body):
    """The answer's JSON, byte for byte as the standard library writes it
    (the separators ", " and ": " that Placement's answers have, and
    upstream's tests match on), in a tenth of its time: a thousand
    candidates are a megabyte.

    orjson writes it without spaces; they are put back after every comma
    and colon, which here are all separators: the only strings of this
    answer are provider uuids, resource class and trait names and
    request group suffixes, none of which may hold a comma or a colon
    (the names are upper-case letters, digits and underscores; suffixes
    letters, digits, "_" and "-"). The numbers are integers, written
    alike by both, but for a capacity wider than 64 bits (an allocation
    ratio near its bound of 3.4e38), which orjson refuses: such an
    answer goes to the standard library.
    """
    try:
        fast = orjson.dumps(body)
    except orjson.JSONEncodeError:
        return json.dumps(body, check_circular=False).encode('utf-8')
    return fast.replace(b',', b', ').replace(b':', b': ')


def capped_limit(req, wide):
    """The request's limit, within the server's cap (0 or less: none)."""
    cap = util.conf(req).placement.max_allocation_candidates
    if cap is None or cap <= 0:
        return wide.limit
    return min(wide.limit or cap, cap)


@util.require_version((1, 10))
@util.check_accept('application/json')
def list_allocation_candidates(req):
    context = util.authorize(req, 'placement:allocation_candidates:list')
    want = util.want_version(req)
    util.validate_query(req, schema.get_schema(want), multi=set(req.GET))
    groups, wide = request.parse(list(req.GET.items()), want,
                                 query.Limits.from_conf(util.conf(req)))
    with candidates.gc_paused():
        result = candidates.find(
            context, groups, wide, limit=capped_limit(req, wide),
            nested_aware=want >= (1, 29),
            randomize=util.conf(
                req).placement.randomize_allocation_candidates,
            all_classes=want >= (1, 27))
        body = {'allocation_requests': _allocation_requests(req, result),
                'provider_summaries': _provider_summaries(req, result)}
        resp = util.json_response(req, body, encode=encode)
        # Freed while the collector is still paused: it would otherwise
        # walk every one of their containers once more, to find them
        # alive, as soon as it starts again.
        del result, body
    return resp


@util.require_version((1, 10))
@util.check_accept('application/json')
def explain_allocation_candidates(req):
    """Why the same query to GET /allocation_candidates finds what it
    finds (``allocsvc.placement.candidates.explain``): its 400s are that
    query's, and its count is what that query returns."""
    context = util.authorize(req, 'placement:allocation_candidates:explain')
    want = util.want_version(req)
    util.validate_query(req, explanation_schema.get_schema(want),
                        multi=set(req.GET))
    groups, wide = request.parse(list(req.GET.items()), want,
                                 query.Limits.from_conf(util.conf(req)))
    with candidates.gc_paused():
        found = explain.explain(context, groups, wide,
                                limit=capped_limit(req, wide),
                                nested_aware=want >= (1, 29))
        resp = util.json_response(req, explain.document(found))
        del found
    return resp


def claim_query(req, data, want):
    """The claim's query, checked and parsed as GET
    /allocation_candidates' at microversion ``want``."""
    params = {key: value if isinstance(value, list) else [value]
              for key, value in data['query'].items()}
    util.validate(params, schema.get_schema(want),
                  'Invalid query string parameters')
    items = [(key, value) for key, values in params.items()
             for value in values]
    return request.parse(items, want, query.Limits.from_conf(util.conf(req)))


def spread_rule(data):
    """The ``group_claims.Spread`` of a body's ``spread`` (None without
    one)."""
    rule = data.get('spread')
    if rule is None:
        return None
    return group_claims.Spread(rule['by'], rule.get('max_per_domain', 1),
                               rule.get('strict', False))


def _claimed_document(claimed, want):
    found = {}
    for consumer, candidate, domains in claimed.chosen:
        entry = {'allocations': candidate.allocations,
                 'domains': sorted(domains)}
        if want >= (1, 34):
            entry['mappings'] = candidate.mappings
        found[consumer.uuid] = entry
    body = {'allocations': found}
    if claimed.spread_met is not None:
        body['spread'] = {'met': claimed.spread_met,
                          'domains': claimed.domains}
    return body


@util.require_version((1, 10))
@util.require_content('application/json')
def claim_allocation_candidates(req):
    """Write the allocations of N consumers chosen together from a
    candidates query, all or none (``allocsvc.placement.group_claims``):
    200 with each consumer's allocations, or 409
    ``placement.group_claim.unsatisfied`` saying why."""
    context = util.authorize(req, 'placement:allocation_candidates:claim')
    want = util.want_version(req)
    data = util.extract_json(req, claim_schema.CLAIM)
    groups, wide = claim_query(req, data, want)
    consumers = [group_claims.Consumer(
        uuid, body['project_id'], body['user_id'],
        generation=body['consumer_generation'],
        consumer_type=body.get('consumer_type'))
        for uuid, body in sorted(data['consumers'].items())]
    with candidates.gc_paused():
        claimed = group_claims.claim(
            context, groups, wide, consumers, spread=spread_rule(data),
            order=data.get('order'), limit=capped_limit(req, wide),
            nested_aware=want >= (1, 29),
            attempts=util.conf(
                req).placement.allocation_conflict_retry_count,
            check_generation=want >= (1, 28))
    return util.json_response(req, _claimed_document(claimed, want))
