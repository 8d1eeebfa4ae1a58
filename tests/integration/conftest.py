"""Fixtures of the integration tests."""

import pytest

from tests.helpers import net
from tests.helpers import processes


@pytest.fixture
def placement_url(tmp_path):
    """The stand-alone Placement endpoint of an ``allocsvc-all`` on a
    SQLite file of its own, until the test is done."""
    port, placement_port = net.free_port(), net.free_port()
    with processes.all_in_one(tmp_path, port, placement_port,
                              db_name='placement.sqlite'):
        yield 'http://127.0.0.1:%d' % placement_port
