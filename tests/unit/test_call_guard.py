"""The conductor client against peers that do not answer
(``allocsvc.conductor.call_guard``), with a broker stub per conductor.

Scenarios: a deletion whose conductor does not answer is carried out by
the next live conductor within the same request, and the silent one is
passed over by the next requests without a wait; a deletion that the
next conductor finds done was done by the first (success); a node's
write whose conductor does not answer is a 503, and the next one goes to
the conductor that takes its place on the hash ring, or is a 503 at once
when its conductor group has no other; the broker, once it refused a
message (also one refused after its request gave up), is not tried
again (calls 503 at once, casts not sent) except by one probing request
per probe interval, and any answer ends the suspicion; while
``conductor_waiting_calls`` calls have waited longer than
``conductor_slow_call``, a new call is a 503 at once (calls answered in
the usual time never are, and a cast is not held back); calls never
take the last of the threads seen serving requests (``[api]
conductor_spare_threads``): one that would waits for another to end,
and is a 503 once a call in flight is slow; every call's
context says when its client stops waiting, the request's own is
unchanged; 503s carry Retry-After; the conductor of allocsvc-all (in
the API's process) is waited for as long as an RPC answer may take, and
never suspected.

Waits are bounded generously (the machine may be loaded): "at once"
means well below the answer timeout, not a measured figure.
"""

import concurrent.futures
import threading
import time

import oslo_messaging as messaging
import pytest

from allocsvc.common import context
from allocsvc.common import exception
from allocsvc.common import rpc
from allocsvc.conductor import call_guard
from allocsvc.conductor import rpcapi
from tests import conftest

ANSWER = 1.0
SLOW = 0.2
# Far below ANSWER: what did not wait on a silent peer.
AT_ONCE = 0.5


class _Conductor:
    def __init__(self, ident, hostname, group=''):
        self.id = ident
        self.hostname = hostname
        self.conductor_group = group
        self.drivers = ['fake-hardware']


class _Node:
    def __init__(self, uuid, group=''):
        self.uuid = uuid
        self.driver = 'fake-hardware'
        self.conductor_group = group
        self.conductor_affinity = None


class _Broker:
    """``client.prepare(server=...)``: each conductor does what
    ``mode[host]`` says: answer, hang (until released), refuse (the
    broker is down), or raise ``errors[host]``."""

    def __init__(self):
        self.mode = {}
        self.errors = {}
        self.calls = []     # (host, method, context)
        self.release = threading.Event()

    def can_send_version(self, version):
        return True

    def prepare(self, server=None, **options):
        return _Prepared(self, server)


class _Prepared:
    def __init__(self, broker, host):
        self.broker = broker
        self.host = host

    def _act(self, context, method):
        broker = self.broker
        broker.calls.append((self.host, method, context))
        mode = broker.mode.get(self.host, 'answer')
        if mode == 'refuse':
            raise messaging.MessageDeliveryFailure('broker unreachable')
        if mode == 'hang':
            broker.release.wait(30)
            raise messaging.MessagingTimeout('no answer')
        if mode == 'slow':
            time.sleep(0.5)
        if self.host in broker.errors:
            # As an endpoint's error crosses the wire.
            raise rpc.RemoteAllocsvcError.wrap(broker.errors[self.host])
        return '%s by %s' % (method, self.host)

    def cast(self, context, method, **kwargs):
        self._act(context, method)

    def call(self, context, method, **kwargs):
        return self._act(context, method)


def _client(conductors, **options):
    values = dict(conductor_answer_timeout=ANSWER,
                  conductor_call_timeout=3 * ANSWER,
                  conductor_handover_timeout=ANSWER,
                  conductor_send_retries=0, conductor_waiting_calls=8,
                  conductor_slow_call=SLOW,
                  conductor_suspect_time=30, conductor_probe_interval=30)
    values.update(options)
    conf = conftest.make_conf(**values)
    client = rpcapi.ConductorAPI(conf, transport=messaging.get_rpc_transport(
        conf, url='fake://'))
    client.client = _Broker()
    client.live_conductors = lambda ctx, fresh=False: list(conductors)
    return client


