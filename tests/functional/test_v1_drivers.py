"""``/v1/drivers`` as an Ironic client sees it.

Scenarios: fake-hardware listed while a live conductor has it, with
those conductors as ``hosts`` (a dead, silent or driverless one is not a
host; none alive means an empty list and a 404 on show); the fields per
version (properties links 1.14, type 1.30, each interface type from its
version); ``?detail`` and ``?type`` (406 before 1.30, 400 for a bad
value); the show document in detail; the properties and RAID logical disk
properties paths; configured enabled and default interfaces; the link
from ``/v1``; what conductors register.
"""

import pytest
import webob

from allocsvc.common import hardware
from allocsvc.db.baremetal import conductors as db_conductors
from tests import conftest
from tests.functional.ironic_errors import message
from tests.helpers.v1_conductors import Env

IFACE_KEYS = {'%s_%s_interface%s' % (prefix, kind, suffix)
              for kind in hardware.INTERFACE_TYPES
              for prefix, suffix in (('default', ''), ('enabled', 's'))}
BASE = {'name', 'hosts', 'links'}


@pytest.fixture
def env(database):
    return Env(database)


def test_hosts_are_the_live_conductors_with_the_driver(env):
    env.register('cond-b')
    env.register('cond-a', drivers=['fake-hardware', 'ipmi'])
    env.register('other', drivers=['ipmi'])
    env.register('silent')
    env.silence('silent', 3600)
    env.register('gone')
    db_conductors.unregister(env.ctx, 'gone')
    resp = env.call('/v1/drivers')
    assert resp.status_int == 200
    [driver] = resp.json['drivers']
    assert driver['name'] == 'fake-hardware'
    assert driver['hosts'] == ['cond-a', 'cond-b']
    assert driver['type'] == 'dynamic'
    assert driver['links'] == [
        {'href': 'http://localhost/v1/drivers/fake-hardware',
         'rel': 'self'},
        {'href': 'http://localhost/drivers/fake-hardware',
         'rel': 'bookmark'}]
    assert driver['properties'] == [
        {'href': 'http://localhost/v1/drivers/fake-hardware/properties',
         'rel': 'self'},
        {'href': 'http://localhost/drivers/fake-hardware/properties',
         'rel': 'bookmark'}]
    assert set(driver) == BASE | {'type', 'properties'}


def test_no_live_conductor_no_driver(env):
    assert env.call('/v1/drivers').json == {'drivers': []}
    env.register('gone')
    db_conductors.unregister(env.ctx, 'gone')
    assert env.call('/v1/drivers').json == {'drivers': []}
    resp = env.call('/v1/drivers/fake-hardware')
    assert resp.status_int == 404
    assert message(resp) == ('Could not find the following driver(s) or '
                             'hardware type(s): fake-hardware.')
    resp = env.call('/v1/drivers/fake-hardware/properties')
    assert resp.status_int == 404


def test_fields_per_version(env):
    env.register('c')
    for version, keys in [('1.1', BASE), ('1.13', BASE),
                          ('1.14', BASE | {'properties'}),
                          ('1.30', BASE | {'properties', 'type'})]:
        [driver] = env.call('/v1/drivers', version=version).json['drivers']
        assert set(driver) == keys, version
    later = {'1.32': ('storage', 'rescue', 'bios', 'firmware'),
             '1.37': ('rescue', 'bios', 'firmware'),
             '1.39': ('bios', 'firmware'), '1.85': ('firmware',),
             'latest': ()}
    for version, hidden in later.items():
        [driver] = env.call('/v1/drivers?detail=true',
                            version=version).json['drivers']
        expected = {key for key in IFACE_KEYS
                    if key.split('_')[1] not in hidden}
        assert set(driver) == BASE | {'properties', 'type'} | expected, \
            version
        shown = env.call('/v1/drivers/fake-hardware', version=version).json
        assert shown == driver, version


def test_detail_is_fake_hardware_as_ironic_describes_it(env):
    env.register('c')
    [driver] = env.call('/v1/drivers?detail=True').json['drivers']
    assert driver['default_power_interface'] == 'fake'
    assert driver['enabled_power_interfaces'] == ['fake']
    assert driver['default_management_interface'] == 'fake'
    assert driver['default_deploy_interface'] == 'fake'
    assert driver['default_network_interface'] == 'flat'
    assert driver['default_storage_interface'] == 'noop'
    assert driver['enabled_boot_interfaces'][0] == 'fake'
    assert 'ipxe' in driver['enabled_boot_interfaces']
    # ?detail=false (and no detail) is the short form.
    [short] = env.call('/v1/drivers?detail=false').json['drivers']
    assert set(short) == BASE | {'properties', 'type'}


def test_configured_interfaces(database):
    conf = conftest.make_conf()
    conf.set_override('enabled_deploy_interfaces', ['direct', 'fake'])
    conf.set_override('default_deploy_interface', 'direct')
    env = Env(database, conf)
    env.register('c')
    shown = env.call('/v1/drivers/fake-hardware').json
    assert shown['enabled_deploy_interfaces'] == ['direct', 'fake']
    assert shown['default_deploy_interface'] == 'direct'
    conf.set_override('enabled_hardware_types', ['manual-management'])
    assert env.call('/v1/drivers').json == {'drivers': []}


def test_type_filter(env):
    env.register('c')
    assert len(env.call('/v1/drivers?type=dynamic').json['drivers']) == 1
    assert env.call('/v1/drivers?type=classic').json == {'drivers': []}


