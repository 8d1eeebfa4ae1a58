"""The devstack plugin (``devstack/``), run by bash as devstack runs it.

bash sources ``devstack_stub.sh`` (a stand-in for the devstack functions
the plugin calls, which records every call), the plugin's ``settings``,
then ``plugin.sh`` once per phase: ``stack install``, ``stack
post-config`` and ``stack extra`` in one shell, as stack.sh does;
``unstack`` and ``clean`` each in a shell of its own, as unstack.sh and
clean.sh do. The tests check what the plugin wrote and would start and
register, then start the very commands it recorded for run_process on
MariaDB, RabbitMQ and Redis, and allocate a node through them.

Scenarios:

* The default stack (allocsvc replaces Placement; keystone enabled;
  two conductors; tooz over Redis): its configuration, processes and
  endpoints; the recorded processes serve a bare-metal allocation and
  the node's resource provider under /placement; unstack stops them all,
  clean removes the uwsgi configuration, the configuration directory and
  the database.
* Beside devstack's Placement (ALLOCSVC_REPLACE_PLACEMENT=False), with
  etcd3 enabled and ENFORCE_SCOPE=True: placement-api stays, no
  placement endpoint, tooz on devstack's etcd, the new policy defaults,
  nothing started before ``stack extra``.
* Without keystone: noauth, and no accounts or endpoints.
* bashate (and shellcheck, when installed) accept the shell files.
"""

import configparser
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import uuid

import pytest
import sqlalchemy as sa

from allocsvc.common import config
from tests import backends
from tests.helpers import net
from tests.helpers import processes
from tests.integration import baremetal_cluster

REPO = pathlib.Path(__file__).resolve().parents[2]
STUB = pathlib.Path(__file__).resolve().with_name('devstack_stub.sh')
SHELL_FILES = [REPO / 'devstack' / 'plugin.sh',
               REPO / 'devstack' / 'settings',
               REPO / 'devstack' / 'lib' / 'allocsvc', STUB]
MYSQL = backends._SERVER_URLS['mysql']
# What devstack enables by default, as far as the plugin cares.
DEVSTACK_SERVICES = ['key', 'mysql', 'rabbit', 'placement-api', 'n-api',
                     'n-cpu', 'n-sch', 'n-cond']


class Devstack:
    """The plugin's phases under the stand-in, in ``workdir``."""

    def __init__(self, workdir, services, **settings):
        self.workdir = workdir
        self.log = workdir / 'devstack-calls.log'
        self.log.touch()
        self.conf_dir = workdir / 'etc-allocsvc'
        self.db_prefix = 'allocsvc_ds_%s_' % uuid.uuid4().hex[:8]
        self.env = dict(
            os.environ, STUB_LOG=str(self.log), STUB_PYTHON=sys.executable,
            STUB_SQL_CONN=MYSQL, STUB_DB_PREFIX=self.db_prefix,
            ENABLED_SERVICES=','.join(services), ALLOCSVC_DIR=str(REPO),
            ALLOCSVC_CONF_DIR=str(self.conf_dir),
            PATH='%s:%s' % (pathlib.Path(sys.executable).parent,
                            os.environ.get('PATH', '')),
            **settings)

    @property
    def db_name(self):
        return self.db_prefix + 'allocsvc'

    def run(self, *phases):
        """Run ``phases`` (each ``"stack install"``, ``"unstack"``...) in
        one bash; the devstack calls they made."""
        done = len(self.calls())
        script = ['set -o errexit -o pipefail',
                  'source %s' % shlex.quote(str(STUB)),
                  'source "$ALLOCSVC_DIR/devstack/settings"']
        script += ['source "$ALLOCSVC_DIR/devstack/plugin.sh" %s' % phase
                   for phase in phases]
        result = subprocess.run(
            ['bash', '-c', '\n'.join(script)], env=self.env,
            cwd=self.workdir, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, (phases, result.stdout,
                                        result.stderr)
        return self.calls()[done:]

    def calls(self, name=None):
        """Every recorded call: (function, arg, ...) tuples."""
        lines = self.log.read_text().splitlines()
        calls = [tuple(line.split('\t')) for line in lines]
        return [c for c in calls if name is None or c[0] == name]

    def conf(self, name='allocsvc.conf'):
        parser = configparser.RawConfigParser(strict=False)
        parser.optionxform = str
        assert parser.read(self.conf_dir / name), name
        return parser


def _named(calls, name):
    return [c[1:] for c in calls if c[0] == name]


def _database_exists(name):
    engine = sa.create_engine(MYSQL + '/')
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(
                'SELECT 1 FROM information_schema.schemata '
                'WHERE schema_name = :n'), {'n': name}).first() is not None
    finally:
        engine.dispose()


