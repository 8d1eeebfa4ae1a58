#!/usr/bin/env python3
"""Candidates and claims with and without 10,000 reservations (issue 34).

The target: "Candidates and claims with 10,000 reservations in the
database (N=1,000 fleet): at most 1.5x the latency and at least 0.7x the
claims/s of the same workload with none."

On one fleet of ``--providers`` flat providers (1,000; VCPU 32 at ratio
4.0, MEMORY_MB 131072, DISK_GB 1000 each), built through the in-process
application into a database it creates (as ``candidates_inprocess.py``
does), with a background load of 2 consumers a provider, it makes
``--reservations`` reservations (10,000) through ``POST /reservations``:
``--projects`` projects (1,000), each holding small amounts of VCPU and
MEMORY_MB (sometimes DISK_GB) on 1 to 3 providers, ``--active`` of them
(15%) active now, the others opening over the next ``--days`` days (30).
They are drawn so that at no instant of any window the reservations of a
pair hold more than half its capacity, and the engine checks each one
as it is made (a refusal stops the run). Then it alternates, ``--rounds``
times (ABBA order), two phases on the same fleet:

* **none**: the reservation rows taken out of the two tables;
* **held**: the same rows put back, ids and all (SQL, untimed: the
  engine made and checked them once; the fleet is then in the very state
  it checked them in).

In each phase it times ``--reps`` requests of ``GET /allocation_candidates
?resources=VCPU:2,MEMORY_MB:4096`` three ways: with ``limit=50`` (served
from the first anchors, ``prefix``), with ``limit=50`` from a second
application on the same database with ``randomize_allocation_candidates``
(the general search, shuffled: the sample, ``sampling``, serves only
requests without provider summaries, which HTTP requests never are),
and without limit (the general search); then
``--claims`` claims of that amount by ``--threads`` threads (``PUT
/allocations/{new consumer}``, half from projects holding an active
reservation on the provider they claim on, half from projects with
none, on random providers; the same list of claims in every phase),
which are deleted afterwards (untimed).

It prints the workload, per phase the medians over all samples, the
ratios held/none, and PASS/FAIL for the two targets (p50 latency ratio
<= 1.5 for the three candidates queries and for the claims; claims/s ratio,
median of the runs, >= 0.7). Run from the repository root, in allocsvc's
virtualenv::

    python benchmarks/reservation_bench.py --db sqlite --json /tmp/r.json
"""

import argparse
import datetime
import json
import logging
import os
import pathlib
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid

import sqlalchemy as sa

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from allocsvc.api import app as api_app  # noqa: E402
from allocsvc.common import config  # noqa: E402
from allocsvc.db import api as db_api  # noqa: E402
from allocsvc.db import models  # noqa: E402
from allocsvc.placement import reservations  # noqa: E402
from bench import client as bench_client  # noqa: E402
from bench import report  # noqa: E402
from bench import scenarios  # noqa: E402
from bench import servers  # noqa: E402
import candidates_inprocess  # noqa: E402

log = report.log
CLAIM = {'VCPU': 2, 'MEMORY_MB': 4096}
QUERY = '/allocation_candidates?resources=VCPU:2,MEMORY_MB:4096'
# name: (whether the application randomizes, path, label). With a limit,
# the default application serves the first anchors (``prefix``); one
# that randomizes searches the whole fleet and shuffles (the sample,
# ``sampling``, serves engine callers only: an HTTP answer has provider
# summaries); without a limit, the general search.
QUERIES = {
    'limit50': (False, QUERY + '&limit=50', 'limit=50 (prefix)'),
    'random50': (True, QUERY + '&limit=50', 'limit=50 randomized'),
    'nolimit': (False, QUERY, 'no limit (general)'),
}
CAPACITY = {'VCPU': 32 * 4, 'MEMORY_MB': 131072, 'DISK_GB': 1000}
# What the reservations of one pair may hold together at any instant.
HELD_SHARE = 0.5
BASE_PER_PROVIDER = 2
FREE_PROJECTS = 100