@pytest.fixture
def three():
    conductors = [_Conductor(1, 'c1'), _Conductor(2, 'c2'),
                  _Conductor(3, 'c3')]
    client = _client(conductors)
    yield client
    client.client.release.set()


class _Allocation:
    id = 7
    uuid = 'a0a0a0a0-0000-4000-8000-000000000007'
    conductor_affinity = 1


def _timed(function, *args, **kwargs):
    start = time.monotonic()
    try:
        return function(*args, **kwargs), time.monotonic() - start
    except Exception as exc:
        return exc, time.monotonic() - start


def _hosts(client, method=None):
    return [host for host, name, _ctx in client.client.calls
            if method is None or name == method]


def test_a_deletion_goes_on_to_another_conductor(three):
    three.client.mode['c1'] = 'hang'
    ctx = context.RequestContext()
    result, took = _timed(three.destroy_allocation, ctx, _Allocation())
    assert not isinstance(result, Exception), result
    first, second = _hosts(three)
    assert first == 'c1' and second in ('c2', 'c3')
    assert took < 3 * ANSWER + 5
    assert three.suspects.suspected('c1')
    # The next deletion passes the silent conductor over at once.
    three.client.calls.clear()
    result, took = _timed(three.destroy_allocation, ctx, _Allocation())
    assert not isinstance(result, Exception), result
    assert 'c1' not in _hosts(three)
    assert took < AT_ONCE


def test_a_deletion_found_done_by_the_next_conductor_succeeded(three):
    three.client.mode['c1'] = 'hang'
    for host in ('c2', 'c3'):
        three.client.errors[host] = exception.AllocationNotFound('x')
    three.destroy_allocation(context.RequestContext(), _Allocation())
    # ... but not when the first conductor answered it.
    three.client.mode['c1'] = 'answer'
    three.suspects.clear('c1')
    three.client.errors['c1'] = exception.AllocationNotFound('x')
    with pytest.raises(exception.AllocationNotFound):
        three.destroy_allocation(context.RequestContext(), _Allocation())


def test_nobody_answers_a_deletion_503_within_the_call_timeout(three):
    for host in ('c1', 'c2', 'c3'):
        three.client.mode[host] = 'hang'
    exc, took = _timed(three.destroy_allocation, context.RequestContext(),
                       _Allocation())
    assert isinstance(exc, exception.NoConductorAvailable)
    assert 'did not answer in time' in str(exc)
    assert took < 3 * ANSWER + 5
    # All suspected now: refused at once, saying why.
    exc, took = _timed(three.destroy_allocation, context.RequestContext(),
                       _Allocation())
    assert isinstance(exc, exception.NoConductorAvailable)
    assert 'no live conductor answered' in str(exc)
    assert took < AT_ONCE
    assert exc.retry_after >= 1


def test_each_call_says_when_its_client_stops_waiting(three):
    three.client.mode['c1'] = 'hang'
    ctx = context.RequestContext()
    before = time.time()
    three.destroy_allocation(ctx, _Allocation())
    deadlines = [sent.deadline for _host, _m, sent in three.client.calls]
    assert len(deadlines) == 2
    for deadline in deadlines:
        assert before < deadline <= time.time() + ANSWER
    assert ctx.deadline is None


def test_a_nodes_write_moves_to_the_next_conductor_on_the_ring(three):
    node = _Node('0f0f0f0f-0000-4000-8000-000000000001')
    usual = rpcapi.conductor_for(three.live_conductors(None), node)
    three.client.mode[usual.hostname] = 'hang'
    exc, took = _timed(three.set_maintenance, context.RequestContext(),
                       node, True)
    # Not carried out elsewhere in the same request: it may be done.
    assert isinstance(exc, exception.NoConductorAvailable)
    assert _hosts(three) == [usual.hostname]
    three.client.calls.clear()
    result, took = _timed(three.set_maintenance, context.RequestContext(),
                          node, True)
    assert not isinstance(result, Exception), result
    [host] = _hosts(three)
    assert host != usual.hostname
    assert took < AT_ONCE


