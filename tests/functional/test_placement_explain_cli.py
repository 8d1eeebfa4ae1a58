"""``openstack allocation candidate explain`` and ``... claim``
(allocsvc's commands in osc-placement's command group) against
``allocsvc-all``.

Scenario: two compute nodes made with osc-placement's own commands, one
with HW_CPU_X86_AVX2 and 8 VCPU, one with 2 VCPU; the explanation of a
query that fits says how many candidates, the table marks nothing
blocked; one asking a trait nobody has names it, marks the blocking
step and lists the nodes it dropped; a granular query with --group,
--group-policy and --limit; ``-f json`` gives the whole document; a
malformed --resource is a client error. Then a group claim: three
providers in two racks (a trait each), two consumers spread one per
rack, twice; five more than are left is refused, nothing written.
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


def test_claim_command(endpoint):
    rp = ('resource', 'provider')
    made = placement(endpoint,
                     *[[*rp, 'create', 'rack-%s' % n, '-f', 'json']
                       for n in ('a1', 'a2', 'b1')])
    uuids = [m[1]['uuid'] for m in made]
    setup = placement(endpoint, ['resource', 'class', 'create',
                                 'CUSTOM_SLOT'])
    setup += placement(endpoint, *[
        [*rp, 'inventory', 'set', uuid, '--resource', 'CUSTOM_SLOT=2']
        for uuid in uuids])
    setup += placement(
        endpoint, ['trait', 'create', 'CUSTOM_RACK_A'],
        ['trait', 'create', 'CUSTOM_RACK_B'],
        [*rp, 'trait', 'set', uuids[0], '--trait', 'CUSTOM_RACK_A'],
        [*rp, 'trait', 'set', uuids[1], '--trait', 'CUSTOM_RACK_A'],
        [*rp, 'trait', 'set', uuids[2], '--trait', 'CUSTOM_RACK_B'])
    assert all(r[0] == 0 for r in setup), setup
    claim = ('allocation', 'candidate', 'claim', '--resource',
             'CUSTOM_SLOT=1', '--project', 'p', '--user', 'u')
    results = placement(
        endpoint,
        [*claim, '--count', '2', '--spread-by', 'trait:CUSTOM_RACK_',
         '--strict', '-f', 'json'],
        [*claim, '--count', '2', '--spread-by', 'trait:CUSTOM_RACK_',
         '--strict'],
        [*claim, '--count', '5', '--order', 'pack', '-f', 'json'],
    )
    rc, members, err = results[0]
    assert rc == 0, err
    assert sorted(m['domains'] for m in members) == [
        'CUSTOM_RACK_A', 'CUSTOM_RACK_B']
    # The two racks are taken once each: a second strict claim of two
    # still finds one slot per rack.
    rc, table, err = results[1]
    assert rc == 0, err
    assert 'CUSTOM_RACK_A' in table and 'CUSTOM_RACK_B' in table
    # Six slots, four claimed: five more cannot be had, and none is.
    rc, _out, err = results[2]
    assert rc == 1
    assert 'Only 2 of the 5 consumers fit together' in err
