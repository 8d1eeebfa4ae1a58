"""Real Ironic clients against ``allocsvc-all`` over HTTP, unchanged:
``openstack baremetal node ...`` (python-ironicclient's OSC plugin,
negotiating the latest version) and openstacksdk's baremetal proxy.

Scenarios: a node's life through the CLI (create, list, show, set,
unset, manage, provide, power on/off, maintenance set/unset, add and
remove traits, deploy, undeploy, delete) and its error output; the other
verbs (clean, adopt, rescue, unrescue, service, abort); a node
allocated by allocsvc-all's conductor, deployed and torn down; a node's
life through openstacksdk. The CLI commands of one scenario run in one Python
process (``openstackclient.shell.main``, what the ``openstack`` script
calls), to spare the client's start-up time for each; one command runs
the ``openstack`` script itself.
"""

import json
import os
import subprocess
import sys

import openstack

from tests.helpers.cli import cli
from tests.helpers.cli import client_env
from tests.helpers.cli import endpoint_fixture

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')

endpoint = endpoint_fixture('nodes-cli')


def test_node_life_through_the_cli(endpoint):
    node = 'baremetal', 'node'
    results = cli(
        endpoint,
        [*node, 'create', '--driver', 'fake-hardware', '--name', 'cli-1',
         '--resource-class', 'gold', '--property', 'cpus=8', '-f', 'json'],
        [*node, 'list', '-f', 'json'],
        [*node, 'set', 'cli-1', '--extra', 'rack=a1', '--description',
         'first node', '--owner', 'p1'],
        [*node, 'manage', 'cli-1', '--wait', '30'],
        [*node, 'provide', 'cli-1', '--wait', '30'],
        [*node, 'power', 'on', 'cli-1'],
        [*node, 'add', 'trait', 'cli-1', 'CUSTOM_GPU', 'HW_CPU_X86_AVX'],
        [*node, 'remove', 'trait', 'cli-1', 'HW_CPU_X86_AVX'],
        [*node, 'maintenance', 'set', 'cli-1', '--reason', 'fan'],
        [*node, 'show', 'cli-1', '-f', 'json'],
        [*node, 'maintenance', 'unset', 'cli-1'],
        [*node, 'unset', 'cli-1', '--extra', 'rack', '--description'],
        [*node, 'deploy', 'cli-1', '--wait', '30'],
        [*node, 'undeploy', 'cli-1', '--wait', '30'],
        [*node, 'power', 'off', 'cli-1'],
        [*node, 'list', '--provision-state', 'available', '--fields',
         'uuid', 'name', 'power_state', 'allocation_uuid', '-f', 'json'],
        [*node, 'show', 'cli-1', '-f', 'json'],
        [*node, 'trait', 'list', 'cli-1', '-f', 'json'],
        [*node, 'show', 'nope'],
        [*node, 'create', '--driver', 'ipmi'],
        [*node, 'manage', 'cli-1', '--wait', '30'],
        [*node, 'delete', 'cli-1'],
        [*node, 'list', '-f', 'json'],
    )
    for rc, out, err in results[:18]:
        assert rc == 0, err
    created, listed = results[0][1], results[1][1]
    assert created['name'] == 'cli-1'
    assert created['provision_state'] == 'enroll'
    assert created['power_state'] is None
    assert created['properties'] == {'cpus': 8}
    assert listed == [{
        'uuid': created['uuid'], 'name': 'cli-1', 'instance_uuid': None,
        'power_state': None, 'provision_state': 'enroll',
        'maintenance': False}]
    shown = results[9][1]
    assert (shown['provision_state'], shown['power_state'],
            shown['maintenance'], shown['maintenance_reason']) == (
        'available', 'power on', True, 'fan')
    assert shown['traits'] == ['CUSTOM_GPU']
    assert shown['extra'] == {'rack': 'a1'}
    assert (shown['description'], shown['owner']) == ('first node', 'p1')
    assert results[15][1] == [{'uuid': created['uuid'], 'name': 'cli-1',
                               'power_state': 'power off',
                               'allocation_uuid': None}]
    final = results[16][1]
    assert (final['provision_state'], final['maintenance'],
            final['extra'], final['description']) == (
        'available', False, {}, None)
    assert results[17][1] == [{'traits': 'CUSTOM_GPU'}]
    rc, _out, err = results[18]
    assert rc == 1 and 'Node nope could not be found. (HTTP 404)' in err
    rc, _out, err = results[19]
    assert rc == 1 and ('No valid host was found. Reason: No conductor '
                        'service registered which supports driver ipmi'
                        in err)
    assert [rc for rc, _out, _err in results[20:]] == [0, 0, 0]
    assert results[22][1] == []


