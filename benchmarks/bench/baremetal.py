"""The bare-metal allocation workload: enrol nodes, then K clients create
allocations until no node is left, then check the result.

Everything goes through the Ironic-compatible HTTP API (``/v1``), so the
same workload runs against any endpoint that speaks it. Each client
thread asks for allocations of its own resource class (round-robin over
the classes, half of the requests with a trait) and polls each new
allocation until it is ``active`` or ``error``; a client stops asking
for a class (with or without its trait) once an allocation of it failed
because none was left -- its own, or another client's.

The end-of-run check also asks the Placement API the server serves
under ``/placement`` about every node's resource provider, which must
agree with the node under the conductors' allocation back end.
"""

import concurrent.futures
import datetime
import http.client
import json
import statistics
import threading
import time
import urllib.parse
import uuid

API_VERSION = '1.60'
TRAITS = ('CUSTOM_RACK_A', 'CUSTOM_RACK_B')
# How last_error says that nothing suitable is left (the conductor's
# messages, which follow Ironic's).
NOTHING_LEFT = ('no available nodes', 'no suitable nodes',
                'could not reserve', 'filtered out during reservation',
                'none of the requested nodes')

# The values of the conductors' ``[conductor] allocation_backend``.
BACKENDS = ('database', 'placement')
# The Placement API next to /v1, as its administrator (the token rules
# of noauth), at the microversion the Placement workload uses.
PLACEMENT = '/placement'
PLACEMENT_HEADERS = {'OpenStack-API-Version': 'placement 1.39',
                     'X-Auth-Token': 'admin'}


class Client:
    """A minimal Ironic API client on one keep-alive connection per
    thread (the threads of the workload each have one)."""

    def __init__(self, url, timeout=60.0):
        parsed = urllib.parse.urlsplit(url)
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.prefix = parsed.path.rstrip('/')
        self.timeout = timeout
        self._local = threading.local()

    def _conn(self):
        conn = getattr(self._local, 'conn', None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port,
                                              timeout=self.timeout)
            self._local.conn = conn
        return conn

    def request(self, method, path, body=None, headers=None):
        headers = dict({'X-OpenStack-Ironic-API-Version': API_VERSION,
                        'Accept': 'application/json'}, **(headers or {}))
        data = None
        if body is not None:
            data = json.dumps(body)
            headers['Content-Type'] = 'application/json'
        for attempt in (1, 2):
            conn = self._conn()
            try:
                conn.request(method, self.prefix + path, body=data,
                             headers=headers)
                resp = conn.getresponse()
                raw = resp.read()
                break
            except (OSError, http.client.HTTPException):
                # A server may close an idle keep-alive connection: retry
                # once on a new one.
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    raise
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors='replace')
        return resp.status, parsed

    def check(self, method, path, body=None, expect=(200, 201, 202, 204)):
        status, parsed = self.request(method, path, body)
        if status not in expect:
            raise RuntimeError('%s %s -> %s %s'
                               % (method, path, status, str(parsed)[:400]))
        return parsed


def resource_classes(count):
    return ['bm.class%d' % i for i in range(count)]


def enrol(client, nodes, classes, threads=16):
    """Create ``nodes`` fake-hardware nodes spread over ``classes``, each
    with one rack trait, powered off and ``available``. Returns seconds."""
    start = time.perf_counter()

    def one(i):
        node = client.check('POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': 'bench-%d-%s'
            % (i, uuid.uuid4().hex[:6]),
            'resource_class': classes[i % len(classes)]})
        ident = node['uuid']
        client.check('PUT', '/v1/nodes/%s/traits/%s'
                     % (ident, TRAITS[i % len(TRAITS)]))
        client.check('PUT', '/v1/nodes/%s/states/power' % ident,
                     {'target': 'power off'})
        client.check('PUT', '/v1/nodes/%s/states/provision' % ident,
                     {'target': 'manage'})
        client.check('PUT', '/v1/nodes/%s/states/provision' % ident,
                     {'target': 'provide'})

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, range(nodes)))
    return time.perf_counter() - start


def list_all(client, resource):
    items, path = [], '/v1/%s?limit=1000' % resource
    while path:
        doc = client.check('GET', path)
        items.extend(doc[resource])
        nxt = doc.get('next')
        path = None
        if nxt:
            parsed = urllib.parse.urlsplit(nxt)
            path = parsed.path + '?' + parsed.query
    return items


def release_all(client, threads=16):
    """Delete every allocation (the nodes are available again)."""
    allocations = list_all(client, 'allocations')
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda a: client.check(
            'DELETE', '/v1/allocations/%s' % a['uuid']), allocations))