@pytest.mark.parametrize('path,version,status,text', [
    ('/v1/drivers?type=bogus', 'latest', 400,
     '"type" filter must be one of "classic" or "dynamic", if specified.'),
    ('/v1/drivers?type=dynamic', '1.29', 406,
     'Request not acceptable. The minimal required API version should '
     'be 1.30'),
    ('/v1/drivers?detail=true', '1.29', 406,
     'Request not acceptable. The minimal required API version should '
     'be 1.30'),
    ('/v1/drivers?detail=maybe', 'latest', 400,
     "Invalid detail: Unrecognized value 'maybe', acceptable values are: "
     "'0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', "
     "'yes'"),
    ('/v1/drivers?bogus=1', 'latest', 400, 'Unexpected arguments: bogus'),
    ('/v1/drivers/fake-hardware?detail=true', 'latest', 400,
     'Unexpected arguments: detail'),
    ('/v1/drivers/ipmi', 'latest', 404,
     'Could not find the following driver(s) or hardware type(s): ipmi.'),
    ('/v1/drivers/ipmi/properties', 'latest', 404,
     'Could not find the following driver(s) or hardware type(s): ipmi.'),
    ('/v1/drivers/fake-hardware/raid/logical_disk_properties', '1.11',
     406, 'Request not acceptable.'),
    ('/v1/drivers/ipmi/raid/logical_disk_properties', 'latest', 404,
     'Could not find the following driver(s) or hardware type(s): ipmi.'),
])
def test_errors(env, path, version, status, text):
    env.register('c')
    resp = env.call(path, version=version)
    assert resp.status_int == status, resp.text
    assert message(resp) == text


def test_properties(env):
    env.register('c')
    resp = env.call('/v1/drivers/fake-hardware/properties')
    assert resp.status_int == 200
    # The fake vendor interface's (Ironic's FakeVendorB).
    assert resp.json == {'B1': 'B1 description. Required.',
                         'B2': 'B2 description. Required.'}


def test_raid_logical_disk_properties(env):
    # TestDrivers.test_driver_logical_disk_properties: Ironic's text for
    # each property its RAID schema has.
    env.register('c')
    resp = env.call('/v1/drivers/fake-hardware/raid/logical_disk_properties',
                    version='1.12')
    assert resp.status_int == 200
    assert sorted(resp.json) == [
        'controller', 'disk_type', 'interface_type', 'is_root_volume',
        'number_of_physical_disks', 'physical_disks', 'raid_level',
        'share_physical_disks', 'size_gb', 'volume_name']
    assert resp.json['raid_level'] == (
        "RAID level for the logical disk. Valid values are 'JBOD', '0', "
        "'1', '2', '5', '6', '1+0', '5+0' and '6+0'. Required.")
    assert resp.json['size_gb'] == (
        "Size in GiB (Integer) for the logical disk. Use 'MAX' as size_gb "
        "if this logical disk is supposed to use the rest of the space "
        "available. Required.")


def test_raid_logical_disk_properties_without_raid(database):
    conf = conftest.make_conf()
    conf.set_override('default_raid_interface', 'no-raid')
    env = Env(database, conf)
    env.register('c')
    resp = env.call('/v1/drivers/fake-hardware/raid/logical_disk_properties')
    assert resp.status_int == 404
    assert message(resp) == ('Driver fake-hardware does not support raid '
                             '(disabled or not implemented).')


def test_properties_follow_the_default_interfaces(database):
    conf = conftest.make_conf()
    conf.set_override('default_vendor_interface', 'no-vendor')
    env = Env(database, conf)
    env.register('c')
    assert env.call('/v1/drivers/fake-hardware/properties').json == {}


def test_writes_are_not_allowed(env):
    env.register('c')
    for path in ('/v1/drivers', '/v1/drivers/fake-hardware',
                 '/v1/drivers/fake-hardware/properties'):
        for method in ('POST', 'PUT', 'PATCH', 'DELETE'):
            resp = webob.Request.blank(path, method=method).get_response(
                env.app)
            assert resp.status_int == 405, (path, method)
            assert resp.headers['Allow'] == 'GET'
    assert env.call('/v1/drivers/fake-hardware/bogus').status_int == 404


def test_linked_from_v1(env):
    doc = env.call('/v1', version='1.1').json
    assert doc['drivers'][0]['href'] == 'http://localhost/v1/drivers/'


def test_conductor_registers_its_hardware_types(database):
    from allocsvc.conductor import service as conductor_service

    conf = conftest.make_conf()
    svc = conductor_service.ConductorService.__new__(
        conductor_service.ConductorService)
    svc.conf, svc.host = conf, 'registering'
    env = Env(database, conf)
    svc._register(env.ctx)
    assert env.call('/v1/drivers/fake-hardware').json['hosts'] == [
        'registering']


def test_raid_without_a_path_below_is_404(env):
    env.register('c')
    resp = env.call('/v1/drivers/fake-hardware/raid')
    assert resp.status_int == 404


def test_conductor_registers_its_group(database):
    from allocsvc.conductor import service as conductor_service

    conf = conftest.make_conf()
    conf.set_override('conductor_group', 'Rack-1', group='conductor')
    svc = conductor_service.ConductorService.__new__(
        conductor_service.ConductorService)
    svc.conf, svc.host = conf, 'grouped'
    env = Env(database, conf)
    svc._register(env.ctx)
    assert env.call('/v1/conductors/grouped').json['conductor_group'] == \
        'rack-1'


def test_vendor_passthru(env):
    env.register('c')
    path = '/v1/drivers/fake-hardware/vendor_passthru'
    assert env.call(path + '/methods').json == {}
    resp = env.call(path + '?method=first')
    assert resp.status_int == 400
    assert message(resp) == 'No handler for method first'
    resp = webob.Request.blank(path, method='POST').get_response(env.app)
    assert resp.status_int == 400
    assert message(resp) == 'Method not specified'
    resp = env.call('/v1/drivers/ipmi/vendor_passthru/methods')
    assert resp.status_int == 404
