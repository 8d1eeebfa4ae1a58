"""``/v1/nodes/{n}/vmedia``: a node's virtual media, as ``fake-hardware``
answers (its management interface, ``fake``, has none).

Route table (the node controller answers 404 before 1.89)::

    POST   /v1/nodes/{n}/vmedia                  1.89   204, last_error
    DELETE /v1/nodes/{n}/vmedia[?device_types=]  1.89   204, last_error
    GET    /v1/nodes/{n}/vmedia                  1.93   400: unsupported

The requests are checked as Ironic's API checks them; the node's
conductor then records, under the node's lock, the failure Ironic's
background task records (``fake_driver.attach_error`` /
``detach_error``) in the node's ``last_error``.
"""

import urllib.parse

import jsonschema
import pecan

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.common import fake_driver

# What POST takes (Ironic's schema) and the URLs it takes.
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


def attach(node_controller):
    node_controller.vmedia = VmediaController(node_controller.ident)


class VmediaController(node_common.OneNode):
    """``/v1/nodes/{n}/vmedia`` (1.89)."""

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('DELETE, GET, POST')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.jsontype)
    def _get(self):
        if not utils.allowed((1, 93)):
            raise exception.NotFound('The resource could not be found.')
        node = self._node('baremetal:node:vmedia:get')
        raise fake_driver.unsupported(node.driver, 'get_virtual_media')

    @index.when(method='POST', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _post(self, body=None):
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
        node = self._node('baremetal:node:vmedia:attach')
        utils.rpcapi().attach_virtual_media(utils.context(), node,
                                            body['device_type'])

    @index.when(method='DELETE', **base.WSME_JSON)
    @base.expose(None, status_code=204)
    def _delete(self):
        params = node_common.query()
        utils.check_arguments(params, ('device_types',))
        wanted = None
        if params.get('device_types') is not None:
            wanted = [name.strip() for name in
                      params['device_types'].split(',') if name.strip()]
            invalid = [name for name in wanted
                       if name not in VMEDIA_DEVICES]
            if invalid:
                raise utils.BadRequest(
                    'Invalid device type(s) %s (valid are %s)'
                    % (', '.join(invalid), ', '.join(VMEDIA_DEVICES)))
        node = node_common.authorized_node(self._ident,
                                           'baremetal:node:vmedia:detach')
        utils.rpcapi().detach_virtual_media(utils.context(), node, wanted)


CONTROLLER_CLASSES = (VmediaController,)