class _Result:
    def __init__(self):
        self.lock = threading.Lock()
        self.active = []        # seconds from POST to active (server)
        self.seen = []          # seconds from POST to seen active
        self.post = []          # seconds of the POST itself
        self.polls = []         # one item per GET of an allocation
        self.exhausted = 0      # error: nothing left for the request
        self.errors = []        # anything else that went wrong
        # (resource class, trait or None) found exhausted by a client:
        # the others stop asking for it.
        self.gone = set()


# Polling: the first look after FIRST_POLL_S, then 1.5 times longer each
# time up to MAX_POLL_S. The time to active is taken from the server's
# record (see ``active_after``), so polling only decides when a client
# moves on: quick enough to keep 50 clients busy, slow enough that their
# polling does not cost the API more than the allocations themselves.
# (python-ironicclient polls every second, openstacksdk every two.)
FIRST_POLL_S = 0.02
MAX_POLL_S = 0.25


def _epoch(stamp):
    """Seconds since the epoch of an API timestamp (ISO 8601, UTC)."""
    if stamp.endswith('Z'):
        stamp = stamp[:-1] + '+00:00'
    parsed = datetime.datetime.fromisoformat(stamp)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return parsed.timestamp()


def active_after(posted_at, allocation):
    """Seconds from ``posted_at`` (``time.time()`` when the POST was
    sent) to the moment the server made ``allocation`` active: its
    ``updated_at``, written when it was bound. Exact to the server's
    clock, which is this machine's when the benchmark starts the server;
    an endpoint keeping whole seconds (Ironic on MySQL) makes it coarse.
    None without a timestamp."""
    stamp = allocation.get('updated_at')
    if not stamp:
        return None
    return _epoch(stamp) - posted_at


def _wait(client, ident, deadline_s, polls=None):
    """Poll until the allocation leaves ``allocating`` (counting the
    GETs in ``polls``, a list, if given)."""
    delay, end = FIRST_POLL_S, time.perf_counter() + deadline_s
    while True:
        status, body = client.request('GET', '/v1/allocations/%s' % ident)
        if polls is not None:
            polls.append(1)
        if status != 200:
            return None, 'GET %s -> %s %s' % (ident, status, body)
        if body['state'] != 'allocating':
            return body, None
        if time.perf_counter() > end:
            return None, 'allocation %s still allocating after %ss' % (
                ident, deadline_s)
        time.sleep(delay)
        delay = min(delay * 1.5, MAX_POLL_S)


def run_clients(client, clients, classes, deadline_s=120):
    """K clients allocating until nothing is left; returns the figures."""
    result = _Result()

    def worker(index):
        rotation = classes[index % len(classes):] + \
            classes[:index % len(classes)]
        for rc in rotation:
            # Odd clients ask for a trait until no node with it is left,
            # then go on without it.
            trait = TRAITS[index // 2 % len(TRAITS)] if index % 2 else None
            while True:
                if (rc, trait) in result.gone or (rc, None) in result.gone:
                    # Another client found nothing left for this.
                    if not trait:
                        break
                    trait = None
                    continue
                body = {'resource_class': rc}
                if trait:
                    body['traits'] = [trait]
                posted_at = time.time()
                start = time.perf_counter()
                status, created = client.request('POST', '/v1/allocations',
                                                 body)
                posted = time.perf_counter()
                if status != 201:
                    with result.lock:
                        result.errors.append('POST -> %s %s'
                                             % (status, str(created)[:300]))
                    return
                final, problem = _wait(client, created['uuid'], deadline_s,
                                       result.polls)
                done = time.perf_counter()
                with result.lock:
                    result.post.append(posted - start)
                    if problem:
                        result.errors.append(problem)
                        return
                    if final['state'] == 'active':
                        result.seen.append(done - start)
                        after = active_after(posted_at, final)
                        if after is not None:
                            result.active.append(after)
                        continue
                    error = final.get('last_error') or ''
                    if not any(sign in error for sign in NOTHING_LEFT):
                        result.errors.append('error: %s' % error)
                        return
                    result.exhausted += 1
                    result.gone.add((rc, trait))
                if not trait:
                    break
                trait = None

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(worker, range(clients)))
    elapsed = time.perf_counter() - start
    return result, elapsed


def _ms(values, q):
    if not values:
        return None
    if q == 50:
        return statistics.median(values) * 1000
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1,
                       int(round(q / 100 * (len(ordered) - 1))))] * 1000


