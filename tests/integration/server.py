"""Run the API as production does: gunicorn, several worker processes,
on a real database, for tests that race many clients against it."""

import http.client
import json
import os
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class APIServer:
    """gunicorn serving ``allocsvc.api.wsgi`` with ``workers`` processes
    (each with ``threads`` threads) on the database at ``db_url``."""

    def __init__(self, tmp_path, db_url, workers=4, threads=4):
        self.port = free_port()
        conf = tmp_path / 'allocsvc.conf'
        conf.write_text('[database]\nconnection = %s\nmax_pool_size = 8\n'
                        '[api]\nauth_strategy = noauth\n' % db_url)
        self.log = open(tmp_path / 'gunicorn.log', 'w+b')
        env = dict(os.environ, ALLOCSVC_CONFIG_FILE=str(conf))
        self.proc = subprocess.Popen(
            [sys.executable, '-m', 'gunicorn', '--workers', str(workers),
             '--threads', str(threads), '--bind',
             '127.0.0.1:%d' % self.port, '--graceful-timeout', '5',
             'allocsvc.api.wsgi:init_application()'],
            env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self._wait()

    def _wait(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError('gunicorn exited: %s' % self.output())
            try:
                status, _body = self.request('GET', '/placement/')
                if status == 200:
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError('gunicorn did not answer: %s' % self.output())

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors='replace')[-5000:]

    def request(self, method, path, body=None, version='latest'):
        """One request on a new connection: (status, parsed JSON or None)."""
        conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=60)
        headers = {'X-Auth-Token': 'admin',
                   'OpenStack-API-Version': 'placement %s' % version,
                   'Accept': 'application/json'}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers['Content-Type'] = 'application/json'
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
        finally:
            conn.close()
        return resp.status, (json.loads(raw) if raw else None)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
