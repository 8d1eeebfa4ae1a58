"""``openstack baremetal allocation ...`` (python-ironicclient, auth type
none) against ``allocsvc-all``: the allocation commands of issue 5, end
to end through the in-process conductor.

Scenario: two nodes of one resource class, one of them with a trait;
``allocation create --resource-class X --trait T --wait`` gets the node
with the trait; ``list`` (also filtered), ``show`` by name and UUID,
``set --name`` and ``--extra``, ``unset``, ``delete``; then the node is
free again, an allocation nothing matches ends in ``error`` with a
reason, and a malformed request is a client error.
"""

from tests.helpers.cli import cli
from tests.helpers.cli import endpoint_fixture

endpoint = endpoint_fixture('allocations-cli')


def test_allocation_commands(endpoint):
    node, alloc = ('baremetal', 'node'), ('baremetal', 'allocation')
    setup = [[*node, 'create', '--driver', 'fake-hardware', '--name', name,
              '--resource-class', 'bronze', '-f', 'json']
             for name in ('plain-1', 'gpu-1')]
    for name in ('plain-1', 'gpu-1'):
        setup += [[*node, 'manage', name, '--wait', '30'],
                  [*node, 'provide', name, '--wait', '30'],
                  [*node, 'power', 'off', name]]
    setup.append([*node, 'add', 'trait', 'gpu-1', 'CUSTOM_GPU'])
    results = cli(endpoint, *setup)
    assert [rc for rc, _out, _err in results] == [0] * len(setup), results
    gpu_uuid = results[1][1]['uuid']

    results = cli(
        endpoint,
        [*alloc, 'create', '--resource-class', 'bronze', '--trait',
         'CUSTOM_GPU', '--name', 'job-1', '--wait', '30', '-f', 'json'],
        [*alloc, 'list', '-f', 'json'],
        [*alloc, 'list', '--resource-class', 'bronze', '--state', 'active',
         '-f', 'json'],
        [*alloc, 'show', 'job-1', '-f', 'json'],
        [*alloc, 'set', 'job-1', '--name', 'job-2', '--extra', 'team=a'],
        [*alloc, 'show', 'job-2', '-f', 'json'],
        [*alloc, 'unset', 'job-2', '--extra', 'team'],
        [*node, 'show', 'gpu-1', '-f', 'json'],
        [*alloc, 'delete', 'job-2'],
        [*alloc, 'list', '-f', 'json'],
        [*node, 'show', 'gpu-1', '-f', 'json'],
        [*alloc, 'create', '--resource-class', 'bronze', '--trait',
         'CUSTOM_NONE', '--wait', '30', '-f', 'json'],
        [*alloc, 'create', '--resource-class', 'bronze', '--name',
         'bad name', '-f', 'json'],
    )
    created = results[0][1]
    assert results[0][0] == 0, results[0][2]
    assert (created['state'], created['node_uuid'], created['traits'],
            created['name']) == ('active', gpu_uuid, ['CUSTOM_GPU'],
                                 'job-1')
    listed = results[1][1]
    assert [a['uuid'] for a in listed] == [created['uuid']]
    assert [a['uuid'] for a in results[2][1]] == [created['uuid']]
    assert results[3][1]['uuid'] == created['uuid']
    assert results[4][0] == 0, results[4][2]
    renamed = results[5][1]
    assert (renamed['name'], renamed['extra']) == ('job-2', {'team': 'a'})
    assert results[6][0] == 0, results[6][2]
    allocated = results[7][1]
    assert (allocated['allocation_uuid'], allocated['instance_uuid']) == (
        created['uuid'], created['uuid'])
    assert results[8][0] == 0, results[8][2]
    assert results[9][1] == []
    freed = results[10][1]
    assert (freed['allocation_uuid'], freed['instance_uuid'],
            freed['provision_state']) == (None, None, 'available')
    # Waiting for an allocation that fails is an error for the CLI.
    rc, _out, err = results[11]
    assert rc == 1 and 'CUSTOM_NONE' in err
    rc, _out, err = results[12]
    assert rc == 1 and 'invalid name' in err and '(HTTP 400)' in err
