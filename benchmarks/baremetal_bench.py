#!/usr/bin/env python3
"""The bare-metal allocation workload: N nodes, K concurrent clients
creating allocations until the nodes run out.

  # The embedded default: allocsvc-all, SQLite, in-process RPC.
  python benchmarks/baremetal_bench.py --start embedded
  # allocsvc-api (gunicorn) + 3 allocsvc-conductor over RabbitMQ, MariaDB.
  python benchmarks/baremetal_bench.py --start distributed --db mysql
  # The same with conductors allocating through Placement.
  python benchmarks/baremetal_bench.py --start distributed --db mysql \
      --backend placement
  # Any running Ironic-compatible endpoint (noauth).
  python benchmarks/baremetal_bench.py --url http://127.0.0.1:6385

For each node count it enrols the nodes through the API (fake-hardware,
three resource classes, one rack trait each), times single allocations on
the idle system, then for each client count frees every node and runs
the clients; it prints allocations per second, time from POST to active
(p50/p95), errors, whether any node ended in two allocations or any
allocation stayed ``allocating``, and how many nodes' resource providers
(Placement API under /placement) disagree with them.
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench import baremetal  # noqa: E402
from bench import report  # noqa: E402
from bench import servers  # noqa: E402

RABBIT = 'rabbit://guest:guest@127.0.0.1:5672/'


log = report.log


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument('--url', help='a running Ironic-compatible '
                        'endpoint (noauth), e.g. http://127.0.0.1:6385')
    target.add_argument('--start', choices=['embedded', 'distributed'],
                        help='embedded: allocsvc-all on SQLite with '
                        'in-process RPC; distributed: allocsvc-api '
                        '(gunicorn) and --conductors allocsvc-conductor '
                        'processes over RabbitMQ on --db')
    p.add_argument('--db', choices=['mysql', 'postgresql'], default='mysql',
                   help='database of --start distributed')
    p.add_argument('--conductors', type=int, default=3)
    p.add_argument('--backend', choices=baremetal.BACKENDS,
                   default='database',
                   help='[conductor] allocation_backend of every conductor '
                   '(with --url: the one the endpoint\'s conductors use, '
                   'for the check of the nodes\' resource providers)')
    # One worker process per CPU: the API shares the machine with the
    # conductors, the database and the broker, and on 2 CPUs four
    # workers gave about 20% fewer allocations per second than two.
    p.add_argument('--workers', type=int, default=os.cpu_count() or 2,
                   help='gunicorn workers of the distributed API, one per '
                   'CPU')
    # Two threads per worker: the API's requests hold the GIL for most
    # of their time, and with more threads each worker spends its CPU
    # handing the GIL back and forth. At K=50 on 2 CPUs, 2 threads gave
    # 104 to 139 allocations per second at 200 nodes where 8 gave 78 to
    # 108, with less CPU per allocation in every process.
    p.add_argument('--threads', type=int, default=2,
                   help='gunicorn threads per worker')
    p.add_argument('--nodes', default='200,1000',
                   help='comma-separated node counts')
    p.add_argument('--clients', default='1,10,50',
                   help='comma-separated client counts')
    p.add_argument('--groups', type=int, metavar='COUNT',
                   help='instead of the workload: time one allocation '
                   'group of COUNT nodes against COUNT single allocations '
                   '(10 repetitions each) on each node count, all nodes of '
                   'one resource class')
    p.add_argument('--json', metavar='FILE', help='also write JSON here')
    p.add_argument('--keep', action='store_true',
                   help='keep the work directory (configs and logs)')
    args = p.parse_args(argv)
    args.nodes = [int(n) for n in args.nodes.split(',') if n]
    args.clients = [int(k) for k in args.clients.split(',') if k]
    return args


class Process(servers.LoggedProcess):
    def __init__(self, name, cmd, workdir, env=None):
        self.name = name
        self.log = open(workdir / ('%s.log' % name), 'w+b')
        self.proc = subprocess.Popen(cmd, stdout=self.log,
                                     stderr=subprocess.STDOUT, cwd=workdir,
                                     env=dict(os.environ, **(env or {})))


def _bin(name):
    return str(pathlib.Path(sys.executable).parent / name)


def wait_ready(url, procs, conductors, timeout=120):
    """Until the API answers and ``conductors`` conductors are alive."""
    client = baremetal.Client(url, timeout=5)
    deadline = time.time() + timeout
    while time.time() < deadline:
        for proc in procs:
            if proc.proc.poll() is not None:
                raise RuntimeError('%s exited:\n%s' % (proc.name,
                                                       proc.output()))
        try:
            status, body = client.request('GET', '/v1/conductors')
        except OSError:
            status = None
        if status == 200 and sum(c.get('alive', False)
                                 for c in body['conductors']) >= conductors:
            return
        time.sleep(0.3)
    raise RuntimeError('not ready after %ss:\n%s' % (
        timeout, '\n'.join(p.output() for p in procs)))


def conductor_section(backend):
    """The [conductor] section of a conductor's configuration file."""
    return '[conductor]\nallocation_backend = %s\n' % backend