def check(client, nodes_total, backend=None):
    """Every active allocation holds a distinct node, that node points
    back at it, and no allocation is left ``allocating``; with the
    conductors' ``backend``, every node's resource provider agrees
    (``check_providers``)."""
    allocations = list_all(client, 'allocations')
    nodes = list_all(client, 'nodes')
    by_node = {}
    problems = []
    stuck = [a['uuid'] for a in allocations if a['state'] == 'allocating']
    if stuck:
        problems.append('%d allocations left allocating' % len(stuck))
    for alloc in allocations:
        if alloc['state'] == 'active':
            if alloc['node_uuid'] in by_node:
                problems.append('node %s in allocations %s and %s' % (
                    alloc['node_uuid'], by_node[alloc['node_uuid']],
                    alloc['uuid']))
            by_node[alloc['node_uuid']] = alloc['uuid']
    for node in nodes:
        owner = by_node.get(node['uuid'])
        if owner and node.get('instance_uuid') != owner:
            problems.append('node %s instance %s, allocation %s' % (
                node['uuid'], node.get('instance_uuid'), owner))
    # How long the server took from writing each allocation to binding
    # it (its conductor's part, RPC included).
    bound_after = sorted(
        _epoch(a['updated_at']) - _epoch(a['created_at'])
        for a in allocations
        if a['state'] == 'active' and a.get('created_at') and
        a.get('updated_at'))
    mismatches = ([] if backend is None else
                  check_providers(client, nodes, by_node, backend))
    return {'allocated_nodes': len(by_node), 'nodes': nodes_total,
            'stuck': len(stuck), 'double_allocated': sum(
                'in allocations' in p for p in problems),
            'bound_p50_ms': _ms(bound_after, 50),
            'bound_p95_ms': _ms(bound_after, 95),
            'rp_mismatch': None if backend is None else len(mismatches),
            'problems': (problems + mismatches)[:10]}


def has_placement(client):
    """Whether the endpoint serves the Placement API under /placement
    (an Ironic endpoint does not)."""
    try:
        status, _ = client.request('GET', PLACEMENT + '/',
                                   headers=PLACEMENT_HEADERS)
    except OSError:
        return False
    return status == 200


def _placement_get(client, path):
    """(document, None) of a Placement GET, or (None, what went wrong)."""
    status, body = client.request('GET', PLACEMENT + path,
                                  headers=PLACEMENT_HEADERS)
    if status != 200:
        return None, 'GET %s%s -> %s %s' % (PLACEMENT, path, status,
                                            str(body)[:200])
    return body, None


def expected_unit(bound, backend):
    """(used, reserved) of the unit of a node's resource provider: a
    node bound to an active allocation has its unit claimed by that
    allocation under the placement back end, and reserved (no consumer)
    under the database back end; a free node's is neither. A unit both
    claimed and reserved would be used beyond its capacity."""
    if not bound:
        return 0, 0
    return (1, 0) if backend == 'placement' else (0, 1)


def provider_problem(client, node_uuid, bound, backend):
    """How the resource provider of node ``node_uuid`` disagrees with
    the node (None if it does not); ``bound``: whether an active
    allocation holds the node. Summed over classes: a node has one."""
    base = '/resource_providers/%s/' % node_uuid
    usages, problem = _placement_get(client, base + 'usages')
    if problem:
        return problem
    inventories, problem = _placement_get(client, base + 'inventories')
    if problem:
        return problem
    used = sum(usages['usages'].values())
    reserved = sum(inv['reserved']
                   for inv in inventories['inventories'].values())
    want_used, want_reserved = expected_unit(bound, backend)
    if (used, reserved) == (want_used, want_reserved):
        return None
    return ('node %s (%s) provider: used %d, reserved %d; expected %d, %d '
            'under the %s back end'
            % (node_uuid, 'bound' if bound else 'free', used, reserved,
               want_used, want_reserved, backend))


def check_providers(client, nodes, by_node, backend, threads=16):
    """The disagreements of the nodes' resource providers with the
    nodes (``by_node``: node UUID -> its active allocation), two GETs
    a node."""
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        found = pool.map(lambda node: provider_problem(
            client, node['uuid'], node['uuid'] in by_node, backend), nodes)
        return [problem for problem in found if problem]


