"""The bare-metal URL surface (``/`` and ``/v1``) in one table.

Each row: the path, the first microversion it exists at (404 before),
its handler per method, and what it answers for paths below it that no
row names (``dispatch``: 404 by default). ``dispatch`` derives 404, 405
and ``Allow`` from the rows; the resource gates and the node path
reader answer what Ironic checks before any of that.
"""

import functools

import webob.exc

from allocsvc.api.controllers.v1 import allocation
from allocsvc.api.controllers.v1 import allocation_group
from allocsvc.api.controllers.v1 import allocation_preview
from allocsvc.api.controllers.v1 import chassis
from allocsvc.api.controllers.v1 import conductor
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import driver
from allocsvc.api.controllers.v1 import node
from allocsvc.api.controllers.v1 import node_management as mgmt
from allocsvc.api.controllers.v1 import node_paths
from allocsvc.api.controllers.v1 import node_records as records
from allocsvc.api.controllers.v1 import node_reservations
from allocsvc.api.controllers.v1 import node_states as states
from allocsvc.api.controllers.v1 import node_traits as traits
from allocsvc.api.controllers.v1 import node_vifs as vifs
from allocsvc.api.controllers.v1 import port
from allocsvc.api.controllers.v1 import portgroup
from allocsvc.api.controllers.v1 import shard
from allocsvc.api.controllers.v1 import unprovided
from allocsvc.api.controllers.v1 import version_documents as docs

P = functools.partial
ANY, AS_METHODS = dispatch.ANY, dispatch.AS_METHODS
# What Ironic's routing answers below some resources.
FORBIDDEN = dispatch.Refuse(webob.exc.HTTPForbidden,
                            detail='Operation not permitted.')
NOT_ALLOWED = dispatch.Refuse(webob.exc.HTTPMethodNotAllowed)
N = '/v1/nodes/{node}'


def _all(handler, methods=('DELETE', 'GET', 'PATCH', 'POST', 'PUT')):
    return dict.fromkeys(methods, handler)


_ports = {'GET': port.list_ports, 'POST': port.create_port}
_portgroups = {'GET': portgroup.list_portgroups,
               'POST': portgroup.create_portgroup}

