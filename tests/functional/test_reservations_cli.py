"""``openstack allocation reservation create|list|show|set|delete``
(allocsvc's commands in osc-placement's command group) against
``allocsvc-all``.

Scenario: two compute nodes of 8 VCPU made with osc-placement's own
commands. A reservation for p1 holding on both (the second provider
given by name), which the API then holds exactly; one of p2 on the
second node in the next window, made from the table output; listing
by project, provider and window; show. Shortening p1's window, then a
third reservation taking the rest of the first node, after which
lengthening p1's again is refused with the service's reason and changes
nothing. A time the service cannot read is its 400, in its words.
Deleting two at once; deleting a gone one and a present one deletes the
present one and names the gone one. Usage errors: ``--resource`` before
any ``--resource-provider``, a provider without ``--resource``, a
malformed ``--resource``, ``set`` with nothing to set, a microversion
before reservations. ``availability``: free intervals of each provider,
in JSON and in a table, and its usage errors.

The windows start tomorrow: the service refuses one that has ended.
"""

import datetime
import json
import urllib.request

from tests.helpers.cli import ADMIN_TOKEN
from tests.helpers.cli import cli
from tests.helpers.cli import endpoint_fixture

endpoint = endpoint_fixture('reservations-cli')

VERSION = ('--os-placement-api-version', '1.39')
RES = ('allocation', 'reservation')
# Whole hours from tomorrow on: no window of the test has ended.
T0 = (datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
      + datetime.timedelta(days=1)).replace(minute=0, second=0,
                                            microsecond=0)


def _at(hours):
    return (T0 + datetime.timedelta(hours=hours)).isoformat() + 'Z'


def placement(endpoint, *commands):
    return cli(endpoint + '/placement',
               *[list(VERSION) + list(c) for c in commands],
               auth=ADMIN_TOKEN)


def api_get(endpoint, path):
    """What the API itself answers, not what the commands make of it."""
    req = urllib.request.Request(
        endpoint + '/placement' + path,
        headers={'X-Auth-Token': 'admin',
                 'OpenStack-API-Version': 'placement 1.39',
                 'Accept': 'application/json'})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)


def _providers(endpoint, names=('cn-a', 'cn-b')):
    rp = ('resource', 'provider')
    made = placement(endpoint, *[[*rp, 'create', name, '-f', 'json']
                                 for name in names])
    assert [r[0] for r in made] == [0, 0], made
    a, b = made[0][1]['uuid'], made[1][1]['uuid']
    setup = placement(endpoint, *[
        [*rp, 'inventory', 'set', uuid, '--resource', 'VCPU=8',
         '--resource', 'MEMORY_MB=4096'] for uuid in (a, b)])
    assert [r[0] for r in setup] == [0, 0], setup
    return a, b


def _uuids(listed):
    return sorted(r['uuid'] for r in listed)


