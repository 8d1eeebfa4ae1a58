"""Handler for POST /reshaper (microversion 1.30): move inventory and its
allocations between providers in one transaction."""

from allocsvc.api.controllers.placement import allocation
from allocsvc.api.controllers.placement.schemas import reshaper as schema
from allocsvc.api.controllers.placement import util
from allocsvc.placement import inventories
from allocsvc.placement import reshaper


@util.require_version((1, 30))
@util.require_content('application/json')
def reshape(req):
    context = util.authorize(req, 'placement:reshaper:reshape')
    data = util.extract_json(
        req, schema.post_schema(util.want_version(req)))
    new_inventories = [
        reshaper.ProviderInventories(
            rp_uuid, body['resource_provider_generation'],
            [inventories.Inventory.from_request(name, fields)
             for name, fields in sorted(body['inventories'].items())])
        for rp_uuid, body in data['inventories'].items()]
    reshaper.reshape(
        context, new_inventories,
        allocation.consumer_requests(req, data['allocations']),
        allocation.attempts(req),
        util.conf(req).placement.refuse_inventory_below_usage)
    return util.empty_response()