def test_a_node_whose_group_has_no_other_conductor_503_at_once():
    conductors = [_Conductor(1, 'c1', 'rack-a'), _Conductor(2, 'c2')]
    client = _client(conductors)
    try:
        client.client.mode['c1'] = 'hang'
        node = _Node('0f0f0f0f-0000-4000-8000-000000000002', 'rack-a')
        exc, _took = _timed(client.set_maintenance,
                            context.RequestContext(), node, True)
        assert isinstance(exc, exception.NoConductorAvailable)
        exc, took = _timed(client.set_maintenance, context.RequestContext(),
                           node, True)
        assert isinstance(exc, exception.NoConductorAvailable)
        assert 'no other live conductor of its conductor group "rack-a"' \
            in str(exc)
        assert took < AT_ONCE
        assert _hosts(client) == ['c1']
    finally:
        client.client.release.set()


def test_a_suspected_broker_is_not_waited_on():
    client = _client([_Conductor(1, 'c1')], conductor_probe_interval=0.5)
    client.client.mode['c1'] = 'refuse'
    with pytest.raises(exception.NoConductorAvailable) as info:
        client._call(None, 'c1', '1.1', 'update_node')
    assert 'cannot be reached' in str(info.value)
    tried = len(client.client.calls)
    # Refused without a message, cast not sent, while suspected.
    with pytest.raises(exception.NoConductorAvailable) as info:
        client._call(None, 'c1', '1.1', 'update_node')
    assert 'could not be reached a moment ago' in str(info.value)
    assert client.create_allocation(None, _Allocation(), 'c1') is False
    assert len(client.client.calls) == tried
    # One request per probe interval tries again; an answer ends it.
    time.sleep(0.6)
    client.client.mode['c1'] = 'answer'
    assert client._call(None, 'c1', '1.1', 'update_node') == \
        'update_node by c1'
    assert not client.suspects.suspected(call_guard.BROKER)
    assert client.create_allocation(None, _Allocation(), 'c1') is True


def test_suspicion_lapses():
    client = _client([_Conductor(1, 'c1')], conductor_suspect_time=0.3)
    client.suspects.suspect('c1')
    assert client.suspects.passed_over('c1')
    time.sleep(0.4)
    assert not client.suspects.suspected('c1')
    assert not client.suspects.passed_over('c1')


def test_calls_waiting_on_slow_conductors_are_bounded(three):
    three.conf.set_override('conductor_waiting_calls', 1, group='api')
    # Calls answered in the usual time pass however many there are.
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(
            lambda i: three._call(None, 'c2', '1.1', 'update_node'),
            range(32)))
    assert answers == ['update_node by c2'] * 32
    three.client.mode['c1'] = 'hang'
    three.client.calls.clear()
    stuck = threading.Thread(target=_timed, args=(
        three._call, None, 'c1', '1.1', 'update_node'))
    stuck.start()
    while not three.client.calls:
        time.sleep(0.01)
    time.sleep(SLOW + 0.1)
    exc, took = _timed(three._call, None, 'c2', '1.1', 'update_node')
    assert isinstance(exc, exception.NoConductorAvailable)
    assert 'slow to answer' in str(exc)
    assert took < AT_ONCE
    assert exc.retry_after >= 1
    # A cast waits on nobody's answer: it is sent.
    assert three.create_allocation(None, _Allocation(), 'c2') is True
    stuck.join(10)
    # Once the slow call is over, calls go again.
    assert three._call(None, 'c2', '1.1', 'update_node') == \
        'update_node by c2'