def _inv(total, ratio=1.0):
    return {'total': total, 'reserved': 0, 'min_unit': 1, 'max_unit': total,
            'step_size': 1, 'allocation_ratio': ratio}


def _iso(moment):
    return moment.isoformat() + 'Z'


def _alloc(project, rp, amounts=CLAIM):
    return {'allocations': {rp: {'resources': dict(amounts)}},
            'project_id': project, 'user_id': 'bench',
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}


def build_fleet(client, count):
    specs = [scenarios.Spec('resv-cn-%05d' % i, inventories={
        'VCPU': _inv(32, 4.0), 'MEMORY_MB': _inv(131072),
        'DISK_GB': _inv(1000)}) for i in range(count)]
    scenarios.Setup(client, 4).create(specs)
    return [spec.uuid for spec in specs]


def base_load(client, rng, providers, projects):
    """2 consumers a provider, of the reserving projects and others,
    there in both phases."""
    owners = projects + ['free-%03d' % i for i in range(FREE_PROJECTS)]
    for rp in providers:
        for _ in range(BASE_PER_PROVIDER):
            client.check('PUT', '/allocations/%s' % uuid.uuid4(),
                         _alloc(rng.choice(owners), rp))


def draw_reservations(rng, providers, projects, count, active, days, now):
    """[(project, start, end, {rp: {class: amount}})]: none makes the
    reservations of a pair hold more than HELD_SHARE of its capacity at
    any instant (``reservations.peak``), so the engine accepts them all
    on a fleet loaded well below the rest."""
    windows = {}
    made = []
    hour = datetime.timedelta(hours=1)
    while len(made) < count:
        if rng.random() < active:
            start = now - rng.uniform(1, 72) * hour
            end = now + rng.uniform(2, 168) * hour
        else:
            start = now + rng.uniform(2, days * 24) * hour
            end = start + rng.uniform(2, 120) * hour
        amounts = {}
        for rp in rng.sample(providers, rng.randint(1, 3)):
            res = {'VCPU': rng.choice((2, 4, 8)),
                   'MEMORY_MB': rng.choice((4096, 8192, 16384))}
            if rng.random() < 0.3:
                res['DISK_GB'] = rng.choice((20, 40, 80))
            amounts[rp] = res
        if all(reservations.peak(windows.get((rp, rc), []) +
                                 [(start, end, amount)], start, end)
               <= CAPACITY[rc] * HELD_SHARE
               for rp, res in amounts.items() for rc, amount in res.items()):
            for rp, res in amounts.items():
                for rc, amount in res.items():
                    windows.setdefault((rp, rc), []).append(
                        (start, end, amount))
            made.append((rng.choice(projects), start, end, amounts))
    return made


def make_reservations(client, drawn):
    for project, start, end, amounts in drawn:
        client.check('POST', '/reservations', {
            'project_id': project, 'start': _iso(start), 'end': _iso(end),
            'resources': {rp: {'resources': res}
                          for rp, res in amounts.items()}}, expect=(201,))


def _new_stamp(conn):
    """What every reservation write of the engine does in its
    transaction (``reservations._changed``): the processes' copies of
    the active holds are then out of date."""
    conn.execute(models.placement_reservation_stamp.update().values(
        stamp=str(uuid.uuid4())))


class Rows:
    """Takes the reservation rows out of their tables and puts them back
    unchanged (``none`` and ``held`` phases)."""

    def __init__(self, url):
        self.engine = sa.create_engine(url)
        with self.engine.connect() as conn:
            self.res = [dict(r._mapping) for r in conn.execute(
                sa.select(models.placement_reservations))]
            self.amt = [dict(r._mapping) for r in conn.execute(
                sa.select(models.placement_reservation_amounts))]

        self.held = True

    def take_out(self):
        if not self.held:
            return
        self.held = False
        with self.engine.begin() as conn:
            conn.execute(models.placement_reservation_amounts.delete())
            conn.execute(models.placement_reservations.delete())
            _new_stamp(conn)

    def put_back(self):
        if self.held:
            return
        self.held = True
        with self.engine.begin() as conn:
            conn.execute(models.placement_reservations.insert(), self.res)
            conn.execute(models.placement_reservation_amounts.insert(),
                         self.amt)
            _new_stamp(conn)


