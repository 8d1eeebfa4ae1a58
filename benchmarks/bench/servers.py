"""Fresh databases and the servers under test, all on 127.0.0.1.

``Database`` creates a uniquely named database on the local MariaDB
(root, no password) or PostgreSQL (user postgres, trust), or a SQLite file,
and drops it afterwards. ``AllocsvcServer`` and ``PlacementServer`` run
gunicorn with the same worker and thread counts, so the comparison measures
the applications and not their WSGI servers.
"""

import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import uuid

from bench import client as bench_client

MYSQL = 'mysql+pymysql://root@127.0.0.1:3306'
POSTGRESQL = 'postgresql+psycopg2://postgres@127.0.0.1:5432'

CACHE = pathlib.Path(os.environ.get(
    'ALLOCSVC_BENCH_CACHE', pathlib.Path.home() / '.cache' / 'allocsvc-bench'))
PLACEMENT_VENV = CACHE / 'placement-venv'
# openstack-placement 16.0.0 (2025.2) installs and serves on Python 3.11;
# --placement-requirement pins another release. SQLAlchemy is held below
# 2.1 as in OpenStack's upper-constraints of that release: Placement was
# never tested with 2.1.
PLACEMENT_REQUIREMENT = 'openstack-placement'
PLACEMENT_PINS = ['SQLAlchemy<2.1', 'PyMySQL', 'psycopg2-binary', 'gunicorn']


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class Database:
    """One fresh database of kind ``sqlite``, ``mysql`` or ``postgresql``."""

    def __init__(self, kind, workdir, label):
        self.kind = kind
        self.name = 'bench_%s_%s' % (label, uuid.uuid4().hex[:8])
        if kind == 'sqlite':
            self.path = pathlib.Path(workdir) / ('%s.sqlite' % self.name)
            self.url = 'sqlite:///%s' % self.path
        elif kind == 'mysql':
            self._admin('CREATE DATABASE %s CHARACTER SET utf8mb4' % self.name)
            self.url = '%s/%s?charset=utf8mb4' % (MYSQL, self.name)
        elif kind == 'postgresql':
            self._admin('CREATE DATABASE %s' % self.name)
            self.url = '%s/%s' % (POSTGRESQL, self.name)
        else:
            raise ValueError('unknown database kind %s' % kind)

    def _admin(self, statement):
        # The drivers come with allocsvc's own requirements.
        if self.kind == 'mysql':
            import pymysql
            conn = pymysql.connect(host='127.0.0.1', port=3306, user='root',
                                   autocommit=True)
        else:
            import psycopg2
            conn = psycopg2.connect(host='127.0.0.1', port=5432,
                                    user='postgres', dbname='postgres')
            conn.autocommit = True
        try:
            with conn.cursor() as cur:
                cur.execute(statement)
        finally:
            conn.close()

    def drop(self):
        if self.kind == 'sqlite':
            for suffix in ('', '-wal', '-shm', '-journal'):
                pathlib.Path(str(self.path) + suffix).unlink(missing_ok=True)
        elif self.kind == 'mysql':
            self._admin('DROP DATABASE IF EXISTS %s' % self.name)
        else:
            self._admin('DROP DATABASE IF EXISTS %s WITH (FORCE)' % self.name)


