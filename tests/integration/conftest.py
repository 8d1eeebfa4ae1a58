"""Fixtures of the integration tests."""

import pytest

from tests.functional import test_commands


@pytest.fixture
def placement_url(tmp_path):
    """The stand-alone Placement endpoint of an ``allocsvc-all`` on a
    SQLite file of its own, until the test is done."""
    port, placement_port = (test_commands._free_port(),
                            test_commands._free_port())
    conf_file = tmp_path / 'allocsvc.conf'
    conf_file.write_text(
        '[api]\nport = %d\nplacement_port = %d\n'
        '[database]\nconnection = sqlite:///%s\n'
        % (port, placement_port, tmp_path / 'placement.sqlite'))
    proc = test_commands._run_server(['--config-file', str(conf_file)],
                                     tmp_path)
    url = 'http://127.0.0.1:%d' % placement_port
    test_commands._wait_for(url + '/', proc)
    yield url
    test_commands._stop(proc)
