"""``GET /``: the Placement version document. Needs no token.

Beside ``versions`` (all that clients read) it lists allocsvc's
extensions of the Placement API, each with the absolute URL it is
served at on this root.
"""

from allocsvc.api.controllers.placement import microversion
from allocsvc.api.controllers.placement import util

# (name, path, methods, first microversion) of each extension.
EXTENSIONS = (
    ('allocation_candidates_explanation',
     '/allocation_candidates/explanation', ('GET',), '1.10'),
    ('allocation_candidates_claim',
     '/allocation_candidates/claim', ('POST',), '1.10'),
    ('reservations', '/reservations', ('GET', 'POST'), '1.10'),
    ('reservations_availability', '/reservations/availability', ('GET',),
     '1.10'),
)


def home(req):
    base = req.application_url
    return util.json_response(req, {
        'versions': [{
            'id': 'v%s' % microversion.MIN_VERSION,
            'max_version': microversion.MAX_VERSION,
            'min_version': microversion.MIN_VERSION,
            'status': 'CURRENT',
            'links': [{'rel': 'self', 'href': ''}],
        }],
        'extensions': [
            {'name': name, 'href': base + path, 'methods': list(methods),
             'min_version': first}
            for name, path, methods, first in EXTENSIONS],
    })
