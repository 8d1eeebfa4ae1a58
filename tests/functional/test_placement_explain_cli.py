"""``openstack allocation candidate explain`` (allocsvc's command in
osc-placement's command group) against ``allocsvc-all``.

Scenario: two compute nodes made with osc-placement's own commands, one
with HW_CPU_X86_AVX2 and 8 VCPU, one with 2 VCPU; the explanation of a
query that fits says how many candidates, the table marks nothing
blocked; one asking a trait nobody has names it, marks the blocking
step and lists the nodes it dropped; a granular query with --group,
--group-policy and --limit; ``-f json`` gives the whole document; a
malformed --resource is a client error.
"""

from tests.helpers.cli import ADMIN_TOKEN
from tests.helpers.cli import cli
from tests.helpers.cli import endpoint_fixture

endpoint = endpoint_fixture('explain-cli')

VERSION = ('--os-placement-api-version', '1.39')


def placement(endpoint, *commands):
    return cli(endpoint + '/placement',
               *[list(VERSION) + list(c) for c in commands],
               auth=ADMIN_TOKEN)


def test_explain_commands(endpoint):
    rp = ('resource', 'provider')
    made = placement(endpoint, [*rp, 'create', 'cn-big', '-f', 'json'],
                     [*rp, 'create', 'cn-small', '-f', 'json'])
    assert [r[0] for r in made] == [0, 0], made
    big, small = made[0][1]['uuid'], made[1][1]['uuid']
    setup = placement(
        endpoint,
        [*rp, 'inventory', 'set', big, '--resource', 'VCPU=8',
         '--resource', 'MEMORY_MB=4096'],
        [*rp, 'inventory', 'set', small, '--resource', 'VCPU=2',
         '--resource', 'MEMORY_MB=4096'],
        [*rp, 'trait', 'set', big, '--trait', 'HW_CPU_X86_AVX2'])
    assert [r[0] for r in setup] == [0, 0, 0], setup

    explain = ('allocation', 'candidate', 'explain')
    results = placement(
        endpoint,
        [*explain, '--resource', 'VCPU=4', '--resource', 'MEMORY_MB=1024',
         '-f', 'json'],
        [*explain, '--resource', 'VCPU=1', '--required',
         'HW_CPU_X86_AVX512F'],
        [*explain, '--resource', 'VCPU=1', '--required',
         'HW_CPU_X86_AVX512F', '-f', 'json'],
        [*explain, '--group', '1', '--resource', 'VCPU=1', '--group', '2',
         '--resource', 'VCPU=1', '--group-policy', 'isolate', '--limit',
         '5', '-f', 'json'],
        [*explain, '--resource', 'VCPU'],
        [*explain, '--required', 'HW_CPU_X86_AVX2'],
    )
    rc, fits, err = results[0]
    assert rc == 0, err
    assert fits['allocation_candidates'] == 1
    assert fits['reason'] is None
    assert [s['providers'] for s in fits['request_groups'][0]['steps']][
        :2] == [2, 1]

    rc, table, err = results[1]
    assert rc == 0, err
    assert 'no tree with 1 VCPU free also has trait HW_CPU_X86_AVX512F' \
        in table
    assert '>> group (unsuffixed): required HW_CPU_X86_AVX512F' in table
    assert 'cn-big' in table and 'cn-small' in table

    rc, blocked, err = results[2]
    assert rc == 0, err
    assert blocked['allocation_candidates'] == 0
    examples = blocked['request_groups'][0]['blocked_by']['examples']
    assert {e['root_provider'] for e in examples} == {big, small}

    rc, granular, err = results[3]
    assert rc == 0, err
    assert granular['limit'] == 5
    # Two isolated groups of one VCPU each: no tree has two providers.
    assert granular['allocation_candidates'] == 0
    assert granular['combination']['blocked_by']['message'].startswith(
        'no tree that can serve every group also has a distinct provider')

    assert results[4][0] == 1
    assert '<resource_class>=<value>' in results[4][2]
    assert results[5][0] == 1
    assert 'At least one --resource' in results[5][2]
