"""``/reservations``, an allocsvc extension of the Placement API:
capacity held for a project over a window of time
(``allocsvc.placement.reservations`` says what a reservation holds and
when it is refused).

A project sees and manages its own reservations (the policy rules
``placement:reservations:*``); administrators and the service role, all
of them. Another project's reservation is a 404 to whoever may not see
it.
"""

from oslo_utils import timeutils
from oslo_utils import uuidutils

from allocsvc.api.controllers.placement import allocation_candidate
from allocsvc.api.controllers.placement.schemas import reservation as schema
from allocsvc.api.controllers.placement import util
from allocsvc.common import exception
from allocsvc.common import policy
from allocsvc.placement import candidates
from allocsvc.placement import reservation_claims
from allocsvc.placement import reservations

FIRST_VERSION = (1, 10)


def _url(req, uuid):
    return '%s/reservations/%s' % (util.base_url(req), uuid)


def _iso(moment):
    return None if moment is None else moment.isoformat() + 'Z'


def render(req, found, at=None):
    return {
        'uuid': found.uuid,
        'project_id': found.project_id,
        'start': _iso(found.start),
        'end': _iso(found.end),
        'active': found.active(at),
        'resources': {rp: {'resources': dict(classes)}
                      for rp, classes in sorted(found.amounts.items())},
        'created_at': _iso(found.created_at),
        'updated_at': _iso(found.updated_at),
        'links': [{'rel': 'self', 'href': _url(req, found.uuid)}],
    }


def _time(value, field):
    """A naive UTC datetime from the ISO 8601 ``value``; 400 if it is
    none."""
    try:
        parsed = timeutils.parse_isotime(value)
    except ValueError as exc:
        raise exception.BadRequest(
            "Invalid %s '%s': %s" % (field, value, exc))
    return timeutils.normalize_time(parsed)


def _allowed(req, action, project_id):
    try:
        util.authorize(req, action, target={'project_id': project_id})
    except policy.PolicyNotAuthorized:
        return False
    return True


def _visible(req, uuid):
    """The reservation ``uuid`` if the caller may see it; 404 otherwise
    (after the policy check of the whole collection's readers)."""
    context = util.context(req)
    try:
        found = reservations.get(context, uuid)
    except exception.NotFound:
        found = None
    if found is None or not _allowed(req, 'placement:reservations:show',
                                     found.project_id):
        raise exception.NotFound('No reservation with uuid %s found' % uuid)
    return found


def _path_uuid(req):
    uuid = req.urlvars['uuid']
    if len(uuid) > 36 or not uuidutils.is_uuid_like(uuid):
        raise exception.NotFound('No reservation with uuid %s found' % uuid)
    return uuid


@util.require_version(FIRST_VERSION)
@util.check_accept('application/json')
def list_reservations(req):
    """``GET /reservations``: those of ``project_id`` (the caller's own
    unless it may read every project's), holding something on
    ``resource_provider``, whose windows overlap [``start``, ``end``)."""
    params = util.validate_query(req, schema.LIST)
    context = util.context(req)
    project_id = params.get('project_id')
    if project_id is None and not _allowed(
            req, 'placement:reservations:list', None):
        project_id = context.project_id
    util.authorize(req, 'placement:reservations:list',
                   target={'project_id': project_id})
    start = _time(params['start'], 'start') if 'start' in params else None
    end = _time(params['end'], 'end') if 'end' in params else None
    found = reservations.list_(
        context, project_id=project_id,
        provider_uuid=params.get('resource_provider'), start=start, end=end)
    at = reservations.now()
    return util.json_response(
        req, {'reservations': [render(req, r, at) for r in found]})