def _python_first(uwsgi):
    """Whether ``uwsgi`` is pyuwsgi's (the wheel of test-requirements, a
    Python script): it starts Python before it reads the ini's ``env``,
    so os.environ lacks what that sets, and the test gives it in the
    environment too. The compiled uwsgi devstack installs (a binary)
    runs the recorded command as it is."""
    with open(uwsgi, 'rb') as f:
        return f.read(2) == b'#!'


class RecordedCluster(baremetal_cluster.Cluster):
    """The processes the plugin would start, started from the commands
    it gave run_process, with the readiness checks of ``Cluster``."""

    def __init__(self, workdir, commands, port, hosts, transport_url, env):
        processes.ProcessGroup.__init__(self, workdir)
        self.hosts = hosts
        self.transport_url = transport_url
        self.exchange = config.CONTROL_EXCHANGE
        self.port = port
        for name, command in commands:
            self.spawn(name, shlex.split(command), env=env)
        self.client = baremetal_cluster.Client(port)
        self.wait_ready(len(hosts))


@pytest.mark.slow
def test_stack_runs_the_whole_service(request, tmp_path):
    baremetal_cluster.require_services('rabbitmq', 'redis')
    port = net.free_port()
    run = uuid.uuid4().hex[:8]
    devstack = Devstack(
        tmp_path, DEVSTACK_SERVICES, ALLOCSVC_CONDUCTORS='2',
        ALLOCSVC_PORT=str(port),
        ALLOCSVC_CONDUCTOR_HOST_PREFIX='devstack-%s' % run,
        ALLOCSVC_COORDINATION_URL=baremetal_cluster.REDIS)
    # Skips (fails with CI=true) without MariaDB; dropped at the end
    # whatever happens. recreate_database makes it again.
    baremetal_cluster.fresh_database(request, 'mysql', devstack.db_name)

    calls = devstack.run('stack install', 'stack post-config',
                         'stack extra')

    # settings: devstack's Placement off before anything is configured.
    assert ('placement-api',) in _named(calls, 'disable_service')
    assert _named(calls, 'setup_develop') == [(str(REPO),)]

    conf = devstack.conf()
    assert conf.get('database', 'connection') == (
        '%s/%s?charset=utf8' % (MYSQL, devstack.db_name))
    transport_url = 'rabbit://guest:guest@127.0.0.1:5672/'
    assert conf.get('DEFAULT', 'transport_url') == transport_url
    assert conf.get('api', 'auth_strategy') == 'keystone'
    assert conf.get('keystone_authtoken', 'username') == 'allocsvc'
    assert conf.get('keystone_authtoken', 'auth_type') == 'password'
    assert conf.get('conductor', 'coordination_backend_url') == (
        baremetal_cluster.REDIS)
    assert conf.get('conductor', 'allocation_backend') == 'database'
    assert conf.get('oslo_policy', 'enforce_scope') == 'False'
    hosts = [devstack.conf('conductor-%d.conf' % n).get('DEFAULT', 'host')
             for n in (1, 2)]
    assert hosts == ['devstack-%s-1' % run, 'devstack-%s-2' % run]

    uwsgi = devstack.conf('allocsvc-api-uwsgi.ini')
    assert uwsgi.get('uwsgi', 'http') == '127.0.0.1:%d' % port
    assert uwsgi.get('uwsgi', 'wsgi-file') == str(
        REPO / 'allocsvc' / 'api' / 'wsgi_app.py')
    assert uwsgi.get('uwsgi', 'env') == (
        'ALLOCSVC_CONFIG_FILE=%s' % (devstack.conf_dir / 'allocsvc.conf'))
    assert not uwsgi.has_option('uwsgi', 'module')

    url = 'http://127.0.0.1:%d' % port
    assert _named(calls, 'create_service_user') == [
        ('allocsvc', 'admin'), ('placement', 'admin')]
    assert [c[1] for c in _named(calls, 'get_or_create_service')] == [
        'baremetal', 'placement']
    assert _named(calls, 'get_or_create_endpoint') == [
        ('baremetal', 'RegionOne', url),
        ('placement', 'RegionOne', url + '/placement')]

    # The schema first, then the processes: two conductors and the API.
    assert _named(calls, 'recreate_database') == [('allocsvc',)]
    started = _named(calls, 'run_process')
    assert [name for name, _command in started] == [
        'allocsvc-conductor-1', 'allocsvc-conductor-2', 'allocsvc-api']
    names = [c[0] for c in calls]
    assert names.index('recreate_database') < names.index('run_process')
    # Started in post-config, before devstack launches nova: nothing
    # more happens in extra.
    assert _named(devstack.run('stack extra'), 'run_process') == []
    api_command = shlex.split(started[2][1])
    assert pathlib.Path(api_command[0]).name == 'uwsgi'

    # The real thing. No keystone here: this one option goes to noauth.
    conf.set('api', 'auth_strategy', 'noauth')
    with open(devstack.conf_dir / 'allocsvc.conf', 'w') as f:
        conf.write(f)
    env = {}
    if _python_first(api_command[0]):
        env['ALLOCSVC_CONFIG_FILE'] = str(
            devstack.conf_dir / 'allocsvc.conf')
    cluster = RecordedCluster(tmp_path, started, port, hosts,
                              transport_url, env)
    request.addfinalizer(cluster.stop)
    client = cluster.client
    [node_uuid] = baremetal_cluster.enrol(client, 1, 'devstack-rc')
    status, body = client.request('POST', '/v1/allocations',
                                  {'resource_class': 'devstack-rc'})
    assert status == 201, (body, cluster.output())
    final = baremetal_cluster.wait_final(client, body['uuid'])
    assert final['state'] == 'active', (final, cluster.output())
    assert final['node_uuid'] == node_uuid
    node = client.ok('GET', '/v1/nodes/%s' % node_uuid)
    assert node['instance_uuid'] == body['uuid']
    assert node['allocation_uuid'] == body['uuid']
    # The placement endpoint the plugin registered serves the node's
    # resource provider.
    client.headers = {'X-Auth-Token': 'admin',
                      'OpenStack-API-Version': 'placement 1.39'}
    provider = client.ok('GET', '/placement/resource_providers/%s'
                         % node_uuid)
    assert provider['uuid'] == node_uuid

    calls = devstack.run('unstack')
    assert sorted(_named(calls, 'stop_process')) == [
        ('allocsvc-api',), ('allocsvc-conductor-1',),
        ('allocsvc-conductor-2',)]
    assert devstack.conf_dir.exists()
    cluster.stop()

    calls = devstack.run('clean')
    assert len(_named(calls, 'stop_process')) == 3
    assert _named(calls, 'remove_uwsgi_config') == [
        (str(devstack.conf_dir / 'allocsvc-api-uwsgi.ini'), 'allocsvc-api')]
    assert not devstack.conf_dir.exists()
    assert not _database_exists(devstack.db_name)


