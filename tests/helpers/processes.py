"""Server processes a test starts, watches and stops.

``ProcessGroup``: named processes, each logging to a file of its own in
the test's work directory; their logs are what a failing assertion
shows. ``run_all``/``stop``/``serve_all_in_one``: ``allocsvc-all`` on a
config file. ``APIServer``: the API as production runs it, under
gunicorn.
"""

import contextlib
import http.client
import json
import os
import signal
import subprocess
import sys

from tests.helpers import net
from tests.helpers import waiting


class ProcessGroup:

    def __init__(self, workdir):
        self.workdir = workdir
        self.procs = {}
        self.logs = {}

    def spawn(self, name, cmd, env=None):
        log = open(self.workdir / ('%s.log' % name), 'w+b')
        self.logs[name] = log
        self.procs[name] = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir,
            env=dict(os.environ, **(env or {})))

    def check_running(self):
        """AssertionError, with the logs, if a process has exited."""
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise AssertionError('%s exited\n%s' % (name, self.output()))

    def output(self):
        """The end of every process's log."""
        out = []
        for name, log in self.logs.items():
            log.flush()
            log.seek(0)
            out.append('--- %s\n%s' % (
                name, log.read().decode(errors='replace')[-3000:]))
        return '\n'.join(out)

    def kill(self, name):
        """SIGKILL: the process gets no chance to clean up."""
        self.procs[name].send_signal(signal.SIGKILL)
        self.procs[name].wait()

    def pause(self, name):
        """SIGSTOP: the process is frozen, its sockets stay open (a hung
        process, or a host that stopped scheduling it)."""
        self.procs[name].send_signal(signal.SIGSTOP)

    def resume(self, name):
        """SIGCONT a process ``pause`` stopped."""
        self.procs[name].send_signal(signal.SIGCONT)

    def stop(self, timeout=30, kill=()):
        """SIGTERM each process (SIGKILL those whose names start with one
        of ``kill``) and wait for it. A paused process is resumed first,
        or it would not act on SIGTERM."""
        for name, proc in self.procs.items():
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                if name.startswith(tuple(kill)):
                    proc.kill()
                else:
                    proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in self.logs.values():
            log.close()


def write_all_in_one_conf(workdir, port, placement_port=0,
                          db_name='svc.sqlite'):
    """``workdir``/allocsvc.conf: the API on ``port``, Placement on
    ``placement_port`` (0: none), a SQLite file ``db_name`` there."""
    conf_file = workdir / 'allocsvc.conf'
    conf_file.write_text(
        '[api]\nport = %d\nplacement_port = %d\n'
        '[database]\nconnection = sqlite:///%s\n'
        % (port, placement_port, workdir / db_name))
    return conf_file


def run_all(args, cwd, env=None):
    """``allocsvc-all`` with ``args``, its output on a pipe."""
    return subprocess.Popen([sys.executable, '-m', 'allocsvc.cmd.all'] + args,
                            cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


def stop(proc):
    """SIGTERM ``proc`` (from ``run_all``); it must exit cleanly."""
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()


@contextlib.contextmanager
def all_in_one(workdir, port, placement_port=0, db_name='svc.sqlite',
               wait_path='/'):
    """``allocsvc-all`` on a config file in ``workdir``, answering on
    ``port`` (at ``wait_path``), until the block is done."""
    conf_file = write_all_in_one_conf(workdir, port, placement_port, db_name)
    proc = run_all(['--config-file', str(conf_file)], workdir)
    try:
        yield proc, waiting.wait_for(
            'http://127.0.0.1:%d%s' % (port, wait_path), timeout=30,
            process=proc)
    finally:
        stop(proc)


def serve_all_in_one(tmp_path):
    """Run allocsvc-all on a SQLite file in ``tmp_path`` (no Placement
    listener) and yield its URL until the caller is done (a fixture's
    body: ``yield from``)."""
    port = net.free_port()
    with all_in_one(tmp_path, port):
        yield 'http://127.0.0.1:%d' % port


class APIServer:
    """gunicorn serving ``allocsvc.api.wsgi`` with ``workers`` processes
    (each with ``threads`` threads) on the database at ``db_url``."""

    def __init__(self, tmp_path, db_url, workers=4, threads=4):
        self.port = net.free_port()
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

    def _ready(self):
        if self.proc.poll() is not None:
            raise RuntimeError('gunicorn exited: %s' % self.output())
        try:
            return self.request('GET', '/placement/')[0] == 200
        except OSError:
            return False

    def _wait(self, timeout=60):
        try:
            ready = waiting.wait_for(self._ready, timeout, fail=False)
        except BaseException:
            self.stop()
            raise
        if not ready:
            # Not left running for the rest of the session: its workers
            # would hold CPU and database connections other tests need.
            output = self.output()
            self.stop()
            raise RuntimeError('gunicorn did not answer: %s' % output)

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
