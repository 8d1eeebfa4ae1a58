"""How long the API's conductor client may wait on the message broker.

Scenarios (the broker is a stub whose cast and call block or fail as a
broker that is down would): a cast that the broker does not take is
given up after ``[api] conductor_handover_timeout`` and reported as not
sent (the allocation stays for its conductor's periodic check); a cast
the broker refuses is given up at once; a call is a 503 when the broker
refuses it or when it is not answered within ``[api]
conductor_call_timeout``, and it is sent with the configured reconnect
retries and a message timeout no longer than that bound; a message still
waiting for a sender thread when its request gives up is never sent;
errors of the conductor come back unchanged.

Waits are bounded generously (the machine may be loaded); no timing is
asserted beyond "within the configured bound plus a margin".
"""

import threading
import time

import kombu.exceptions
import oslo_messaging as messaging
import pytest

from allocsvc.common import exception
from allocsvc.conductor import rpcapi
from tests import conftest

MARGIN = 5.0


class _Broker:
    """Stands for ``client.prepare(...)``: records the options, then
    casts and calls do what ``behaviour`` says."""

    def __init__(self):
        self.prepared = []
        self.sent = []
        self.release = threading.Event()
        self.behaviour = 'answer'

    def prepare(self, **options):
        self.prepared.append(options)
        return self

    def _act(self, method):
        if self.behaviour == 'refuse':
            raise messaging.MessageDeliveryFailure('broker unreachable')
        if self.behaviour == 'refuse to connect':
            # What the connection pool lets through when it cannot open
            # a new connection.
            raise kombu.exceptions.OperationalError(
                '[Errno 111] Connection refused')
        if self.behaviour == 'hang':
            self.release.wait(60)
        if self.behaviour == 'conductor error':
            raise exception.NodeLocked('node-1', 'other-host')
        self.sent.append(method)
        return 'answer of %s' % method

    def cast(self, context, method, **kwargs):
        self._act(method)

    def call(self, context, method, **kwargs):
        return self._act(method)


@pytest.fixture
def api():
    conf = conftest.make_conf(conductor_handover_timeout=0.5,
                              conductor_answer_timeout=1.0,
                              conductor_call_timeout=1.0,
                              conductor_send_retries=0,
                              conductor_waiting_calls=8)
    client = rpcapi.ConductorAPI(conf, transport=messaging.get_rpc_transport(
        conf, url='fake://'))
    client.client = _Broker()
    yield client
    client.client.release.set()


class _Allocation:
    uuid = 'a0a0a0a0-0000-4000-8000-000000000001'


def _timed(function, *args):
    start = time.monotonic()
    try:
        return function(*args), time.monotonic() - start
    except Exception as exc:
        return exc, time.monotonic() - start


def test_cast_sent(api):
    assert api.create_allocation(None, _Allocation(), 'c1') is True
    assert api.client.sent == ['create_allocation']
    assert api.client.prepared == [{'server': 'c1', 'version': '1.0',
                                    'retry': 0}]


def test_cast_the_broker_does_not_take_is_given_up(api):
    api.client.behaviour = 'hang'
    sent, took = _timed(api.create_allocation, None, _Allocation(), 'c1')
    assert sent is False
    assert took < 0.5 + MARGIN


@pytest.mark.parametrize('behaviour', ['refuse', 'refuse to connect'])
def test_cast_the_broker_refuses_is_given_up(api, behaviour):
    api.client.behaviour = behaviour
    assert api.create_allocation(None, _Allocation(), 'c1') is False


def test_call_answered(api):
    assert api._call(None, 'c1', '1.1', 'update_node') == \
        'answer of update_node'
    [options] = api.client.prepared
    assert options['retry'] == 0 and options['timeout'] == 1.0


def test_call_timeout_is_capped_by_rpc_response_timeout(api):
    api.conf.set_override('conductor_call_timeout', 5.0, group='api')
    api.conf.set_override('conductor_answer_timeout', 5.0, group='api')
    api.conf.set_override('rpc_response_timeout', 2)
    api._call(None, 'c1', '1.1', 'update_node')
    assert api.client.prepared[0]['timeout'] == 2


@pytest.mark.parametrize('behaviour', ['refuse', 'refuse to connect'])
def test_call_the_broker_refuses_is_503(api, behaviour):
    api.client.behaviour = behaviour
    exc, _took = _timed(api._call, None, 'c1', '1.1', 'update_node')
    assert isinstance(exc, exception.NoConductorAvailable)
    assert exc.status == 503
    assert 'message broker cannot be reached' in str(exc)


def test_call_not_answered_in_time_is_503(api):
    api.client.behaviour = 'hang'
    exc, took = _timed(api._call, None, 'c1', '1.1', 'update_node')
    assert isinstance(exc, exception.NoConductorAvailable)
    assert 'did not answer in time' in str(exc)
    assert took < 1.0 + MARGIN


def test_conductor_errors_pass_unchanged(api):
    api.client.behaviour = 'conductor error'
    with pytest.raises(exception.NodeLocked):
        api._call(None, 'c1', '1.1', 'update_node')


def test_message_waiting_for_a_sender_is_never_sent(api, monkeypatch):
    monkeypatch.setattr(rpcapi, 'SENDER_THREADS', 1)
    api.client.behaviour = 'hang'
    first = threading.Thread(target=_timed, args=(
        api._call, None, 'c1', '1.1', 'update_node'))
    first.start()
    while not api.client.prepared:
        time.sleep(0.01)
    # The only sender thread is busy: this one waits, then gives up.
    exc, _took = _timed(api._call, None, 'c1', '1.1', 'destroy_node')
    assert isinstance(exc, exception.NoConductorAvailable)
    api.client.behaviour = 'answer'
    api.client.release.set()
    first.join(10)
    time.sleep(0.2)
    assert api.client.sent == ['update_node']