def test_the_other_verbs_through_the_cli(endpoint):
    node = 'baremetal', 'node'
    clean = json.dumps([{'interface': 'bios', 'step': 'factory_reset'}])
    bad = json.dumps([{'interface': 'deploy', 'step': 'erase_devices'}])
    service = json.dumps([{'interface': 'vendor',
                           'step': 'log_passthrough'}])
    results = cli(
        endpoint,
        [*node, 'create', '--driver', 'fake-hardware', '--name', 'cli-v',
         '-f', 'json'],
        [*node, 'manage', 'cli-v', '--wait', '30'],
        [*node, 'clean', 'cli-v', '--clean-steps', clean, '--wait', '30'],
        [*node, 'adopt', 'cli-v', '--wait', '30'],
        [*node, 'rescue', 'cli-v', '--rescue-password', 'pw', '--wait',
         '30'],
        [*node, 'show', 'cli-v', '-f', 'json'],
        [*node, 'unrescue', 'cli-v', '--wait', '30'],
        [*node, 'service', 'cli-v', '--service-steps', service, '--wait',
         '30'],
        [*node, 'abort', 'cli-v'],
        [*node, 'undeploy', 'cli-v', '--wait', '30'],
        [*node, 'manage', 'cli-v', '--wait', '30'],
        [*node, 'clean', 'cli-v', '--clean-steps', bad],
        [*node, 'show', 'cli-v', '-f', 'json'],
        # (The scenarios share a server: leave no node behind.)
        [*node, 'manage', 'cli-v'],
        [*node, 'delete', 'cli-v'],
    )
    for rc, _out, err in results[:8]:
        assert rc == 0, err
    rescued = results[5][1]
    assert rescued['provision_state'] == 'rescue'
    assert rescued['instance_info'] == {'rescue_password': '******',
                                        'hashed_rescue_password': '******'}
    rc, _out, err = results[8]
    assert rc == 1 and ('The requested action "abort" can not be performed '
                        'on node' in err)
    assert [rc for rc, _out, _err in results[9:]] == [0] * 6
    failed = results[12][1]
    assert (failed['provision_state'], failed['target_provision_state']) == (
        'clean failed', 'manageable')
    assert failed['last_error'].endswith(
        "node does not support this clean step: {'interface': 'deploy', "
        "'step': 'erase_devices'}")


def test_allocated_node_deployed_and_torn_down(endpoint):
    """With allocsvc-all's own conductor: a node allocated through the
    allocation API keeps its allocation when deployed, and tearing it
    down deletes the allocation."""
    node = 'baremetal', 'node'
    results = cli(
        endpoint,
        [*node, 'create', '--driver', 'fake-hardware', '--name', 'alloc-1',
         '--resource-class', 'silver', '-f', 'json'],
        [*node, 'manage', 'alloc-1', '--wait', '30'],
        [*node, 'provide', 'alloc-1', '--wait', '30'],
        [*node, 'power', 'on', 'alloc-1'],
        ['baremetal', 'allocation', 'create', '--resource-class', 'silver',
         '--wait', '30', '-f', 'json'],
        [*node, 'deploy', 'alloc-1', '--wait', '30'],
        [*node, 'show', 'alloc-1', '-f', 'json'],
        [*node, 'undeploy', 'alloc-1', '--wait', '30'],
        [*node, 'show', 'alloc-1', '-f', 'json'],
        ['baremetal', 'allocation', 'list', '-f', 'json'],
        [*node, 'maintenance', 'set', 'alloc-1'],
        [*node, 'delete', 'alloc-1'],
    )
    for rc, _out, err in results:
        assert rc == 0, err
    allocation = results[4][1]
    assert (allocation['state'], allocation['node_uuid']) == (
        'active', results[0][1]['uuid'])
    deployed = results[6][1]
    assert (deployed['provision_state'], deployed['allocation_uuid'],
            deployed['instance_uuid']) == ('active', allocation['uuid'],
                                           allocation['uuid'])
    torn_down = results[8][1]
    assert (torn_down['provision_state'], torn_down['allocation_uuid'],
            torn_down['instance_uuid']) == ('available', None, None)
    assert results[9][1] == []


def test_the_openstack_script(endpoint):
    done = subprocess.run(
        [OPENSTACK, '--os-auth-type', 'none', '--os-endpoint', endpoint,
         'baremetal', 'node', 'create', '--driver', 'fake-hardware',
         '--name', 'script-1', '-f', 'json'],
        env=client_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)['provision_state'] == 'enroll'
    cli(endpoint, ['baremetal', 'node', 'delete', 'script-1'])


def test_openstacksdk_baremetal_proxy(endpoint):
    conn = openstack.connect(auth_type='none',
                             baremetal_endpoint_override=endpoint,
                             load_yaml_config=False, load_envvars=False)
    proxy = conn.baremetal
    node = proxy.create_node(driver='fake-hardware', name='sdk-1',
                             resource_class='gold')
    assert node.provision_state == 'enroll'
    proxy.set_node_provision_state(node, 'manage', wait=True, timeout=30)
    proxy.set_node_provision_state(node, 'provide', wait=True, timeout=30)
    proxy.set_node_power_state(node, 'power on', wait=True, timeout=30)
    proxy.set_node_traits(node, ['CUSTOM_A'])
    proxy.add_node_trait(node, 'CUSTOM_B')
    proxy.patch_node(proxy.get_node('sdk-1'),
                     [{'op': 'add', 'path': '/extra/x', 'value': 1}])
    proxy.set_node_maintenance(node, reason='sdk')
    node = proxy.get_node('sdk-1')
    assert (node.provision_state, node.power_state, node.traits,
            node.extra, node.is_maintenance, node.maintenance_reason) == (
        'available', 'power on', ['CUSTOM_A', 'CUSTOM_B'], {'x': 1}, True,
        'sdk')
    proxy.unset_node_maintenance(node)
    proxy.set_node_provision_state(node, 'active', wait=True, timeout=30)
    proxy.set_node_provision_state(node, 'deleted', wait=True, timeout=30)
    assert [n.name for n in proxy.nodes(details=True)] == ['sdk-1']
    assert [n.id for n in proxy.nodes(provision_state='available')] == [
        node.id]
    proxy.set_node_provision_state(node, 'manage', wait=True, timeout=30)
    proxy.delete_node(node)
    assert list(proxy.nodes()) == []
