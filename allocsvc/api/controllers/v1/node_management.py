"""A node's management, vendor and virtual media resources, as
``fake-hardware``'s fake interfaces answer them
(``allocsvc.common.fake_driver``).

Routes (``routes.ROUTES``; each from the version it appeared in)::

    GET  .../management/boot_device                    {pxe, false}
    PUT  .../management/boot_device                    pxe only (204)
    GET  .../management/boot_device/supported          [pxe]
    PUT  .../management/inject_nmi             1.29    400: unsupported
    GET  .../management/indicators                     the fake LEDs
    GET  .../management/indicators/{name@component}    on
    PUT  .../management/indicators/{name@component}    400: unsupported
    GET  .../vendor_passthru/methods                   the fake vendor's
    *    .../vendor_passthru?method=                   its methods
    POST .../vmedia                            1.89    204, last_error
    DELETE .../vmedia[?device_types=]          1.89    204, last_error
    GET  .../vmedia                            1.93    400: unsupported

The management interface stores nothing (its boot device is always
``pxe``) and the fake vendor methods only answer. Ironic checks no
version for the indicators (the API reference says 1.63); neither does
allocsvc. Virtual media requests are checked as Ironic's API checks
them; the node's conductor then records, under the node's lock, the
failure Ironic's background task records (``fake_driver.attach_error``
/ ``detach_error``) in the node's ``last_error``.
"""

import urllib.parse

import jsonschema
import pecan

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.common import fake_driver

# What a vmedia POST takes (Ironic's schema) and the URLs it takes.
VMEDIA_DEVICES = ('disk', 'cdrom', 'floppy')  # Ironic's order
URL_SCHEMES = ('http', 'https', 'nfs', 'cifs', 'smb')
_VMEDIA = jsonschema.Draft4Validator({
    'type': 'object',
    'properties': {
        'device_type': {'type': 'string', 'enum': list(VMEDIA_DEVICES)},
        'image_url': {'type': 'string'},
        'image_download_source': {'type': 'string',
                                  'enum': ['http', 'local', 'swift']},
    },
    'required': ['device_type', 'image_url'],
    'additionalProperties': False,
})
_node_for = node_common.node_for
NO_CONTENT = dispatch.Reply(204)


# -- management --------------------------------------------------------------

def get_boot_device(node):
    _node_for(node, 'baremetal:node:get_boot_device')
    return {'boot_device': fake_driver.BOOT_DEVICES[0], 'persistent': False}


def set_boot_device(node, body):
    body = node_common.json_object(body, required='boot_device')
    utils.check_arguments(body, ('boot_device', 'persistent'))
    device = node_common.required(body, 'boot_device')
    if not isinstance(device, str):
        raise utils.BadRequest('Expected string for boot_device: %s'
                               % (device,))
    if body.get('persistent') is not None:
        utils.strict_bool('persistent', body['persistent'])
    _node_for(node, 'baremetal:node:set_boot_device')
    if device not in fake_driver.BOOT_DEVICES:
        raise exception.InvalidParameterValue(
            'Invalid boot device %s specified.' % device)
    return NO_CONTENT


def supported_boot_devices(node):
    _node_for(node, 'baremetal:node:get_boot_device')
    return {'supported_boot_devices': list(fake_driver.BOOT_DEVICES)}


def inject_nmi(node, body):
    """``PUT .../management/inject_nmi`` (1.29): the fake management
    interface cannot."""
    if not utils.allowed((1, 29)):
        raise exception.NotFound('Resource could not be found.')
    node_common.json_object(body, allow_empty=True)
    found = _node_for(node, 'baremetal:node:inject_nmi')
    raise fake_driver.unsupported(found.driver, 'inject_nmi')


def list_indicators(node):
    _node_for(node, 'baremetal:node:get_indicator_state')
    indicators = []
    for component, names in fake_driver.INDICATORS.items():
        for name, (readonly, states) in names.items():
            unique = '%s@%s' % (name, component)
            indicators.append({
                'name': unique, 'component': component,
                'readonly': readonly, 'states': list(states),
                'links': base.resource_links(
                    'nodes', '/%s/management/indicators/%s'
                    % (node, unique))})
    return {'indicators': indicators}


