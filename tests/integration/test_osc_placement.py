"""A real Placement client against the real service: the ``openstack``
CLI with osc-placement, talking to ``allocsvc-all`` over HTTP (stand-alone
Placement endpoint, noauth token ``admin``), unchanged."""

import json
import os
import subprocess
import sys
import uuid

import pytest

# Slow: one openstack process per command.
pytestmark = pytest.mark.slow

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


@pytest.fixture
def osc(placement_url):
    if not os.path.exists(OPENSTACK):
        pytest.fail('python-openstackclient is a test requirement')
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}

    def run(*args, formatted=True):
        """One CLI command; its JSON output when ``formatted``."""
        cmd = [OPENSTACK, '--os-auth-type', 'admin_token', '--os-endpoint',
               placement_url, '--os-token', 'admin',
               '--os-placement-api-version', '1.39'] + list(args)
        if formatted:
            cmd += ['-f', 'json']
        done = subprocess.run(cmd, env=env, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if done.stdout.strip() else None

    return run


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
    # 32 VCPU at ratio 4, 2 of them used: 30 fit, 31 do not.
    candidates = osc('allocation', 'candidate', 'list', '--resource',
                     'VCPU=30', '--required', 'CUSTOM_FAST')
    assert [(c['resource provider'], c['allocation']) for c in
            candidates] == [(rp['uuid'], 'VCPU=30')]
    assert osc('allocation', 'candidate', 'list', '--resource',
               'VCPU=31') == []

    osc('resource', 'provider', 'allocation', 'delete', consumer,
        formatted=False)
    osc('resource', 'provider', 'delete', child['uuid'], formatted=False)
    osc('resource', 'provider', 'delete', rp['uuid'], formatted=False)
    assert osc('resource', 'provider', 'list') == []
