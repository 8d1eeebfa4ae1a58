"""Races on traits and resource classes, through the whole WSGI stack,
on every backend: simultaneous creations of one name never fail with a
500, and simultaneous provider-trait writes with one generation leave
exactly one winner. Also the in-use check of DELETE /resource_classes,
with inventory written straight to the database (no HTTP dependency).
"""

import json
import threading

from oslo_utils import timeutils
from oslo_utils import uuidutils
import webob

from allocsvc.db import models

THREADS = 8


def _request(app, method, path, body=None, version='latest'):
    req = webob.Request.blank(path, method=method)
    req.headers['x-auth-token'] = 'admin'
    req.headers['accept'] = 'application/json'
    req.headers['openstack-api-version'] = 'placement %s' % version
    if body is not None:
        req.content_type = 'application/json'
        req.body = json.dumps(body).encode('utf-8')
    return req.get_response(app)


def _race(app, method, path, body=None, version='latest'):
    """Send the same request from THREADS threads at once; the statuses."""
    barrier = threading.Barrier(THREADS)
    results = []

    def worker():
        barrier.wait()
        resp = _request(app, method, path, body, version)
        results.append((resp.status_int, resp.json_body
                        if resp.content_type == 'application/json'
                        else None))

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _statuses(results):
    return sorted(status for status, _body in results)


def test_put_trait_race(app, database):
    results = _race(app, 'PUT', '/traits/CUSTOM_RACE')
    assert _statuses(results) == [201] + [204] * (THREADS - 1)


def test_put_resource_class_race(app, database):
    results = _race(app, 'PUT', '/resource_classes/CUSTOM_RACE')
    assert _statuses(results) == [201] + [204] * (THREADS - 1)


def test_post_resource_class_race(app, database):
    results = _race(app, 'POST', '/resource_classes',
                    {'name': 'CUSTOM_RACE'})
    assert _statuses(results) == [201] + [409] * (THREADS - 1)
    for status, body in results:
        if status == 409:
            assert body['errors'][0]['code'] == 'placement.undefined_code'


def test_provider_traits_generation_race(app, database):
    uuid = uuidutils.generate_uuid()
    assert _request(app, 'POST', '/resource_providers',
                    {'name': 'racer', 'uuid': uuid}).status_int == 200
    results = _race(app, 'PUT', '/resource_providers/%s/traits' % uuid,
                    {'traits': ['HW_CPU_X86_SSE'],
                     'resource_provider_generation': 0})
    assert _statuses(results) == [200] + [409] * (THREADS - 1)
    for status, body in results:
        if status == 409:
            assert (body['errors'][0]['code'] ==
                    'placement.concurrent_update')
    resp = _request(app, 'GET', '/resource_providers/%s/traits' % uuid)
    assert resp.json_body == {'traits': ['HW_CPU_X86_SSE'],
                              'resource_provider_generation': 1}


def test_delete_resource_class_in_use(app, database):
    assert _request(app, 'PUT', '/resource_classes/CUSTOM_USED').status_int \
        == 201
    uuid = uuidutils.generate_uuid()
    assert _request(app, 'POST', '/resource_providers',
                    {'name': 'user', 'uuid': uuid}).status_int == 200
    rp_t, rc_t, inv_t = (models.resource_providers, models.resource_classes,
                         models.inventories)
    with database.engine.begin() as conn:
        rp_id = conn.execute(rp_t.select().where(rp_t.c.uuid == uuid)).one().id
        rc_id = conn.execute(rc_t.select().where(
            rc_t.c.name == 'CUSTOM_USED')).one().id
        conn.execute(inv_t.insert().values(
            resource_provider_id=rp_id, resource_class_id=rc_id, total=1,
            reserved=0, min_unit=1, max_unit=1, step_size=1,
            allocation_ratio=1.0, created_at=timeutils.utcnow()))
    resp = _request(app, 'DELETE', '/resource_classes/CUSTOM_USED')
    assert resp.status_int == 409
    assert 'in use in inventory' in resp.json_body['errors'][0]['detail']
    with database.engine.begin() as conn:
        conn.execute(inv_t.delete())
    resp = _request(app, 'DELETE', '/resource_classes/CUSTOM_USED')
    assert resp.status_int == 204


def test_delete_trait_race(app, database):
    assert _request(app, 'PUT', '/traits/CUSTOM_GONE').status_int == 201
    results = _race(app, 'DELETE', '/traits/CUSTOM_GONE')
    assert _statuses(results) == [204] + [404] * (THREADS - 1)


def test_delete_resource_class_race(app, database):
    assert _request(app, 'PUT', '/resource_classes/CUSTOM_GONE').status_int \
        == 201
    results = _race(app, 'DELETE', '/resource_classes/CUSTOM_GONE')
    assert _statuses(results) == [204] + [404] * (THREADS - 1)


def test_clear_provider_traits_race(app, database):
    """Each DELETE reads the generation then swaps it: some may lose the
    swap (409), none may fail otherwise, and each win counts once."""
    uuid = uuidutils.generate_uuid()
    assert _request(app, 'POST', '/resource_providers',
                    {'name': 'clearer', 'uuid': uuid}).status_int == 200
    results = _race(app, 'DELETE', '/resource_providers/%s/traits' % uuid)
    statuses = _statuses(results)
    assert set(statuses) <= {204, 409} and 204 in statuses
    resp = _request(app, 'GET', '/resource_providers/%s/traits' % uuid)
    assert resp.json_body['resource_provider_generation'] == \
        statuses.count(204)