def single(client, classes, reps=20):
    """Time to active of one allocation at a time on an idle system (the
    server's record, see ``active_after``; the client's own view, which
    includes waiting for its next poll, is ``seen_*``)."""
    times, seen = [], []
    for i in range(reps):
        posted_at = time.time()
        start = time.perf_counter()
        status, created = client.request(
            'POST', '/v1/allocations', {'resource_class': classes[0]})
        if status != 201:
            raise RuntimeError('POST -> %s %s' % (status, created))
        final, problem = _wait(client, created['uuid'], 60)
        seen.append(time.perf_counter() - start)
        if problem or final['state'] != 'active':
            raise RuntimeError(problem or final['last_error'])
        after = active_after(posted_at, final)
        if after is not None:
            times.append(after)
        client.check('DELETE', '/v1/allocations/%s' % created['uuid'])
    return {'reps': reps, 'p50_ms': _ms(times, 50), 'p95_ms': _ms(times, 95),
            'min_ms': min(times) * 1000 if times else None,
            'seen_p50_ms': _ms(seen, 50), 'seen_p95_ms': _ms(seen, 95)}


def run(client, nodes, clients_list, class_count=3, log=lambda msg: None,
        backend=None):
    """One node count: enrol, time single allocations, then each K
    (``log`` hears when each phase starts). ``backend``: the conductors'
    allocation back end, which the check of the nodes' resource
    providers expects (None: no such check)."""
    classes = resource_classes(class_count)
    log('enrolling %d nodes' % nodes)
    out = {'nodes': nodes, 'classes': class_count,
           'setup_s': enrol(client, nodes, classes)}
    log('single allocations')
    out['single'] = single(client, classes)
    out['runs'] = []
    for clients in clients_list:
        release_all(client)
        log('%d clients allocating' % clients)
        result, elapsed = run_clients(client, clients, classes)
        log('%d clients done in %.1f s' % (clients, elapsed))
        verdict = check(client, nodes, backend)
        out['runs'].append({
            'clients': clients, 'elapsed_s': elapsed,
            'allocations': len(result.active),
            'allocations_per_s': len(result.active) / elapsed,
            'active_p50_ms': _ms(result.active, 50),
            'active_p95_ms': _ms(result.active, 95),
            'seen_p50_ms': _ms(result.seen, 50),
            'seen_p95_ms': _ms(result.seen, 95),
            'post_p50_ms': _ms(result.post, 50),
            'post_p95_ms': _ms(result.post, 95),
            'exhausted': result.exhausted,
            'polls_per_post': len(result.polls) / max(
                1, len(result.post)),
            'errors': len(result.errors),
            'error_samples': result.errors[:5],
            'check': verdict})
    return out


def _wait_group(client, ident, deadline_s=120):
    """Poll the allocation group until it leaves ``allocating``."""
    delay, end = FIRST_POLL_S, time.perf_counter() + deadline_s
    while True:
        body = client.check('GET', '/v1/allocation_groups/%s' % ident)
        if body['state'] != 'allocating':
            return body
        if time.perf_counter() > end:
            raise RuntimeError('group %s still allocating after %ss'
                               % (ident, deadline_s))
        time.sleep(delay)
        delay = min(delay * 1.5, MAX_POLL_S)


def groups(client, resource_class, count=100, reps=10):
    """Time to active of one allocation group of ``count`` nodes, and of
    ``count`` single allocations posted at once (each awaited), ``reps``
    times each, alternating; everything released between repetitions.
    Times are the client's: from the first POST to the last active seen
    (polling grows to ``MAX_POLL_S``)."""
    grouped, singles = [], []
    for _ in range(reps):
        start = time.perf_counter()
        group = client.check('POST', '/v1/allocation_groups', {
            'resource_class': resource_class, 'count': count})
        final = _wait_group(client, group['uuid'])
        grouped.append(time.perf_counter() - start)
        if final['state'] != 'active':
            raise RuntimeError(final['last_error'])
        client.check('DELETE', '/v1/allocation_groups/%s' % group['uuid'])
        start = time.perf_counter()
        made = [client.check('POST', '/v1/allocations', {
            'resource_class': resource_class})['uuid'] for _ in range(count)]
        for ident in made:
            final, problem = _wait(client, ident, 120)
            if problem or final['state'] != 'active':
                raise RuntimeError(problem or final['last_error'])
        singles.append(time.perf_counter() - start)
        for ident in made:
            client.check('DELETE', '/v1/allocations/%s' % ident)
    return {'count': count, 'reps': reps,
            'group_p50_ms': _ms(grouped, 50), 'group_p95_ms': _ms(grouped, 95),
            'singles_p50_ms': _ms(singles, 50),
            'singles_p95_ms': _ms(singles, 95)}
