"""The console commands, run as a user would: allocsvc-dbsync and
allocsvc-all (with a config file, and with no configuration at all)."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from allocsvc.db import migration


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