def test_reservation_commands(endpoint):
    a, b = _providers(endpoint)
    create = (*RES, 'create')
    results = placement(
        endpoint,
        [*create, '--resource-provider', a, '--resource', 'VCPU=4',
         '--resource', 'MEMORY_MB=1024', '--resource-provider', 'cn-b',
         '--resource', 'VCPU=2', '--start', _at(0), '--end', _at(10),
         '--project', 'p1', '-f', 'json'],
        [*create, '--resource-provider', b, '--resource', 'VCPU=6',
         '--start', _at(10), '--end', _at(20), '--project', 'p2'],
    )
    rc, first, err = results[0]
    assert rc == 0, err
    held = {a: {'resources': {'VCPU': 4, 'MEMORY_MB': 1024}},
            b: {'resources': {'VCPU': 2}}}
    assert first['resources'] == held
    assert (first['project_id'], first['start'], first['end'],
            first['active']) == ('p1', _at(0), _at(10), False)
    assert api_get(endpoint, '/reservations/%s' % first['uuid'])[
        'resources'] == held
    rc, table, err = results[1]
    assert rc == 0, err
    # One line per provider, the classes of each in one.
    assert '%s: VCPU=6' % b in table
    second = [line.split('|')[2].strip() for line in table.splitlines()
              if line.startswith('| uuid ')][0]

    listing = (*RES, 'list', '-f', 'json')
    results = placement(
        endpoint,
        listing,
        [*listing, '--project', 'p1'],
        [*listing, '--resource-provider', a],
        [*listing, '--resource-provider', 'cn-b'],
        # Windows are [start, end): the first ends where the second
        # starts, and overlaps neither side of that instant.
        [*listing, '--start', _at(10)],
        [*listing, '--end', _at(10)],
        [*listing, '--project', 'p2', '--start', _at(0), '--end', _at(5)],
        [*RES, 'show', first['uuid'], '-f', 'json'],
        [*RES, 'list'],
    )
    assert all(r[0] == 0 for r in results), results
    got = [r[1] for r in results]
    assert _uuids(got[0]) == sorted([first['uuid'], second])
    assert set(got[0][0]) == {'uuid', 'project_id', 'start', 'end',
                              'active'}
    assert _uuids(got[1]) == [first['uuid']]
    assert _uuids(got[2]) == [first['uuid']]
    assert _uuids(got[3]) == sorted([first['uuid'], second])
    assert _uuids(got[4]) == [second]
    assert _uuids(got[5]) == [first['uuid']]
    assert got[6] == []
    assert got[7] == first
    assert first['uuid'] in got[8] and second in got[8]

    path = '/reservations/%s' % first['uuid']
    results = placement(
        endpoint,
        [*RES, 'set', first['uuid'], '--end', _at(5), '-f', 'json'],
        [*create, '--resource-provider', a, '--resource', 'VCPU=6',
         '--start', _at(5), '--end', _at(10), '--project', 'p2',
         '-f', 'json'],
        [*RES, 'set', first['uuid'], '--end', _at(10)],
        [*RES, 'set', first['uuid']],
        [*create, '--resource-provider', a, '--resource', 'VCPU=1',
         '--start', 'tomorrow', '--end', _at(1)],
    )
    rc, moved, err = results[0]
    assert rc == 0, err
    assert (moved['start'], moved['end']) == (_at(0), _at(5))
    rc, third, err = results[1]
    assert rc == 0, err
    rc, _out, err = results[2]
    assert rc == 1
    assert ("Unable to hold the reservation: 4 VCPU on resource provider "
            "'%s' would be held from %s to %s, and at some instant of that "
            "window the reservations would hold 10 of a capacity of 8."
            % (a, _at(0), _at(10))) in err
    assert 'Traceback' not in err
    assert api_get(endpoint, path)['end'] == _at(5)
    rc, _out, err = results[3]
    assert rc == 1
    assert 'Specify --start, --end or both.' in err
    rc, _out, err = results[4]
    assert rc == 1
    assert "Invalid start 'tomorrow'" in err

    results = placement(
        endpoint,
        [*RES, 'delete', first['uuid'], third['uuid']],
        [*RES, 'list', '-f', 'json'],
        [*RES, 'delete', first['uuid'], second],
        [*RES, 'list', '-f', 'json'],
        [*RES, 'show', first['uuid']],
    )
    rc, out, err = results[0]
    assert (rc, out) == (0, None), err
    assert _uuids(results[1][1]) == [second]
    rc, _out, err = results[2]
    assert rc == 1
    assert '1 of 2 reservations could not be deleted' in err
    assert '%s: No reservation with uuid %s found' % (
        first['uuid'], first['uuid']) in err
    assert second not in err
    assert results[3][1] == []
    rc, _out, err = results[4]
    assert rc == 1
    assert 'No reservation with uuid %s found' % first['uuid'] in err