def test_beside_devstack_placement(tmp_path):
    devstack = Devstack(tmp_path, DEVSTACK_SERVICES + ['etcd3'],
                        ALLOCSVC_REPLACE_PLACEMENT='False',
                        ENFORCE_SCOPE='True')
    calls = devstack.run('stack install', 'stack post-config')
    assert _named(calls, 'disable_service') == []
    assert ('etcd3gw',) in _named(calls, 'pip_install')
    conf = devstack.conf()
    assert conf.get('conductor', 'coordination_backend_url') == (
        'etcd3+http://127.0.0.1:2379')
    assert conf.get('api', 'auth_strategy') == 'keystone'
    assert conf.get('oslo_policy', 'enforce_new_defaults') == 'True'
    assert _named(calls, 'get_or_create_endpoint') == [
        ('baremetal', 'RegionOne', 'http://127.0.0.1:6385')]
    assert [c[1] for c in _named(calls, 'get_or_create_service')] == [
        'baremetal']
    assert _named(calls, 'create_service_user') == [('allocsvc', 'admin')]
    # One conductor by default; nothing runs before "stack extra".
    assert (devstack.conf_dir / 'conductor-1.conf').exists()
    assert not (devstack.conf_dir / 'conductor-2.conf').exists()
    assert _named(calls, 'run_process') == []
    assert _named(calls, 'recreate_database') == []


def test_without_keystone(tmp_path):
    services = [s for s in DEVSTACK_SERVICES if s != 'key']
    devstack = Devstack(tmp_path, services,
                        ALLOCSVC_REPLACE_PLACEMENT='False')
    calls = devstack.run('stack install', 'stack post-config')
    conf = devstack.conf()
    assert conf.get('api', 'auth_strategy') == 'noauth'
    assert not conf.has_section('keystone_authtoken')
    assert not conf.has_option('conductor', 'coordination_backend_url')
    for name in ('create_service_user', 'get_or_create_service',
                 'get_or_create_endpoint',
                 'configure_keystone_authtoken_middleware'):
        assert _named(calls, name) == [], name


def test_bashate_accepts_the_shell_files():
    bashate = pathlib.Path(sys.executable).parent / 'bashate'
    result = subprocess.run(
        [str(bashate)] + [str(f) for f in SHELL_FILES],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'warning' not in result.stdout, result.stdout


def test_shellcheck_accepts_the_shell_files():
    if shutil.which('shellcheck') is None:
        pytest.skip('shellcheck is not installed')
    result = subprocess.run(
        ['shellcheck', '-s', 'bash'] + [str(f) for f in SHELL_FILES],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
