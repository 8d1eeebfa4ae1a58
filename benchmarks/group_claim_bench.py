#!/usr/bin/env python3
"""Time a Placement group claim against the same claims made one by one.

On the shapes fleet of ``placement_bench`` (N compute nodes, scale 1:
1,000), built through the in-process application into a database it
creates (as ``candidates_inprocess.py`` does), it times, ``--reps``
times each, alternating:

* **group**: one ``POST /allocation_candidates/claim`` of ``--count``
  consumers (100) for ``resources=VCPU:1,MEMORY_MB:512,DISK_GB:10``,
  all or nothing;
* **singles**: the same number of consumers claimed as a scheduler
  does, one by one: ``GET /allocation_candidates?...&limit=1`` and
  ``PUT /allocations/{consumer}`` of the first candidate.

Between repetitions the consumers' allocations are deleted (untimed).
It prints p50 and p95 of each, and the workload. Run from the
repository root, in allocsvc's virtualenv::

    python benchmarks/group_claim_bench.py --db mysql --scale 1
"""

import argparse
import pathlib
import sys
import tempfile
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from allocsvc.db import api as db_api  # noqa: E402
from bench import scenarios  # noqa: E402
from bench import servers  # noqa: E402
import candidates_inprocess  # noqa: E402

QUERY = 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10'


def _member():
    return {'project_id': 'bench', 'user_id': 'bench',
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}


def _group(client, count):
    members = {str(uuid.uuid4()): _member() for _ in range(count)}
    body = {'query': {'resources': 'VCPU:1,MEMORY_MB:512,DISK_GB:10'},
            'consumers': members}
    start = time.perf_counter()
    resp = client.request('POST', '/allocation_candidates/claim', body)
    elapsed = time.perf_counter() - start
    if resp.status != 200:
        raise RuntimeError('group claim: %s %s' % (resp.status, resp.body))
    return elapsed, list(members)


def _singles(client, count):
    consumers = []
    start = time.perf_counter()
    while len(consumers) < count:
        found = client.get('/allocation_candidates?%s&limit=1' % QUERY)
        if found.status != 200 or not found.body['allocation_requests']:
            raise RuntimeError('no candidate: %s' % (found.body,))
        consumer = str(uuid.uuid4())
        body = dict(_member(), allocations=found.body[
            'allocation_requests'][0]['allocations'])
        resp = client.put('/allocations/%s' % consumer, body)
        if resp.status == 204:
            consumers.append(consumer)
        elif resp.status != 409:
            raise RuntimeError('claim: %s %s' % (resp.status, resp.body))
    return time.perf_counter() - start, consumers


def _release(client, consumers):
    for consumer in consumers:
        client.request('DELETE', '/allocations/%s' % consumer)


def _percentiles(values):
    values = sorted(values)
    return (values[len(values) // 2],
            values[min(len(values) - 1, int(len(values) * 0.95))])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', choices=('sqlite', 'mysql', 'postgresql'),
                        default='mysql')
    parser.add_argument('--scale', type=float, default=1.0)
    parser.add_argument('--count', type=int, default=100)
    parser.add_argument('--reps', type=int, default=10)
    args = parser.parse_args(argv)
    db = servers.Database(args.db, tempfile.gettempdir(), 'groupclaim')
    try:
        client = candidates_inprocess.client_on(db)
        ctx = scenarios.Context(args.scale, 1, 1, 1, [1], 1, 1)
        scenarios.SCENARIOS['shapes'](client, ctx)
        for _ in range(2):
            _release(client, _group(client, args.count)[1])
            _release(client, _singles(client, args.count)[1])
        group, singles = [], []
        for _ in range(args.reps):
            elapsed, consumers = _group(client, args.count)
            group.append(elapsed)
            _release(client, consumers)
            elapsed, consumers = _singles(client, args.count)
            singles.append(elapsed)
            _release(client, consumers)
        print('Placement group claim, in-process, %s, shapes fleet at '
              'scale %s (%d compute nodes), %d consumers of %s, %d '
              'repetitions:' % (args.db, args.scale, int(1000 * args.scale),
                                args.count, QUERY, args.reps))
        for name, values in (('one group claim', group),
                             ('%d GET+PUT claims' % args.count, singles)):
            p50, p95 = _percentiles(values)
            print('  %-22s p50 %8.1f ms   p95 %8.1f ms' % (
                name, p50 * 1000, p95 * 1000))
    finally:
        db_api.context_manager.dispose_pool()
        db.drop()


if __name__ == '__main__':
    main()
