"""The conductor RPC methods of a node's console, RAID, boot mode, secure
boot and virtual media (RPC API 1.3), the conductor's side (the client's
is ``rpcapi.ConductorAPI``'s methods of the same names).

``NodeActions`` is mixed into the conductor's endpoint
(``manager.ConductorManager``): each method makes its change under the
node's lock by the rules of ``allocsvc.conductor.management`` (the
fake-hardware interfaces' outcome) and returns the node as an
``objects.Node``.
"""

import oslo_messaging as messaging

from allocsvc import objects
from allocsvc.common import rpc
from allocsvc.conductor import management


class NodeActions:
    """Server side; the endpoint provides ``_locker()`` and
    ``_worker_context(context)`` (its own context for the work)."""

    def _node_action(self, context, change, node, *args):
        context = self._worker_context(context)
        return objects.Node.from_record(
            context, change(context, node.id, *args, self._locker()))

    @messaging.expose
    @rpc.translate_errors
    def set_console_mode(self, context, node, enabled):
        return self._node_action(context, management.set_console, node,
                                 enabled)

    @messaging.expose
    @rpc.translate_errors
    def set_target_raid_config(self, context, node, target_raid_config):
        return self._node_action(context, management.set_target_raid_config,
                                 node, target_raid_config)

    @messaging.expose
    @rpc.translate_errors
    def change_node_boot_mode(self, context, node, target):
        return self._node_action(context, management.change_boot_mode,
                                 node, target)

    @messaging.expose
    @rpc.translate_errors
    def change_node_secure_boot(self, context, node, target):
        return self._node_action(context, management.change_secure_boot,
                                 node, target)

    @messaging.expose
    @rpc.translate_errors
    def attach_virtual_media(self, context, node, device_type):
        return self._node_action(context, management.attach_virtual_media,
                                 node, device_type)

    @messaging.expose
    @rpc.translate_errors
    def detach_virtual_media(self, context, node, device_types=None):
        return self._node_action(context, management.detach_virtual_media,
                                 node, device_types)
