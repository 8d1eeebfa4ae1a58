"""The bare-metal API while the message broker is unreachable, over
HTTP, with the real conductor client whose broker is a stub that hangs
or refuses (``test_fault_injection`` cuts a real RabbitMQ).

Scenarios (SQLite, MariaDB, PostgreSQL):

* POST /v1/allocations while the broker does not take the cast: 201
  with the allocation ``allocating`` within ``[api]
  conductor_handover_timeout`` (plus a margin), the row written for the
  conductor picked, and that conductor's periodic check finishes it;
* DELETE and PATCH while the broker refuses: 503 in Ironic's error
  format with Retry-After, nothing changed; while it does not answer:
  503 within ``[api] conductor_call_timeout`` (plus a margin); the same
  for an allocation preview, which is a call too;
* GET never needs the broker.
"""

import threading
import time

import oslo_messaging as messaging
import pytest

from allocsvc.common import states
from allocsvc.conductor import rpcapi
from allocsvc.db.baremetal import allocations as db_allocations
from tests import conftest
from tests.functional import conductor_harness
from tests.functional.ironic_errors import fault
from tests.functional.ironic_errors import message
from tests.helpers import apps
from tests.helpers import v1_allocations
from tests.helpers import waiting

HANDOVER = 0.3
CALL = 0.5
MARGIN = 5.0
# The first failed message gets the broker suspected; the requests
# after it are refused without trying (allocsvc.conductor.call_guard).
BROKER_DOWN = ('No conductor can process the request: the message broker '
               'cannot be reached.',
               'No conductor can process the request: the message broker '
               'could not be reached a moment ago.')


class _Broker:
    """In place of the oslo.messaging client: ``hang`` or ``refuse``."""

    def __init__(self):
        self.mode = 'hang'
        self.release = threading.Event()

    def prepare(self, **options):
        return self

    def can_send_version(self, version):
        return True

    def _send(self):
        if self.mode == 'refuse':
            raise messaging.MessageDeliveryFailure('connection refused')
        self.release.wait(30)
        raise messaging.MessageDeliveryFailure('connection refused')

    def cast(self, context, method, **kwargs):
        self._send()

    def call(self, context, method, **kwargs):
        self._send()


@pytest.fixture
def outage(database):
    conf = conftest.make_conf(conductor_handover_timeout=HANDOVER,
                              conductor_call_timeout=CALL)
    service, client = conductor_harness.api_conductor()
    broken = rpcapi.ConductorAPI(conf, transport=client.transport)
    broken.client = _Broker()
    env = v1_allocations.Env(
        conf=conf, app=apps.whole(conf, rpcapi=broken))
    env.broker = broken.client
    env.service = service
    yield env
    broken.client.release.set()


def _timed(env, method, path, body=None):
    start = time.monotonic()
    resp = env.call(method, path, body)
    return resp, time.monotonic() - start


def test_post_answers_allocating_and_the_conductor_finishes_it(outage):
    outage.node('n1')
    resp, took = _timed(outage, 'POST', '/v1/allocations',
                        {'resource_class': 'baremetal'})
    assert resp.status_int == 201, resp.text
    assert resp.json['state'] == 'allocating'
    assert took < HANDOVER + MARGIN
    [row] = outage.rows()
    assert row.uuid == resp.json['uuid']
    assert row.conductor_affinity == outage.conductor.id
    # Its conductor starts it from the database: no message needed.
    outage.service.manager.resume(outage.ctx)
    final = waiting.wait_for(
        lambda: (lambda r: r if r.state != states.ALLOCATING else None)(
            db_allocations.get_by_id(outage.ctx, row.id)))
    assert final.state == states.ACTIVE
    # Reads do not need the broker.
    shown = outage.call('GET', '/v1/allocations/%s' % row.uuid)
    assert shown.status_int == 200 and shown.json['state'] == 'active'


@pytest.mark.parametrize('mode', ['refuse', 'hang'])
def test_writes_needing_a_conductor_are_503(outage, mode):
    outage.broker.mode = 'refuse'
    created = outage.create(name='kept')
    outage.broker.mode = mode
    path = '/v1/allocations/%s' % created['uuid']
    for method, body in (('DELETE', None),
                         ('PATCH', [{'op': 'add', 'path': '/extra/a',
                                     'value': 'b'}])):
        resp, took = _timed(outage, method, path, body)
        assert resp.status_int == 503, resp.text
        assert fault(resp)['faultcode'] == 'Server'
        assert took < CALL + MARGIN
        assert int(resp.headers['Retry-After']) >= 1
        if mode == 'refuse':
            assert message(resp) in BROKER_DOWN
    [row] = outage.rows()
    assert row.name == 'kept' and row.extra == {}
    assert outage.call('GET', path).status_int == 200


@pytest.mark.parametrize('mode', ['refuse', 'hang'])
def test_a_preview_needs_a_conductor_503(outage, mode):
    outage.node('n1')
    outage.broker.mode = mode
    resp, took = _timed(outage, 'POST', '/v1/allocation_preview',
                        {'resource_class': 'baremetal'})
    assert resp.status_int == 503, resp.text
    assert fault(resp)['faultcode'] == 'Server'
    assert took < CALL + MARGIN
    assert int(resp.headers['Retry-After']) >= 1
    if mode == 'refuse':
        assert message(resp) in BROKER_DOWN