def claim_list(rng, drawn, providers, count, now):
    """[(project, provider)]: half on a provider where the project's
    active reservation holds VCPU and MEMORY_MB, half of a project
    without reservations on a random provider."""
    mine = [(project, rp) for project, start, end, amounts in drawn
            if start <= now < end for rp in amounts]
    return [rng.choice(mine) if i % 2 == 0 else
            ('free-%03d' % rng.randrange(FREE_PROJECTS),
             rng.choice(providers)) for i in range(count)]


def run_claims(client, claims, threads):
    """The claims, ``threads`` at a time; then their deletion."""
    lock = threading.Lock()
    todo = iter(claims)
    latencies, made = [], []
    counts = {'claims': 0, 'conflicts': 0, 'errors': 0}
    samples = []

    def worker(_):
        while True:
            with lock:
                item = next(todo, None)
            if item is None:
                return
            consumer = str(uuid.uuid4())
            resp = client.put('/allocations/%s' % consumer, _alloc(*item))
            with lock:
                if resp.status == 204:
                    counts['claims'] += 1
                    latencies.append(resp.elapsed)
                    made.append(consumer)
                else:
                    counts['conflicts' if resp.status == 409
                           else 'errors'] += 1
                    if len(samples) < 3:
                        samples.append('%s %s' % (resp.status,
                                                  str(resp.body)[:200]))

    start = time.perf_counter()
    bench_client.parallel(worker, range(threads), threads)
    elapsed = time.perf_counter() - start
    for consumer in made:
        client.check('DELETE', '/allocations/%s' % consumer)
    return dict(counts, elapsed_s=elapsed, samples=samples,
                claims_per_s=counts['claims'] / elapsed,
                latencies=latencies)


def randomizing_client(db):
    """A second application on the same database, with ``[placement]
    randomize_allocation_candidates``, as many nova deployments set it:
    its requests with a limit search the whole fleet."""
    conf = config.prepare([], default_config_files=[])
    conf.set_override('connection', db.url, group='database')
    conf.set_override('randomize_allocation_candidates', True,
                      group='placement')
    return candidates_inprocess.InProcessClient(
        api_app.setup_app(conf, prepare_db=False))


def time_queries(clients, reps):
    found = {}
    for name, (randomize, path, _label) in QUERIES.items():
        client = clients[randomize]
        for _ in range(3):
            client.get(path)
        times = []
        for _ in range(reps):
            resp = client.get(path)
            if resp.status != 200:
                raise bench_client.SetupError('%s -> %s %s' % (
                    path, resp.status, resp.body))
            times.append(resp.elapsed)
        found[name] = {'times': times, 'candidates': len(
            resp.body['allocation_requests'])}
    return found


def phase(clients, rows, name, claims, args):
    (rows.put_back if name == 'held' else rows.take_out)()
    log('phase %s: candidates' % name)
    result = time_queries(clients, args.reps)
    client = clients[False]
    log('phase %s: %d claims, %d threads'
        % (name, len(claims), args.threads))
    result['claims'] = run_claims(client, claims, args.threads)
    return result


def _ms(values, pct):
    return scenarios.percentile(values, pct) * 1000


