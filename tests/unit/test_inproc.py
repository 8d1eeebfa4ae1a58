"""The ``inproc://`` transport: calls, casts, fanout and stop, with
listeners woken by their messages rather than polling."""

import threading
import time
import uuid

import oslo_messaging as messaging
import pytest

from allocsvc.common import config
from allocsvc.common import inproc
from allocsvc.common import rpc


class Endpoint:
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.casts = []
        self.cast_seen = threading.Event()

    def echo(self, context, value):
        return value

    def note(self, context, value):
        self.casts.append(value)
        self.cast_seen.set()


@pytest.fixture
def transport():
    conf = config.prepare([], default_config_files=[])
    conf.set_override('control_exchange', 'inproc_%s' % uuid.uuid4().hex)
    transport = rpc.get_transport(conf, url=rpc.LOCAL_URL)
    yield transport
    transport.cleanup()


def _server(transport, host, endpoint):
    server = messaging.get_rpc_server(
        transport, messaging.Target(topic='t', server=host), [endpoint],
        executor='threading')
    server.start()
    return server


def _listener(transport):
    """The driver's listener of server ``idle`` of topic ``t``."""
    driver = transport._driver
    exchange = driver._default_exchange
    return inproc._Listener(driver._exchange_manager, [
        messaging.Target(topic='t', server='idle', exchange=exchange),
        messaging.Target(topic='t', exchange=exchange)])


def _polling(listener):
    """A thread polling ``listener`` (for 30 s at most), and the list
    its batch goes to."""
    polled = []
    thread = threading.Thread(target=lambda: polled.append(
        listener.poll(timeout=30)))
    thread.start()
    return thread, polled


def _stop(server):
    server.stop()
    server.wait()


def test_the_url_selects_this_driver(transport):
    assert isinstance(transport._driver, inproc.InProcessDriver)


def test_calls_casts_and_fanout_reach_their_servers(transport):
    first, second = Endpoint(), Endpoint()
    servers = [_server(transport, 'a', first),
               _server(transport, 'b', second)]
    try:
        client = messaging.get_rpc_client(transport,
                                          messaging.Target(topic='t'))
        assert client.prepare(server='b').call({}, 'echo', value=7) == 7
        client.prepare(server='a').cast({}, 'note', value=1)
        assert first.cast_seen.wait(5) and first.casts == [1]
        assert second.casts == []
        first.cast_seen.clear()
        client.prepare(fanout=True).cast({}, 'note', value=2)
        assert first.cast_seen.wait(5) and second.cast_seen.wait(5)
        assert first.casts == [1, 2] and second.casts == [2]
    finally:
        for server in servers:
            _stop(server)


def test_an_idle_listener_sleeps_until_its_message_comes(transport,
                                                         monkeypatch):
    # fake:// looks at its queues every 50 ms; an inproc listener looks
    # when woken: once on entering, once per message.
    looks = []
    look = inproc._Exchange.poll

    def counted(self, target, pool):
        looks.append(target)
        return look(self, target, pool)
    monkeypatch.setattr(inproc._Exchange, 'poll', counted)
    thread, polled = _polling(_listener(transport))
    time.sleep(0.3)
    before = len(looks)
    transport._send(messaging.Target(topic='t', server='idle'), {},
                    {'method': 'echo', 'args': {}})
    thread.join(5)
    assert not thread.is_alive()
    assert before <= 2, before   # both targets, once
    assert [m.message for m in polled[0]] == [{'method': 'echo',
                                              'args': {}}]


def test_stop_wakes_a_listener_with_nothing_to_do(transport):
    listener = _listener(transport)
    thread, polled = _polling(listener)
    time.sleep(0.05)
    listener.stop()
    thread.join(5)
    assert not thread.is_alive() and polled == [[]]


def test_cleaning_up_a_transport_leaves_the_others_working(transport):
    # The fake driver's cleanup empties every exchange of the process:
    # a listener of another transport then waits on an exchange nobody
    # delivers to any more.
    server = _server(transport, 'a', Endpoint())
    try:
        client = messaging.get_rpc_client(
            transport, messaging.Target(topic='t', server='a'), timeout=10)
        assert client.call({}, 'echo', value=1) == 1
        conf = config.prepare([], default_config_files=[])
        conf.set_override('control_exchange', 'other_%s' % uuid.uuid4().hex)
        other = rpc.get_transport(conf, url=rpc.LOCAL_URL)
        _stop(_server(other, 'b', Endpoint()))
        other.cleanup()
        assert client.call({}, 'echo', value=2) == 2
        # Its own exchange cleaned up, a listener moves to the next one.
        transport._driver._exchange_manager.cleanup()
        assert client.call({}, 'echo', value=3) == 3
    finally:
        _stop(server)
