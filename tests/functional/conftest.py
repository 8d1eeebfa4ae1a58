"""Fixtures of the functional tests."""

import pytest

from tests.functional import conductor_harness
from tests.helpers import clock as clock_mod
from tests.helpers.conductor_rpc import harness  # noqa: F401
from tests.helpers.conductor_rpc import held  # noqa: F401


@pytest.fixture
def api_conductor(database):
    """``(service, client)`` of the live in-process conductor the API
    tests' applications hand every change to (see
    ``conductor_harness.api_conductor``), on the test's database."""
    return conductor_harness.api_conductor()


@pytest.fixture
def lock_patience(api_conductor):
    """``set(retries, interval)``: how long the API tests' conductor waits
    for a node another holder has locked, in this test only."""
    conf = api_conductor[0].conf
    names = ('request_node_locked_retry_attempts',
             'request_node_locked_retry_interval')

    def set_patience(retries, interval):
        for name, value in zip(names, (retries, interval)):
            conf.set_override(name, value, group='conductor')

    yield set_patience
    for name in names:
        conf.clear_override(name, group='conductor')


@pytest.fixture
def clock():
    """The engine's clock, set to ``clock.T0`` (tests.helpers.clock) for
    the test; ``clock.at(moment)`` moves it."""
    yield from clock_mod.frozen()
