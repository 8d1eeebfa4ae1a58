"""Handlers for /resource_providers/{uuid}/aggregates (microversion 1.1).

From 1.19 the PUT body and both responses carry the provider generation,
and a PUT must name the current generation and increments it.
"""

from allocsvc.api.controllers.placement.schemas import aggregate as schema
from allocsvc.api.controllers.placement import util
from allocsvc.placement import aggregates


def _send(req, uuids, generation):
    body = {'aggregates': uuids}
    if util.want_version(req) >= (1, 19):
        body['resource_provider_generation'] = generation
    # No timestamp tells when the associations last changed: the
    # last-modified header (from 1.15) is "now", as in Placement.
    return util.json_response(req, body)


@util.require_version((1, 1))
@util.check_accept('application/json')
def get_aggregates(req):
    context = util.authorize(
        req, 'placement:resource_providers:aggregates:list')
    rp, uuids = aggregates.get_aggregates(context, util.provider_uuid(req))
    return _send(req, uuids, rp.generation)


@util.require_version((1, 1))
@util.require_content('application/json')
def set_aggregates(req):
    context = util.authorize(
        req, 'placement:resource_providers:aggregates:update')
    uuid = util.provider_uuid(req)
    if util.want_version(req) >= (1, 19):
        data = util.extract_provider_json(req, schema.PUT_1_19)
        uuids = data['aggregates']
        generation = data['resource_provider_generation']
    else:
        uuids = util.extract_provider_json(req, schema.PUT_1_1)
        generation = None
    generation = aggregates.set_aggregates(context, uuid, uuids,
                                           generation=generation)
    return _send(req, uuids, generation)