class LoggedProcess:
    """A process of the run whose output goes to a log file: ``output()``
    is the end of that log, ``stop()`` ends the process."""

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors='replace')[-5000:]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class _GunicornServer(LoggedProcess):
    """Common part: start gunicorn, wait until ``/`` answers, stop it."""

    name = 'server'
    mount = ''

    def _start(self, python, app, env, workers, threads):
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d%s' % (self.port, self.mount)
        self.log = open(self.workdir / ('%s-gunicorn.log' % self.name), 'w+b')
        # A generous worker timeout: Placement may need minutes for the
        # wide-tree query without a limit, and that is what we measure.
        self.proc = subprocess.Popen(
            [python, '-m', 'gunicorn', '--workers', str(workers),
             '--threads', str(threads), '--worker-class', 'gthread',
             '--timeout', '1800', '--graceful-timeout', '5',
             '--bind', '127.0.0.1:%d' % self.port, app],
            env=env, stdout=self.log, stderr=subprocess.STDOUT,
            cwd=self.workdir)
        self._wait()

    def _wait(self, timeout=120):
        probe = bench_client.Client(self.url, timeout=5)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError('%s gunicorn exited:\n%s'
                                   % (self.name, self.output()))
            if probe.get('/').status == 200:
                return
            time.sleep(0.3)
        raise RuntimeError('%s did not answer:\n%s' % (self.name,
                                                       self.output()))


class AllocsvcServer(_GunicornServer):
    """allocsvc from the current Python environment, noauth, at /placement."""

    name = 'allocsvc'
    mount = '/placement'

    def __init__(self, workdir, db, workers, threads):
        self.workdir = pathlib.Path(workdir)
        conf = self.workdir / 'allocsvc.conf'
        conf.write_text('[DEFAULT]\ndebug = False\n'
                        '[database]\nconnection = %s\nmax_pool_size = %d\n'
                        '[api]\nauth_strategy = noauth\n'
                        % (db.url, threads + 4))
        subprocess.run([sys.executable, '-m', 'allocsvc.cmd.dbsync',
                        '--config-file', str(conf), 'upgrade'], check=True,
                       stdout=subprocess.DEVNULL)
        env = dict(os.environ, ALLOCSVC_CONFIG_FILE=str(conf))
        self._start(sys.executable, 'allocsvc.api.wsgi:init_application()',
                    env, workers, threads)


def ensure_placement_venv(requirement=PLACEMENT_REQUIREMENT, log=print):
    """Create (once, again when the requirement changes) a virtualenv with
    openstack-placement, both DB drivers and gunicorn; return its python."""
    python = PLACEMENT_VENV / 'bin' / 'python'
    marker = PLACEMENT_VENV / '.bench-requirement'
    wanted = ' '.join([requirement] + PLACEMENT_PINS)
    if python.exists() and marker.exists() and \
            marker.read_text() == wanted:
        return str(python)
    log('installing %s into %s' % (requirement, PLACEMENT_VENV))
    if PLACEMENT_VENV.exists():
        shutil.rmtree(PLACEMENT_VENV)
    PLACEMENT_VENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, '-m', 'venv', str(PLACEMENT_VENV)],
                   check=True)
    subprocess.run([str(python), '-m', 'pip', 'install', '-q', requirement]
                   + PLACEMENT_PINS, check=True)
    marker.write_text(wanted)
    return str(python)


class PlacementServer(_GunicornServer):
    """OpenStack Placement from its own virtualenv, noauth2, at the root."""

    name = 'placement'

    def __init__(self, workdir, db, workers, threads, python):
        self.workdir = pathlib.Path(workdir)
        confdir = self.workdir / 'placement-etc'
        confdir.mkdir(exist_ok=True)
        (confdir / 'placement.conf').write_text(
            '[DEFAULT]\ndebug = False\n'
            '[api]\nauth_strategy = noauth2\n'
            '[placement_database]\nconnection = %s\nmax_pool_size = %d\n'
            % (db.url, threads + 4))
        bindir = pathlib.Path(python).parent
        subprocess.run([str(bindir / 'placement-manage'), '--config-file',
                        str(confdir / 'placement.conf'), 'db', 'sync'],
                       check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=str(confdir))
        env.pop('PYTHONPATH', None)
        self._start(python, 'placement.wsgi.api:application', env, workers,
                    threads)


def placement_version(python):
    """The installed openstack-placement version in that virtualenv."""
    out = subprocess.run(
        [python, '-c', 'import importlib.metadata as m;'
         'print(m.version("openstack-placement"))'],
        capture_output=True, text=True)
    return out.stdout.strip() or 'unknown'
