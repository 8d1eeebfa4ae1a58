#!/usr/bin/env python3
"""A reproducible Placement workload, optionally compared with OpenStack
Placement in the same run.

  python benchmarks/placement_bench.py --start allocsvc --db postgresql \\
      --scale 0.1 --compare --json /tmp/bench.json
  python benchmarks/placement_bench.py --url http://127.0.0.1:8778

Scenarios (see benchmarks/README.rst): 1 flat providers + member_of/required
query, 2 trees of 7 + granular same_subtree query, 3 one wide tree with 8
isolated one-unit groups (with and without limit=10), 4 concurrent claims
until capacity runs out. Prints p50/p95 latency per query, setup time and
claims per second as a table, and as JSON with --json.
"""

import argparse
import datetime
import os
import platform
import shutil
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench import client as bench_client  # noqa: E402
from bench import report  # noqa: E402
from bench import scenarios  # noqa: E402
from bench import servers  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument('--url', help='an already running Placement-'
                        'compatible endpoint, e.g. http://127.0.0.1:8778')
    target.add_argument('--start', choices=['allocsvc'],
                        help='start allocsvc (gunicorn) on a fresh database')
    p.add_argument('--token', default='admin',
                   help='X-Auth-Token sent to --url (noauth: "admin")')
    p.add_argument('--db', choices=['sqlite', 'mysql', 'postgresql'],
                   default='sqlite', help='database kind for started '
                   'servers (MariaDB at 127.0.0.1:3306 as root, PostgreSQL '
                   'at 127.0.0.1:5432 as postgres)')
    p.add_argument('--compare', action='store_true',
                   help='also run the workload against OpenStack Placement, '
                   'installed into its own virtualenv and started on a fresh '
                   'database of the same kind, and print ours/theirs')
    p.add_argument('--placement-url',
                   help='with --compare: use this running Placement instead '
                   'of installing and starting one')
    p.add_argument('--placement-requirement',
                   default=servers.PLACEMENT_REQUIREMENT,
                   help='pip requirement for the comparison virtualenv, '
                   'e.g. openstack-placement==16.0.0')
    p.add_argument('--workers', type=int, default=4,
                   help='gunicorn worker processes for started servers')
    p.add_argument('--threads', type=int, default=4,
                   help='gunicorn threads per worker for started servers')
    p.add_argument('--scale', type=float, default=1.0,
                   help='multiplies the provider counts (1,000 flat, 1,000 '
                   'trees, 100 claim targets); 0.1 for a quick run')
    p.add_argument('--reps', type=int, default=20,
                   help='timed repetitions of each query (after one warm-up)')
    p.add_argument('--wide-reps', type=int, default=3,
                   help='repetitions of the wide-tree query without limit')
    p.add_argument('--budget', type=float, default=60,
                   help='seconds after which a query stops repeating (it '
                   'is always sent at least once after the warm-up)')
    p.add_argument('--setup-threads', type=int, default=16,
                   help='client threads creating providers')
    p.add_argument('--clients', type=int, default=16,
                   help='concurrent claiming clients in scenario 4')
    p.add_argument('--scenarios', default='flat,trees,wide,writes',
                   help='comma-separated subset of flat,trees,wide,writes')
    p.add_argument('--timeout', type=float, default=1800,
                   help='seconds before one request counts as failed')
    p.add_argument('--wide-timeout', type=float, default=300,
                   help='seconds before one wide-tree request counts as '
                   'timed out (reported as ">" that many ms, not repeated)')
    p.add_argument('--json', metavar='FILE', help='also write JSON here')
    p.add_argument('--keep', action='store_true',
                   help='keep the databases and the work directory')
    args = p.parse_args(argv)
    args.scenarios = [s.strip() for s in args.scenarios.split(',') if s]
    unknown = set(args.scenarios) - set(scenarios.SCENARIOS)
    if unknown:
        p.error('unknown scenarios: %s' % ', '.join(sorted(unknown)))
    return args


def log(msg):
    print('[%s] %s' % (datetime.datetime.now().strftime('%H:%M:%S'), msg),
          file=sys.stderr, flush=True)


def run_workload(name, url, args):
    """All selected scenarios against one endpoint; a failing scenario is
    recorded and the others still run."""
    client = bench_client.Client(url, token=args.token, timeout=args.timeout)
    ctx = scenarios.Context(args.scale, args.reps, args.wide_reps,
                            args.setup_threads, args.clients,
                            args.budget, args.wide_timeout)
    results = {}
    for scenario in [s for s in scenarios.SCENARIOS if s in args.scenarios]:
        log('%s: scenario %s' % (name, scenario))
        try:
            results[scenario] = scenarios.SCENARIOS[scenario](client, ctx)
        except Exception as exc:
            traceback.print_exc()
            results[scenario] = {'error': '%s: %s' % (type(exc).__name__,
                                                      exc)}
    return results


def run_started(name, args, workdir, make_server):
    """Fresh database -> server -> workload -> stop -> drop."""
    db = servers.Database(args.db, workdir, name)
    server = None
    try:
        log('%s: database %s (%s), starting gunicorn %dx%d'
            % (name, db.name, args.db, args.workers, args.threads))
        server = make_server(db)
        log('%s: serving at %s' % (name, server.url))
        return run_workload(name, server.url, args)
    finally:
        if server is not None:
            server.stop()
        if not args.keep:
            db.drop()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    workdir = tempfile.mkdtemp(prefix='placement-bench-')
    targets = {}
    meta = {'date': datetime.datetime.now().isoformat(timespec='seconds'),
            'python': platform.python_version(), 'cpus': os.cpu_count(),
            'scale': args.scale, 'db': args.db, 'workers': args.workers,
            'threads': args.threads, 'reps': args.reps,
            'wide_reps': args.wide_reps, 'budget_s': args.budget,
            'wide_timeout_s': args.wide_timeout,
            'clients': args.clients,
            'scenarios': args.scenarios}
    try:
        if args.url:
            meta['url'] = args.url
            targets['ours'] = run_workload('ours', args.url, args)
        else:
            targets['allocsvc'] = run_started(
                'allocsvc', args, workdir, lambda db: servers.AllocsvcServer(
                    workdir, db, args.workers, args.threads))
        if args.compare and args.placement_url:
            meta['placement_url'] = args.placement_url
            targets['placement'] = run_workload('placement',
                                                args.placement_url, args)
        elif args.compare:
            python = servers.ensure_placement_venv(
                args.placement_requirement, log)
            meta['placement_requirement'] = args.placement_requirement
            meta['placement_version'] = servers.placement_version(python)
            targets['placement'] = run_started(
                'placement', args, workdir,
                lambda db: servers.PlacementServer(
                    workdir, db, args.workers, args.threads, python))
    finally:
        if args.keep:
            log('work directory (configs, gunicorn logs): %s' % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print('Placement workload: scale %s, database %s, gunicorn %d workers x '
          '%d threads, %d reps (%d without limit on the wide tree)%s'
          % (args.scale, args.db if not args.url else 'n/a (--url)',
             args.workers, args.threads, args.reps, args.wide_reps,
             ', placement %s' % meta['placement_version']
             if 'placement_version' in meta else ''))
    print(report.table(targets))
    issues = report.problems(targets)
    if issues:
        print('\nFailures:')
        for line in issues:
            print('  ' + line)
    if args.json:
        report.write_json(args.json, meta, targets)
        log('JSON written to %s' % args.json)
    return 1 if issues else 0


if __name__ == '__main__':
    sys.exit(main())
