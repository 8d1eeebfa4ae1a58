"""``/v1``: the version 1 document and the resources under it.

A resource joins the API here: its controller in ``RESOURCES`` (the
route table, with the version the resource appeared in) and a line in
``LINKED_RESOURCES`` (the links ``GET /v1`` shows, from that version).
"""

import pecan
import webob.exc

from allocsvc.api.controllers.v1 import allocation
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import chassis
from allocsvc.api.controllers.v1 import conductor
from allocsvc.api.controllers.v1 import driver
from allocsvc.api.controllers.v1 import node
from allocsvc.api.controllers.v1 import port
from allocsvc.api.controllers.v1 import portgroup
from allocsvc.api.controllers.v1 import shard
from allocsvc.api.controllers.v1 import unprovided
from allocsvc.api.controllers.v1 import versions

# (name, first version) of each resource linked from GET /v1, in the order
# Ironic lists them: those of every version, then (after the version) the
# later ones.
LINKED_RESOURCES = [
    ('chassis', (1, 1)),
    ('nodes', (1, 1)),
    ('ports', (1, 1)),
    ('drivers', (1, 1)),
    ('portgroups', (1, 23)),
    ('conductors', (1, 49)),
    ('allocations', (1, 52)),
    ('shards', (1, 82)),
]


def version_document():
    """The description of v1 that ``/`` and ``/v1`` both carry."""
    return {
        'id': 'v1',
        'links': [base.make_link('self', 'v1', '/', bookmark=True)],
        'status': 'CURRENT',
        'min_version': str(versions.MIN_VERSION),
        'version': str(versions.MAX_VERSION),
    }


def _allocations_gate():
    allocation.gate()


def _conductors_gate():
    # Before 1.49 there are no conductors to read; other methods are not
    # allowed at any version.
    if not base.api_version() >= conductor.FIRST_VERSION and \
            pecan.request.method == 'GET':
        raise webob.exc.HTTPNotFound()


# name -> (controller, check run before anything else of the resource).
RESOURCES = {
    'nodes': (node.NodesController(), None),
    'chassis': (chassis.ChassisController(), None),
    'ports': (port.PortsController(), None),
    'portgroups': (portgroup.PortgroupsController(), portgroup.gate),
    'drivers': (driver.DriversController(), None),
    'allocations': (allocation.AllocationsController(), _allocations_gate),
    'conductors': (conductor.ConductorsController(), _conductors_gate),
    'shards': (shard.ShardsController(), shard.gate),
}
# Ironic's other resources: a 404 saying this service does not have them.
RESOURCES.update((name, (unprovided.UnprovidedResource(name), None))
                 for name in unprovided.NAMES)


def only_get():
    """405 unless the request is a GET or a HEAD (the headers of a GET,
    as Ironic answers it): what a version document answers to any other
    method."""
    if pecan.request.method not in ('GET', 'HEAD'):
        raise webob.exc.HTTPMethodNotAllowed(headers={'Allow': 'GET'})


class V1Controller:
    """The root of the version 1 API; its resources are in RESOURCES.

    A plain Pecan controller (object dispatch), as is the root: each
    RestController a request passes costs Pecan several inspections of
    handler signatures, which at this level answer nothing."""

    @pecan.expose()
    def _lookup(self, name, *remainder):
        try:
            controller, gate = RESOURCES[name]
        except KeyError:
            raise webob.exc.HTTPNotFound()
        if gate is not None:
            gate()
        return controller, list(remainder)

    @pecan.expose('json')
    def index(self):
        only_get()
        want = base.api_version()
        document = {
            'id': 'v1',
            'links': [
                base.make_link('self', 'v1', '/', bookmark=True),
                {'href': 'https://docs.openstack.org/ironic/latest/'
                         'contributor/webapi.html',
                 'rel': 'describedby', 'type': 'text/html'},
            ],
            # One object, not a list: what Ironic 39 answers.
            'media_types': {
                'base': 'application/json',
                'type': 'application/vnd.openstack.ironic.v1+json',
            },
        }
        for name, since in LINKED_RESOURCES:
            if since == versions.MIN_VERSION:
                document[name] = base.resource_links(name, '/')
        document['version'] = version_document()
        for name, since in LINKED_RESOURCES:
            if since != versions.MIN_VERSION and want >= since:
                document[name] = base.resource_links(name, '/')
        return document