def summarize(runs):
    """{phase: figures} over every round of each phase."""
    out = {}
    for name, results in runs.items():
        fig = {}
        for query in QUERIES:
            times = [t for r in results for t in r[query]['times']]
            fig[query] = {'p50_ms': _ms(times, 50), 'p95_ms': _ms(times, 95),
                          'requests': len(times),
                          'candidates': results[-1][query]['candidates']}
        lat = [t for r in results for t in r['claims']['latencies']]
        rates = [r['claims']['claims_per_s'] for r in results]
        fig['claims'] = {
            'claims_per_s': statistics.median(rates),
            'claims_per_s_runs': rates,
            'p50_ms': _ms(lat, 50), 'p95_ms': _ms(lat, 95),
            'claims': sum(r['claims']['claims'] for r in results),
            'conflicts': sum(r['claims']['conflicts'] for r in results),
            'errors': sum(r['claims']['errors'] for r in results),
            'samples': [s for r in results for s in r['claims']['samples']]}
        out[name] = fig
    return out


def verdicts(fig, max_latency, min_rate):
    none, held = fig['none'], fig['held']
    ratios = {}
    for key in list(QUERIES) + ['claims']:
        for pct in ('p50_ms', 'p95_ms'):
            ratios['%s %s' % (key, pct)] = held[key][pct] / none[key][pct]
    ratios['claims_per_s'] = (held['claims']['claims_per_s'] /
                              none['claims']['claims_per_s'])
    latency = max(ratios['%s p50_ms' % key]
                  for key in list(QUERIES) + ['claims'])
    return ratios, {
        'latency': {'worst_p50_ratio': latency, 'target': max_latency,
                    'pass': latency <= max_latency},
        'claims_per_s': {'ratio': ratios['claims_per_s'],
                         'target': min_rate,
                         'pass': ratios['claims_per_s'] >= min_rate}}