def test_usage_errors(endpoint):
    rp = 'f1b5a3a0-7c1e-4b8e-9a35-0c3d2e5f6a71'
    window = ('--start', _at(0), '--end', _at(1))
    create = (*RES, 'create')
    results = placement(
        endpoint,
        [*create, '--resource', 'VCPU=1', '--resource-provider', rp,
         *window],
        [*create, '--resource-provider', rp, *window],
        [*create, '--resource-provider', rp, '--resource', 'VCPU',
         *window],
        [*create, '--resource-provider', rp, '--resource', 'VCPU=1',
         '--resource', 'VCPU=2', *window],
        [*create, '--resource-provider', 'no-such-node', '--resource',
         'VCPU=1', *window],
    )
    # A --resource before any --resource-provider is the candidates
    # query's, and the provider after it has none.
    rc, _out, err = results[0]
    assert rc == 1
    assert 'Resource provider %s has no --resource after it.' % rp in err
    assert results[1][0] == 1
    assert 'Resource provider %s has no --resource after it.' % rp \
        in results[1][2]
    assert results[2][0] == 1
    assert '<resource_class>=<value>' in results[2][2]
    assert results[3][0] == 1
    assert 'VCPU is given twice for resource provider %s.' % rp \
        in results[3][2]
    assert results[4][0] == 1
    assert 'No resource provider with name or uuid no-such-node' \
        in results[4][2]
    assert all('Traceback' not in r[2] for r in results), results
    # A driver of its own: OSC caches the Placement client, and its
    # microversion, at class level for the life of the process.
    [(rc, _out, err)] = cli(
        endpoint + '/placement',
        ['--os-placement-api-version', '1.9', *RES, 'list'],
        auth=ADMIN_TOKEN)
    assert rc == 1
    assert 'require --os-placement-api-version 1.10 or later' in err


def test_availability_command(endpoint):
    a, b = _providers(endpoint, ('av-a', 'av-b'))
    made = placement(endpoint, [
        *RES, 'create', '--resource-provider', a, '--resource', 'VCPU=6',
        '--start', _at(1), '--end', _at(3), '--project', 'p1'])
    assert made[0][0] == 0, made
    avail = (*RES, 'availability', '--start', _at(0), '--end', _at(4))
    results = placement(
        endpoint,
        [*avail, '--resource', 'VCPU=4', '-f', 'json'],
        [*avail, '--resource', 'VCPU=4', '--resource-provider', 'av-a'],
        [*avail, '--resource', 'VCPU'],
        [*RES, 'availability', '--resource', 'VCPU=1'],
    )
    rc, found, err = results[0]
    assert rc == 0, err
    by_rp = {e['resource_provider']: e for e in found
             if e['resource_provider'] in (a, b)}
    assert by_rp[b]['whole_window'] is True
    assert by_rp[a]['free'] == [{'start': _at(0), 'end': _at(1)},
                                {'start': _at(3), 'end': _at(4)}]
    rc, table, err = results[1]
    assert rc == 0, err
    assert '%s -> %s' % (_at(3), _at(4)) in table and b not in table
    assert results[2][0] == 1
    assert 'must be of form <resource_class>=<amount>' in results[2][2]
    assert results[3][0] == 2


def test_create_from_a_query(endpoint):
    a, _b = _providers(endpoint, ('q-a', 'q-b'))
    window = ('--start', _at(30), '--end', _at(31))
    create = (*RES, 'create', *window, '--project', 'p1')
    results = placement(
        endpoint,
        [*create, '--resource', 'VCPU=4', '--count', '3',
         '--spread-by', 'root', '--max-per-domain', '2', '--order',
         'pack', '--in-tree', a, '-f', 'json'],
        [*create, '--resource', 'VCPU=4', '--count', '3',
         '--in-tree', a],
        [*create, '--resource-provider', a, '--resource', 'VCPU=1',
         '--count', '1'],
        [*create],
    )
    rc, made, err = results[0]
    # Only a's tree: 2 of 8 VCPU slots fit, not 3.
    assert rc == 1, made
    assert 'Only 2 of the 3' in err
    rc, _out, err = results[1]
    assert rc == 1 and 'Only 2 of the 3' in err
    assert results[2][0] == 1
    assert 'give no --resource-provider with it' in results[2][2]
    assert results[3][0] == 1
    assert 'or a candidates query and --count' in results[3][2]
    [(rc, made, err)] = placement(endpoint, [
        *create, '--resource', 'VCPU=4', '--count', '4', '--order', 'pack',
        '-f', 'json'])
    assert rc == 0, err
    # Packed: two providers (of those the module made) full.
    held = [e['resources']['VCPU'] for e in made['resources'].values()]
    assert sorted(held) == [8, 8]
