"""The conductor RPC methods of a node's console, RAID, boot mode, secure
boot and virtual media (RPC API 1.3), both sides of each.

``NodeActions`` is mixed into the conductor's endpoint
(``manager.ConductorManager``): each method makes its change under the
node's lock by the rules of ``allocsvc.db.baremetal.management`` (the
fake-hardware interfaces' outcome) and returns the node as an
``objects.Node``. ``NodeActionsAPI`` is mixed into the client
(``rpcapi.ConductorAPI``): each method calls the node's conductor and
raises what that raised.
"""

import oslo_messaging as messaging

from allocsvc import objects
from allocsvc.common import rpc
from allocsvc.db.baremetal import management

# The conductors' RPC API version (see rpcapi); these calls came in 1.3.
VERSION = '1.4'
_SINCE = '1.3'


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


class NodeActionsAPI:
    """Client side; the client provides ``_call_for_node``."""

    def _act(self, context, node, method, **kwargs):
        return self._call_for_node(context, node, method, version=_SINCE,
                                   **kwargs)

    @rpc.rebuild_errors
    def set_console_mode(self, context, node, enabled):
        """Enable or disable the console of ``node``;
        UnsupportedDriverExtension (400) without a console interface."""
        return self._act(context, node, 'set_console_mode', enabled=enabled)

    @rpc.rebuild_errors
    def set_target_raid_config(self, context, node, target_raid_config):
        """Keep the target RAID configuration of ``node``: 400 for an
        invalid one, UnsupportedDriverExtension (404) without a RAID
        interface."""
        return self._act(context, node, 'set_target_raid_config',
                         target_raid_config=target_raid_config)

    @rpc.rebuild_errors
    def change_node_boot_mode(self, context, node, target):
        return self._act(context, node, 'change_node_boot_mode',
                         target=target)

    @rpc.rebuild_errors
    def change_node_secure_boot(self, context, node, target):
        return self._act(context, node, 'change_node_secure_boot',
                         target=target)

    @rpc.rebuild_errors
    def attach_virtual_media(self, context, node, device_type):
        return self._act(context, node, 'attach_virtual_media',
                         device_type=device_type)

    @rpc.rebuild_errors
    def detach_virtual_media(self, context, node, device_types=None):
        return self._act(context, node, 'detach_virtual_media',
                         device_types=device_types)
