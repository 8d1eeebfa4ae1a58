"""``GET /``: the Placement version document. Needs no token."""

from allocsvc.api.controllers.placement import microversion
from allocsvc.api.controllers.placement import util


def home(req):
    return util.json_response(req, {'versions': [{
        'id': 'v%s' % microversion.MIN_VERSION,
        'max_version': microversion.MAX_VERSION,
        'min_version': microversion.MIN_VERSION,
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }]})