def indicators_without_name(node, body):
    """``PUT .../management/indicators``: which one?"""
    raise utils.BadRequest('Missing mandatory parameter: indicator')


def _indicator(indicator):
    """``(component, name)``; 400 for a name without a component."""
    name, at, component = indicator.partition('@')
    if not at:
        raise exception.InvalidParameterValue(
            'Malformed indicator name "%s"' % indicator)
    return component, name


def get_indicator(node, indicator):
    _node_for(node, 'baremetal:node:get_indicator_state')
    fake_driver.check_indicator(*_indicator(indicator))
    return {'state': fake_driver.INDICATOR_STATE}


def set_indicator(node, indicator, body):
    body = node_common.json_object(body, required='state')
    utils.check_arguments(body, ('state',))
    state = node_common.required(body, 'state')
    if not isinstance(state, str):
        raise utils.BadRequest('Expected string for state: %s' % (state,))
    found = _node_for(node, 'baremetal:node:set_indicator_state')
    _indicator(indicator)
    # The fake management interface sets no indicator, whichever.
    raise fake_driver.unsupported(found.driver, 'set_indicator_state')


# -- vendor passthru ---------------------------------------------------------

def vendor_passthru(node, body=None):
    """``.../vendor_passthru?method=``, any method: the methods of the
    node's vendor interface (``fake_driver.vendor_passthru``); an
    asynchronous one answers 202 with no body, a synchronous one 200
    with its result."""
    params = node_common.query()
    utils.check_arguments(params, ('method',))
    method = params.get('method')
    if not method:
        raise utils.BadRequest('Method not specified')
    args = {} if body is None else body
    if not isinstance(args, dict):
        raise utils.BadRequest('The request body must be a JSON object.')
    found = node_common.authorized_node(node,
                                        'baremetal:node:vendor_passthru')
    is_async, result = fake_driver.vendor_passthru(
        found, method, pecan.request.method, args)
    if is_async:
        # Accepted, and nothing to show (Ironic's empty body).
        return dispatch.Reply(202)
    return result


def vendor_passthru_without_body(node):
    """``GET`` and ``DELETE`` of ``.../vendor_passthru``: no body."""
    return vendor_passthru(node)


def vendor_methods(node):
    found = _node_for(node, 'baremetal:node:vendor_passthru')
    return fake_driver.vendor_methods(found)


# -- virtual media -----------------------------------------------------------

def get_vmedia(node):
    if not utils.allowed((1, 93)):
        raise exception.NotFound('The resource could not be found.')
    found = _node_for(node, 'baremetal:node:vmedia:get')
    raise fake_driver.unsupported(found.driver, 'get_virtual_media')


def attach_vmedia(node, body):
    body = utils.json_body(body)
    node_schema.validate(_VMEDIA, 'vmedia', body)
    utils.check_stored_size('image_url', body['image_url'])
    try:
        scheme = urllib.parse.urlparse(body['image_url']).scheme
    except ValueError:
        scheme = ''  # not a URL at all (Ironic fails with a 500)
    if scheme not in URL_SCHEMES:
        raise utils.BadRequest('Unsupported or missing URL scheme: %s'
                               % scheme)
    found = _node_for(node, 'baremetal:node:vmedia:attach')
    utils.rpcapi().attach_virtual_media(utils.context(), found,
                                        body['device_type'])
    return NO_CONTENT


def detach_vmedia(node):
    params = node_common.query()
    utils.check_arguments(params, ('device_types',))
    wanted = None
    if params.get('device_types') is not None:
        wanted = [name.strip() for name in
                  params['device_types'].split(',') if name.strip()]
        invalid = [name for name in wanted if name not in VMEDIA_DEVICES]
        if invalid:
            raise utils.BadRequest(
                'Invalid device type(s) %s (valid are %s)'
                % (', '.join(invalid), ', '.join(VMEDIA_DEVICES)))
    found = node_common.authorized_node(node, 'baremetal:node:vmedia:detach')
    utils.rpcapi().detach_virtual_media(utils.context(), found, wanted)
    return NO_CONTENT
