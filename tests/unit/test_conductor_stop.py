"""A conductor's stop waits for its running allocations, within a bound."""

import threading
from unittest import mock

from allocsvc.common import config
from allocsvc.conductor import manager
from allocsvc.conductor import service


def _manager():
    conf = config.prepare([], default_config_files=[])
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