def print_table(fig, ratios, verdict):
    rows = []
    labels = [(key, 'GET ' + label) for key, (_r, _p, label)
              in QUERIES.items()] + [('claims', 'PUT /allocations')]
    for key, label in labels:
        for pct in ('p50_ms', 'p95_ms'):
            rows.append(('%s %s' % (label, pct.replace('_', ' ')),
                         fig['none'][key][pct], fig['held'][key][pct],
                         ratios['%s %s' % (key, pct)]))
    rows.append(('claims/s (median of runs)',
                 fig['none']['claims']['claims_per_s'],
                 fig['held']['claims']['claims_per_s'],
                 ratios['claims_per_s']))
    print('%-34s %10s %10s %10s' % ('figure', 'none', 'held', 'held/none'))
    for label, none, held, ratio in rows:
        print('%-34s %10.1f %10.1f %10.3f' % (label, none, held, ratio))
    for key in QUERIES:
        print('candidates returned, %s: none %d, held %d' % (
            key, fig['none'][key]['candidates'],
            fig['held'][key]['candidates']))
    for name in ('none', 'held'):
        c = fig[name]['claims']
        print('claims %s: %d made, %d conflicts (409), %d errors%s' % (
            name, c['claims'], c['conflicts'], c['errors'],
            ', e.g. %s' % c['samples'][0] if c['samples'] else ''))
    lat, rate = verdict['latency'], verdict['claims_per_s']
    print('latency target (worst p50 ratio %.3f <= %.1f): %s' % (
        lat['worst_p50_ratio'], lat['target'],
        'PASS' if lat['pass'] else 'FAIL'))
    print('claims/s target (ratio %.3f >= %.1f): %s' % (
        rate['ratio'], rate['target'], 'PASS' if rate['pass'] else 'FAIL'))


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split('\n')[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument('--db', choices=('sqlite', 'mysql', 'postgresql'),
                   default='sqlite', help='sqlite: the embedded default')
    p.add_argument('--providers', type=int, default=1000)
    p.add_argument('--reservations', type=int, default=10000)
    p.add_argument('--projects', type=int, default=1000,
                   help='projects the reservations are spread over')
    p.add_argument('--active', type=float, default=0.15,
                   help='share of the reservations active now')
    p.add_argument('--days', type=int, default=30,
                   help='the others open within that many days')
    p.add_argument('--rounds', type=int, default=4,
                   help='rounds of the two phases, in ABBA order')
    p.add_argument('--reps', type=int, default=15,
                   help='timed requests per query, per phase and round')
    p.add_argument('--claims', type=int, default=400,
                   help='claims per phase and round')
    p.add_argument('--threads', type=int, default=4,
                   help='threads claiming at once')
    p.add_argument('--seed', type=int, default=34)
    p.add_argument('--max-latency-ratio', type=float, default=1.5)
    p.add_argument('--min-claims-ratio', type=float, default=0.7)
    p.add_argument('--json', metavar='FILE', help='also write JSON here')
    p.add_argument('--keep', action='store_true',
                   help='keep the database')
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    rng = random.Random(args.seed)
    db = servers.Database(args.db, tempfile.gettempdir(), 'resv')
    meta = {'date': datetime.datetime.now().isoformat(timespec='seconds'),
            'python': platform.python_version(), 'cpus': os.cpu_count(),
            'args': {k: v for k, v in vars(args).items() if k != 'json'}}
    try:
        # The migrations' and the requests' INFO lines would drown the
        # figures (and one line a request outweigh what is timed).
        logging.getLogger('alembic').setLevel(logging.WARNING)
        client = candidates_inprocess.client_on(db)
        clients = {False: client, True: randomizing_client(db)}
        logging.getLogger('allocsvc').setLevel(logging.WARNING)
        log('database %s (%s): %d providers' % (db.name, args.db,
                                                args.providers))
        providers = build_fleet(client, args.providers)
        projects = ['resv-%04d' % i for i in range(args.projects)]
        base_load(client, rng, providers, projects)
        now = reservations.now()
        drawn = draw_reservations(rng, providers, projects,
                                  args.reservations, args.active, args.days,
                                  now)
        log('%d reservations through POST /reservations' % len(drawn))
        start = time.perf_counter()
        make_reservations(client, drawn)
        made_s = time.perf_counter() - start
        rows = Rows(db.url)
        active = sum(1 for _p, s, e, _a in drawn if s <= now < e)
        meta['workload'] = {
            'reservations': len(rows.res), 'amount_rows': len(rows.amt),
            'active_now': active, 'create_s': made_s,
            'base_consumers': BASE_PER_PROVIDER * len(providers)}
        claims = claim_list(rng, drawn, providers, args.claims, now)
        runs = {'none': [], 'held': []}
        for index in range(args.rounds):
            order = ('none', 'held') if index % 2 == 0 else ('held', 'none')
            for name in order:
                runs[name].append(phase(clients, rows, name, claims,
                                        args))
        fig = summarize(runs)
        ratios, verdict = verdicts(fig, args.max_latency_ratio,
                                   args.min_claims_ratio)
        print('Reservations, in-process, %s: %d providers, %d base '
              'consumers; %d reservations (%d amount rows, %d active now) of '
              '%d projects over %d days, made through the API in %.0f s; '
              '%d rounds (ABBA) of: %d requests of each candidates query, '
              '%d claims of VCPU:2,MEMORY_MB:4096 by %d threads.'
              % (args.db, len(providers), BASE_PER_PROVIDER * len(providers),
                 len(rows.res), len(rows.amt), active, args.projects,
                 args.days, made_s, args.rounds, args.reps, args.claims,
                 args.threads))
        print_table(fig, ratios, verdict)
        if args.json:
            for name in fig:
                fig[name]['claims'].pop('samples')
            with open(args.json, 'w') as f:
                json.dump({'meta': meta, 'phases': fig, 'ratios': ratios,
                           'verdicts': verdict}, f, indent=2)
                f.write('\n')
            log('JSON written to %s' % args.json)
        rows.engine.dispose()
        return 0 if all(v['pass'] for v in verdict.values()) else 1
    finally:
        db_api.context_manager.dispose_pool()
        if args.keep:
            log('kept database %s' % db.name)
        else:
            db.drop()


if __name__ == '__main__':
    sys.exit(main())
