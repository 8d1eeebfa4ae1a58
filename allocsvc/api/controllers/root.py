"""The service root (``GET /``): Ironic's version document.

Ironic clients discover the bare-metal API here; the extra ``apis`` key
points to both APIs this service offers (Ironic clients ignore it). Any
other first path segment than ``v1`` is served by ``/v1`` (``/nodes`` is
``/v1/nodes``), as Ironic does, which is what its bookmark links rely on.
"""

import pecan

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import controller as v1

# Under PrefixDispatcher's mount point (allocsvc.api.app).
PLACEMENT_PATH = '/placement/'


class RootController:
    """``/``: the version document; ``/v1`` and what lies below it. A
    plain Pecan controller, as is ``V1Controller``."""

    v1 = v1.V1Controller()

    @pecan.expose()
    def _lookup(self, primary, *remainder):
        # /nodes is /v1/nodes. (Pecan also calls this when /v1/... was
        # not found: that stays not found.)
        if primary != 'v1':
            return self.v1, [primary] + list(remainder)

    @pecan.expose('json')
    def index(self):
        v1.only_get()
        version = v1.version_document()
        return {
            'name': 'allocsvc',
            'description': 'Resource allocation service: an Ironic '
                           'compatible bare-metal API under /v1 and a '
                           'Placement compatible API under /placement.',
            'versions': [version],
            'default_version': version,
            'apis': [
                {'id': 'baremetal', 'links': version['links']},
                {'id': 'placement', 'links': [{
                    'rel': 'self',
                    'href': base.public_url() + PLACEMENT_PATH}]},
            ],
        }
