#!/usr/bin/env python3
"""Time GET /allocation_candidates inside one process, stage by stage.

The HTTP benchmark (``placement_bench.py``) answers "how fast, compared
with Placement"; this one answers "where does the time of one request
go", without a WSGI server, so that a change to the engine can be judged
on its own. It builds the workloads of ``placement_bench`` named by
``--scenarios`` (flat and trees by default; shapes is issue 19's fleet)
through the in-process application into a database it creates, then
sends each query ``--reps`` times and prints, per query, the median and
the minimum of: the whole request, the CPU time of this process during
it, the engine (``find``), its stages (loading the names and
inventories, loading the trees, or, for a request the first few trees
answer, loading those (``part``); search, summaries) and the time spent
in the database driver.

Run from the repository root, in allocsvc's virtualenv::

    python benchmarks/candidates_inprocess.py --db postgresql --scale 0.1

With ``--explain`` it times GET /allocation_candidates/explanation
against each query instead, the two alternating request by request (on
the shapes fleet, also two queries nothing fits)::

    python benchmarks/candidates_inprocess.py --db sqlite --scale 5 \
        --scenarios shapes --explain

The database is dropped at the end unless ``--keep``.
"""

import argparse
import collections
import functools
import json
import pathlib
import sys
import tempfile
import time

import sqlalchemy as sa
import webob

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from allocsvc.api import app as api_app  # noqa: E402
from allocsvc.common import config  # noqa: E402
from allocsvc.db import api as db_api  # noqa: E402
from allocsvc.db import migration  # noqa: E402
from allocsvc.placement import candidates  # noqa: E402
from allocsvc.placement.candidates import loader  # noqa: E402
from allocsvc.placement.candidates import summaries  # noqa: E402
from bench import client as bench_client  # noqa: E402
from bench import scenarios  # noqa: E402
from bench import servers  # noqa: E402

STAGES = {'find': (candidates, 'find'), 'load': (loader, 'load'),
          'trees': (loader, 'load_trees'), 'part': (loader, 'load_part'),
          'search': (candidates, '_collect'),
          'summaries': (summaries, 'summarize')}


class InProcessClient:
    """``bench.client.Client``'s interface over the WSGI app itself."""

    def __init__(self, app):
        self.app = app

    def request(self, method, path, body=None, version=None, timeout=None):
        req = webob.Request.blank(
            '/placement' + path, method=method,
            headers={'X-Auth-Token': 'admin', 'Accept': 'application/json',
                     'OpenStack-API-Version': 'placement %s' % (
                         version or bench_client.MICROVERSION)})
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        start = time.perf_counter()
        resp = req.get_response(self.app)
        elapsed = time.perf_counter() - start
        return bench_client.Response(
            resp.status_int, json.loads(resp.body) if resp.body else None,
            elapsed)

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def put(self, path, body, **kw):
        return self.request('PUT', path, body, **kw)

    def check(self, method, path, body=None, expect=(200, 201, 204)):
        resp = self.request(method, path, body)
        if resp.status not in expect:
            raise bench_client.SetupError('%s %s -> %s %s' % (
                method, path, resp.status, resp.body))
        return resp


