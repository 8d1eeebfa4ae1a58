"""The OpenStack CLI (python-ironicclient's OSC plugin) run against an
allocsvc-all, as the *_cli tests drive it."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import processes

# Runs each command given (a JSON list of argument lists) through the
# OpenStack CLI and prints one JSON line per command: exit code, output.
# A usage error leaves the shell as SystemExit (argparse's exit 2, which
# the real ``openstack`` exits with): its code is the command's, and the
# commands after it still run.
_DRIVER = '''
import contextlib, io, json, sys
from openstackclient import shell
base = json.loads(sys.argv[3]) + ['--os-endpoint', sys.argv[1]]
for args in json.loads(sys.argv[2]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = shell.main(base + args)
        except SystemExit as exc:
            rc = exc.code
    print(json.dumps({'rc': rc, 'out': out.getvalue(),
                      'err': err.getvalue()}))
'''


def endpoint_fixture(name):
    """A module-scoped ``endpoint`` fixture: the URL of an allocsvc-all
    of the module's own (its files in a temporary directory ``name``).
    ``endpoint = endpoint_fixture('nodes-cli')`` in a test module."""
    @pytest.fixture(scope='module')
    def endpoint(tmp_path_factory):
        yield from processes.serve_all_in_one(tmp_path_factory.mktemp(name))
    return endpoint


def client_env():
    """The environment without OS_* settings (the CLI's own)."""
    return {k: v for k, v in os.environ.items() if not k.startswith('OS_')}


# No authentication: the bare-metal API's noauth.
NO_AUTH = ('--os-auth-type', 'none')
# Placement's noauth2 wants a token; "admin" is an administrator's.
ADMIN_TOKEN = ('--os-auth-type', 'admin_token', '--os-token', 'admin')


def cli(endpoint, *commands, auth=NO_AUTH):
    """Run ``commands`` (argument lists after ``openstack``) with the
    authentication options ``auth``; their results as (exit code,
    parsed JSON output or text, stderr)."""
    done = subprocess.run(
        [sys.executable, '-c', _DRIVER, endpoint, json.dumps(commands),
         json.dumps(list(auth))],
        env=client_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = []
    for line in done.stdout.splitlines():
        result = json.loads(line)
        out = result['out']
        try:
            out = json.loads(out) if out.strip() else None
        except ValueError:
            pass
        results.append((result['rc'], out, result['err']))
    assert len(results) == len(commands), done.stdout
    return results
