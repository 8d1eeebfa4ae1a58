"""python-ironicclient against ``allocsvc-all``, over HTTP, unchanged.

What a real Ironic client can do with the frame: discover the API and
negotiate a microversion (``latest``, an explicit one, one too new), with
auth type none, read Ironic's error document (a resource this service
does not provide, such as volume connectors, is a 404 saying so), list
the drivers the all-in-one conductor serves and read chassis.
"""

from ironicclient import client as ironic_client
from ironicclient import exc as ironic_exc
import pytest

from allocsvc.api.controllers.v1 import versions
from tests.helpers import processes

# One worker runs the module, on its one service (a module fixture).
pytestmark = pytest.mark.xdist_group(__name__)


@pytest.fixture(scope='module')
def endpoint(tmp_path_factory):
    yield from processes.serve_all_in_one(
        tmp_path_factory.mktemp('ironicclient'))


def client(endpoint, version):
    return ironic_client.get_client(1, endpoint=endpoint, auth_type='none',
                                    os_ironic_api_version=version)


def test_latest_negotiates_our_maximum(endpoint):
    ironic = client(endpoint, 'latest')
    assert ironic.negotiate_api_version() == str(versions.MAX_VERSION)
    assert ironic.current_api_version == str(versions.MAX_VERSION)


def test_explicit_version_is_sent_and_accepted(endpoint):
    # A version the user chose is not negotiated: the server takes it
    # (the request gets as far as routing, a 404, not a 406).
    ironic = client(endpoint, '1.60')
    with pytest.raises(ironic_exc.NotFound):
        ironic.volume_connector.list()


def test_explicit_version_too_new_reports_our_range(endpoint):
    ironic = client(endpoint, '1.%d' % (versions.MAX_VERSION.minor + 1))
    with pytest.raises(ironic_exc.UnsupportedVersion) as raised:
        ironic.driver.list()
    message = ' '.join(str(raised.value).split())
    assert 'range is 1.1 to %s' % (versions.MAX_VERSION,) in message


def test_version_list_picks_the_highest_supported(endpoint):
    ironic = client(endpoint, ['1.52', '1.58', '1.999'])
    assert ironic.negotiate_api_version() == '1.58'


def test_unknown_resource_reads_as_ironic_error(endpoint):
    ironic = client(endpoint, 'latest')
    with pytest.raises(ironic_exc.NotFound) as raised:
        ironic.volume_connector.list()
    # The client found the fault inside error_message.
    assert 'does not provide the volume resource' in str(raised.value)


def test_chassis(endpoint):
    ironic = client(endpoint, '1.1')
    made = ironic.chassis.create(description='frame')
    assert made.uuid in [c.uuid for c in ironic.chassis.list()]
    with pytest.raises(ironic_exc.NotFound) as raised:
        ironic.chassis.get('11111111-2222-3333-4444-555555555555')
    assert 'Chassis 11111111-2222-3333-4444-555555555555 could not be ' \
        'found.' in str(raised.value)
    ironic.chassis.delete(made.uuid)


def test_drivers(endpoint):
    ironic = client(endpoint, 'latest')
    [driver] = ironic.driver.list()
    assert driver.name == 'fake-hardware' and driver.type == 'dynamic'
    assert len(driver.hosts) == 1
    shown = ironic.driver.get('fake-hardware')
    assert shown.default_power_interface == 'fake'
    assert ironic.driver.properties('fake-hardware') == {
        'B1': 'B1 description. Required.',
        'B2': 'B2 description. Required.'}
