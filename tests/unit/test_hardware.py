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
