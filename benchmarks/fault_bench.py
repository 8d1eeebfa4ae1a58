#!/usr/bin/env python3
"""What clients see of one fault while they allocate bare-metal nodes
(issue #33's probe).

  python benchmarks/fault_bench.py
  python benchmarks/fault_bench.py --json /tmp/faults.json \\
      --scenarios broker-cut-15,conductor-killed

For each scenario, on a fresh cluster: allocsvc-api under gunicorn
(--workers x --threads, gthread) and --conductors allocsvc-conductor
processes over RabbitMQ reached through a TCP proxy (which the broker
faults cut or partition), on a new MariaDB database; conductor heartbeat
every second, declared dead after 10 s; every ``[api]`` option (and
every other one) at its default. It enrols --nodes fake-hardware nodes,
runs --clients client threads for --duration seconds with the fault
--fault-at seconds in, each client giving up on a request after
--client-timeout seconds (a drop), then checks what the database holds
and whether every node can still be allocated.

The load and the checks are tests/integration/fault_load.py's, which
tests/integration/test_fault_injection.py also runs: one client in
eight lists allocations; the others each hold up to two allocations,
deleting the oldest before creating the next, polling each new one
until final. The scenarios:

  broker-cut-15          the broker's connections closed and new ones
                         refused for 15 s
  broker-cut-45          the same for 45 s (past the end of the load: the
                         clients finishing what they hold see it)
  broker-partition-15    the broker's connections kept open but passing
                         nothing for 15 s
  db-connections-killed  every database connection killed (MariaDB
                         KILL) five times, a second apart
  conductor-stopped-20   a conductor SIGSTOPped for 20 s, then SIGCONT
  conductor-killed       a conductor SIGKILLed

Columns: requests sent; allocations created (POST answered 201); 503
answers, and those without Retry-After or Ironic's error body; other 5xx;
drops (no answer within --client-timeout); conn errors (no answer for
another reason); the slowest POST, GET and DELETE at the client, drops
included; orphans (allocations in the database whose POST was answered
anything but 201, or not at all); stuck (still ``allocating`` 60 s after
the load); double-bound nodes; unallocatable nodes at the end (after
every allocation is deleted, as many new ones as nodes must all become
``active``).
"""

import argparse
import datetime
import json
import logging
import os
import pathlib
import platform
import shutil
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'benchmarks'))

from bench import report  # noqa: E402
from tests import backends  # noqa: E402
from tests.integration import baremetal_cluster  # noqa: E402
from tests.integration import fault_load  # noqa: E402
from tests.integration import tcp_proxy  # noqa: E402

RC = 'baremetal-bench'
DB_NAME = 'allocsvc_fault_bench'
SETTLE = 60


log = report.log


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument('--scenarios', default=','.join(fault_load.SCENARIOS),
                   help='comma-separated, of: %s'
                   % ', '.join(fault_load.SCENARIOS))
    p.add_argument('--clients', type=int, default=40)
    p.add_argument('--nodes', type=int, default=200)
    p.add_argument('--duration', type=float, default=60,
                   help='seconds of load')
    p.add_argument('--fault-at', type=float, default=20,
                   help='seconds into the load')
    p.add_argument('--client-timeout', type=float, default=30,
                   help='seconds a client waits for an answer')
    p.add_argument('--conductors', type=int, default=3)
    p.add_argument('--workers', type=int, default=2,
                   help='gunicorn workers')
    p.add_argument('--threads', type=int, default=2,
                   help='gunicorn threads per worker')
    p.add_argument('--json', metavar='FILE', help='also write JSON here')
    p.add_argument('--keep', action='store_true',
                   help='keep the work directory (configs and logs)')
    args = p.parse_args(argv)
    args.scenarios = [s for s in args.scenarios.split(',') if s]
    unknown = set(args.scenarios) - set(fault_load.SCENARIOS)
    if unknown:
        p.error('unknown scenario(s): %s' % ', '.join(sorted(unknown)))
    if args.conductors < 3 and 'conductor-killed' in args.scenarios:
        p.error('the conductor scenarios stop conductor-2: '
                '--conductors 3 at least')
    return args


