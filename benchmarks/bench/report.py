"""Turn the scenarios' raw results into figures, a text table with the
ours/theirs ratio, and a JSON document; ``log``, the benchmarks'
progress lines."""

import datetime
import json
import sys

from bench import scenarios


def log(msg):
    """A progress line on stderr, with the time (the figures go to
    stdout)."""
    print('[%s] %s' % (datetime.datetime.now().strftime('%H:%M:%S'), msg),
          file=sys.stderr, flush=True)


_QUERY_SCENARIO = {'flat': '1 flat', 'trees': '2 trees',
                   'wide_limit10': '3 wide limit=10',
                   'wide_nolimit': '3 wide no limit'}
_QUERY_SCENARIO.update(('shape_' + key, '5 %s' % label)
                       for key, label, _ in scenarios.SHAPES)
_SETUP_LABEL = {'flat': '1 flat', 'trees': '2 trees', 'wide': '3 wide',
                'writes': '4 writes', 'shapes': '5 shapes'}


class AtLeast(float):
    """A lower bound: the request timed out after this long."""


def _latency(query, key):
    if query[key] is None and query.get('timeouts'):
        return AtLeast(query['timeout_s'] * 1000)
    return query[key]


def figures(results):
    """Ordered (name, value) pairs of one target's results."""
    out = []
    for scenario in ('flat', 'trees', 'shapes', 'wide', 'writes'):
        res = results.get(scenario)
        if res is None:
            continue
        if 'error' in res:
            out.append(('%s: SCENARIO FAILED' % _SETUP_LABEL[scenario], None))
            continue
        label = _SETUP_LABEL[scenario]
        out.append(('%s: setup s (%d providers)' % (label, res['providers']),
                    res['setup_s']))
        out.append(('%s: setup requests/s' % label,
                    res['setup_requests'] / res['setup_s']))
        for key, query in res.get('queries', {}).items():
            qlabel = _QUERY_SCENARIO[
                'shape_' + key if scenario == 'shapes' else key]
            out.append(('%s: p50 ms' % qlabel, _latency(query, 'p50_ms')))
            out.append(('%s: p95 ms' % qlabel, _latency(query, 'p95_ms')))
            out.append(('%s: requests timed' % qlabel, query['reps']))
            out.append(('%s: non-200' % qlabel, query['failures']))
            out.append(('%s: candidates' % qlabel, query['candidates']))
        for run in res.get('runs', ()):
            label = '4 writes, %d clients' % run['clients']
            out.append(('%s: claims/s' % label, run['claims_per_s']))
            out.append(('%s: claim p50 ms' % label, run['claim_p50_ms']))
            out.append(('%s: claims (capacity %d)' % (label, run['capacity']),
                        run['claims']))
            out.append(('%s: 409 retries' % label, run['retries_409']))
            out.append(('%s: errors' % label, run['errors']))
            out.append(('%s: providers over capacity' % label,
                        run['overcommitted_providers']))
    return out


def _fmt(value):
    if value is None:
        return '-'
    if isinstance(value, AtLeast):
        return '>%.0f' % value
    if isinstance(value, float):
        return '%.1f' % value if abs(value) >= 10 else '%.3f' % value
    return str(value)


def _ratio(ours, theirs):
    if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)) \
            and theirs and not (isinstance(ours, AtLeast) and
                                isinstance(theirs, AtLeast)):
        return ours / theirs
    return None


def _fmt_ratio(ratio, ours, theirs):
    if ratio is None:
        return '-'
    # Against a timed-out figure the ratio is only a bound.
    prefix = ('<' if isinstance(theirs, AtLeast) else
              '>' if isinstance(ours, AtLeast) else '')
    return '%s%.3f' % (prefix, ratio)


def rows(targets):
    """[(figure, {target: value}, ratio)] with the ratio of the first
    target (ours) to the second (theirs) when there are two."""
    names = list(targets)
    per_target = {name: dict(figures(res)) for name, res in targets.items()}
    order = []
    for name in names:
        for fig, _ in figures(targets[name]):
            if fig not in order:
                order.append(fig)
    out = []
    for fig in order:
        values = {name: per_target[name].get(fig) for name in names}
        ratio = (_ratio(values[names[0]], values[names[1]])
                 if len(names) == 2 else None)
        out.append((fig, values, ratio))
    return out


def table(targets):
    """A plain-text table; the last column is ours/theirs (latencies: lower
    is better for us; claims/s and requests/s: higher is better)."""
    names = list(targets)
    header = ['figure'] + names + (['ours/theirs'] if len(names) == 2 else [])
    lines = []
    for fig, values, ratio in rows(targets):
        line = [fig] + [_fmt(values[n]) for n in names]
        if len(names) == 2:
            line.append(_fmt_ratio(ratio, values[names[0]],
                                   values[names[1]]))
        lines.append(line)
    widths = [max(len(r[i]) for r in [header] + lines)
              for i in range(len(header))]

    def render(r):
        return '  '.join([r[0].ljust(widths[0])] +
                         [c.rjust(w) for c, w in zip(r[1:], widths[1:])])
    sep = '  '.join('-' * w for w in widths)
    return '\n'.join([render(header), sep] + [render(r) for r in lines])


def problems(targets):
    """Human-readable lines for failed scenarios and non-200 answers."""
    out = []
    for name, results in targets.items():
        for scenario, res in results.items():
            if 'error' in res:
                out.append('%s %s: %s' % (name, scenario, res['error']))
                continue
            for key, query in res.get('queries', {}).items():
                if query.get('timeouts'):
                    out.append('%s %s: timed out after %ss (reported as a '
                               'lower bound)' % (name, key,
                                                 query['timeout_s']))
                elif query['failures']:
                    out.append('%s %s: %d/%d non-200 %s, e.g. %s' % (
                        name, key, query['failures'], query['reps'],
                        query['statuses'], query['sample_error']))
            for run in res.get('runs', ()):
                for sample in run['error_samples']:
                    out.append('%s %s, %d clients: %s' % (
                        name, scenario, run['clients'], sample))
    return out


def document(meta, targets):
    names = list(targets)
    return {
        'meta': meta,
        'results': targets,
        'figures': [dict({'figure': fig, 'ratio_ours_theirs': ratio,
                          'bounds': [n for n in names
                                     if isinstance(values[n], AtLeast)]},
                         **values) for fig, values, ratio in rows(targets)],
        'targets': names,
    }


def write_json(path, meta, targets):
    with open(path, 'w') as f:
        json.dump(document(meta, targets), f, indent=2, sort_keys=False)
        f.write('\n')
