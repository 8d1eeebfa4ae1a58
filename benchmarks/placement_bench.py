#!/usr/bin/env python3
"""A reproducible Placement workload, optionally compared with OpenStack
Placement in the same run.

  python benchmarks/placement_bench.py --start allocsvc --db postgresql \\
      --scale 0.1 --compare --json /tmp/bench.json
  python benchmarks/placement_bench.py --url http://127.0.0.1:8778

Scenarios (see benchmarks/README.rst): 1 flat providers + member_of/required
query, 2 trees of 7 + granular same_subtree query, 3 one wide tree with 8
isolated one-unit groups (with and without limit=10), 4 concurrent claims
until capacity runs out (once per client count), 5 a mixed fleet of flat,
nested and sharing-disk compute nodes and ten query shapes. Prints p50/p95
latency per query, setup time and claims per second as a table, and as
JSON with --json.
"""

import argparse
import contextlib
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
    p.add_argument('--sequential', action='store_true',
                   help='with --compare: run the whole workload on one '
                   'server, then on the other, instead of alternating '
                   'their timed queries')
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
                   'trees, 100 claim targets a client count, 1,000 compute '
                   'nodes of scenario 5); 0.1 for a quick run')
    p.add_argument('--reps', type=int, default=20,
                   help='timed repetitions of each query (after one warm-up)')
    p.add_argument('--wide-reps', type=int, default=3,
                   help='repetitions of the wide-tree query without limit')
    p.add_argument('--budget', type=float, default=60,
                   help='seconds after which a query stops repeating (it '
                   'is always sent at least once after the warm-up)')
    p.add_argument('--setup-threads', type=int, default=16,
                   help='client threads creating providers')
    p.add_argument('--clients', default='8,32',
                   help='concurrent claiming clients in scenario 4: one '
                   'run, on its own providers, per comma-separated count')
    p.add_argument('--scenarios', default='flat,trees,shapes,wide,writes',
                   help='comma-separated subset of '
                   'flat,trees,shapes,wide,writes')
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
    try:
        args.clients = [int(c) for c in args.clients.split(',') if c]
    except ValueError:
        p.error('--clients: comma-separated integers, e.g. 8,32')
    if not args.clients or min(args.clients) < 1:
        p.error('--clients: at least one count, each 1 or more')
    unknown = set(args.scenarios) - set(scenarios.SCENARIOS)
    if unknown:
        p.error('unknown scenarios: %s' % ', '.join(sorted(unknown)))
    return args


log = report.log


def _context(args):
    return scenarios.Context(args.scale, args.reps, args.wide_reps,
                             args.setup_threads, args.clients,
                             args.budget, args.wide_timeout)


def _scenario(name, scenario, client, ctx):
    """One scenario on one endpoint; a failure is recorded, not raised."""
    log('%s: scenario %s' % (name, scenario))
    try:
        return scenarios.SCENARIOS[scenario](client, ctx)
    except Exception as exc:
        traceback.print_exc()
        return {'error': '%s: %s' % (type(exc).__name__, exc)}


def _selected(args):
    return [s for s in scenarios.SCENARIOS if s in args.scenarios]


def run_workload(name, url, args):
    """All selected scenarios against one endpoint; a failing scenario is
    recorded and the others still run."""
    client = bench_client.Client(url, token=args.token, timeout=args.timeout)
    ctx = _context(args)
    return {scenario: _scenario(name, scenario, client, ctx)
            for scenario in _selected(args)}


def run_interleaved(urls, args):
    """The workload on every endpoint of ``urls`` {name: url}, scenario
    by scenario: each endpoint is set up in turn, then the timed queries
    alternate between the endpoints (``scenarios.interleave``), so that
    a busy moment of the machine weighs on all of them alike rather than
    on whichever ran then. The concurrent claims (writes) load the
    machine themselves: they run on one endpoint at a time."""
    clients = {name: bench_client.Client(url, token=args.token,
                                         timeout=args.timeout)
               for name, url in urls.items()}
    contexts = {name: _context(args) for name in urls}
    results = {name: {} for name in urls}
    for scenario in _selected(args):
        pending = {}
        for name in urls:
            ctx = contexts[name]
            ctx.later = [] if scenario != 'writes' else None
            results[name][scenario] = _scenario(name, scenario,
                                                clients[name], ctx)
            if ctx.later:
                pending[name] = ctx.later
        found = {name: [] for name in pending}
        for index in range(max(map(len, pending.values()), default=0)):
            group = [name for name in pending if index < len(pending[name])]
            log('%s: timing query %d, alternating %s'
                % (scenario, index + 1, ' and '.join(group)))
            for name, result in zip(group, scenarios.interleave(
                    [pending[name][index] for name in group])):
                found[name].append(result)
        for name, done in found.items():
            scenarios.fill_pending(results[name][scenario], done)
    return results


def start_server(name, args, workdir, make_server, stack):
    """Fresh database and server, both torn down when ``stack`` closes;
    returns the server's URL."""
    db = servers.Database(args.db, workdir, name)
    if not args.keep:
        stack.callback(db.drop)
    log('%s: database %s (%s), starting gunicorn %dx%d'
        % (name, db.name, args.db, args.workers, args.threads))
    server = make_server(db)
    stack.callback(server.stop)
    log('%s: serving at %s' % (name, server.url))
    return server.url


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
        with contextlib.ExitStack() as stack:
            urls = {}
            if args.url:
                meta['url'] = args.url
                urls['ours'] = args.url
            else:
                urls['allocsvc'] = start_server(
                    'allocsvc', args, workdir,
                    lambda db: servers.AllocsvcServer(
                        workdir, db, args.workers, args.threads), stack)
            if args.compare and args.placement_url:
                meta['placement_url'] = args.placement_url
                urls['placement'] = args.placement_url
            elif args.compare:
                python = servers.ensure_placement_venv(
                    args.placement_requirement, log)
                meta['placement_requirement'] = args.placement_requirement
                meta['placement_version'] = servers.placement_version(
                    python)
                urls['placement'] = start_server(
                    'placement', args, workdir,
                    lambda db: servers.PlacementServer(
                        workdir, db, args.workers, args.threads, python),
                    stack)
            meta['interleaved'] = len(urls) > 1 and not args.sequential
            if meta['interleaved']:
                targets = run_interleaved(urls, args)
            else:
                targets = {name: run_workload(name, url, args)
                           for name, url in urls.items()}
    finally:
        if args.keep:
            log('work directory (configs, gunicorn logs): %s' % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print('Placement workload: scale %s, database %s, gunicorn %d workers x '
          '%d threads, %d reps (%d without limit on the wide tree)%s%s'
          % (args.scale, args.db if not args.url else 'n/a (--url)',
             args.workers, args.threads, args.reps, args.wide_reps,
             ', placement %s' % meta['placement_version']
             if 'placement_version' in meta else '',
             ', queries alternating between servers'
             if meta['interleaved'] else ''))
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
