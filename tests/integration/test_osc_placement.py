"""A real Placement client against the real service: the ``openstack``
CLI with osc-placement, talking to ``allocsvc-all`` over HTTP (stand-alone
Placement endpoint, noauth token ``admin``), unchanged."""

import json
import os
import subprocess
import sys
import uuid

import pytest

from tests.functional import test_commands

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


@pytest.fixture
def osc(tmp_path):
    if not os.path.exists(OPENSTACK):
        pytest.fail('python-openstackclient is a test requirement')
    port, placement_port = (test_commands._free_port(),
                            test_commands._free_port())
    conf_file = tmp_path / 'allocsvc.conf'
    conf_file.write_text(
        '[api]\nport = %d\nplacement_port = %d\n'
        '[database]\nconnection = sqlite:///%s\n'
        % (port, placement_port, tmp_path / 'osc.sqlite'))
    proc = test_commands._run_server(['--config-file', str(conf_file)],
                                     tmp_path)
    test_commands._wait_for('http://127.0.0.1:%d/' % placement_port, proc)
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}

    def run(*args, formatted=True):
        """One CLI command; its JSON output when ``formatted``."""
        cmd = [OPENSTACK, '--os-auth-type', 'admin_token', '--os-endpoint',
               'http://127.0.0.1:%d' % placement_port, '--os-token', 'admin',
               '--os-placement-api-version', '1.39'] + list(args)
        if formatted:
            cmd += ['-f', 'json']
        done = subprocess.run(cmd, env=env, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if done.stdout.strip() else None

    yield run
    test_commands._stop(proc)


def test_osc_placement_workflow(osc):
    rp = osc('resource', 'provider', 'create', 'compute-1')
    assert rp['generation'] == 0
    child = osc('resource', 'provider', 'create', 'numa-0',
                '--parent-provider', rp['uuid'])
    assert child['root_provider_uuid'] == rp['uuid']

    inventory = osc('resource', 'provider', 'inventory', 'set', rp['uuid'],
                    '--resource', 'VCPU=8', '--resource', 'MEMORY_MB=4096',
                    '--resource', 'VCPU:allocation_ratio=4.0')
    assert {i['resource_class']: i['total'] for i in inventory} == {
        'VCPU': 8, 'MEMORY_MB': 4096}

    osc('resource', 'class', 'create', 'CUSTOM_GPU', formatted=False)
    assert 'CUSTOM_GPU' in [c['name'] for c in
                            osc('resource', 'class', 'list')]
    osc('trait', 'create', 'CUSTOM_FAST', formatted=False)
    traits = osc('resource', 'provider', 'trait', 'set', rp['uuid'],
                 '--trait', 'CUSTOM_FAST', '--trait', 'HW_CPU_X86_AVX')
    assert sorted(t['name'] for t in traits) == ['CUSTOM_FAST',
                                                 'HW_CPU_X86_AVX']
    generation = osc('resource', 'provider', 'show',
                     rp['uuid'])['generation']
    agg = str(uuid.uuid4())
    aggs = osc('resource', 'provider', 'aggregate', 'set', rp['uuid'],
               '--aggregate', agg, '--generation', str(generation))
    assert [a['uuid'] for a in aggs] == [agg]

    consumer = str(uuid.uuid4())
    osc('resource', 'provider', 'allocation', 'set', consumer,
        '--allocation', 'rp=%s,VCPU=2,MEMORY_MB=512' % rp['uuid'],
        '--project-id', 'project-1', '--user-id', 'user-1',
        '--consumer-type', 'INSTANCE')
    usage = osc('resource', 'provider', 'usage', 'show', rp['uuid'])
    assert {u['resource_class']: u['usage'] for u in usage} == {
        'VCPU': 2, 'MEMORY_MB': 512}
    shown = osc('resource', 'provider', 'allocation', 'show', consumer)
    assert shown[0]['resources'] == {'VCPU': 2, 'MEMORY_MB': 512}

    found = osc('resource', 'provider', 'list', '--required', 'CUSTOM_FAST',
                '--member-of', agg, '--resource', 'VCPU=4')
    assert [p['uuid'] for p in found] == [rp['uuid']]

    osc('resource', 'provider', 'allocation', 'delete', consumer,
        formatted=False)
    osc('resource', 'provider', 'delete', child['uuid'], formatted=False)
    osc('resource', 'provider', 'delete', rp['uuid'], formatted=False)
    assert osc('resource', 'provider', 'list') == []
