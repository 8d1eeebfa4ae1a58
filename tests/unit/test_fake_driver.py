"""``allocsvc.common.fake_driver``: what fake-hardware's interfaces
answer, with Ironic 39's texts (checked against a running Ironic 39
with fake-hardware and its fake interfaces)."""

import types

import pytest

from allocsvc.common import exception
from allocsvc.common import fake_driver


def node(**interfaces):
    values = {'driver': 'fake-hardware', 'uuid': 'u-1',
              'console_interface': 'fake', 'raid_interface': 'fake',
              'vendor_interface': 'fake'}
    values.update(interfaces)
    return types.SimpleNamespace(**values)


def test_supports():
    assert fake_driver.supports('fake')
    assert fake_driver.supports('agent')
    assert not fake_driver.supports('no-raid')
    assert fake_driver.supports(None)


@pytest.mark.parametrize('config', [
    {'logical_disks': [{'size_gb': 100, 'raid_level': '1'}]},
    {'logical_disks': [{'size_gb': 'MAX', 'raid_level': 'JBOD',
                        'is_root_volume': True, 'controller': 'c',
                        'physical_disks': ['a', 'b']},
                       {'size_gb': 0, 'raid_level': '5+0',
                        'disk_type': 'ssd', 'interface_type': 'sas',
                        'number_of_physical_disks': 3,
                        'volume_name': 'v', 'share_physical_disks': False}]},
])
def test_valid_raid_configs(config):
    fake_driver.validate_raid_config(config)
    fake_driver.check_target_raid_config(node(), config)


@pytest.mark.parametrize('config,text', [
    ({'logical_disks': [{'size_gb': 1, 'raid_level': '1', 'foo': 1}]},
     "Additional properties are not allowed ('foo' was unexpected)"),
    ({'logical_disks': [{'size_gb': 1, 'raid_level': '1',
                         'physical_disks': [{}]}], 'x': 1},
     "Additional properties are not allowed ('x' was unexpected)"),
    ({'logical_disks': {'a': 1}}, "{'a': 1} is not of type 'array'"),
    ({'logical_disks': [1]}, "1 is not of type 'object'"),
])
def test_invalid_raid_configs(config, text):
    with pytest.raises(exception.InvalidParameterValue) as info:
        fake_driver.validate_raid_config(config)
    assert info.value.message == 'RAID config validation error: ' + text


def test_target_raid_config_of_no_raid():
    config = {'logical_disks': [{'size_gb': 1, 'raid_level': '1'}]}
    with pytest.raises(exception.UnsupportedDriverExtension) as info:
        fake_driver.check_target_raid_config(node(raid_interface='no-raid'),
                                             config)
    assert info.value.status == 404
    # An empty configuration is taken without a RAID interface.
    fake_driver.check_target_raid_config(node(raid_interface='no-raid'), {})


def test_logical_disk_properties_are_the_schema_properties():
    assert set(fake_driver.LOGICAL_DISK_PROPERTIES) == set(
        fake_driver._LOGICAL_DISK['properties'])
    assert all(text.endswith(('Required.', 'Optional.'))
               for text in fake_driver.LOGICAL_DISK_PROPERTIES.values())


def test_failure_texts():
    assert fake_driver.boot_mode_error('fake-hardware', 'uefi') == (
        "Failed to change boot mode to 'uefi: Driver fake-hardware does "
        "not support set_boot_mode (disabled or not implemented).")
    assert fake_driver.secure_boot_error('fake-hardware', False) == (
        "Failed to change secure_boot state to 'False': Driver "
        "fake-hardware does not support set_secure_boot_state (disabled "
        "or not implemented).")
    assert fake_driver.detach_error('u-1', 'fake-hardware',
                                    ['floppy', 'disk']) == (
        "Could not detach device(s) ['floppy', 'disk'] from node u-1: "
        "Driver fake-hardware does not support detach_virtual_media "
        "(disabled or not implemented).")


def test_vendor_passthru():
    answer = fake_driver.vendor_passthru(node(), 'third_method_sync',
                                         'POST', {'bar': 'meow'})
    assert answer == (False, True)
    assert fake_driver.vendor_passthru(
        node(), 'second_method', 'POST', {'bar': 'x'}) == (True, None)
    assert fake_driver.vendor_passthru(
        node(), 'log_passthrough', 'POST', {'any': 1}) == (True, None)
    for method, http, args, text in (
            ('first_method', 'POST', {}, 'No handler for method '
                                         'first_method'),
            ('second_method', 'PUT', {'bar': 'x'},
             'The method second_method does not support HTTP PUT'),
            ('fourth_method_shared_lock', 'POST', {'bar': ''},
             "Parameter 'bar' not passed to method "
             "'fourth_method_shared_lock'.")):
        with pytest.raises(exception.InvalidParameterValue) as info:
            fake_driver.vendor_passthru(node(), method, http, args)
        assert info.value.message == text
    with pytest.raises(exception.InvalidParameterValue):
        fake_driver.vendor_passthru(node(vendor_interface='no-vendor'),
                                    'second_method', 'POST', {'bar': 'x'})
    assert fake_driver.vendor_methods(node(vendor_interface='no-vendor')) \
        == {}
    assert '_needs_bar' not in fake_driver.vendor_methods(node())[
        'second_method']


def test_indicators():
    fake_driver.check_indicator('system', 'led')
    fake_driver.check_indicator('chassis', 'led-0')
    with pytest.raises(exception.InvalidParameterValue):
        fake_driver.check_indicator('chassis', 'led')
