"""What the management, console and RAID requests of the bare-metal API
change on a node, as ``fake-hardware``'s interfaces make the change
(``allocsvc.common.fake_driver``).

A conductor applies them on the API's behalf
(``allocsvc.conductor.node_actions``), each under the node's lock
(``locking.Locker``), in one transaction of its own, and returns
the node as it leaves it. What Ironic does in the background the fake
interfaces finish at once, so its outcome is written here: the console
state, the target RAID configuration, or the ``last_error`` a request
the fake management interface cannot carry out leaves (setting the boot
mode or secure boot, attaching or detaching virtual media), as Ironic's
conductor records it.
"""

from allocsvc.common import fake_driver
from allocsvc.conductor import mirror
from allocsvc.db import api as db_api
from allocsvc.db.baremetal import nodes


def _change(context, node_id, locker, decide):
    """Hold the node's lock, ``decide(node)`` the column values to write
    (None: nothing to write; or raise), write them; return the node."""
    with locker.hold(context, node_id) as node:
        values = decide(node)
        if values:
            _write(context, node_id, values, locker.host)
    return nodes.get_by_id(context, node_id)


@db_api.writer
def _write(context, node_id, values, host):
    # UPDATE nodes SET ... WHERE id = :id AND reservation = :host
    return mirror.update_in_transaction(context, node_id, dict(values),
                                        locked_by=host)


def set_console(context, node_id, enabled, locker):
    """Enable or disable the node's console. UnsupportedDriverExtension
    (400) for a console interface that does not validate; nothing
    changes when the console already is so (Ironic only logs it)."""
    def decide(node):
        fake_driver.check_console(node)
        if bool(node.console_enabled) == enabled:
            return None
        return {'console_enabled': enabled, 'last_error': None}
    return _change(context, node_id, locker, decide)


def set_target_raid_config(context, node_id, config, locker):
    """Keep ``config`` as the node's target RAID configuration, once
    ``fake_driver.check_target_raid_config`` takes it (400, or 404 for a
    node without a RAID interface)."""
    def decide(node):
        fake_driver.check_target_raid_config(node, config)
        return {'target_raid_config': config}
    return _change(context, node_id, locker, decide)


def _failed(error):
    """A change the fake management interface cannot make: ``error(node)``
    is the ``last_error`` it leaves."""
    def decide(node):
        return {'last_error': error(node)}
    return decide


def change_boot_mode(context, node_id, target, locker):
    return _change(context, node_id, locker, _failed(
        lambda node: fake_driver.boot_mode_error(node.driver, target)))


def change_secure_boot(context, node_id, target, locker):
    return _change(context, node_id, locker, _failed(
        lambda node: fake_driver.secure_boot_error(node.driver, target)))


def attach_virtual_media(context, node_id, device_type, locker):
    return _change(context, node_id, locker, _failed(
        lambda node: fake_driver.attach_error(node.uuid, node.driver,
                                              device_type)))


def detach_virtual_media(context, node_id, device_types, locker):
    return _change(context, node_id, locker, _failed(
        lambda node: fake_driver.detach_error(node.uuid, node.driver,
                                              device_types)))
