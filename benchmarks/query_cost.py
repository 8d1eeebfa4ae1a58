#!/usr/bin/env python3
"""What long filter lists cost: GET /resource_providers and GET
/allocation_candidates with N ``member_of``, ``required`` or request
groups, inside one process.

A query string of a few kilobytes must cost work in proportion to its
length, not a database stalled for minutes (repeating ``member_of`` 300
times once took PostgreSQL more than 150 s, and SQLite refused it with
"Expression tree is too large"). This script builds a small fleet through
the in-process application into a database it creates, then times, for
each N of ``--sizes``, the queries below, each ``--reps`` times (median
printed, with the status and the number of providers or candidates
found):

* ``member_of``: ``member_of=<agg>`` repeated N times (AND).
* ``member_of in:``: one ``member_of=in:<N aggregates>`` (OR).
* ``required``: ``required=<trait>`` repeated N times (1.39: AND).
* ``required list``: one ``required=T1,T2,...`` of N traits.
* ``forbidden``: one ``required=!T1,!T2,...`` of N traits.
* ``candidates member_of``: /allocation_candidates, one group with
  ``resources`` and the N ``member_of`` and N ``required`` above.
* ``candidates groups``: N granular groups ``resourcesI=VCPU:1&
  requiredI=<trait>&member_ofI=<agg>``, ``group_policy=none&limit=5``.

The configured limits ([placement] max_member_of and the others) are
raised for the run so that sizes above them are measured too; the
database gives up a statement after ``--timeout`` seconds (reported as
such). Run from the repository root, in allocsvc's virtualenv::

    python benchmarks/query_cost.py --db postgresql
    python benchmarks/query_cost.py --db mysql --sizes 10,50,100,300

The database is dropped at the end unless ``--keep``.
"""

import argparse
import json
import logging
import pathlib
import random
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa
import webob

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from allocsvc.api import app as api_app  # noqa: E402
from allocsvc.common import config  # noqa: E402
from allocsvc.db import api as db_api  # noqa: E402
from allocsvc.db import migration  # noqa: E402
from bench import servers  # noqa: E402

LIMITS = ('max_member_of', 'max_required_traits', 'max_request_groups',
          'max_in_items')


class App:
    def __init__(self, app):
        self.app = app

    def call(self, method, path, body=None):
        req = webob.Request.blank(
            '/placement' + path, method=method,
            headers={'X-Auth-Token': 'admin', 'Accept': 'application/json',
                     'OpenStack-API-Version': 'placement 1.39'})
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        start = time.perf_counter()
        resp = req.get_response(self.app)
        elapsed = time.perf_counter() - start
        if method != 'GET' and resp.status_int >= 400:
            raise RuntimeError('%s %s: %s %s' % (method, path, resp.status,
                                                 resp.text[:300]))
        return resp, elapsed


def build(app, providers, aggregates, traits, shared):
    """``providers`` providers with 1024 VCPU each; ``shared`` of them are
    in every aggregate and have every trait, the others in 3 random
    aggregates with 3 random traits."""
    rand = random.Random(42)
    agg_uuids = [str(uuid.UUID(int=rand.getrandbits(128)))
                 for _ in range(aggregates)]
    trait_names = ['CUSTOM_QCOST_%d' % i for i in range(traits)]
    for name in trait_names:
        app.call('PUT', '/traits/%s' % name)
    for i in range(providers):
        resp, _ = app.call('POST', '/resource_providers',
                           {'name': 'qcost-%d' % i})
        rp = resp.json['uuid']
        app.call('PUT', '/resource_providers/%s/inventories' % rp, {
            'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': 1024}}})
        full = i < shared
        aggs = agg_uuids if full else rand.sample(agg_uuids, 3)
        names = trait_names if full else rand.sample(trait_names, 3)
        app.call('PUT', '/resource_providers/%s/aggregates' % rp, {
            'resource_provider_generation': 1, 'aggregates': aggs})
        app.call('PUT', '/resource_providers/%s/traits' % rp, {
            'resource_provider_generation': 2, 'traits': names})
    return agg_uuids, trait_names


