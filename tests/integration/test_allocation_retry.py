"""The server-side retry of an allocation write whose providers changed
between reading them and locking them: bounded by
[placement] allocation_conflict_retry_count, each attempt in a fresh
transaction, then a 409 that names the provider."""


import sqlalchemy as sa

from allocsvc.api import app as api_app
from allocsvc.db import models
from allocsvc.placement import allocations
from tests import client
from tests import conftest


def _call(app, method, path, body=None):
    return client.placement_request(app, method, path, '1.38', body)


def _setup(database, retries):
    conf = conftest.make_conf()
    conf.set_override('allocation_conflict_retry_count', retries,
                      group='placement')
    app = api_app.placement_app(conf)
    rp = _call(app, 'POST', '/resource_providers', {'name': 'cn'}).json
    assert _call(app, 'PUT', '/resource_providers/%s/inventories'
                 % rp['uuid'], {'resource_provider_generation': 0,
                                'inventories': {'VCPU': {'total': 4}}}
                 ).status_int == 200
    return app, rp['uuid']


def _interfere(monkeypatch, database, times):
    """After each of the first ``times`` plans is read, another writer
    bumps every provider generation (as a concurrent claim would)."""
    real_plan = allocations._plan
    calls = {'n': 0}

    def plan_then_interfere(*args, **kwargs):
        plan = real_plan(*args, **kwargs)
        calls['n'] += 1
        if calls['n'] <= times:
            with database.engine.begin() as conn:
                conn.execute(models.resource_providers.update().values(
                    generation=models.resource_providers.c.generation + 1))
        return plan

    monkeypatch.setattr(allocations, '_plan', plan_then_interfere)
    return calls


def _claim(app, rp, consumer='11111111-2222-3333-4444-555555555555'):
    return _call(app, 'PUT', '/allocations/%s' % consumer, {
        'allocations': {rp: {'resources': {'VCPU': 1}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'})


def test_changed_provider_is_retried_in_a_new_transaction(
        database, monkeypatch):
    app, rp = _setup(database, retries=3)
    calls = _interfere(monkeypatch, database, times=2)
    resp = _claim(app, rp)
    assert resp.status_int == 204, resp.body
    assert calls['n'] == 3
    usages = _call(app, 'GET', '/resource_providers/%s/usages' % rp).json
    assert usages['usages'] == {'VCPU': 1}


def test_retries_are_bounded_then_409_names_the_provider(
        database, monkeypatch):
    app, rp = _setup(database, retries=2)
    calls = _interfere(monkeypatch, database, times=100)
    resp = _claim(app, rp)
    assert resp.status_int == 409
    error = resp.json['errors'][0]
    assert error['code'] == 'placement.concurrent_update'
    assert 'resource provider %s' % rp in error['detail']
    assert calls['n'] == 2
    # Nothing was written.
    with database.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(
            models.allocations)).scalar() == 0