def _ready_or_stopped(url, procs, conductors, db):
    """``wait_ready``; if the service never gets there, its processes are
    stopped and its database dropped before the error goes on (left
    running, a run's conductors would consume the next run's messages)."""
    try:
        wait_ready(url, procs, conductors)
    except BaseException:
        for proc in procs:
            proc.stop()
        db.drop()
        raise


def start_embedded(workdir, args):
    db = servers.Database('sqlite', workdir, 'baremetal')
    port = servers.free_port()
    conf = workdir / 'allocsvc.conf'
    conf.write_text('[DEFAULT]\ndebug = False\n[database]\nconnection = %s\n'
                    '[api]\nport = %d\nplacement_port = 0\n%s'
                    % (db.url, port, conductor_section(args.backend)))
    proc = Process('allocsvc-all', [_bin('allocsvc-all'), '--config-file',
                                    str(conf)], workdir)
    url = 'http://127.0.0.1:%d' % port
    _ready_or_stopped(url, [proc], 1, db)
    return url, [proc], db


def start_distributed(workdir, args):
    db = servers.Database(args.db, workdir, 'baremetal')
    exchange = 'bench_%s' % uuid.uuid4().hex[:8]
    # The database pool keeps its default (20 connections): enough for
    # the API's threads and for a conductor's 16 workers.
    common = ('[DEFAULT]\ndebug = False\ntransport_url = %s\n'
              'control_exchange = %s\n[database]\nconnection = %s\n'
              % (RABBIT, exchange, db.url))
    api_conf = workdir / 'api.conf'
    api_conf.write_text(common + '[api]\nauth_strategy = noauth\n')
    subprocess.run([_bin('allocsvc-dbsync'), '--config-file', str(api_conf),
                    'upgrade'], check=True, stdout=subprocess.DEVNULL)
    procs = []
    for i in range(args.conductors):
        conf = workdir / ('conductor-%d.conf' % i)
        conf.write_text(common.replace(
            '[DEFAULT]\n', '[DEFAULT]\nhost = bench-conductor-%d-%s\n'
            % (i, exchange[len('bench_'):]))
            + conductor_section(args.backend))
        procs.append(Process('conductor-%d' % i, [
            _bin('allocsvc-conductor'), '--config-file', str(conf)],
            workdir))
    port = servers.free_port()
    procs.append(Process('api', [
        sys.executable, '-m', 'gunicorn', '--workers', str(args.workers),
        '--threads', str(args.threads), '--worker-class', 'gthread',
        '--bind', '127.0.0.1:%d' % port, '--graceful-timeout', '5',
        'allocsvc.api.wsgi:init_application()'], workdir,
        env={'ALLOCSVC_CONFIG_FILE': str(api_conf)}))
    url = 'http://127.0.0.1:%d' % port
    _ready_or_stopped(url, procs, args.conductors, db)
    return url, procs, db


def fmt(value):
    if value is None:
        return '-'
    if isinstance(value, float):
        return '%.1f' % value
    return str(value)