def one(name, args, workdir):
    """Run scenario ``name`` on a cluster of its own; its outcome."""
    url = backends._create_database('mysql', DB_NAME)
    proxy = cluster = None
    try:
        # Once a cluster's RPC check set oslo.log up, alembic logs each
        # migration to stdout, where the table goes.
        logging.getLogger('alembic').setLevel(logging.WARNING)
        baremetal_cluster.migrate(url)
        proxy = tcp_proxy.TCPProxy(('127.0.0.1', 5672))
        scenario_dir = pathlib.Path(tempfile.mkdtemp(prefix=name + '-',
                                                     dir=workdir))
        log('%s: starting the cluster' % name)
        cluster = baremetal_cluster.Cluster(
            scenario_dir, url, conductors=args.conductors,
            workers=args.workers, threads=args.threads,
            transport_url='rabbit://guest:guest@127.0.0.1:%d/' % proxy.port)
        log('%s: enrolling %d nodes' % (name, args.nodes))
        baremetal_cluster.enrol(cluster.client, args.nodes, RC)
        fault = fault_load.faults(cluster, proxy, DB_NAME)[name]
        load = fault_load.Load(fault_load.client(cluster,
                                                 args.client_timeout),
                               args.clients, RC, settle=SETTLE)
        log('%s: %d clients for %g s, %s at %g s' % (
            name, args.clients, args.duration, fault.text, args.fault_at))
        start = time.monotonic()
        span = fault_load.run(load, args.duration, args.fault_at,
                              fault.fault, fault.repair, fault.hold)
        log('%s: load over after %.0f s; checking' % (
            name, time.monotonic() - start))
        outcome = fault_load.check(cluster.client, url, load, RC,
                                   settle=SETTLE)
        print(fault_load.summary(name, outcome, load, span),
              file=sys.stderr, flush=True)
        return outcome
    finally:
        if cluster is not None:
            cluster.stop()
        if proxy is not None:
            proxy.close()
        backends.drop_database('mysql', DB_NAME)


COLUMNS = (('scenario', None), ('requests', 'requests'),
           ('created', 'created'), ('503s', 'n503'),
           ('503 w/o Retry-After', 'n503_improper'),
           ('other 5xx', 'other_5xx'), ('drops', 'drops'),
           ('max POST s', 'max_post'), ('max GET s', 'max_get'),
           ('max DELETE s', 'max_delete'), ('orphans', 'orphans'),
           ('stuck', 'stuck'), ('double-bound', 'double'),
           ('conn errors', 'errors'), ('unallocatable', 'unallocatable'))


def table(results):
    """An RST simple table, one line per scenario."""
    rows = [[title for title, _key in COLUMNS]]
    for name, outcome in results:
        if outcome is None:
            rows.append([name] + ['FAILED'] + [''] * (len(COLUMNS) - 2))
            continue
        row = [name]
        for _title, key in COLUMNS[1:]:
            value = getattr(outcome, key)
            row.append('%.2f' % value if isinstance(value, float)
                       else str(value))
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    rule = '  '.join('=' * w for w in widths)
    lines = [rule]
    for i, row in enumerate(rows):
        lines.append('  '.join(
            cell.ljust(w) if j == 0 else cell.rjust(w)
            for j, (cell, w) in enumerate(zip(row, widths))).rstrip())
        if i == 0:
            lines.append(rule)
    lines.append(rule)
    return '\n'.join(lines)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    baremetal_cluster.require_services('rabbitmq', 'redis')
    workdir = pathlib.Path(tempfile.mkdtemp(prefix='fault-bench-'))
    meta = {'date': datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec='seconds'),
            'python': platform.python_version(), 'cpus': os.cpu_count(),
            'api': 'gunicorn %d workers x %d threads' % (args.workers,
                                                         args.threads),
            'conductors': args.conductors, 'database': 'mysql',
            'nodes': args.nodes, 'clients': args.clients,
            'duration_s': args.duration, 'fault_at_s': args.fault_at,
            'client_timeout_s': args.client_timeout,
            'heartbeat': '1 s, timeout 10 s'}
    results = []
    for name in args.scenarios:
        try:
            results.append((name, one(name, args, workdir)))
        except Exception as exc:
            log('%s: FAILED: %r' % (name, exc))
            results.append((name, None))
    print('Fault workload: %s, %d allocsvc-conductor over RabbitMQ through '
          'a TCP proxy, MariaDB; %d nodes, %d clients for %g s, the fault '
          'at %g s, client timeout %g s, conductor heartbeat %s; default '
          '[api] options; %d CPUs' % (
              meta['api'], args.conductors, args.nodes, args.clients,
              args.duration, args.fault_at, args.client_timeout,
              meta['heartbeat'], meta['cpus']))
    print(table(results))
    if args.json:
        doc = {'meta': meta, 'scenarios': []}
        for name, outcome in results:
            fields = {'scenario': name, 'failed': outcome is None}
            if outcome is not None:
                fields.update(outcome._asdict())
                fields['examples'] = [
                    [kind, fault_load._short(example)]
                    for kind, example in fields['examples']]
            doc['scenarios'].append(fields)
        with open(args.json, 'w') as f:
            json.dump(doc, f, indent=2)
    if args.keep:
        log('work directory: %s' % workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if any(outcome is None for _name, outcome in results) else 0


if __name__ == '__main__':
    sys.exit(main())
