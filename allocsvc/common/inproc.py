"""``inproc://``: an oslo.messaging transport inside one process, for the
embedded service (``allocsvc-all`` without a broker) and the tests.

oslo.messaging's own in-process driver (``fake://``) is made for unit
tests: its listeners look for messages every 50 ms, so every RPC call
waits 25 ms on average before a conductor sees it, and an idle service
wakes up twenty times a second per listener. This driver keeps its
message handling (queues per exchange, topic and server; fanout; reply
queues; the JSON check of every message) and replaces the polling: a
listener waits on its exchange's condition and is woken by the message
itself (or by ``stop``).

It is registered as the ``inproc`` entry point of
``oslo.messaging.drivers`` (setup.cfg).
"""

import threading
import time

import oslo_messaging as messaging
from oslo_messaging._drivers import base
from oslo_messaging._drivers import impl_fake


class _Exchange(impl_fake.FakeExchange):
    """An exchange whose deliveries wake the listeners waiting on it."""

    def __init__(self, name):
        super().__init__(name)
        self.arrived = threading.Condition(self._queues_lock)
        self.retired = False

    def deliver_message(self, *args, **kwargs):
        with self.arrived:
            super().deliver_message(*args, **kwargs)
            self.arrived.notify_all()

    def wake(self, retire=False):
        with self.arrived:
            self.retired = self.retired or retire
            self.arrived.notify_all()


# The exchanges of every inproc transport of the process, by name: two
# transports of one process reach each other, as over a broker.
_EXCHANGES = {}
_EXCHANGES_LOCK = threading.Lock()


class _ExchangeManager:

    def __init__(self, default_exchange):
        self._default_exchange = default_exchange

    def get_exchange(self, name):
        if name is None:
            name = self._default_exchange
        with _EXCHANGES_LOCK:
            exchange = _EXCHANGES.get(name)
            if exchange is None:
                exchange = _EXCHANGES[name] = _Exchange(name)
            return exchange

    def cleanup(self):
        """Drop the transport's own exchange (not every exchange of the
        process, as the fake driver's cleanup does); its listeners move
        to the next one of that name."""
        with _EXCHANGES_LOCK:
            exchange = _EXCHANGES.pop(self._default_exchange, None)
        if exchange is not None:
            exchange.wake(retire=True)


class _Listener(impl_fake.FakeListener):
    """A listener of targets of one exchange that sleeps until a message
    for them arrives."""

    def _exchange(self):
        return self._exchange_manager.get_exchange(
            self._targets[0].exchange)

    @base.batch_poll_helper
    def poll(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._stopped.is_set():
            exchange = self._exchange()
            with exchange.arrived:
                while not (self._stopped.is_set() or exchange.retired):
                    for target in self._targets:
                        ctxt, message, reply_q, requeue = exchange.poll(
                            target, self._pool)
                        if message is not None:
                            return impl_fake.FakeIncomingMessage(
                                ctxt, message, reply_q, requeue)
                    if deadline is None:
                        exchange.arrived.wait()
                        continue
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return None
                    exchange.arrived.wait(left)
        return None

    def stop(self):
        super().stop()
        self._exchange().wake()


class InProcessDriver(impl_fake.FakeDriver):
    """oslo.messaging's fake driver, with RPC listeners woken by their
    messages (notification listeners still poll as the fake driver's
    do: allocsvc sends no notifications)."""

    def __init__(self, conf, url, default_exchange=None,
                 allowed_remote_exmods=None):
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)
        self._exchange_manager = _ExchangeManager(default_exchange)

    def listen(self, target, batch_size, batch_timeout):
        # The server's own queue and the topic's, as the fake driver
        # listens, in one exchange.
        exchange = target.exchange or self._default_exchange
        targets = [
            messaging.Target(topic=target.topic, server=target.server,
                             exchange=exchange),
            messaging.Target(topic=target.topic, exchange=exchange)]
        return base.PollStyleListenerAdapter(
            _Listener(self._exchange_manager, targets), batch_size,
            batch_timeout)
