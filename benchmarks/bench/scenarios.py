"""The four scenarios of the Placement workload: setup over HTTP, then
timed queries (scenarios 1-3) or concurrent claims (scenario 4).

Setup uses the fewest calls Placement allows (POST the provider with its
uuid and parent, then one PUT each for inventories, traits and aggregates,
carrying the generation each answer returns) spread over client threads;
a tree is built level by level because a child needs its parent.
"""

import statistics
import threading
import time
import uuid

from bench.client import parallel
from bench.client import quote

WIDE_CHILDREN = 8


def _inv(total, ratio=1.0, reserved=0):
    return {'total': total, 'reserved': reserved, 'min_unit': 1,
            'max_unit': total, 'step_size': 1, 'allocation_ratio': ratio}


class Spec:
    """One provider to create."""
    __slots__ = ('uuid', 'name', 'parent', 'inventories', 'traits',
                 'aggregates')

    def __init__(self, name, parent=None, inventories=None, traits=(),
                 aggregates=()):
        self.uuid = str(uuid.uuid4())
        self.name = name
        self.parent = parent
        self.inventories = inventories or {}
        self.traits = list(traits)
        self.aggregates = list(aggregates)


class Setup:
    """Creates providers on one endpoint and counts the requests."""

    def __init__(self, client, threads):
        self.client = client
        self.threads = threads
        self.requests = 0
        self._lock = threading.Lock()

    def _call(self, method, path, body=None):
        resp = self.client.check(method, path, body)
        with self._lock:
            self.requests += 1
        return resp

    def ensure_traits(self, names):
        for name in names:
            self._call('PUT', '/traits/%s' % name)

    def ensure_class(self, name):
        self._call('PUT', '/resource_classes/%s' % name)

    def _create(self, spec):
        body = {'name': spec.name, 'uuid': spec.uuid}
        if spec.parent:
            body['parent_provider_uuid'] = spec.parent
        gen = self._call('POST', '/resource_providers', body).body[
            'generation']
        base = '/resource_providers/%s' % spec.uuid
        if spec.inventories:
            gen = self._call('PUT', base + '/inventories', {
                'resource_provider_generation': gen,
                'inventories': spec.inventories}).body[
                'resource_provider_generation']
        if spec.traits:
            gen = self._call('PUT', base + '/traits', {
                'resource_provider_generation': gen,
                'traits': spec.traits}).body['resource_provider_generation']
        if spec.aggregates:
            self._call('PUT', base + '/aggregates', {
                'resource_provider_generation': gen,
                'aggregates': spec.aggregates})

    def create(self, specs):
        parallel(self._create, specs, self.threads)


def _timed_setup(client, threads, build):
    """Run ``build(setup)``; return (seconds, requests, build's result)."""
    setup = Setup(client, threads)
    start = time.perf_counter()
    result = build(setup)
    return time.perf_counter() - start, setup.requests, result