@util.require_version(FIRST_VERSION)
@util.require_content('application/json')
def create_reservation(req):
    """``POST /reservations``: 201 with the reservation, or 409
    ``placement.reservation.unsatisfied`` saying why not."""
    context = util.context(req)
    data = util.extract_json(req, schema.CREATE)
    project_id = data.get('project_id') or context.project_id
    if not project_id:
        raise exception.BadRequest(
            'project_id is required: the request has no project scope.')
    util.authorize(req, 'placement:reservations:create',
                   target={'project_id': project_id})
    start = _time(data['start'], 'start')
    end = _time(data['end'], 'end')
    if 'query' in data:
        document = _from_query(req, context, data, project_id, start, end)
    else:
        amounts = {rp: dict(entry['resources'])
                   for rp, entry in data['resources'].items()}
        made = reservations.create(context, project_id, start, end,
                                   amounts, uuid=data.get('uuid'))
        document = render(req, made)
    resp = util.json_response(req, document, status=201)
    resp.location = _url(req, document['uuid'])
    return resp


def _from_query(req, context, data, project_id, start, end):
    """The reservation of ``count`` slots of the candidates ``query``
    (``reservation_claims``), as its document with the group claim's
    ``spread`` when one was asked for."""
    want = util.want_version(req)
    groups, wide = allocation_candidate.claim_query(req, data, want)
    with candidates.gc_paused():
        made, claimed = reservation_claims.create(
            context, project_id, start, end, groups, wide, data['count'],
            spread=allocation_candidate.spread_rule(data),
            order=data.get('order'),
            limit=allocation_candidate.capped_limit(req, wide),
            nested_aware=want >= (1, 29),
            attempts=util.conf(
                req).placement.allocation_conflict_retry_count,
            uuid=data.get('uuid'))
    document = render(req, made)
    if claimed.spread_met is not None:
        document['spread'] = {'met': claimed.spread_met,
                              'domains': claimed.domains}
    return document


@util.require_version(FIRST_VERSION)
@util.check_accept('application/json')
def get_reservation(req):
    found = _visible(req, _path_uuid(req))
    return util.json_response(req, render(req, found))


@util.require_version(FIRST_VERSION)
@util.require_content('application/json')
def update_reservation(req):
    """``PUT /reservations/{uuid}``: a new ``start`` and/or ``end``;
    shortening always succeeds, growing is checked as a new
    reservation."""
    uuid = _path_uuid(req)
    data = util.extract_json(req, schema.UPDATE)
    found = _visible(req, uuid)
    util.authorize(req, 'placement:reservations:update',
                   target={'project_id': found.project_id})
    start = _time(data['start'], 'start') if 'start' in data else None
    end = _time(data['end'], 'end') if 'end' in data else None
    changed = reservations.update(util.context(req), uuid, start=start,
                                  end=end)
    return util.json_response(req, render(req, changed))


@util.require_version(FIRST_VERSION)
def delete_reservation(req):
    uuid = _path_uuid(req)
    found = _visible(req, uuid)
    util.authorize(req, 'placement:reservations:delete',
                   target={'project_id': found.project_id})
    reservations.delete(util.context(req), uuid)
    return util.empty_response(204)


def _amounts(text):
    """{class: amount} of ``resources=VCPU:4,MEMORY_MB:1024``; 400 for
    anything else."""
    found = {}
    for item in text.split(','):
        name, _sep, amount = item.partition(':')
        if not (name and amount.isdigit() and int(amount) > 0) or \
                name in found or len(amount) > 10:
            raise exception.BadRequest(
                "Badly formed resources parameter. Expected resources "
                "query string parameter in form: ?resources=VCPU:2,"
                "MEMORY_MB:1024. Got: %s." % text)
        found[name] = int(amount)
    return found


@util.require_version(FIRST_VERSION)
@util.check_accept('application/json')
def get_availability(req):
    """``GET /reservations/availability``: where, and when within
    [``start``, ``end``), a reservation of ``resources`` fits beside the
    reservations made (on ``resource_provider`` alone if named)."""
    util.authorize(req, 'placement:reservations:availability')
    params = util.validate_query(req, schema.AVAILABILITY)
    amounts = _amounts(params['resources'])
    start, end = _time(params['start'], 'start'), _time(params['end'], 'end')
    found = reservations.availability(
        util.context(req), amounts, start, end,
        provider_uuid=params.get('resource_provider'))
    return util.json_response(req, {'availability': [
        {'resource_provider': entry.provider_uuid,
         'whole_window': entry.covers(start, end),
         'free': [{'start': _iso(s), 'end': _iso(e)}
                  for s, e in entry.free]}
        for entry in found]})
