"""``openstack baremetal allocation group create|list|show|delete``
(allocsvc's commands in python-ironicclient's command group) against
``allocsvc-all``.

Scenario: four nodes of one resource class in two conductor groups,
made with the Ironic client's own commands. A group of two spread
strictly over conductor groups becomes active (``--wait``) on one node
of each; its members are listed by ``openstack baremetal allocation
list``, and one is shown and deleted by the allocation commands (the
group then has one node fewer); ``show`` by name and ``list`` find it;
a group of three when two nodes are left ends in error saying so;
``delete`` removes both and frees the nodes; an unknown group is the
API's 404, shown as an error.
"""

from tests.helpers.cli import cli
from tests.helpers.cli import endpoint_fixture

endpoint = endpoint_fixture('groups-cli')


def test_group_commands(endpoint):
    node, alloc = ('baremetal', 'node'), ('baremetal', 'allocation')
    group = (*alloc, 'group')
    names = ('g-a1', 'g-a2', 'g-b1', 'g-b2')
    setup = [[*node, 'create', '--driver', 'fake-hardware', '--name', name,
              '--resource-class', 'gold', '--conductor-group',
              name[2], '-f', 'json'] for name in names]
    for name in names:
        setup += [[*node, 'manage', name, '--wait', '30'],
                  [*node, 'provide', name, '--wait', '30'],
                  [*node, 'power', 'off', name]]
    results = cli(endpoint, *setup)
    assert [rc for rc, _out, _err in results] == [0] * len(setup), results
    uuids = {results[i][1]['uuid']: name[2] for i, name in enumerate(names)}

    results = cli(
        endpoint,
        [*group, 'create', '--resource-class', 'gold', '--count', '2',
         '--name', 'pair', '--member-name', 'pair-0', '--spread-by',
         'conductor_group', '--strict', '--wait', '30', '-f', 'json'],
        [*alloc, 'list', '-f', 'json'],
        [*group, 'show', 'pair', '-f', 'json'],
        [*group, 'list', '-f', 'json'],
        [*group, 'create', '--resource-class', 'gold', '--count', '3',
         '--spread-by', 'conductor_group', '--strict', '--wait', '30',
         '-f', 'json'],
        [*group, 'show', 'pair'],
    )
    rc, pair, err = results[0]
    assert rc == 0, err
    assert pair['state'] == 'active', pair
    assert pair['spread'] == {'by': 'conductor_group', 'max_per_domain': 1,
                              'strict': True}
    taken = [m['node_uuid'] for m in pair['members']]
    assert sorted(uuids[u] for u in taken) == ['a', 'b']
    rc, listed, err = results[1]
    assert rc == 0, err
    assert sorted(a['node_uuid'] for a in listed) == sorted(taken)
    assert 'pair-0' in [a['name'] for a in listed]
    rc, shown, err = results[2]
    assert rc == 0, err
    assert shown['uuid'] == pair['uuid'] and shown['state'] == 'active'
    rc, groups, err = results[3]
    assert rc == 0, err
    assert [g['uuid'] for g in groups] == [pair['uuid']]
    rc, failed, err = results[4]
    assert rc == 0, err
    # Only two free nodes are left.
    assert failed['state'] == 'error'
    assert 'only 2 of the 3 nodes the group needs are suitable (4 nodes ' \
        'have resource class gold: 2 already allocated)' in \
        failed['last_error']
    rc, table, err = results[5]
    assert rc == 0, err
    assert 'by conductor_group, at most 1 per domain, strict' in table

    # A member is an allocation to the allocation commands: shown, and
    # deleted, the group then holding one node fewer.
    member = [a for a in listed if a['name'] == 'pair-0'][0]
    results = cli(
        endpoint,
        [*alloc, 'show', 'pair-0', '-f', 'json'],
        [*alloc, 'delete', 'pair-0'],
        [*group, 'show', 'pair', '-f', 'json'],
    )
    rc, shown, err = results[0]
    assert rc == 0, err
    assert (shown['uuid'], shown['node_uuid'], shown['state']) == (
        member['uuid'], member['node_uuid'], 'active')
    assert results[1][0] == 0, results[1][2]
    rc, fewer, err = results[2]
    assert rc == 0, err
    assert [m['uuid'] for m in fewer['members']] == [
        m['uuid'] for m in pair['members'] if m['uuid'] != member['uuid']]

    results = cli(
        endpoint,
        [*group, 'delete', 'pair', failed['uuid']],
        [*group, 'list', '-f', 'json'],
        [*alloc, 'list', '-f', 'json'],
        [*group, 'show', 'no-such-group'],
    )
    assert results[0][0] == 0, results[0][2]
    assert results[1][1] == [] or results[1][1] is None
    assert results[2][1] == [] or results[2][1] is None
    rc, _out, err = results[3]
    assert rc != 0
    assert 'Allocation group no-such-group could not be found' in err
