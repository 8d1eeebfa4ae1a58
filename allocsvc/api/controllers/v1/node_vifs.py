"""A node's VIFs (``/v1/nodes/{node}/vifs``, 1.28).

Routes (``routes.ROUTES``)::

    GET    .../vifs          those its ports and port groups hold
    POST   .../vifs          204: takes a free port or port group
    DELETE .../vifs/{vif}    204: frees it

A VIF is attached to a free port or port group of its node by the
node's conductor, unless the node's network interface is ``noop``,
which keeps none (attaching and detaching succeed, the list is empty,
as Ironic's).
"""

from oslo_utils import uuidutils

from allocsvc import objects
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import utils

# The network interface that keeps no VIFs, and where the others keep
# one: in the internal_info of the port or port group it took.
_NOOP_NETWORK = 'noop'
_VIF_KEY = 'tenant_vif_port_id'


def list_vifs(node):
    found = node_common.node_for(node, 'baremetal:node:vif:list')
    if found.network_interface == _NOOP_NETWORK:
        return {'vifs': []}
    ctx = utils.context()
    holders = (objects.Port.list(ctx, {'node_id': found.id}) +
               objects.Portgroup.list(ctx, {'node_id': found.id}))
    return {'vifs': [{'id': holder.internal_info[_VIF_KEY]}
                     for holder in holders
                     if holder.internal_info.get(_VIF_KEY)]}


def attach_vif(node, body):
    vif_info = _vif_info(node_common.json_object(body, schema='vif'))
    found = node_common.node_for(node, 'baremetal:node:vif:attach')
    if found.network_interface != _NOOP_NETWORK:  # noop keeps none
        utils.rpcapi().vif_attach(utils.context(), found, vif_info)
    return dispatch.Reply(204)


def _vif_info(body):
    """What a VIF attachment request asks for: its ``id`` and, from
    1.67, the port or port group to take (Ironic's checks)."""
    vif = body.get('id')
    if vif is None:
        raise utils.BadRequest("Schema error for vif: 'id' is a "
                               "required property")
    if not isinstance(vif, str) or not (
            uuidutils.is_uuid_like(vif) or
            utils.is_valid_logical_name(vif)):
        raise utils.BadRequest('Expected UUID or name for id: %s' % (vif,))
    node_schema.check_text('id', vif)
    info = {'id': vif}
    wanted = [key for key in ('port_uuid', 'portgroup_uuid') if key in body]
    if wanted and not utils.allowed((1, 67)):
        raise utils.BadRequest('Additional properties are not allowed '
                               '(%s was unexpected)' % ', '.join(
                                   repr(key) for key in wanted))
    if len(wanted) == 2:
        raise utils.BadRequest('Cannot specify both port_uuid and '
                               'portgroup_uuid')
    for key in wanted:
        utils.check_uuid(body[key], key)
        info[key] = body[key]
    return info


def detach_vif(node, vif):
    found = node_common.node_for(node, 'baremetal:node:vif:detach')
    if found.network_interface != _NOOP_NETWORK:  # nothing was attached
        utils.rpcapi().vif_detach(utils.context(), found, vif)
    return dispatch.Reply(204)
