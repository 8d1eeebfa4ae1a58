"""allocsvc.common.hardware: fake-hardware's interfaces, the defaults a
node gets, and Ironic's messages for the ones it may not use."""

from oslo_config import cfg
import pytest

from allocsvc.common import exception
from allocsvc.common import hardware


@pytest.fixture
def conf():
    conf = cfg.ConfigOpts()
    hardware.register_opts(conf)
    conf([], project='allocsvc', default_config_files=[])
    return conf


FAKE_DEFAULTS = {
    'bios_interface': 'fake', 'boot_interface': 'fake',
    'console_interface': 'fake', 'deploy_interface': 'fake',
    'firmware_interface': 'fake', 'inspect_interface': 'fake',
    'management_interface': 'fake', 'network_interface': 'flat',
    'power_interface': 'fake', 'raid_interface': 'fake',
    'rescue_interface': 'fake', 'storage_interface': 'noop',
    'vendor_interface': 'fake',
}


def test_fake_hardware_defaults(conf):
    assert hardware.node_interfaces(conf, 'fake-hardware', {}) == \
        FAKE_DEFAULTS
    assert hardware.node_interfaces(None, 'fake-hardware', {}) == \
        FAKE_DEFAULTS


def test_fake_first_then_generic():
    assert hardware.supported_interfaces('fake-hardware', 'boot') == [
        'fake', 'ipxe', 'pxe', 'http-ipxe', 'http']
    assert hardware.supported_interfaces('fake-hardware', 'power') == [
        'fake']
    assert hardware.supported_interfaces('fake-hardware', 'network')[0] == \
        'flat'


def test_given_interfaces_are_kept(conf):
    given = {'boot_interface': 'ipxe', 'deploy_interface': 'direct',
             'raid_interface': 'agent', 'network_interface': 'noop'}
    result = hardware.node_interfaces(conf, 'fake-hardware', given)
    assert result == dict(FAKE_DEFAULTS, **given)


def test_not_enabled_interface(conf):
    conf.set_override('enabled_boot_interfaces', ['fake', 'pxe'])
    with pytest.raises(exception.InterfaceNotFoundInEntrypoint) as info:
        hardware.check_interface(conf, 'fake-hardware', 'boot', 'ipxe')
    assert info.value.code == 400
    assert str(info.value) == (
        "Could not find the following interface in the "
        "'ironic.hardware.interfaces.boot' entrypoint: ipxe. Valid "
        "interfaces are ['fake', 'pxe'].")


def test_configured_default(conf):
    conf.set_override('default_deploy_interface', 'direct')
    assert hardware.default_interface(conf, 'fake-hardware',
                                      'deploy') == 'direct'


def test_no_default(conf):
    conf.set_override('enabled_power_interfaces', [])
    with pytest.raises(exception.NoValidDefaultForInterface) as info:
        hardware.default_interface(conf, 'fake-hardware', 'power',
                                   node='1be26c0b-03f2-4d2e-ae87-c02d7f33c123')
    assert str(info.value) == (
        "For node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 with hardware type "
        "'fake-hardware', no default value found for power interface could "
        "be determined. Please ensure the interfaces are enabled.")


def test_hardware_types(conf):
    hardware.check_hardware_type(conf, 'fake-hardware')
    with pytest.raises(exception.NoValidHost) as info:
        hardware.check_hardware_type(conf, 'ipmi', 'grp')
    assert info.value.code == 400
    conf.set_override('enabled_hardware_types', [])
    with pytest.raises(exception.NoValidHost):
        hardware.check_hardware_type(conf, 'fake-hardware')


def test_usable_interfaces(conf):
    assert hardware.usable_interfaces(conf, 'fake-hardware', 'power') == [
        'fake']
    conf.set_override('enabled_boot_interfaces', ['pxe', 'fake', 'other'])
    assert hardware.usable_interfaces(conf, 'fake-hardware', 'boot') == [
        'pxe', 'fake']
    assert hardware.enabled_interfaces(conf, 'boot') == ['pxe', 'fake']


def test_validate_report():
    interfaces = hardware.node_interfaces(None, 'fake-hardware', {
        'bios_interface': 'no-bios'})
    report = hardware.validate('fake-hardware', interfaces)
    assert 'vendor' not in report
    assert report['power'] == {'result': True}
    assert report['bios'] == {
        'result': False,
        'reason': 'Driver fake-hardware does not support bios (disabled or '
                  'not implemented).'}


# -- a driver change (node_fields.interfaces), with a second hardware
# type that supports less than fake-hardware.

def _node(**interfaces):
    import types
    values = dict(hardware.node_interfaces(None, 'fake-hardware', {}),
                  **interfaces)
    return types.SimpleNamespace(uuid='u1', driver='fake-hardware',
                                 maintenance=False,
                                 provision_state='manageable', **values)


@pytest.fixture
def second_type(monkeypatch):
    narrow = {kind: ('fake',) if kind != 'network' else ('noop',)
              for kind in hardware.INTERFACE_TYPES}
    narrow['storage'] = ('noop',)
    monkeypatch.setitem(hardware.HARDWARE_TYPES, 'narrow', narrow)


def test_driver_change_keeps_or_resets_interfaces(second_type):
    from allocsvc.conductor import node_fields
    node = _node(network_interface='noop')
    changes = {'driver': 'narrow'}
    node_fields.interfaces(node, changes, False, None)
    assert changes == {'driver': 'narrow'}   # all still valid
    node = _node()   # network flat: not supported by 'narrow'
    with pytest.raises(exception.IncompatibleInterface) as info:
        node_fields.interfaces(node, {'driver': 'narrow'}, False, None)
    assert str(info.value) == ("network interface implementation 'flat' is "
                               "not supported by hardware type narrow.")
    changes = {'driver': 'narrow'}
    node_fields.interfaces(node, changes, True, None)
    assert changes == {'driver': 'narrow', 'network_interface': 'noop'}


def test_interfaces_change_only_in_allowed_states():
    from allocsvc.conductor import node_fields
    node = _node()
    node.provision_state = 'active'
    with pytest.raises(exception.InvalidState):
        node_fields.interfaces(node, {'boot_interface': 'pxe'}, False, None)
    node.maintenance = True
    changes = {'boot_interface': 'pxe'}
    node_fields.interfaces(node, changes, False, None)
    assert changes == {'boot_interface': 'pxe'}
