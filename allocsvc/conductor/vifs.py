"""VIFs (virtual network interfaces) of a node, kept on its ports.

As Ironic's ``flat`` and ``neutron`` network interfaces do, a VIF is
attached to one free port group or port of the node, whose
``internal_info`` then names it (``tenant_vif_port_id``); the node's
VIFs are those its port groups and ports name. A conductor attaches and
detaches them on the API's behalf, under the node's lock, in one
transaction; the API lists them from the ports and port groups it
reads. The ``noop`` network interface keeps none: the API answers for
it without coming here.

Which port a VIF takes (Ironic's choice): the one the request names
(``port_uuid`` or ``portgroup_uuid``) if it is free; else a free port
group before a free port, and among ports one with PXE enabled first.
A port that is a member of a port group is the group's, not free on its
own. A VIF attached once is a 409; no free port a 400.
"""

from allocsvc.common import exception
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import ports

VIF_KEY = 'tenant_vif_port_id'


def _holders(context, node_id):
    """(port groups, ports) of the node, in id order."""
    return (ports.list_portgroups(context, {'node_id': node_id}),
            ports.list_ports_in_transaction(context, {'node_id': node_id}))


def attach(context, node_id, vif_info, locker):
    """Attach the VIF ``vif_info['id']`` to a free port or port group of
    node ``node_id`` under the node's lock (see the module)."""
    with locker.hold(context, node_id) as node:
        _attach(context, node, vif_info)


@db_api.writer
def _attach(context, node, vif_info):
    vif = vif_info['id']
    groups, members = _holders(context, node.id)
    for holder in list(groups) + list(members):
        if (holder.internal_info or {}).get(VIF_KEY) == vif:
            kind = 'Portgroup' if isinstance(holder, ports.Portgroup) \
                else 'Port'
            raise exception.VifAlreadyAttached(vif, kind, holder.uuid)
    free_groups = [g for g in groups
                   if not (g.internal_info or {}).get(VIF_KEY)]
    free_ports = [p for p in members if p.portgroup_id is None and
                  not (p.internal_info or {}).get(VIF_KEY)]
    wanted_port = vif_info.get('port_uuid')
    wanted_group = vif_info.get('portgroup_uuid')
    if wanted_port or wanted_group:
        candidates = [h for h in free_ports + free_groups
                      if h.uuid in (wanted_port, wanted_group)]
        if not candidates:
            raise exception.NoFreePhysicalPorts(vif)
        chosen = candidates[0]
    else:
        # A free port group first, then a port with PXE enabled.
        ranked = free_groups + sorted(free_ports,
                                      key=lambda p: not p.pxe_enabled)
        if not ranked:
            raise exception.NoFreePhysicalPorts(vif)
        chosen = ranked[0]
    _set_vif(context, chosen, vif)


def detach(context, node_id, vif, locker):
    """Detach VIF ``vif`` from the port or port group of node
    ``node_id`` that has it, under the node's lock; VifNotAttached (400)
    if none has."""
    with locker.hold(context, node_id) as node:
        _detach(context, node, vif)


@db_api.writer
def _detach(context, node, vif):
    groups, members = _holders(context, node.id)
    for holder in list(members) + list(groups):
        if (holder.internal_info or {}).get(VIF_KEY) == vif:
            _set_vif(context, holder, None)
            return
    raise exception.VifNotAttached(vif, node.uuid)


def _set_vif(context, holder, vif):
    info = dict(holder.internal_info or {})
    if vif is None:
        info.pop(VIF_KEY, None)
    else:
        info[VIF_KEY] = vif
    if isinstance(holder, ports.Portgroup):
        ports.update_portgroup_in_transaction(context, holder,
                                              {'internal_info': info})
    else:
        ports.update_port_in_transaction(context, holder,
                                         {'internal_info': info})
