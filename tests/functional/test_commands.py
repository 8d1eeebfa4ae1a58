"""The console commands, run as a user would: allocsvc-dbsync,
allocsvc-status upgrade check (each of its exit codes) and allocsvc-all
(with a config file, and with no configuration at all)."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from oslo_utils import timeutils
import pytest
import sqlalchemy as sa

from allocsvc.db import migration
from allocsvc.db import models


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _port_in_use(port):
    with socket.socket() as sock:
        return sock.connect_ex(('127.0.0.1', port)) == 0


def _get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.status, json.loads(resp.read())


def _wait_for(url, proc, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors='replace')
            pytest.fail('server exited early (%s):\n%s' % (proc.returncode,
                                                           out))
        try:
            return _get(url)
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    pytest.fail('server did not answer %s within %ss' % (url, timeout))


def _run_server(args, cwd):
    return subprocess.Popen([sys.executable, '-m', 'allocsvc.cmd.all'] + args,
                            cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()


def serve_all_in_one(tmp_path):
    """Run allocsvc-all on a SQLite file in ``tmp_path`` (no Placement
    listener) and yield its URL until the caller is done."""
    port = _free_port()
    conf_file = tmp_path / 'allocsvc.conf'
    conf_file.write_text(
        '[api]\nport = %d\nplacement_port = 0\n'
        '[database]\nconnection = sqlite:///%s\n'
        % (port, tmp_path / 'svc.sqlite'))
    proc = _run_server(['--config-file', str(conf_file)], tmp_path)
    url = 'http://127.0.0.1:%d' % port
    try:
        _wait_for(url + '/', proc)
        yield url
    finally:
        _stop(proc)


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
    port, placement_port = _free_port(), _free_port()
    conf_file = tmp_path / 'allocsvc.conf'
    conf_file.write_text(
        '[api]\nport = %d\nplacement_port = %d\n'
        '[database]\nconnection = sqlite:///%s\n'
        % (port, placement_port, tmp_path / 'svc.sqlite'))
    proc = _run_server(['--config-file', str(conf_file)], tmp_path)
    try:
        status, body = _wait_for(
            'http://127.0.0.1:%d/placement/' % port, proc)
        assert body['versions'][0]['max_version'] == '1.39'
        status, body = _get('http://127.0.0.1:%d/' % placement_port)
        assert body['versions'][0]['min_version'] == '1.0'
        status, body = _get(
            'http://127.0.0.1:%d/resource_providers' % placement_port,
            {'X-Auth-Token': 'admin'})
        assert status == 200 and body == {'resource_providers': []}
    finally:
        _stop(proc)


def test_all_in_one_without_any_configuration(tmp_path):
    if _port_in_use(6385) or _port_in_use(8778):
        pytest.skip('ports 6385/8778 are taken by another process')
    env = dict(os.environ, HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, '-m', 'allocsvc.cmd.all'],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        _wait_for('http://127.0.0.1:6385/placement/', proc)
        status, body = _get('http://127.0.0.1:8778/')
        assert status == 200
        assert (tmp_path / 'allocsvc.sqlite').exists()
    finally:
        _stop(proc)