def _timed(acc, label, func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            acc[label] += time.perf_counter() - start
    return wrapper


def _instrument(acc):
    """Add each stage's and the driver's time to ``acc`` (per request)."""
    for label, (module, name) in STAGES.items():
        setattr(module, name, _timed(acc, label, getattr(module, name)))
    engine = db_api.get_engine()

    @sa.event.listens_for(engine, 'before_cursor_execute')
    def before(conn, cursor, statement, params, context, many):
        conn.info['bench_t0'] = time.perf_counter()

    @sa.event.listens_for(engine, 'after_cursor_execute')
    def after(conn, cursor, statement, params, context, many):
        acc['sql'] += time.perf_counter() - conn.info['bench_t0']
        acc['statements'] += 1


def _measure(client, acc, path, reps):
    for _ in range(3):
        client.get(path)
    samples = collections.defaultdict(list)
    for _ in range(reps):
        acc.clear()
        cpu = time.process_time()
        resp = client.get(path)
        samples['cpu'].append(time.process_time() - cpu)
        samples['request'].append(resp.elapsed)
        for key, value in acc.items():
            samples[key].append(value)
    return resp, samples


def _report(name, resp, samples):
    print('%s: %d candidates' % (
        name, len(resp.body['allocation_requests'])))
    for key in ('request', 'cpu', 'find', 'load', 'part', 'trees', 'search',
                'summaries', 'sql'):
        values = sorted(samples[key])
        if not values:
            # A stage this request's path does not go through.
            continue
        print('  %-10s median %8.2f ms   min %8.2f ms' % (
            key, values[len(values) // 2] * 1000, values[0] * 1000))
    counts = sorted(samples['statements'])
    print('  statements %d' % counts[len(counts) // 2])


_EMPTY_SHAPES = {
    'empty_trait': '/allocation_candidates?resources=VCPU:1,MEMORY_MB:512,'
                   'DISK_GB:10&required=HW_CPU_X86_AVX512F',
    'empty_isolate3': '/allocation_candidates?'
                      + '&'.join('resources%d=VCPU:1,MEMORY_MB:512' % n
                                 for n in (1, 2, 3))
                      + '&group_policy=isolate',
}


def _compare_explanation(client, name, path, reps):
    """Time GET /allocation_candidates/explanation against the query it
    explains, alternating the two request by request (after 3 untimed
    each), and print the medians, minimums and the ratio."""
    explained = path.replace('/allocation_candidates?',
                             '/allocation_candidates/explanation?', 1)
    for _ in range(3):
        client.get(path)
        client.get(explained)
    real, expl = [], []
    for _ in range(reps):
        real.append(client.get(path).elapsed)
        resp = client.get(explained)
        if resp.status != 200:
            raise bench_client.SetupError('%s -> %s %s' % (
                explained, resp.status, resp.body))
        expl.append(resp.elapsed)
    real.sort()
    expl.sort()
    median = len(real) // 2
    print('%-28s query %7.2f ms (min %7.2f)   explanation %7.2f ms '
          '(min %7.2f)   x%.2f   %d candidates' % (
              name, real[median] * 1000, real[0] * 1000,
              expl[median] * 1000, expl[0] * 1000,
              expl[median] / real[median],
              resp.body['allocation_candidates']))


def client_on(db):
    """An InProcessClient of the whole application on the benchmark
    database ``db`` (``bench.servers.Database``), its schema made."""
    conf = config.prepare([], default_config_files=[])
    conf.set_override('connection', db.url, group='database')
    engine = sa.create_engine(db.url)
    migration.upgrade(engine=engine)
    engine.dispose()
    return InProcessClient(api_app.setup_app(conf))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', choices=('sqlite', 'mysql', 'postgresql'),
                        default='postgresql')
    parser.add_argument('--scale', type=float, default=0.1)
    parser.add_argument('--reps', type=int, default=40)
    parser.add_argument('--scenarios', default='flat,trees',
                        help='comma-separated scenarios of placement_bench '
                        'whose queries to time (flat, trees, shapes)')
    parser.add_argument('--keep', action='store_true')
    parser.add_argument('--explain', action='store_true',
                        help='time GET /allocation_candidates/explanation '
                        'against each query instead of the stages')
    args = parser.parse_args(argv)
    db = servers.Database(args.db, tempfile.gettempdir(), 'inproc')
    try:
        client = client_on(db)
        ctx = scenarios.Context(args.scale, 1, 1, 1, [1], 1, 1)
        paths = {}
        for name in args.scenarios.split(','):
            built = scenarios.SCENARIOS[name](client, ctx)
            paths.update((q, m['path']) for q, m in built['queries'].items())
        if args.explain:
            if 'shapes' in args.scenarios.split(','):
                # Two queries the fleet cannot serve: one a group's
                # filter empties, one only the combination of groups
                # does (no tree has three NUMA nodes).
                paths.update(_EMPTY_SHAPES)
            print('Explanation against the query, in-process, %s, scale '
                  '%s, %d requests each:' % (args.db, args.scale, args.reps))
            for name, path in paths.items():
                _compare_explanation(client, name, path, args.reps)
            return
        acc = collections.Counter()
        _instrument(acc)
        for name, path in paths.items():
            _report(name, *_measure(client, acc, path, args.reps))
    finally:
        db_api.context_manager.dispose_pool()
        if args.keep:
            print('kept database %s' % db.name)
        else:
            db.drop()


if __name__ == '__main__':
    main()
