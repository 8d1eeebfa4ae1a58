"""Ironic's ``/v1`` resources this service does not provide.

allocsvc serves the part of Ironic's API that allocation needs (nodes and
what hangs off them, chassis, drivers, conductors, allocations, shards).
A client that reaches for one of Ironic's other resources (volume
connectors and targets, deploy templates, runbooks, inspection rules, the
ramdisk's lookup and heartbeat, ...) gets a 404 that says so, in Ironic's
error document, for any method, any path under the resource and at any
version: not a 405, which would suggest another method might work, nor
routing's bare "could not be found", which reads like a bug.
"""

from allocsvc.api.controllers.v1 import dispatch
from allocsvc.common import exception

# Ironic 39's top-level resources that allocsvc does not serve.
NAMES = (
    'continue_inspection',
    'deploy_templates',
    'events',
    'heartbeat',
    'inspection_rules',
    'lookup',
    'runbooks',
    'volume',
)

MESSAGE = ('This service does not provide the %s resource of the Bare '
           'Metal API.')


@dispatch.bodiless
def answer(name, rest=None, **values):
    """``/v1/<name>`` and every path under it, whatever the method: 404
    with a fault saying the resource is not provided."""
    raise exception.NotFound(MESSAGE % name)


# Volume connectors and targets are not provided, under a node either.
@dispatch.bodiless
def volume(rest=None, **values):
    return answer('volume')
