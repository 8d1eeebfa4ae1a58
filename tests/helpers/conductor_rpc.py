"""The conductor RPC tests' in-process conductor (impatient with locked
nodes) and a record of the node locks it takes. The functional tests'
conftest makes ``harness`` and ``held`` fixtures of every test there
that does not define its own."""

import contextlib

import pytest

from allocsvc.common import context as ctx
from allocsvc.conductor import locking
from allocsvc.db.baremetal import nodes
from tests.functional import conductor_harness

# Patience of the conductors here: one retry, at once.
FAST = dict(request_node_locked_retry_attempts=1,
            request_node_locked_retry_interval=0.01)


@pytest.fixture
def harness(database):
    harness = conductor_harness.Harness(conductor_harness.make_conf(**FAST))
    harness.conductor = harness.start_conductor()
    yield harness
    harness.stop()


@pytest.fixture
def held(monkeypatch):
    """The holder of each node lock taken, as the database shows it
    while the lock is held, in order."""
    seen = []
    real = locking.node_lock

    @contextlib.contextmanager
    def node_lock(context, node_id, host, *args, **kwargs):
        with real(context, node_id, host, *args, **kwargs) as node:
            seen.append(nodes.get_by_id(ctx.get_admin_context(),
                                        node_id).reservation)
            yield node

    monkeypatch.setattr(locking, 'node_lock', node_lock)
    return seen