ROUTES = [
    # path                       since    {method: handler}        below
    ('/', None, {'GET': docs.root, 'HEAD': docs.root}),
    ('/v1', None, {'GET': docs.v1, 'HEAD': docs.v1}),
    ('/v1/nodes', None, {'GET': node.list_nodes, 'POST': node.create_node},
     AS_METHODS),
    ('/v1/nodes/detail', None, {'GET': node.list_nodes_detail}, AS_METHODS),
    ('/v1/nodes/validate', None, {'GET': node.validate_by_query},
     AS_METHODS),
    (N, None, {'GET': node.show_node, 'PATCH': node.update_node,
               'DELETE': node.delete_node}, node_paths.EXTRA_SEGMENTS),
    (N + '/validate', None, {'GET': node.validate_node}, AS_METHODS),
    (N + '/children', (1, 83), {'GET': node.node_children}, AS_METHODS),
    (N + '/states', None, {'GET': states.get_states}, AS_METHODS),
    (N + '/states/power', None, {'PUT': states.set_power_state}),
    (N + '/states/provision', None, {'PUT': states.set_provision_state}),
    (N + '/states/console', None, {'GET': states.get_console,
                                   'PUT': states.set_console}),
    (N + '/states/raid', None, {'PUT': states.set_raid}),
    (N + '/states/boot_mode', None, {'PUT': states.set_boot_mode}),
    (N + '/states/secure_boot', None, {'PUT': states.set_secure_boot}),
    (N + '/maintenance', None, {'PUT': states.set_maintenance,
                                'DELETE': states.clear_maintenance}),
    (N + '/traits', (1, 37), {'GET': traits.list_traits,
                              'PUT': traits.set_traits,
                              'DELETE': traits.remove_traits}),
    (N + '/traits/{trait}', (1, 37), {'PUT': traits.add_trait,
                                      'DELETE': traits.remove_trait}),
    # An extension: who holds the node, and until when.
    (N + '/reservations', node_reservations.FIRST_VERSION,
     {'GET': node_reservations.list_node_reservations}),
    (N + '/allocation', (1, 52), {
        'GET': allocation.show_node_allocation,
        'DELETE': allocation.delete_node_allocation}, NOT_ALLOWED),
    (N + '/ports', None, _ports, FORBIDDEN),
    (N + '/ports/detail', None, {'GET': port.list_ports_detail}, AS_METHODS),
    (N + '/portgroups', (1, 24), _portgroups, FORBIDDEN),
    (N + '/portgroups/detail', (1, 24),
     {'GET': portgroup.list_portgroups_detail}, AS_METHODS),
    (N + '/vifs', (1, 28), {'GET': vifs.list_vifs, 'POST': vifs.attach_vif}),
    (N + '/vifs/{vif}', (1, 28), {'DELETE': vifs.detach_vif}),
    (N + '/bios', (1, 40), {'GET': records.handler('bios')}),
    (N + '/bios/{setting}', (1, 40), {'GET': records.handler('bios_setting')}),
    (N + '/inventory', (1, 81), {'GET': records.handler('inventory')}),
    (N + '/history', (1, 78), {'GET': records.handler('history')}),
    (N + '/history/{event}', (1, 78),
     {'GET': records.handler('history_event')}),
    (N + '/firmware', (1, 86), {'GET': records.handler('firmware')}),
    (N + '/volume', None, {ANY: unprovided.volume}, unprovided.volume),
    (N + '/management', None, {ANY: NOT_ALLOWED}, NOT_ALLOWED),
    (N + '/management/boot_device', None, {'GET': mgmt.get_boot_device,
                                           'PUT': mgmt.set_boot_device}),
    (N + '/management/boot_device/supported', None,
     {'GET': mgmt.supported_boot_devices}),
    (N + '/management/inject_nmi', None, {'PUT': mgmt.inject_nmi}),
    (N + '/management/indicators', None, {
        'GET': mgmt.list_indicators, 'PUT': mgmt.indicators_without_name}),
    (N + '/management/indicators/{indicator}', None, {
        'GET': mgmt.get_indicator, 'PUT': mgmt.set_indicator}),
    (N + '/vendor_passthru', None, dict(
        _all(mgmt.vendor_passthru, ('PATCH', 'POST', 'PUT')),
        GET=mgmt.vendor_passthru_without_body,
        DELETE=mgmt.vendor_passthru_without_body)),
    (N + '/vendor_passthru/methods', None, {'GET': mgmt.vendor_methods}),
    (N + '/vmedia', (1, 89), {'GET': mgmt.get_vmedia,
                              'POST': mgmt.attach_vmedia,
                              'DELETE': mgmt.detach_vmedia}),
    ('/v1/chassis', None, {'GET': chassis.list_chassis,
                           'POST': chassis.create_chassis}, AS_METHODS),
    ('/v1/chassis/detail', None, {'GET': chassis.list_chassis_detail},
     AS_METHODS),
    ('/v1/chassis/{chassis}', None, {'GET': chassis.show_chassis,
                                     'PATCH': chassis.update_chassis,
                                     'DELETE': chassis.delete_chassis}),
    ('/v1/chassis/{chassis}/nodes', None, {
        'GET': node.list_nodes, 'POST': node.create_chassis_node},
     node.malformed),
    ('/v1/chassis/{chassis}/nodes/detail', None,
     {'GET': node.list_nodes_detail}, AS_METHODS),
    ('/v1/ports', None, _ports, AS_METHODS),
    ('/v1/ports/detail', None, {'GET': port.list_ports_detail}, AS_METHODS),
    ('/v1/ports/{port}', None, {'GET': port.show_port,
                                'PATCH': port.update_port,
                                'DELETE': port.delete_port}),
    ('/v1/portgroups', None, _portgroups, AS_METHODS),
    ('/v1/portgroups/detail', None,
     {'GET': portgroup.list_portgroups_detail}, AS_METHODS),
    ('/v1/portgroups/{portgroup}', None, {
        'GET': portgroup.show_portgroup,
        'PATCH': portgroup.update_portgroup,
        'DELETE': portgroup.delete_portgroup}),
    ('/v1/portgroups/{portgroup}/ports', (1, 24), _ports, FORBIDDEN),
    ('/v1/portgroups/{portgroup}/ports/detail', (1, 24),
     {'GET': port.list_ports_detail}, AS_METHODS),
    ('/v1/drivers', None, {'GET': driver.list_drivers}),
    ('/v1/drivers/{driver}', None, {'GET': driver.show_driver}),
    ('/v1/drivers/{driver}/properties', None,
     {'GET': driver.driver_properties}),
    ('/v1/drivers/{driver}/raid/logical_disk_properties', None,
     {'GET': driver.logical_disk_properties}),
    ('/v1/drivers/{driver}/vendor_passthru', None, dict(
        _all(driver.vendor_passthru, ('PATCH', 'POST', 'PUT')),
        GET=driver.vendor_passthru_without_body,
        DELETE=driver.vendor_passthru_without_body)),
    ('/v1/drivers/{driver}/vendor_passthru/methods', None,
     {'GET': driver.vendor_methods}),
    ('/v1/conductors', None, {'GET': conductor.list_conductors}),
    ('/v1/conductors/{conductor}', None, {'GET': conductor.show_conductor}),
    ('/v1/allocations', None, {'GET': allocation.list_allocations,
                               'POST': allocation.create_allocation}),
    ('/v1/allocations/{allocation}', None, {
        'GET': allocation.show_allocation,
        'PATCH': allocation.update_allocation,
        'DELETE': allocation.delete_allocation}),
    # An extension: not below /v1/allocations, where "preview" may be
    # an allocation's name.
    ('/v1/allocation_preview', allocation_preview.FIRST_VERSION,
     {'POST': allocation_preview.preview_allocation}),
    ('/v1/allocation_groups', allocation_group.FIRST_VERSION,
     {'GET': allocation_group.list_groups,
      'POST': allocation_group.create_group}),
    ('/v1/allocation_groups/{group}', allocation_group.FIRST_VERSION,
     {'GET': allocation_group.show_group,
      'DELETE': allocation_group.delete_group}),
    ('/v1/shards', None, {'GET': shard.list_shards}),
] + [
    # Ironic's resources this service does not provide: a 404 saying so.
    ('/v1/' + name, None, {ANY: P(unprovided.answer, name)},
     P(unprovided.answer, name))
    for name in unprovided.NAMES
]

# What a resource refuses before anything else is looked at, whatever
# the path below it: one that does not exist at the request's version.
GATES = {
    'allocations': allocation.gate,
    'conductors': conductor.gate,
    'portgroups': portgroup.gate,
    'shards': shard.gate,
}

# How the paths of a resource are read before the table is.
RESOLVERS = {
    'nodes': node_paths.resolve,
}
