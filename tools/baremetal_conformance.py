"""Run openstacksdk's own functional bare-metal tests against allocsvc-all.

openstacksdk ships, in its source release, the functional tests its
developers run against a real Ironic (``openstack/tests/functional/
baremetal``). This runner fetches the source release of the openstacksdk
installed here (pip, into a cache directory), starts this checkout's
``allocsvc-all`` on a fresh SQLite database, points the tests' clouds at
it (``clouds.yaml``: an administrator, a member of a project and one of
another project, all with Keystone-less tokens), and runs the test files
of the resources allocsvc serves, each file in a fresh server. It prints
each file's outcome and exits non-zero when a test failed.

Usage (``tools/baremetal-conformance.sh`` sets up the venv first)::

    python tools/baremetal_conformance.py                 # served files
    python tools/baremetal_conformance.py --only test_port.py -- -x -v
    python tools/baremetal_conformance.py --all           # out-of-scope too

The files of resources allocsvc does not provide (deploy templates,
runbooks, inspection rules, volumes) are left out unless
``--all`` is given: their tests end in the 404 this service answers.
"""

import argparse
import contextlib
import importlib.metadata
import os
import pathlib
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

# The test files of resources allocsvc serves.
SERVED = ('test_allocation.py', 'test_chassis.py', 'test_conductor.py',
          'test_driver.py', 'test_node.py', 'test_port.py',
          'test_port_group.py')

CACHE = pathlib.Path(os.environ.get(
    'ALLOCSVC_CONFORMANCE_CACHE',
    pathlib.Path.home() / '.cache' / 'allocsvc-conformance'))

# With noauth, a token is ``user[:project]`` and ``admin`` administers.
CLOUDS = """\
clouds:
  devstack-admin: &admin
    auth_type: admin_token
    auth: {endpoint: '%(url)s', token: admin}
    baremetal_endpoint_override: '%(url)s'
    # Only the bare-metal service is here: no flavors or images to pick.
    has_compute: false
    has_image: false
  devstack-system-admin: *admin
  devstack:
    <<: *admin
    auth: {endpoint: '%(url)s', token: 'demo:demo-project'}
  devstack-alt:
    <<: *admin
    auth: {endpoint: '%(url)s', token: 'alt:alt-project'}
"""


def sdk_tests():
    """The directory of openstacksdk's functional tests for the version
    installed here, fetched once."""
    version = importlib.metadata.version('openstacksdk')
    top = CACHE / ('openstacksdk-%s' % version)
    tests = top / 'openstack' / 'tests' / 'functional'
    if tests.is_dir():
        return top
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        subprocess.run([sys.executable, '-m', 'pip', 'download', '-q',
                        '--no-deps', '--no-binary', ':all:', '-d', tmp,
                        'openstacksdk==%s' % version], check=True)
        archive = next(pathlib.Path(tmp).glob('openstacksdk-*.tar.gz'))
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter='data')
        os.replace(pathlib.Path(tmp) / ('openstacksdk-%s' % version), top)
    return top


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def server(workdir, allocsvc_all):
    """``allocsvc-all`` on a fresh SQLite database; yields its URL."""
    port = free_port()
    conf = workdir / 'allocsvc.conf'
    conf.write_text('[api]\nport = %d\nplacement_port = 0\n'
                    '[database]\nconnection = sqlite:///%s\n'
                    % (port, workdir / 'svc.sqlite'))
    log = open(workdir / 'server.log', 'wb')
    proc = subprocess.Popen([allocsvc_all, '--config-file', str(conf)],
                            cwd=workdir, stdout=log, stderr=log)
    url = 'http://127.0.0.1:%d' % port
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError('allocsvc-all exited; see %s'
                                   % (workdir / 'server.log'))
            try:
                urllib.request.urlopen(url + '/v1', timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def run_file(top, name, allocsvc_all, workdir, pytest_args):
    """Run one test file against a fresh server; pytest's exit status."""
    with server(workdir, allocsvc_all) as url:
        clouds = workdir / 'clouds.yaml'
        clouds.write_text(CLOUDS % {'url': url})
        env = dict(os.environ, OS_CLIENT_CONFIG_FILE=str(clouds),
                   OS_CLOUD='devstack-admin',
                   # As the SDK's own functional job (its tox.ini).
                   OS_TEST_TIMEOUT='600',
                   OPENSTACKSDK_FUNC_TEST_TIMEOUT='60',
                   PYTHONPATH=str(top))
        path = top / 'openstack' / 'tests' / 'functional' / 'baremetal' / \
            'v1' / name
        cmd = [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider',
               '--rootdir', str(top), str(path)] + pytest_args
        return subprocess.run(cmd, cwd=workdir, env=env).returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--only', action='append', default=[],
                        help='a test file name to run (repeatable)')
    parser.add_argument('--all', action='store_true',
                        help='also the files of resources not served')
    parser.add_argument('--allocsvc-all', default=os.environ.get(
        'ALLOCSVC_ALL', 'allocsvc-all'))
    parser.add_argument('--workdir', default=None,
                        help='where servers keep their logs (a new '
                             'temporary directory by default)')
    parser.add_argument('pytest_args', nargs='*')
    args = parser.parse_args()
    top = sdk_tests()
    directory = top / 'openstack' / 'tests' / 'functional' / 'baremetal' / \
        'v1'
    if args.only:
        names = args.only
    elif args.all:
        names = sorted(p.name for p in directory.glob('test_*.py'))
    else:
        names = list(SERVED)
    work = pathlib.Path(args.workdir or tempfile.mkdtemp(
        prefix='baremetal-conformance-'))
    results = {}
    for name in names:
        workdir = work / name[:-3]
        workdir.mkdir(parents=True, exist_ok=True)
        print('== %s' % name, flush=True)
        results[name] = run_file(top, name, args.allocsvc_all, workdir,
                                 args.pytest_args)
    print('\nopenstacksdk %s functional baremetal tests (logs in %s):'
          % (importlib.metadata.version('openstacksdk'), work))
    for name, status in results.items():
        print('  %-28s %s' % (name, 'passed' if status == 0 else
                              'FAILED (pytest exit %d)' % status))
    return 0 if all(status == 0 for status in results.values()) else 1


if __name__ == '__main__':
    sys.exit(main())