def percentile(values, pct):
    """Linear-interpolated percentile of a non-empty list."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * pct / 100.0
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


# Untimed requests before the timed ones of a query.
WARM_UP = 8


class Sampler:
    """Times ``GET path`` on one endpoint, one request at a time: a few
    warm-up requests, then up to ``reps`` timed ones, stopping early once
    ``budget`` seconds are spent. A warm-up slower than a second is
    counted as a sample (and ends the warm-up): caches do not matter at
    that cost, and it saves minutes on Placement's wide tree. Latency
    figures cover the 200 answers only; failures are counted apart. A
    request that times out is not repeated: the server is still busy
    with it."""

    def __init__(self, client, path, reps, budget, timeout=None):
        self.client, self.path, self.timeout = client, path, timeout
        self.reps, self.budget = reps, budget
        self.times, self.statuses = [], {}
        self.sample_error = self.candidates = None
        self.done = self.timeouts = 0
        self.start = None

    def _record(self, resp):
        self.timeouts += resp.body == 'timeout' and resp.status == 0
        self.statuses[resp.status] = self.statuses.get(resp.status, 0) + 1
        if resp.status == 200:
            self.times.append(resp.elapsed)
            if self.candidates is None:
                self.candidates = len(resp.body.get('allocation_requests',
                                                    []))
        elif self.sample_error is None:
            self.sample_error = '%s %s' % (resp.status,
                                           str(resp.body)[:300])

    def warm_up(self, count=WARM_UP):
        """Untimed requests, up to ``count``: each gunicorn worker opens
        its database connection and fills its caches on its first one,
        and which worker takes a request is up to them."""
        for _ in range(count):
            warm = self.client.get(self.path, timeout=self.timeout)
            if warm.elapsed > 1.0:
                self._record(warm)
                self.done = 1
                break
        self.start = time.perf_counter()

    def wants_more(self):
        return not self.timeouts and self.done < self.reps and (
            self.done == 0 or
            time.perf_counter() - self.start < self.budget)

    def step(self):
        """One timed request."""
        self._record(self.client.get(self.path, timeout=self.timeout))
        self.done += 1

    def result(self):
        times = self.times
        return {
            'path': self.path, 'reps': self.done, 'ok': len(times),
            'failures': self.done - len(times), 'statuses': self.statuses,
            'sample_error': self.sample_error,
            'candidates': self.candidates,
            'timeouts': self.timeouts, 'timeout_s': self.timeout,
            'p50_ms': percentile(times, 50) * 1000 if times else None,
            'p95_ms': percentile(times, 95) * 1000 if times else None,
            'mean_ms': statistics.mean(times) * 1000 if times else None,
        }


def measure(client, path, reps, budget, timeout=None, later=None):
    """Time ``GET path`` (see Sampler). With ``later`` (a list), nothing
    is sent now: the Sampler is appended to it and a placeholder
    returned, which ``interleave`` fills in."""
    sampler = Sampler(client, path, reps, budget, timeout)
    if later is not None:
        later.append(sampler)
        return {'path': path, 'pending': True}
    sampler.warm_up()
    while sampler.wants_more():
        sampler.step()
    return sampler.result()


def interleave(samplers):
    """Run the Samplers of several endpoints turn by turn, the first to
    go changing each round, so that every endpoint meets the same
    moments of a noisy machine. Returns their results in order."""
    for sampler in samplers:
        sampler.warm_up()
    turn = 0
    while True:
        pending = [s for s in samplers if s.wants_more()]
        if not pending:
            break
        for index in range(len(pending)):
            pending[(turn + index) % len(pending)].step()
        turn += 1
    return [sampler.result() for sampler in samplers]


def fill_pending(results, found):
    """Replace each pending query of ``results`` (a scenario's answer)
    with the next of ``found`` (interleave's results, same order)."""
    found = iter(found)
    for name, query in results.get('queries', {}).items():
        if query.get('pending'):
            results['queries'][name] = next(found)


def flat(client, ctx):
    """Scenario 1: flat compute nodes in one aggregate; three in four have
    AVX2, so the query must filter on traits as well as capacity."""
    count = ctx.count(1000)
    agg = str(uuid.uuid4())

    def build(setup):
        setup.create([Spec(
            '%s-flat-%05d' % (ctx.run, i),
            inventories={'VCPU': _inv(32, 4.0), 'MEMORY_MB': _inv(131072),
                         'DISK_GB': _inv(2048)},
            traits=['HW_CPU_X86_SSE42', 'HW_CPU_X86_AVX'] +
            (['HW_CPU_X86_AVX2'] if i % 4 != 3 else []),
            aggregates=[agg]) for i in range(count)])

    seconds, requests, _ = _timed_setup(client, ctx.threads, build)
    path = ('/allocation_candidates?resources=VCPU:1,DISK_GB:10,'
            'MEMORY_MB:256&member_of=%s&required=HW_CPU_X86_AVX2' % agg)
    return {'providers': count, 'setup_s': seconds,
            'setup_requests': requests,
            'queries': {'flat': measure(client, path, ctx.reps,
                                        ctx.budget, later=ctx.later)}}


def trees(client, ctx):
    """Scenario 2: compute root (DISK_GB) -> two NUMA nodes (VCPU,
    MEMORY_MB) -> one FPGA and one VGPU leaf each: 7 providers a tree."""
    count = ctx.count(1000)

    def build(setup):
        setup.ensure_traits(['CUSTOM_FOO'])
        roots, numas, leaves = [], [], []
        for i in range(count):
            root = Spec('%s-tree-%05d' % (ctx.run, i),
                        inventories={'DISK_GB': _inv(2048)},
                        traits=['COMPUTE_VOLUME_MULTI_ATTACH'])
            roots.append(root)
            for n in range(2):
                numa = Spec('%s-numa%d' % (root.name, n), parent=root.uuid,
                            inventories={'VCPU': _inv(16, 4.0),
                                         'MEMORY_MB': _inv(65536)},
                            traits=['HW_NUMA_ROOT', 'CUSTOM_FOO'])
                numas.append(numa)
                leaves.append(Spec('%s-fpga' % numa.name, parent=numa.uuid,
                                   inventories={'FPGA': _inv(2)}))
                leaves.append(Spec('%s-vgpu' % numa.name, parent=numa.uuid,
                                   inventories={'VGPU': _inv(4)}))
        for level in (roots, numas, leaves):
            setup.create(level)

    seconds, requests, _ = _timed_setup(client, ctx.threads, build)
    path = ('/allocation_candidates?resources=DISK_GB:10'
            '&required=COMPUTE_VOLUME_MULTI_ATTACH'
            '&resources_COMPUTE=VCPU:1,MEMORY_MB:256'
            '&required_COMPUTE=CUSTOM_FOO&resources_FPGA=FPGA:1'
            '&group_policy=none&same_subtree=_COMPUTE,_FPGA')
    return {'providers': count * 7, 'setup_s': seconds,
            'setup_requests': requests,
            'queries': {'trees': measure(client, path, ctx.reps,
                                         ctx.budget, later=ctx.later)}}


def wide(client, ctx):
    """Scenario 3: one root with 8 one-unit children of a custom class and
    8 one-unit isolated groups: 8! = 40,320 valid candidates out of 8**8
    combinations. Not scaled: its cost is the point."""
    rc = 'CUSTOM_BENCH_WIDE_%s' % ctx.run.upper().replace('-', '_')

    def build(setup):
        setup.ensure_class(rc)
        root = Spec('%s-wide' % ctx.run)
        setup.create([root])
        setup.create([Spec('%s-wide-%d' % (ctx.run, i), parent=root.uuid,
                           inventories={rc: _inv(1)})
                      for i in range(WIDE_CHILDREN)])

    seconds, requests, _ = _timed_setup(client, ctx.threads, build)
    groups = '&'.join('resources%d=%s:1' % (i, rc)
                      for i in range(1, WIDE_CHILDREN + 1))
    path = '/allocation_candidates?%s&group_policy=isolate' % groups
    return {'providers': WIDE_CHILDREN + 1, 'setup_s': seconds,
            'setup_requests': requests,
            'queries': {
                'wide_limit10': measure(client, path + '&limit=10',
                                        ctx.reps, ctx.budget,
                                        ctx.wide_timeout, ctx.later),
                'wide_nolimit': measure(client, path, ctx.wide_reps,
                                        ctx.budget, ctx.wide_timeout,
                                        ctx.later)}}


# Scenario 5's query shapes, in report order: (key, label, query).
_BASE = 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10'
_ISOLATE = ('resources=DISK_GB:10&resources1=VCPU:1,MEMORY_MB:512'
            '&resources2=SRIOV_NET_VF:1&group_policy=isolate')
SHAPES = [
    ('simple', 'simple', _BASE),
    ('simple_limit10', 'simple, limit=10', _BASE + '&limit=10'),
    ('simple_limit1000', 'simple, limit=1000', _BASE + '&limit=1000'),
    ('required', 'required traits', _BASE + '&required=HW_CPU_X86_AVX2'),
    ('any_traits', 'any traits, in:',
     _BASE + '&required=in:CUSTOM_BENCH_RACK_A,CUSTOM_BENCH_RACK_B'),
    ('root_required', 'root_required',
     _BASE + '&root_required=!COMPUTE_STATUS_DISABLED'),
    ('member_of', 'member_of in:', _BASE + '&member_of=in:{agg0},{agg1}'),
    ('isolate', 'granular isolate', _ISOLATE),
    ('numa_pair', 'granular NUMA pair isolate',
     'resources=DISK_GB:10&resources1=VCPU:1,MEMORY_MB:512'
     '&resources2=VCPU:1,MEMORY_MB:512&group_policy=isolate'),
    ('isolate_limit10', 'granular isolate, limit=10', _ISOLATE + '&limit=10'),
]
RACKS = 28
SHARING_PER_PROVIDER = 15


def shapes(client, ctx):
    """Scenario 5: a mixed fleet of N compute nodes (N = 1,000 x scale):
    three in ten nested (two NUMA children with VCPU and MEMORY_MB, one
    SR-IOV child with SRIOV_NET_VF, DISK_GB on the root), the others
    flat; one in five without local disk, taking DISK_GB from a sharing
    provider of its aggregate (one per 15 such nodes); each node in one
    of 28 rack aggregates, 45% with HW_CPU_X86_AVX2, one in nine with
    CUSTOM_BENCH_RACK_A and one in nine with CUSTOM_BENCH_RACK_B, one in
    eleven COMPUTE_STATUS_DISABLED. Ten query shapes (``SHAPES``), each
    timed on its own."""
    count = ctx.count(1000)
    racks = [str(uuid.uuid4()) for _ in range(RACKS)]
    sharing_nodes = [i for i in range(count) if i % 5 == 0]
    shares = [str(uuid.uuid4()) for _ in range(
        -(-len(sharing_nodes) // SHARING_PER_PROVIDER))]
    specs = {'roots': [], 'children': [], 'sharing': []}

    def build(setup):
        setup.ensure_traits(['CUSTOM_BENCH_RACK_A', 'CUSTOM_BENCH_RACK_B'])
        for k, agg in enumerate(shares):
            specs['sharing'].append(Spec(
                '%s-share-%03d' % (ctx.run, k),
                inventories={'DISK_GB': _inv(100000)},
                traits=['MISC_SHARES_VIA_AGGREGATE'], aggregates=[agg]))
        for i in range(count):
            nested, local_disk = i % 10 in (0, 3, 6), i % 5 != 0
            traits = ['HW_CPU_X86_SSE42']
            if i % 20 < 9:
                traits.append('HW_CPU_X86_AVX2')
            if i % 9 < 2:
                traits.append('CUSTOM_BENCH_RACK_%s' % 'AB'[i % 9])
            if i % 11 == 5:
                traits.append('COMPUTE_STATUS_DISABLED')
            aggs = [racks[i % RACKS]]
            if not local_disk:
                aggs.append(shares[sharing_nodes.index(i) //
                                   SHARING_PER_PROVIDER])
            inventories = {'DISK_GB': _inv(2048)} if local_disk else {}
            if not nested:
                inventories.update(VCPU=_inv(32, 4.0),
                                   MEMORY_MB=_inv(131072))
            root = Spec('%s-node-%05d' % (ctx.run, i),
                        inventories=inventories, traits=traits,
                        aggregates=aggs)
            specs['roots'].append(root)
            if nested:
                for n in range(2):
                    specs['children'].append(Spec(
                        '%s-numa%d' % (root.name, n), parent=root.uuid,
                        inventories={'VCPU': _inv(16, 4.0),
                                     'MEMORY_MB': _inv(65536)},
                        traits=['HW_NUMA_ROOT']))
                specs['children'].append(Spec(
                    '%s-pf' % root.name, parent=root.uuid,
                    inventories={'SRIOV_NET_VF': _inv(16)},
                    traits=['HW_NIC_SRIOV']))
        for level in ('sharing', 'roots', 'children'):
            setup.create(specs[level])

    seconds, requests, _ = _timed_setup(client, ctx.threads, build)
    queries = {}
    for key, _, query in SHAPES:
        path = '/allocation_candidates?' + query.format(agg0=racks[0],
                                                        agg1=racks[1])
        queries[key] = measure(client, path, ctx.reps, ctx.budget,
                               later=ctx.later)
    return {'providers': sum(map(len, specs.values())), 'setup_s': seconds,
            'setup_requests': requests, 'queries': queries}


def writes(client, ctx):
    """Scenario 4: for each client count of ``ctx.clients``, on its own
    claim targets, that many threads each loop: ask for one candidate,
    PUT it as the allocation of a new consumer, on 409 ask again for the
    same consumer; stop when no candidate is left."""
    count = ctx.count(100, minimum=2)
    vcpus = 8
    targets = [(str(uuid.uuid4()), []) for _ in ctx.clients]

    def build(setup):
        for n, (agg, specs) in enumerate(targets):
            specs.extend(Spec('%s-claim%d-%04d' % (ctx.run, n, i),
                              inventories={'VCPU': _inv(vcpus),
                                           'MEMORY_MB': _inv(16384)},
                              aggregates=[agg]) for i in range(count))
            setup.create(specs)

    seconds, requests, _ = _timed_setup(client, ctx.threads, build)
    runs = [dict(_claims(client, agg, specs, clients), capacity=count * vcpus)
            for clients, (agg, specs) in zip(ctx.clients, targets)]
    return {'providers': count * len(targets), 'setup_s': seconds,
            'setup_requests': requests, 'runs': runs}


def _claims(client, agg, specs, clients):
    """``clients`` threads claiming one VCPU at a time on the providers
    of aggregate ``agg`` until none is left; then count the providers
    over capacity."""
    path = ('/allocation_candidates?resources=VCPU:1,MEMORY_MB:512'
            '&member_of=%s&limit=1' % quote(agg))
    project, user = str(uuid.uuid4()), str(uuid.uuid4())
    lock = threading.Lock()
    totals = {'claims': 0, 'retries_409': 0, 'errors': 0}
    latencies, samples = [], []

    def record(key, sample=None):
        with lock:
            totals[key] += 1
            if sample and len(samples) < 3:
                samples.append(sample)
        return totals['errors'] > 50

    def worker(_):
        consumer, started = str(uuid.uuid4()), time.perf_counter()
        while True:
            resp = client.get(path)
            if resp.status != 200:
                if record('errors', 'GET %s %s' % (resp.status,
                                                   str(resp.body)[:200])):
                    return
                continue
            found = resp.body['allocation_requests']
            if not found:
                return
            put = client.put('/allocations/%s' % consumer, {
                'allocations': found[0]['allocations'],
                'project_id': project, 'user_id': user,
                'consumer_generation': None, 'consumer_type': 'INSTANCE'})
            if put.status == 204:
                with lock:
                    latencies.append(time.perf_counter() - started)
                record('claims')
                consumer, started = str(uuid.uuid4()), time.perf_counter()
            elif put.status == 409:
                record('retries_409')
            elif record('errors', 'PUT %s %s' % (put.status,
                                                 str(put.body)[:200])):
                return

    start = time.perf_counter()
    parallel(worker, range(clients), clients)
    elapsed = time.perf_counter() - start
    return {'clients': clients, 'elapsed_s': elapsed,
            'claims_per_s': totals['claims'] / elapsed if elapsed else None,
            'claim_p50_ms': (percentile(latencies, 50) * 1000
                             if latencies else None),
            'overcommitted_providers': _over_capacity(client, specs),
            'error_samples': samples, **totals}


def _over_capacity(client, specs):
    """Providers whose usage exceeds (total - reserved) * ratio."""
    def check(spec):
        base = '/resource_providers/%s' % spec.uuid
        invs = client.check('GET', base + '/inventories').body['inventories']
        usages = client.check('GET', base + '/usages').body['usages']
        return any(used > (invs[rc]['total'] - invs[rc]['reserved']) *
                   invs[rc]['allocation_ratio']
                   for rc, used in usages.items())
    return sum(parallel(check, specs, 8))


class Context:
    """The knobs every scenario reads."""

    def __init__(self, scale, reps, wide_reps, threads, clients,
                 budget, wide_timeout):
        # ``clients``: the client counts of scenario 4, one run each.
        self.budget = budget
        self.wide_timeout = wide_timeout
        self.run = 'b%s' % uuid.uuid4().hex[:6]
        self.scale = scale
        self.reps = reps
        self.wide_reps = wide_reps
        self.threads = threads
        self.clients = clients
        # A list while queries are to be timed later, interleaved with
        # another endpoint's (see ``interleave``); None: time them now.
        self.later = None

    def count(self, full, minimum=1):
        return max(minimum, int(round(full * self.scale)))


# Run order: the wide tree last, because a Placement worker keeps computing
# a timed-out wide query after the client gave up, which would slow down
# the scenarios after it.
SCENARIOS = {'flat': flat, 'trees': trees, 'shapes': shapes,
             'writes': writes, 'wide': wide}