def queries(n, aggs, traits):
    aggs, traits = aggs[:n], traits[:n]
    member_of = '&'.join('member_of=%s' % a for a in aggs)
    required = '&'.join('required=%s' % t for t in traits)
    groups = '&'.join(
        'resources%d=VCPU:1&required%d=%s&member_of%d=%s'
        % (i, i, traits[i], i, aggs[i]) for i in range(n))
    return {
        'member_of': '/resource_providers?' + member_of,
        'member_of in:': '/resource_providers?member_of=in:' + ','.join(aggs),
        'required': '/resource_providers?' + required,
        'required list': '/resource_providers?required=' + ','.join(traits),
        'forbidden': '/resource_providers?required=' + ','.join(
            '!' + t for t in traits),
        'candidates member_of': '/allocation_candidates?resources=VCPU:1&'
                                '%s&%s' % (member_of, required),
        'candidates groups': '/allocation_candidates?%s&group_policy=none'
                             '&limit=5' % groups,
    }


def found(resp):
    if resp.status_int != 200:
        body = resp.json if resp.content_type == 'application/json' else {}
        detail = (body.get('errors') or [{}])[0].get('detail', resp.text)
        return 'status %d: %s' % (resp.status_int, detail[:60])
    body = resp.json
    if 'resource_providers' in body:
        return '%d providers' % len(body['resource_providers'])
    return '%d candidates' % len(body['allocation_requests'])


def _with_timeout(kind, url, seconds):
    if kind == 'postgresql':
        return url + '?options=-c%%20statement_timeout%%3D%d' % (
            seconds * 1000)
    if kind == 'mysql':
        return url + '&init_command=SET%%20SESSION%%20max_statement_time' \
                     '%%3D%d' % seconds
    return url


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', choices=('sqlite', 'mysql', 'postgresql'),
                        default='postgresql')
    parser.add_argument('--sizes', default='10,50,100,300')
    parser.add_argument('--providers', type=int, default=300)
    parser.add_argument('--shared', type=int, default=10)
    parser.add_argument('--reps', type=int, default=3)
    parser.add_argument('--timeout', type=int, default=60)
    parser.add_argument('--only', help='comma-separated query names')
    parser.add_argument('--keep', action='store_true')
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(',')]
    db = servers.Database(args.db, tempfile.gettempdir(), 'qcost')
    try:
        conf = config.prepare([], default_config_files=[])
        conf.set_override('connection',
                          _with_timeout(args.db, db.url, args.timeout),
                          group='database')
        for name in LIMITS:
            if name in conf.placement:
                conf.set_override(name, 100000, group='placement')
        engine = sa.create_engine(db.url)
        migration.upgrade(engine=engine)
        engine.dispose()
        app = App(api_app.setup_app(conf))
        # One log line per request would drown the figures.
        logging.getLogger('allocsvc').setLevel(logging.WARNING)
        start = time.perf_counter()
        aggs, traits = build(app, args.providers, max(sizes), max(sizes),
                             args.shared)
        print('db=%s providers=%d (%d in every aggregate, with every trait; '
              'the others in 3 aggregates with 3 traits) aggregates=%d '
              'traits=%d, built in %.1f s; median of %d, statement timeout '
              '%d s' % (args.db, args.providers, args.shared, max(sizes),
                        max(sizes), time.perf_counter() - start, args.reps,
                        args.timeout))
        only = set(args.only.split(',')) if args.only else None
        for n in sizes:
            for name, path in queries(n, aggs, traits).items():
                if only and name not in only:
                    continue
                times = []
                for _ in range(args.reps):
                    resp, elapsed = app.call('GET', path)
                    times.append(elapsed)
                    if elapsed > args.timeout / 2:
                        break
                times.sort()
                print('N=%-4d %-22s %9.1f ms  %s  (query string %d bytes)'
                      % (n, name, times[len(times) // 2] * 1000,
                         found(resp), len(path.split('?', 1)[1])))
                sys.stdout.flush()
    finally:
        db_api.context_manager.dispose_pool()
        if args.keep:
            print('kept database %s' % db.name)
        else:
            db.drop()


if __name__ == '__main__':
    main()
