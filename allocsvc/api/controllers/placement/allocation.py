"""Handlers for /allocations/{consumer_uuid}, POST /allocations (1.13)
and /resource_providers/{uuid}/allocations."""

import uuid as uuid_mod

from oslo_utils import uuidutils

from allocsvc.api.controllers.placement.schemas import allocation as schema
from allocsvc.api.controllers.placement import util
from allocsvc.common import exception
from allocsvc.placement import allocations
from allocsvc.placement import consumers
from allocsvc.placement import providers


def attempts(req):
    """[placement] allocation_conflict_retry_count."""
    return util.conf(req).placement.allocation_conflict_retry_count


def _incomplete_ids(req):
    options = util.conf(req).placement
    return (options.incomplete_consumer_project_id,
            options.incomplete_consumer_user_id)


def _plausible_consumer(value):
    # Strings that cannot be a consumer uuid are never sent to SQL (a NUL
    # byte is an error on PostgreSQL, not a miss).
    return len(value) <= 36 and '\x00' not in value


def consumer_requests(req, data):
    """ConsumerAllocations from a POST /allocations (or reshaper) body,
    in the dict format, at the request's microversion."""
    want = util.want_version(req)
    return [allocations.ConsumerAllocations(
        consumer_uuid, body['project_id'], body['user_id'],
        {rp: entry['resources'] for rp, entry in body['allocations'].items()},
        consumer_type=body.get('consumer_type'),
        generation=body.get('consumer_generation'),
        check_generation=want >= (1, 28))
        for consumer_uuid, body in data.items()]


def _last_modified(allocs):
    return util.latest(*[t for a in allocs
                         for t in (a.created_at, a.updated_at)])


@util.check_accept('application/json')
def list_for_consumer(req):
    context = util.authorize(req, 'placement:allocations:list')
    consumer_uuid = req.urlvars['uuid']
    want = util.want_version(req)
    allocs = []
    if _plausible_consumer(consumer_uuid):
        allocs = allocations.get_for_consumer(context, consumer_uuid)
    by_rp = {}
    for alloc in allocs:
        entry = by_rp.setdefault(alloc.rp_uuid, {
            'generation': alloc.rp_generation, 'resources': {}})
        entry['resources'][alloc.resource_class] = alloc.used
    body = {'allocations': by_rp}
    if allocs and want >= (1, 12):
        first = allocs[0]
        body['project_id'] = first.project_id
        body['user_id'] = first.user_id
        if want >= (1, 28):
            body['consumer_generation'] = first.consumer_generation
        if want >= (1, 38):
            body['consumer_type'] = (first.consumer_type or
                                     consumers.UNKNOWN_TYPE)
    return util.json_response(req, body,
                              last_modified=_last_modified(allocs))


@util.check_accept('application/json')
def list_for_resource_provider(req):
    context = util.authorize(
        req, 'placement:resource_providers:allocations:list')
    rp_uuid = util.provider_uuid(req)
    try:
        rp = providers.get_by_uuid(context, rp_uuid)
    except exception.NotFound as exc:
        raise exception.NotFound(
            "Resource provider '%s' not found: %s" % (rp_uuid, exc.message))
    allocs = allocations.get_for_provider(context, rp.id)
    show_generation = util.want_version(req) >= (1, 28)
    by_consumer = {}
    for alloc in allocs:
        entry = by_consumer.setdefault(alloc.consumer_uuid, {'resources': {}})
        entry['resources'][alloc.resource_class] = alloc.used
        if show_generation:
            entry['consumer_generation'] = alloc.consumer_generation
    body = {'allocations': by_consumer,
            'resource_provider_generation': rp.generation}
    return util.json_response(req, body,
                              last_modified=_last_modified(allocs))


def _path_consumer(req):
    """The consumer uuid of the path, normalized; 400 if not a uuid."""
    value = req.urlvars['uuid']
    if not (_plausible_consumer(value) and uuidutils.is_uuid_like(value)):
        raise exception.BadRequest('Malformed consumer_uuid: %s' % value)
    return str(uuid_mod.UUID(value))


@util.require_content('application/json')
def set_allocations_for_consumer(req):
    context = util.authorize(req, 'placement:allocations:update')
    consumer_uuid = _path_consumer(req)
    want = util.want_version(req)
    data = util.extract_json(req, schema.put_schema(want))
    resources = data['allocations']
    if want < (1, 12):
        # The list format: later entries for a provider replace earlier.
        resources = {entry['resource_provider']['uuid']: entry
                     for entry in resources}
    resources = {rp: entry['resources'] for rp, entry in resources.items()}
    if 'project_id' in data:
        project_id, user_id = data['project_id'], data['user_id']
    else:
        project_id, user_id = _incomplete_ids(req)
    request = allocations.ConsumerAllocations(
        consumer_uuid, project_id, user_id, resources,
        consumer_type=data.get('consumer_type'),
        generation=data.get('consumer_generation'),
        check_generation=want >= (1, 28))
    allocations.replace(
        context, [request], attempts(req),
        class_error_prefix='Unable to allocate inventory for consumer '
                           '%s: ' % consumer_uuid)
    return util.empty_response()


@util.require_version((1, 13))
@util.require_content('application/json')
def set_allocations(req):
    context = util.authorize(req, 'placement:allocations:manage')
    data = util.extract_json(
        req, schema.post_schema(util.want_version(req)))
    allocations.replace(context, consumer_requests(req, data),
                        attempts(req))
    return util.empty_response()


def delete_allocations(req):
    context = util.authorize(req, 'placement:allocations:delete')
    consumer_uuid = req.urlvars['uuid']
    if not _plausible_consumer(consumer_uuid):
        raise exception.NotFound(
            "No allocations for consumer '%s'" % consumer_uuid)
    consumers.delete_allocations(context, consumer_uuid)
    return util.empty_response()