def test_the_automatic_bound_is_half_the_threads_seen():
    waiting = call_guard.Waiting(conftest.make_conf())
    # Outside the API's pipeline (no request seen): no bound.
    assert waiting.limit() is None
    waiting.saw_thread()
    assert waiting.limit() == 1

    def serve():
        waiting.saw_thread()
        time.sleep(0.1)     # alive together: distinct identities

    threads = [threading.Thread(target=serve) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert waiting.limit() == 4


def _seen(waiting, count):
    """Make ``waiting`` have seen ``count`` request threads."""
    barrier = threading.Barrier(count)

    def serve():
        waiting.saw_thread()
        barrier.wait(10)    # alive together: distinct identities

    threads = [threading.Thread(target=serve) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_calls_leave_a_thread_free_for_reads():
    waiting = call_guard.Waiting(conftest.make_conf(
        conductor_slow_call=SLOW, conductor_waiting_calls=8))
    _seen(waiting, 3)
    assert waiting.room() == 2
    first, second = waiting.enter(), waiting.enter()
    # The third thread is the reads': a call that would take it waits
    # for one of the others to end, and goes once one does.
    ended = threading.Timer(SLOW / 4, waiting.leave, args=(first,))
    ended.start()
    third, took = _timed(waiting.enter)
    assert not isinstance(third, Exception), third
    assert took >= SLOW / 8
    ended.join()
    # While the two in flight do not end, the waiting one gives up as
    # soon as one of them is slow, and later ones at once.
    exc, took = _timed(waiting.enter)
    assert isinstance(exc, exception.NoConductorAvailable)
    assert 'longer than usual' in str(exc)
    assert exc.retry_after >= 1
    assert took < SLOW + AT_ONCE
    exc, took = _timed(waiting.enter)
    assert isinstance(exc, exception.NoConductorAvailable)
    assert took < AT_ONCE
    waiting.leave(second)
    waiting.leave(third)
    assert waiting.leave(waiting.enter()) is None


def test_calls_answered_in_time_share_the_threads_without_refusal():
    waiting = call_guard.Waiting(conftest.make_conf(
        conductor_slow_call=10 * SLOW, conductor_waiting_calls=8))
    _seen(waiting, 2)
    assert waiting.room() == 1

    def call(i):
        token = waiting.enter()
        time.sleep(0.002)
        waiting.leave(token)
        return i

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(call, range(64))) == list(range(64))


def test_the_spare_threads_need_more_threads_seen():
    waiting = call_guard.Waiting(conftest.make_conf(
        conductor_spare_threads=2))
    assert waiting.room() is None
    _seen(waiting, 2)
    # A process serving no more requests at once than the spare
    # threads has none to keep free.
    assert waiting.room() is None
    waiting.enter()
    waiting.enter()
    # (A fresh one: thread identities of ended threads may be reused.)
    more = call_guard.Waiting(conftest.make_conf(conductor_spare_threads=2))
    _seen(more, 3)
    assert more.room() == 1
    off = call_guard.Waiting(conftest.make_conf(conductor_spare_threads=0))
    _seen(off, 4)
    assert off.room() is None


def test_a_message_refused_after_its_request_gave_up_suspects_the_broker():
    client = _client([_Conductor(1, 'c1')], conductor_answer_timeout=0.2,
                     conductor_call_timeout=0.2)
    refuse = threading.Event()

    def slow_refusal(context, method, **kwargs):
        # oslo.messaging reconnecting for longer than the request waits.
        refuse.wait(10)
        raise messaging.MessageDeliveryFailure('broker unreachable')

    prepared = client.client.prepare(server='c1')
    prepared.call = slow_refusal
    client.client.prepare = lambda **options: prepared
    with pytest.raises(exception.NoConductorAvailable):
        client._call(None, 'c1', '1.1', 'update_node')
    assert not client.suspects.suspected(call_guard.BROKER)
    refuse.set()
    deadline = time.monotonic() + 10
    while not client.suspects.suspected(call_guard.BROKER):
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_the_conductor_in_this_process_is_waited_for_not_suspected():
    # allocsvc-all: a slow answer is load, not a silent peer.
    client = _client([_Conductor(1, 'c1')], conductor_answer_timeout=0.2,
                     conductor_call_timeout=0.2)
    client.in_process = True
    client.client.mode['c1'] = 'slow'
    assert client._call(None, 'c1', '1.1', 'update_node') == \
        'update_node by c1'
    assert not client.suspects.suspected('c1')
