"""What an allocation write does when its providers change between
reading them (stage 1) and locking them (stage 3):

- another writer committed meanwhile (the generation moved): the write
  queues behind it and goes on in the same attempt, checking capacity
  against what that writer allocated (so it is refused when no room is
  left);
- the provider was deleted meanwhile: the write starts again in a fresh
  transaction, where the provider is then unknown (400);
- attempts are bounded by [placement] allocation_conflict_retry_count,
  then a 409 names the provider.
"""


import sqlalchemy as sa

from allocsvc.db import models
from allocsvc.placement import allocations
from tests import client
from tests import conftest
from tests.helpers import apps

CONSUMER = '11111111-2222-3333-4444-555555555555'


def _call(app, method, path, body=None):
    return client.placement_request(app, method, path, '1.38', body)


def _setup(database, retries):
    conf = conftest.make_conf()
    conf.set_override('allocation_conflict_retry_count', retries,
                      group='placement')
    app = apps.placement(conf)
    rp = _call(app, 'POST', '/resource_providers', {'name': 'cn'}).json
    assert _call(app, 'PUT', '/resource_providers/%s/inventories'
                 % rp['uuid'], {'resource_provider_generation': 0,
                                'inventories': {'VCPU': {'total': 4}}}
                 ).status_int == 200
    return app, rp['uuid']


def _interfere(monkeypatch, database, times, change):
    """After each of the first ``times`` plans is read, ``change(conn)``
    runs and commits in another transaction (as a concurrent request
    would)."""
    real_plan = allocations._plan
    calls = {'n': 0}

    def plan_then_interfere(*args, **kwargs):
        calls['n'] += 1
        plan = real_plan(*args, **kwargs)
        if calls['n'] <= times:
            with database.engine.begin() as conn:
                change(conn)
        return plan

    monkeypatch.setattr(allocations, '_plan', plan_then_interfere)
    return calls


def _claim(app, rp, vcpu=1, consumer=CONSUMER):
    return _call(app, 'PUT', '/allocations/%s' % consumer, {
        'allocations': {rp: {'resources': {'VCPU': vcpu}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'})


def _generation(app, rp):
    return _call(app, 'GET', '/resource_providers/%s' % rp).json[
        'generation']


def _allocation_count(database):
    with database.engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(
            models.allocations)).scalar()


def _bump(conn):
    conn.execute(models.resource_providers.update().values(
        generation=models.resource_providers.c.generation + 1))


def test_changed_provider_queues_in_the_same_attempt(database, monkeypatch):
    app, rp = _setup(database, retries=3)
    before = _generation(app, rp)
    calls = _interfere(monkeypatch, database, times=2, change=_bump)
    resp = _claim(app, rp)
    assert resp.status_int == 204, resp.body
    assert calls['n'] == 1
    # The other writer's bump and ours.
    assert _generation(app, rp) == before + 2
    usages = _call(app, 'GET', '/resource_providers/%s/usages' % rp).json
    assert usages['usages'] == {'VCPU': 1}


def test_capacity_is_read_after_the_lock(database, monkeypatch):
    app, rp = _setup(database, retries=3)

    def claim_three(conn):
        # Another consumer's claim, committed between our plan and our
        # lock: only one VCPU is left after it.
        rp_id, rc_id = conn.execute(
            sa.select(models.inventories.c.resource_provider_id,
                      models.inventories.c.resource_class_id)).one()
        conn.execute(models.allocations.insert().values(
            resource_provider_id=rp_id, resource_class_id=rc_id, used=3,
            consumer_id='99999999-2222-3333-4444-555555555555'))
        _bump(conn)

    _interfere(monkeypatch, database, times=1, change=claim_three)
    resp = _claim(app, rp, vcpu=2)
    assert resp.status_int == 409, resp.body
    assert 'capacity' in resp.json['errors'][0]['detail']
    assert _allocation_count(database) == 1


def test_deleted_provider_is_retried_then_unknown(database, monkeypatch):
    app, rp = _setup(database, retries=3)

    def delete_provider(conn):
        conn.execute(models.inventories.delete())
        # The root refers to itself.
        conn.execute(models.resource_providers.update().values(
            root_provider_id=None))
        conn.execute(models.resource_providers.delete())

    calls = _interfere(monkeypatch, database, times=1,
                       change=delete_provider)
    resp = _claim(app, rp)
    assert resp.status_int == 400, resp.body
    assert 'does not exist' in resp.json['errors'][0]['detail']
    assert calls['n'] == 2
    assert _allocation_count(database) == 0


def test_retries_are_bounded_then_409_names_the_provider(
        database, monkeypatch):
    app, rp = _setup(database, retries=2)
    calls = _interfere(monkeypatch, database, times=0, change=None)

    def always_changed(context, providers):
        raise allocations.ProviderChanged(sorted(providers.values())[0])

    monkeypatch.setattr(allocations, 'bump_providers', always_changed)
    resp = _claim(app, rp)
    assert resp.status_int == 409
    error = resp.json['errors'][0]
    assert error['code'] == 'placement.concurrent_update'
    assert 'resource provider %s' % rp in error['detail']
    assert calls['n'] == 2
    assert _allocation_count(database) == 0
