"""Races of real threads against real databases (SQLite, MariaDB and
PostgreSQL).

Each round starts two writers at a barrier, both sure of the same state;
whatever the interleaving, exactly one must win and the other must get a
409 with the documented code, and nothing may be half-written.
"""

import threading

import pytest

from tests import client
from tests import conftest
from tests.helpers import apps

ROUNDS = 8


@pytest.fixture(params=['sqlite', 'mysql', 'postgresql'])
def placement(request):
    db = conftest.get_database(request.param)
    db.clean()
    return apps.placement()


def call(app, path, method='GET', body=None):
    return client.placement_request(app, method, path, body=body)


def race(*requests):
    """Run each (app, path, method, body) in its own thread, together."""
    barrier = threading.Barrier(len(requests))
    results = [None] * len(requests)

    def run(index, args):
        barrier.wait()
        results[index] = call(*args)

    threads = [threading.Thread(target=run, args=(i, args))
               for i, args in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def _one_winner(results, code='placement.concurrent_update'):
    statuses = sorted(r.status_int for r in results)
    assert statuses[0] in (200, 201, 204), [r.body for r in results]
    assert statuses[1] == 409, [r.body for r in results]
    loser = [r for r in results if r.status_int == 409][0]
    assert loser.json['errors'][0]['code'] == code
    return [r for r in results if r.status_int != 409][0]


def test_inventory_writers_with_same_generation(placement):
    rp = call(placement, '/resource_providers', 'POST',
              {'name': 'contended'}).json['uuid']
    path = '/resource_providers/%s/inventories' % rp
    for round_ in range(ROUNDS):
        generation = call(placement, path).json[
            'resource_provider_generation']
        bodies = [{'resource_provider_generation': generation,
                   'inventories': {'VCPU': {'total': 10 + round_ * 2 + i}}}
                  for i in range(2)]
        winner = _one_winner(race(*[(placement, path, 'PUT', body)
                                    for body in bodies]))
        after = call(placement, path).json
        assert after['resource_provider_generation'] == generation + 1
        assert (after['inventories']['VCPU']['total'] ==
                winner.json['inventories']['VCPU']['total'])


def test_single_inventory_writers_with_same_generation(placement):
    rp = call(placement, '/resource_providers', 'POST',
              {'name': 'contended'}).json['uuid']
    call(placement, '/resource_providers/%s/inventories' % rp, 'PUT',
         {'resource_provider_generation': 0,
          'inventories': {'DISK_GB': {'total': 100}}})
    path = '/resource_providers/%s/inventories/DISK_GB' % rp
    for round_ in range(ROUNDS):
        generation = call(placement, path).json[
            'resource_provider_generation']
        results = race(*[(placement, path, 'PUT',
                          {'resource_provider_generation': generation,
                           'total': 200 + round_ * 2 + i})
                         for i in range(2)])
        winner = _one_winner(results)
        after = call(placement, path).json
        assert after['resource_provider_generation'] == generation + 1
        assert after['total'] == winner.json['total']


def test_provider_traits_writers_with_same_generation(placement):
    rp = call(placement, '/resource_providers', 'POST',
              {'name': 'contended'}).json['uuid']
    path = '/resource_providers/%s/traits' % rp
    for round_ in range(ROUNDS):
        generation = call(placement, path).json[
            'resource_provider_generation']
        wanted = [['HW_CPU_X86_AVX'], ['HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2']]
        results = race(*[(placement, path, 'PUT',
                          {'resource_provider_generation': generation,
                           'traits': traits}) for traits in wanted])
        winner = _one_winner(results)
        after = call(placement, path).json
        assert after['resource_provider_generation'] == generation + 1
        assert sorted(after['traits']) == sorted(winner.json['traits'])


def test_providers_created_with_the_same_name(placement):
    for round_ in range(ROUNDS):
        name = 'twin-%d' % round_
        results = race(*[(placement, '/resource_providers', 'POST',
                          {'name': name}) for _ in range(2)])
        _one_winner(results, code='placement.duplicate_name')
        listed = call(placement, '/resource_providers?name=%s' % name).json
        assert len(listed['resource_providers']) == 1


def test_custom_trait_created_twice_at_once(placement):
    for round_ in range(ROUNDS):
        path = '/traits/CUSTOM_RACE_%d' % round_
        results = race((placement, path, 'PUT', None),
                       (placement, path, 'PUT', None))
        assert sorted(r.status_int for r in results) == [201, 204]
        assert call(placement, path).status_int == 204
