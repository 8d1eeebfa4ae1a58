"""The console commands, run as a user would: allocsvc-dbsync,
allocsvc-status upgrade check (each of its exit codes) and allocsvc-all
(with a config file, and with no configuration at all)."""

import json
import os
import subprocess
import sys

from oslo_utils import timeutils
import pytest
import sqlalchemy as sa

from allocsvc.db import migration
from allocsvc.db import models
from tests.helpers import net
from tests.helpers import processes
from tests.helpers import waiting


def test_dbsync_upgrade_and_version(tmp_path):
    db_file = tmp_path / 'sync.sqlite'
    conf_file = tmp_path / 'allocsvc.conf'
    conf_file.write_text('[database]\nconnection = sqlite:///%s\n' % db_file)
    cmd = [sys.executable, '-m', 'allocsvc.cmd.dbsync', '--config-file',
           str(conf_file)]
    subprocess.run(cmd + ['upgrade'], check=True, cwd=tmp_path)
    out = subprocess.run(cmd + ['version'], check=True, cwd=tmp_path,
                         capture_output=True, text=True).stdout
    assert out.strip().splitlines()[-1] == migration.head_revision()


def _status(conf_file, *args):
    """Run the installed allocsvc-status upgrade check."""
    script = os.path.join(os.path.dirname(sys.executable), 'allocsvc-status')
    return subprocess.run(
        [script, '--config-file', str(conf_file), 'upgrade', 'check'] +
        list(args), capture_output=True, text=True, timeout=120,
        cwd=conf_file.parent)


def _status_json(conf_file):
    result = _status(conf_file, '--json')
    assert 'Traceback' not in result.stdout + result.stderr
    checks = json.loads(result.stdout)['checks']
    return result.returncode, {c['check']: c['result'] for c in checks}


def test_status_upgrade_check(tmp_path):
    db_file = tmp_path / 'status.sqlite'
    conf_file = tmp_path / 'allocsvc.conf'
    conf_file.write_text('[database]\nconnection = sqlite:///%s\n' % db_file)

    # An empty database: a failure (2), shown as the table operators read.
    result = _status(conf_file)
    assert result.returncode == 2, result.stdout + result.stderr
    assert 'Check: Database schema' in result.stdout
    assert 'Details: The database is empty' in result.stdout
    assert 'Traceback' not in result.stdout + result.stderr

    # Migrated but with no conductor: a warning (1).
    subprocess.run([sys.executable, '-m', 'allocsvc.cmd.dbsync',
                    '--config-file', str(conf_file), 'upgrade'],
                   check=True, cwd=tmp_path, capture_output=True)
    assert _status_json(conf_file) == (1, {
        'Database schema': 0, 'Conductors': 1,
        'Node resource providers': 0, 'Policy file': 0})

    # A conductor alive: success (0).
    engine = sa.create_engine('sqlite:///%s' % db_file)
    now = timeutils.utcnow()
    with engine.begin() as conn:
        conn.execute(models.conductors.insert().values(
            hostname='status-conductor', drivers=[], conductor_group='',
            online=True, heartbeat_at=now, created_at=now))
    engine.dispose()
    assert _status_json(conf_file)[0] == 0

    # A check that cannot run (its policy file is a directory): 255.
    (tmp_path / 'policy.d').mkdir()
    with conf_file.open('a') as conf:
        conf.write('[oslo_policy]\npolicy_file = %s\n'
                   % (tmp_path / 'policy.d'))
    result = _status(conf_file)
    assert result.returncode == 255, result.stdout + result.stderr
    assert result.stdout.startswith('Error:')

    # A database that cannot be reached: a failure, not a traceback.
    conf_file.write_text('[database]\nconnection = sqlite:///%s\n'
                         % (tmp_path / 'missing' / 'status.sqlite'))
    code, results = _status_json(conf_file)
    assert code == 2
    assert results['Database schema'] == 2


def test_all_in_one_with_a_config_file(tmp_path):
    port, placement_port = net.free_port(), net.free_port()
    with processes.all_in_one(tmp_path, port, placement_port,
                              wait_path='/placement/') as (proc, answer):
        status, body = answer
        assert body['versions'][0]['max_version'] == '1.39'
        status, body = waiting.get_json(
            'http://127.0.0.1:%d/' % placement_port)
        assert body['versions'][0]['min_version'] == '1.0'
        status, body = waiting.get_json(
            'http://127.0.0.1:%d/resource_providers' % placement_port,
            {'X-Auth-Token': 'admin'})
        assert status == 200 and body == {'resource_providers': []}


def test_all_in_one_without_any_configuration(tmp_path):
    if net.port_in_use(6385) or net.port_in_use(8778):
        pytest.skip('ports 6385/8778 are taken by another process')
    env = dict(os.environ, HOME=str(tmp_path))
    proc = processes.run_all([], tmp_path, env=env)
    try:
        waiting.wait_for('http://127.0.0.1:6385/placement/', timeout=30,
                         process=proc)
        status, body = waiting.get_json('http://127.0.0.1:8778/')
        assert status == 200
        assert (tmp_path / 'allocsvc.sqlite').exists()
    finally:
        processes.stop(proc)
