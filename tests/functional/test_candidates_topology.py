"""The process' copy of the provider trees (allocsvc.placement.topology)
against the database: every change to the shape of a tree, made through
the API, is seen by the next allocation candidates request; a copy older
than the pruned history is read again whole; racing writers lose no
change; an unchanged database is not read again.
"""

import threading
import uuid

import sqlalchemy as sa

from allocsvc.db import api as db_api
from allocsvc.db import models
from allocsvc.placement import topology
from tests.client import ok as _ok
from tests.client import placement_request as _call

AGG = 'a1f0c6de-7b2c-4e55-9a0f-3d2b1c0e9f11'
CANDIDATES = '/allocation_candidates?'


def _provider(app, name, parent=None, vcpus=None):
    body = {'name': name}
    if parent:
        body['parent_provider_uuid'] = parent
    rp = _ok(_call(app, 'POST', '/resource_providers', '1.39', body))
    if vcpus:
        _ok(_call(app, 'PUT', '/resource_providers/%s/inventories'
                  % rp['uuid'], '1.39',
                  {'resource_provider_generation': rp['generation'],
                   'inventories': {'VCPU': {'total': vcpus}}}))
    return rp['uuid']


def _generation(app, rp):
    return _ok(_call(app, 'GET', '/resource_providers/%s' % rp,
                     '1.39'))['generation']


def _set(app, rp, what, values):
    key = 'traits' if what == 'traits' else 'aggregates'
    _ok(_call(app, 'PUT', '/resource_providers/%s/%s' % (rp, what), '1.39',
              {'resource_provider_generation': _generation(app, rp),
               key: values}))


def _candidates(app, query=''):
    if 'resources=' not in query:
        query = '&resources=VCPU:1' + query
    return _ok(_call(app, 'GET', CANDIDATES + query[1:], '1.39'))


def _used(found):
    return {rp for request in found['allocation_requests']
            for rp in request['allocations']}


def test_each_change_of_shape_is_seen(app):
    root = _provider(app, 'root', vcpus=4)
    other = _provider(app, 'other', vcpus=4)
    _ok(_call(app, 'PUT', '/traits/CUSTOM_FAST', '1.39'), 201)
    assert _used(_candidates(app, '&required=CUSTOM_FAST')) == set()

    _set(app, root, 'traits', ['CUSTOM_FAST'])
    assert _used(_candidates(app, '&required=CUSTOM_FAST')) == {root}
    _set(app, root, 'traits', [])
    assert _used(_candidates(app, '&required=CUSTOM_FAST')) == set()

    _set(app, other, 'aggregates', [AGG])
    assert _used(_candidates(app, '&member_of=' + AGG)) == {other}
    _set(app, other, 'aggregates', [])
    assert _used(_candidates(app, '&member_of=' + AGG)) == set()

    # A child without inventory shows in its tree's summaries (1.29).
    child = _provider(app, 'child', parent=root)
    summaries = _candidates(app)['provider_summaries']
    assert summaries[child]['root_provider_uuid'] == root

    # Moved to the other tree (1.37), then a root of its own.
    _ok(_call(app, 'PUT', '/resource_providers/%s' % child, '1.39',
              {'name': 'child', 'parent_provider_uuid': other}))
    summaries = _candidates(app)['provider_summaries']
    assert summaries[child]['root_provider_uuid'] == other
    assert summaries[child]['parent_provider_uuid'] == other
    _ok(_call(app, 'PUT', '/resource_providers/%s' % child, '1.39',
              {'name': 'child', 'parent_provider_uuid': None}))
    assert child not in _candidates(app)['provider_summaries']

    # A class the request does not name shows in the summaries once the
    # provider has inventory of it, and no longer once it is removed.
    _ok(_call(app, 'PUT', '/resource_providers/%s/inventories' % root,
              '1.39', {'resource_provider_generation':
                       _generation(app, root),
                       'inventories': {'VCPU': {'total': 4},
                                       'DISK_GB': {'total': 10}}}))
    summaries = _candidates(app)['provider_summaries']
    assert set(summaries[root]['resources']) == {'VCPU', 'DISK_GB'}
    _ok(_call(app, 'DELETE', '/resource_providers/%s/inventories/DISK_GB'
              % root, '1.39'), 204)
    summaries = _candidates(app)['provider_summaries']
    assert set(summaries[root]['resources']) == {'VCPU'}

    # A new total, reserved amount or ratio is seen by the next request.
    assert root in _used(_candidates(app, '&resources=VCPU:3'))
    _ok(_call(app, 'PUT', '/resource_providers/%s/inventories/VCPU' % root,
              '1.39', {'resource_provider_generation':
                       _generation(app, root), 'total': 4, 'reserved': 2}))
    assert root not in _used(_candidates(app, '&resources=VCPU:3'))

    # A deleted provider leaves its tree.
    grandchild = _provider(app, 'grandchild', parent=other)
    assert grandchild in _candidates(app)['provider_summaries']
    _ok(_call(app, 'DELETE', '/resource_providers/%s' % grandchild,
              '1.39'), 204)
    assert grandchild not in _candidates(app)['provider_summaries']


