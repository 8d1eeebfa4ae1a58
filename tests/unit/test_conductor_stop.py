"""A conductor's pool: a cast for a running allocation runs it once
more; stop waits for its running allocations, within a bound."""

import threading
from unittest import mock

from allocsvc.common import config
from allocsvc.conductor import manager
from allocsvc.conductor import service
from tests.helpers import waiting


def _manager(**conductor_options):
    conf = config.prepare([], default_config_files=[])
    for name, value in conductor_options.items():
        conf.set_override(name, value, group='conductor')
    return conf, manager.ConductorManager(conf, 'stopping', 1)


def test_stop_waits_for_running_allocations():
    _conf, mgr = _manager()
    with mock.patch.object(mgr, '_run', return_value=None):
        assert mgr.spawn(7)
        assert mgr.stop() == 0
    assert not mgr.has_room()


def test_stop_gives_up_on_an_allocation_after_its_timeout():
    _conf, mgr = _manager()
    entered, release = threading.Event(), threading.Event()

    def run(*args):
        entered.set()
        release.wait(60)

    with mock.patch.object(mgr, '_run', side_effect=run):
        assert mgr.spawn(7)
        assert entered.wait(30)
        try:
            # Left running, it stays allocating for the next owner.
            assert mgr.stop(timeout=0.05) == 1
        finally:
            release.set()


def test_the_pool_wait_leaves_time_to_unregister():
    conf = config.prepare([], default_config_files=[])
    svc = service.ConductorService(conf, host='stopping')
    assert svc._pool_timeout() == 48.0
    conf.set_override('graceful_shutdown_timeout', 0)
    assert svc._pool_timeout() is None
    conf.set_override('graceful_shutdown_timeout', 1)
    assert svc._pool_timeout() == 1.0


def _held_run(mgr):
    """Patch ``mgr._run``: ``(patch, entered, release, calls)``; each
    call is recorded in ``calls``, the first waits for ``release``."""
    entered, release, calls = threading.Event(), threading.Event(), []

    def run(*args):
        calls.append(args)
        if len(calls) == 1:
            entered.set()
            release.wait(30)

    patch = mock.patch.object(mgr, '_run', side_effect=run)
    return patch, entered, release, calls


def _wait_idle(mgr):
    waiting.wait_for(lambda: not mgr.in_flight())


def test_a_cast_for_a_running_allocation_runs_it_once_more_after():
    # SQLite gives a new row the id of the last one deleted: the cast
    # may be about a new allocation the running job never read.
    _conf, mgr = _manager()
    patch, entered, release, calls = _held_run(mgr)
    with patch:
        assert mgr.spawn(7, allocation='as written')
        assert entered.wait(30)
        assert mgr.spawn(7, allocation='the new one')
        assert mgr.spawn(7)
        release.set()
        _wait_idle(mgr)
    # Once more, whatever the number of casts, reading it again.
    assert len(calls) == 2
    assert calls[0][0] == 7 and calls[0][2] == 'as written'
    assert calls[1][0] == 7 and len(calls[1]) == 2
    mgr.stop()


def test_a_cast_for_a_queued_allocation_runs_it_once():
    _conf, mgr = _manager(workers_pool_size=1)
    patch, entered, release, calls = _held_run(mgr)
    with patch:
        assert mgr.spawn(1)
        assert entered.wait(30)
        assert mgr.spawn(2)
        # Not started yet: it reads the allocation when it starts.
        assert mgr.spawn(2)
        release.set()
        _wait_idle(mgr)
    assert sorted(call[0] for call in calls) == [1, 2]
    mgr.stop()


def test_a_stopping_conductor_does_not_run_again():
    _conf, mgr = _manager()
    patch, entered, release, calls = _held_run(mgr)
    with patch:
        assert mgr.spawn(7)
        assert entered.wait(30)
        assert mgr.spawn(7)
        stopping = threading.Thread(target=mgr.stop)
        stopping.start()
        waiting.wait_for(lambda: mgr._stopped)
        release.set()
        stopping.join(30)
    assert len(calls) == 1
    assert not mgr.in_flight()
