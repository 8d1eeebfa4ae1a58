"""``/v1/drivers``: the hardware types nodes may use, as Ironic shows
them.

Routes (``routes.ROUTES``)::

    GET /v1/drivers                          list (?type, ?detail: 1.30)
    GET /v1/drivers/{name}                   show (always in detail)
    GET /v1/drivers/{name}/properties        the node properties it reads
    GET /v1/drivers/{name}/raid/logical_disk_properties   (1.12)
    GET /v1/drivers/{name}/vendor_passthru/methods        none
    *   /v1/drivers/{name}/vendor_passthru?method=        400: no handler

A hardware type is listed while a live conductor has it enabled; its
``hosts`` are those conductors. Every hardware type is ``dynamic`` (the
``type`` field and filter, from 1.30). Its interfaces
(``allocsvc.common.hardware``) appear in detail from 1.30, each
interface type from the version that brought it: storage 1.33, rescue
1.38, bios 1.40, firmware 1.86.

A driver's RAID logical disk properties are those of its default RAID
interface: Ironic's text for each, or Ironic's 404 when that is
``no-raid``. Its vendor interface (Ironic's fake one) offers no
driver-wide method. Unlike Ironic, the enabled interfaces are listed in
their configured order (Ironic's order is arbitrary).
"""

import pecan

from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import conductor as conductor_api
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.common import fake_driver
from allocsvc.common import hardware
from allocsvc import objects

DYNAMIC_VERSION = (1, 30)
PROPERTIES_LINK_VERSION = (1, 14)
RAID_VERSION = (1, 12)
# Interface types a driver document shows from a later version than 1.30.
INTERFACE_SINCE = {'storage': (1, 33), 'rescue': (1, 38), 'bios': (1, 40),
                   'firmware': (1, 86)}

# What a node of the hardware type must carry in ``properties``/
# ``driver_info``, per implementation of the interfaces that declare
# any: fake-hardware's ``fake`` vendor interface (Ironic's FakeVendorB).
_PROPERTIES = {
    ('vendor', 'fake'): {'B1': 'B1 description. Required.',
                         'B2': 'B2 description. Required.'},
}


def _hosts():
    """hardware type -> host names of the live conductors that have it,
    for the enabled hardware types some live conductor has."""
    conductors = objects.Conductor.list(
        utils.context(), conductor_api.heartbeat_timeout(utils.conf()))
    hosts = {}
    for name in hardware.enabled_hardware_types(utils.conf()):
        alive = sorted(c.hostname for c in conductors
                       if c.alive and name in (c.drivers or ()))
        if alive:
            hosts[name] = alive
    return hosts


def _interfaces(name):
    """``{default_<type>_interface, enabled_<type>_interfaces}`` of
    hardware type ``name`` for the interface types of the request's
    version."""
    conf = utils.conf()
    document = {}
    for kind in hardware.INTERFACE_TYPES:
        if not utils.allowed(INTERFACE_SINCE.get(kind, DYNAMIC_VERSION)):
            continue
        supported = hardware.supported_interfaces(name, kind)
        enabled = [iface for iface in hardware.enabled_interfaces(conf, kind)
                   if iface in supported]
        try:
            default = hardware.default_interface(conf, name, kind)
        except exception.InvalidParameterValue:
            default = None
        document['default_%s_interface' % kind] = default
        document['enabled_%s_interfaces' % kind] = enabled
    return document


def render(name, hosts, detail):
    document = {
        'name': name,
        'hosts': hosts,
        'links': base.resource_links('drivers', '/' + name),
    }
    if utils.allowed(PROPERTIES_LINK_VERSION):
        document['properties'] = base.resource_links(
            'drivers', '/%s/properties' % name)
    if utils.allowed(DYNAMIC_VERSION):
        document['type'] = 'dynamic'
        if detail:
            document.update(_interfaces(name))
    return document


def _needs_dynamic(value):
    """Ironic's 406 for ``type`` or ``detail`` before 1.30."""
    if value is not None and not utils.allowed(DYNAMIC_VERSION):
        raise utils.NotAcceptable(
            'Request not acceptable. The minimal required API version '
            'should be %d.%d' % DYNAMIC_VERSION)


def _driver_hosts(name):
    """The live hosts of driver ``name``; 404 when none has it."""
    hosts = _hosts()
    if name not in hosts:
        raise exception.DriverNotFound(name)
    return hosts[name]


def list_drivers():
    params = pecan.request.GET
    utils.check_arguments(params, ('type', 'detail'))
    access.authorize('baremetal:driver:get')
    kind = params.get('type')
    detail = utils.strict_bool('detail', params.get('detail'))
    _needs_dynamic(detail)
    _needs_dynamic(kind)
    if kind not in (None, 'classic', 'dynamic'):
        raise utils.BadRequest('"type" filter must be one of "classic" or '
                               '"dynamic", if specified.')
    # Every hardware type is dynamic: there are no classic drivers.
    hosts = _hosts() if kind != 'classic' else {}
    return {'drivers': [render(name, hosts[name], detail)
                        for name in sorted(hosts)]}


def show_driver(driver):
    utils.check_arguments(pecan.request.GET, ())
    access.authorize('baremetal:driver:get')
    return render(driver, _driver_hosts(driver), detail=True)


def driver_properties(driver):
    """What the interfaces a node of the driver gets by default read
    from the node, with descriptions."""
    utils.check_arguments(pecan.request.GET, ())
    access.authorize('baremetal:driver:get_properties')
    _driver_hosts(driver)
    properties = {}
    for kind in hardware.INTERFACE_TYPES:
        try:
            default = hardware.default_interface(utils.conf(), driver, kind)
        except exception.InvalidParameterValue:
            continue
        properties.update(_PROPERTIES.get((kind, default), {}))
    return properties


def logical_disk_properties(driver):
    """``.../raid/logical_disk_properties`` (1.12)."""
    utils.check_arguments(pecan.request.GET, ())
    access.authorize('baremetal:driver:get_raid_logical_disk_properties')
    if not utils.allowed(RAID_VERSION):
        raise utils.NotAcceptable('Request not acceptable.')
    _driver_hosts(driver)
    raid = hardware.default_interface(utils.conf(), driver, 'raid')
    if not fake_driver.supports(raid):
        # Ironic answers a driver without RAID support with a 404.
        raise fake_driver.unsupported(driver, 'raid', status=404)
    return dict(fake_driver.LOGICAL_DISK_PROPERTIES)


def vendor_passthru(driver, body=None):
    """``.../vendor_passthru?method=``: the driver's vendor interface
    offers no driver-wide method."""
    params = dict(pecan.request.GET.items())
    utils.check_arguments(params, ('method',))
    access.authorize('baremetal:driver:vendor_passthru')
    method = params.get('method')
    if not method:
        raise utils.BadRequest('Method not specified')
    _driver_hosts(driver)
    raise exception.InvalidParameterValue('No handler for method %s'
                                          % method)


def vendor_passthru_without_body(driver):
    """``GET`` and ``DELETE`` of ``.../vendor_passthru``: no body."""
    return vendor_passthru(driver)


def vendor_methods(driver):
    utils.check_arguments(pecan.request.GET, ())
    access.authorize('baremetal:driver:vendor_passthru')
    _driver_hosts(driver)
    return {}
