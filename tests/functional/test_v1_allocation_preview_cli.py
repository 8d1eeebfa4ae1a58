"""``openstack baremetal allocation preview`` (allocsvc's command in
python-ironicclient's command group) against ``allocsvc-all``.

Scenario: three nodes of one resource class, made with the Ironic
client's own commands; one has a trait, one is in maintenance. The
preview of the class lists the two available nodes and counts the one
in maintenance; with the trait it lists the one node that has it, and
an allocation created with the same options takes that node; with a
trait nobody has it lists none and gives the error an allocation would
end in, which the allocation then does; ``-f json`` gives the whole
answer; an unknown candidate node is the API's 400, shown as an error.
"""

from tests.helpers.cli import cli
from tests.helpers.cli import endpoint_fixture

endpoint = endpoint_fixture('preview-cli')


def test_preview_commands(endpoint):
    node, alloc = ('baremetal', 'node'), ('baremetal', 'allocation')
    names = ('bm-plain', 'bm-gpu', 'bm-broken')
    setup = [[*node, 'create', '--driver', 'fake-hardware', '--name', name,
              '--resource-class', 'silver', '-f', 'json'] for name in names]
    for name in names:
        setup += [[*node, 'manage', name, '--wait', '30'],
                  [*node, 'provide', name, '--wait', '30'],
                  [*node, 'power', 'off', name]]
    setup += [[*node, 'add', 'trait', 'bm-gpu', 'CUSTOM_GPU'],
              [*node, 'maintenance', 'set', 'bm-broken']]
    results = cli(endpoint, *setup)
    assert [rc for rc, _out, _err in results] == [0] * len(setup), results
    uuids = {name: results[i][1]['uuid'] for i, name in enumerate(names)}

    preview = (*alloc, 'preview', '--resource-class', 'silver')
    results = cli(
        endpoint,
        [*preview, '-f', 'json'],
        [*preview],
        [*preview, '--trait', 'CUSTOM_GPU', '-f', 'json'],
        [*alloc, 'create', '--resource-class', 'silver', '--trait',
         'CUSTOM_GPU', '--wait', '30', '-f', 'json'],
        [*preview, '--trait', 'CUSTOM_NOPE', '-f', 'json'],
        [*alloc, 'create', '--resource-class', 'silver', '--trait',
         'CUSTOM_NOPE', '--wait', '30', '-f', 'json'],
        [*preview, '--candidate-node', 'no-such-node'],
    )
    rc, found, err = results[0]
    assert rc == 0, err
    assert found['node_count'] == 2
    assert sorted(n['uuid'] for n in found['nodes']) == sorted(
        [uuids['bm-plain'], uuids['bm-gpu']])
    assert found['nodes_of_class'] == 3
    assert [(d['reason'], d['count']) for d in found['dropped']] == [
        ('maintenance', 1)]
    assert found['last_error'] is None

    rc, table, err = results[1]
    assert rc == 0, err
    assert 'bm-plain' in table and 'bm-gpu' in table
    assert 'in maintenance: 1' in table

    rc, gpu, err = results[2]
    assert rc == 0, err
    assert [n['name'] for n in gpu['nodes']] == ['bm-gpu']
    rc, taken, err = results[3]
    assert rc == 0, err
    assert taken['node_uuid'] == uuids['bm-gpu']

    rc, none, err = results[4]
    assert rc == 0, err
    assert none['node_count'] == 0 and none['nodes'] == []
    assert none['last_error'].startswith(
        'no suitable nodes have the requested traits CUSTOM_NOPE')
    rc, failed, err = results[5]
    # The allocation fails as the preview said (the GPU node is taken
    # by now: the counts differ, the sentence does not).
    assert failed is None or failed.get('state') != 'active', failed
    assert 'no suitable nodes have the requested traits CUSTOM_NOPE' in (
        err + str(failed))

    rc, _out, err = results[6]
    assert rc == 1
    assert 'no-such-node' in err