def _statements(database):
    """A list that collects the statements the database is sent."""
    sent = []

    def record(conn, cursor, statement, *args):
        sent.append(statement)
    sa.event.listen(db_api.get_engine(), 'before_cursor_execute', record)
    return sent, lambda: sa.event.remove(db_api.get_engine(),
                                         'before_cursor_execute', record)


def test_unchanged_trees_are_not_read_again(app, database):
    root = _provider(app, 'root', vcpus=4)
    _candidates(app)
    sent, stop = _statements(database)
    try:
        _candidates(app)
        assert not any('placement_topology_changes' in s for s in sent)
        del sent[:]
        _set(app, root, 'aggregates', [AGG])
        del sent[:]
        assert _used(_candidates(app, '&member_of=' + AGG)) == {root}
        # Read again, from the changes only.
        assert any('placement_topology_changes' in s for s in sent)
    finally:
        stop()


def _stamp():
    with db_api.get_engine().connect() as conn:
        return conn.execute(topology.stamp_select()).one()


def test_a_copy_older_than_the_history_is_read_whole(app, monkeypatch):
    monkeypatch.setattr(topology, '_KEEP', 3)
    monkeypatch.setattr(topology, '_PRUNE_EVERY', 2)
    root = _provider(app, 'root', vcpus=4)
    _ok(_call(app, 'PUT', '/traits/CUSTOM_FAST', '1.39'), 201)
    assert _used(_candidates(app, '&required=CUSTOM_FAST')) == set()
    for i in range(8):
        _set(app, root, 'traits', ['CUSTOM_FAST'] if i % 2 else [])
    _set(app, root, 'aggregates', [AGG])
    epoch, version, floor = _stamp()
    assert floor >= version - 3
    with db_api.get_engine().connect() as conn:
        kept = conn.execute(sa.select(sa.func.min(
            models.placement_topology_changes.c.version))).scalar()
    assert kept > floor
    assert _used(_candidates(
        app, '&required=CUSTOM_FAST&member_of=' + AGG)) == {root}


def _full_read():
    with db_api.get_engine().connect() as conn:
        return topology._read(conn, None)


def _shape(topo):
    return ({root: [(p.id, p.uuid, p.parent_id, p.root_id)
                    for p in providers]
             for root, providers in topo.trees.items()},
            topo.traits, topo.aggregates, topo.classes)


def test_racing_writers_lose_no_change(app, database):
    """Writers change traits and aggregates of their own providers while
    readers ask for candidates: the copy the readers end with, brought
    up to date change by change, is what the database holds."""
    _ok(_call(app, 'PUT', '/traits/CUSTOM_FAST', '1.39'), 201)
    rps = [_provider(app, 'rp%d' % i, vcpus=4) for i in range(6)]
    _candidates(app)
    errors = []
    done = threading.Event()

    def write(rp, turns):
        try:
            for i in range(turns):
                _set(app, rp, 'traits', ['CUSTOM_FAST'] if i % 2 else [])
                _set(app, rp, 'aggregates',
                     [str(uuid.uuid4())] if i % 3 else [AGG])
        except Exception as exc:  # reported by the main thread
            errors.append(exc)

    def read():
        try:
            while not done.is_set():
                _candidates(app, '&required=CUSTOM_FAST')
        except Exception as exc:
            errors.append(exc)

    writers = [threading.Thread(target=write, args=(rp, 5)) for rp in rps]
    readers = [threading.Thread(target=read) for _ in range(2)]
    for thread in writers + readers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    for thread in readers:
        thread.join()
    assert not errors
    found = _candidates(app, '&required=CUSTOM_FAST')
    # Each writer's last turn (i = 4) removed the trait.
    assert _used(found) == set()
    epoch, version, _floor = _stamp()
    with db_api.get_engine().connect() as conn:
        changes = conn.execute(sa.select(sa.func.count(sa.distinct(
            models.placement_topology_changes.c.version)))).scalar()
    assert version >= changes
    copy = topology._copies[epoch]
    assert copy.version == version
    assert _shape(copy) == _shape(_full_read())
