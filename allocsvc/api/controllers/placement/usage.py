"""Handlers for /resource_providers/{uuid}/usages and /usages (1.9)."""

from allocsvc.api.controllers.placement.schemas import usage as schema
from allocsvc.api.controllers.placement import util
from allocsvc.placement import usages

# Usages are "what is used now", not a stored resource: like Placement,
# the last-modified header (from 1.15) is the time of the answer.


@util.check_accept('application/json')
def list_usages(req):
    context = util.authorize(req, 'placement:resource_providers:usages')
    with util.provider_named_twice(': '):
        rp, used = usages.provider_usages(context, util.provider_uuid(req))
    return util.json_response(
        req, {'resource_provider_generation': rp.generation, 'usages': used})


@util.require_version((1, 9))
@util.check_accept('application/json')
def get_total_usages(req):
    # The policy check comes first (as in Placement), on the project asked
    # about: a project reader may see its own project's usages.
    context = util.authorize(
        req, 'placement:usages',
        target={'project_id': req.GET.get('project_id')})
    grouped = util.want_version(req) >= (1, 38)
    params = util.validate_query(
        req, schema.GET_1_38 if grouped else schema.GET_1_9)
    if grouped:
        used = usages.usages_by_consumer_type(
            context, params['project_id'], user_id=params.get('user_id'),
            consumer_type=params.get('consumer_type'))
    else:
        used = usages.total_usages(context, params['project_id'],
                                   user_id=params.get('user_id'))
    return util.json_response(req, {'usages': used})