def table(results):
    header = ('nodes', 'K', 'allocs', 'allocs/s', 'active p50 ms',
              'active p95 ms', 'seen p95 ms', 'POST p50 ms',
              'bound p50 ms', 'GETs/POST', 'errors', 'exhausted', 'double',
              'stuck', 'rp mismatch', 'free left')
    lines = [header]
    for res in results:
        for run in res['runs']:
            check = run['check']
            lines.append((res['nodes'], run['clients'], run['allocations'],
                          run['allocations_per_s'], run['active_p50_ms'],
                          run['active_p95_ms'], run['seen_p95_ms'],
                          run['post_p50_ms'], check.get('bound_p50_ms'),
                          run['polls_per_post'], run['errors'],
                          run['exhausted'], check['double_allocated'],
                          check['stuck'], check.get('rp_mismatch'),
                          check['nodes'] - check['allocated_nodes']))
    cells = [[fmt(v) for v in line] for line in lines]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    out = ['  '.join(c.rjust(w) for c, w in zip(row, widths))
           for row in cells]
    out.insert(1, '  '.join('-' * w for w in widths))
    for res in results:
        single = res['single']
        out.append('single allocation, idle, %d nodes: active after p50 '
                   '%s ms, p95 %s ms, min %s ms (seen by the client: p50 '
                   '%s ms) in %d reps; enrolment %.1f s'
                   % (res['nodes'], fmt(single['p50_ms']),
                      fmt(single['p95_ms']), fmt(single['min_ms']),
                      fmt(single['seen_p50_ms']), single['reps'],
                      res['setup_s']))
    return '\n'.join(out)


def rp_backend(client, args):
    """The back end the check of the nodes' resource providers expects,
    or None to skip it: an endpoint of --url may have no Placement API
    under /placement (Ironic has none); allocsvc always has one."""
    if args.url and not baremetal.has_placement(client):
        log('no Placement API under /placement: resource providers '
            'not checked')
        return None
    return args.backend


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    workdir = pathlib.Path(tempfile.mkdtemp(prefix='baremetal-bench-'))
    meta = {'date': datetime.datetime.now().isoformat(timespec='seconds'),
            'python': platform.python_version(), 'cpus': os.cpu_count(),
            'target': args.url or args.start,
            'db': 'sqlite' if args.start == 'embedded' else args.db,
            'conductors': args.conductors if args.start == 'distributed'
            else 1, 'backend': args.backend, 'nodes': args.nodes,
            'clients': args.clients}
    results, failures = [], []
    for nodes in args.nodes:
        procs, db = [], None
        try:
            if args.url:
                url = args.url
            elif args.start == 'embedded':
                url, procs, db = start_embedded(workdir, args)
            else:
                url, procs, db = start_distributed(workdir, args)
            log('%s: %d nodes, clients %s, %s back end'
                % (url, nodes, args.clients, args.backend))
            client = baremetal.Client(url)
            if args.groups:
                classes = baremetal.resource_classes(1)
                log('enrolling %d nodes' % nodes)
                baremetal.enrol(client, nodes, classes)
                log('groups of %d against single allocations' % args.groups)
                res = dict(baremetal.groups(client, classes[0], args.groups),
                           nodes=nodes)
                results.append(res)
                continue
            res = baremetal.run(client, nodes, args.clients, log=log,
                                backend=rp_backend(client, args))
            results.append(res)
            for run in res['runs']:
                failures.extend(run['error_samples'])
                failures.extend(run['check']['problems'])
        finally:
            for proc in procs:
                proc.stop()
            if db is not None:
                db.drop()
    if args.groups:
        print('Allocation groups: %s, database %s, %s conductor(s), '
              'allocation back end %s, 10 repetitions, client-side times '
              'from the first POST to the last active seen' % (
                  meta['target'], meta['db'], meta['conductors'],
                  meta['backend']))
        for res in results:
            print('  %d nodes: one group of %d: p50 %.0f ms, p95 %.0f ms; '
                  '%d single allocations: p50 %.0f ms, p95 %.0f ms' % (
                      res['nodes'], res['count'], res['group_p50_ms'],
                      res['group_p95_ms'], res['count'],
                      res['singles_p50_ms'], res['singles_p95_ms']))
        return 0
    print('Bare-metal workload: %s, database %s, %s conductor(s), '
          'allocation back end %s, %d resource classes, half the clients '
          'asking for a trait' % (meta['target'], meta['db'],
                                  meta['conductors'], meta['backend'], 3))
    print(table(results))
    if failures:
        print('\nProblems:')
        for line in failures[:20]:
            print('  ' + line)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'meta': meta, 'results': results}, f, indent=2)
    if not args.keep:
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        log('work directory: %s' % workdir)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
