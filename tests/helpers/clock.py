"""The engine's clock in the reservation tests: oslo.utils' time
override, set to ``T0`` for a test (the ``clock`` fixture of the
functional tests' conftest) and moved with ``Clock.at``."""

import datetime

from oslo_utils import timeutils

T0 = datetime.datetime(2026, 12, 1)


class Clock:
    @staticmethod
    def at(moment):
        timeutils.set_time_override(moment)


def frozen():
    """A generator fixture's body: the clock at ``T0`` for the test."""
    timeutils.set_time_override(T0)
    yield Clock
    timeutils.clear_time_override()
