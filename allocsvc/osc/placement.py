"""``openstack allocation candidate explain``: why an allocation
candidates query finds what it finds (GET
/allocation_candidates/explanation); ``openstack allocation candidate
claim``: N consumers' allocations chosen together from such a query,
all written or none (POST /allocation_candidates/claim).

Both take the options of osc-placement's ``openstack allocation
candidate list`` (``--resource``, ``--required``, ``--forbidden``,
``--member-of``, ``--group``, ``--group-policy``, ``--limit``) and
build the same query, plus what later microversions added
(``--in-tree``, ``--root-required``, ``--same-subtree``).
"""

import argparse
import collections
import uuid

from osc_lib.command import command
from osc_lib import exceptions

PATH = '/allocation_candidates/explanation'
CLAIM_PATH = '/allocation_candidates/claim'

# The per-group options, and the query parameter each goes to.
_GROUPED = ('resources', 'required', 'forbidden', 'member_of', 'in_tree')


class _Group(argparse.Action):
    """``--group S``: the options after it belong to group S."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.current_group = values
        namespace.groups.setdefault(values, collections.defaultdict(list))


class InGroup(argparse.Action):
    """A per-group option: appended to the current group's."""

    def __call__(self, parser, namespace, values, option_string=None):
        group = namespace.groups.setdefault(
            namespace.current_group, collections.defaultdict(list))
        group[self.dest].append(values)


def query(groups, group_policy=None, limit=None, root_required=(),
          same_subtree=()):
    """The query string's parameters, as (key, value) pairs, of the
    options parsed into ``groups`` {suffix: {option: [values]}}."""
    params = []
    for suffix, options in groups.items():
        resources = options.get('resources', [])
        for resource in resources:
            if resource.count('=') != 1:
                raise exceptions.CommandError(
                    'Arguments to --resource must be of form '
                    '<resource_class>=<value>')
        if resources:
            params.append(('resources' + suffix, ','.join(
                r.replace('=', ':') for r in resources)))
        required = list(options.get('required', []))
        required += ['!' + t for t in options.get('forbidden', [])]
        # A comma-separated --required is one trait of several (in:),
        # each other value one more trait to have.
        plain = [t for t in required if ',' not in t]
        if plain:
            params.append(('required' + suffix, ','.join(plain)))
        for any_of in (t for t in required if ',' in t):
            params.append(('required' + suffix, 'in:' + any_of))
        for aggs in options.get('member_of', []):
            params.append(('member_of' + suffix, aggs if aggs.startswith(
                '!') else 'in:' + aggs))
        for tree in options.get('in_tree', []):
            params.append(('in_tree' + suffix, tree))
    if group_policy:
        params.append(('group_policy', group_policy))
    if limit is not None:
        params.append(('limit', str(limit)))
    if root_required:
        params.append(('root_required', ','.join(root_required)))
    for suffixes in same_subtree:
        params.append(('same_subtree', suffixes))
    return params


def _steps(found):
    """The steps of every group, then the combination's, a line each."""
    lines = []
    for group in found['request_groups']:
        name = 'group %s' % (group['suffix'] or '(unsuffixed)')
        blocked = (group['blocked_by'] or {}).get('step')
        for index, step in enumerate(group['steps']):
            lines.append(_line(name, step, index == blocked))
    blocked = (found['combination']['blocked_by'] or {}).get('step')
    for index, step in enumerate(found['combination']['steps']):
        lines.append(_line('combination', step, index == blocked))
    return '\n'.join(lines)


def _line(name, step, blocked):
    counts = 'trees %s%s' % (step['trees'],
                             '+' if step.get('partial') else '')
    if 'providers' in step:
        counts = 'providers %s, %s' % (step['providers'], counts)
    value = ' %s' % step['value'] if step['value'] else ''
    return '%s%s: %s%s -- %s: %s' % (
        '>> ' if blocked else '', name, step['filter'], value,
        step['description'], counts)


def _examples(found):
    lines = []
    parts = [g['blocked_by'] for g in found['request_groups']]
    parts.append(found['combination']['blocked_by'])
    for blocked in parts:
        for example in (blocked or {}).get('examples', ()):
            uuid = example.get('provider') or example.get('root_provider')
            name = example['name']
            lines.append('%s%s: %s' % (
                uuid, ' (%s)' % name if name and name != uuid else '',
                example['reason']))
    return '\n'.join(lines)


def add_query_options(parser, resource_action=None):
    """The options of a candidates query on ``parser``;
    ``resource_action``: the action of ``--resource`` if not the
    query's own (a command whose ``--resource`` means more)."""
    parser.set_defaults(groups={}, current_group='')
    parser.add_argument(
        '--resource', metavar='<resource_class>=<value>',
        dest='resources', action=resource_action or InGroup,
        help='An amount of a resource class the providers of each '
             'candidate must have free between them (of the current '
             '--group: one provider). Repeat for each class.')
    parser.add_argument(
        '--required', metavar='<trait>', action=InGroup,
        help='A trait the candidate must have; a comma-separated '
             'list: one of them (1.39). Repeatable.')
    parser.add_argument(
        '--forbidden', metavar='<trait>', action=InGroup,
        help='A trait the candidate must not have (1.22). '
             'Repeatable.')
    parser.add_argument(
        '--member-of', metavar='<aggregate_uuid>[,...]',
        dest='member_of', action=InGroup,
        help='Comma-separated aggregate UUIDs, one of which the '
             'providers must be in (1.21); "!<uuid>" or '
             '"!in:<uuid>,..." for aggregates they must not be in '
             '(1.32). Repeatable.')
    parser.add_argument(
        '--in-tree', metavar='<provider_uuid>', dest='in_tree',
        action=InGroup,
        help='Only providers of the tree of this provider (1.31).')
    parser.add_argument(
        '--group', metavar='<suffix>', action=_Group,
        help='The options after it form the granular request group '
             '<suffix>, satisfied by one provider (1.25).')
    parser.add_argument(
        '--group-policy', choices=['none', 'isolate'],
        metavar='<group_policy>',
        help='How granular groups interact: none, or isolate (each '
             'from a different provider). Default with --group: none.')
    parser.add_argument(
        '--limit', metavar='<limit>', type=int,
        help='The limit of the query (1.16).')
    parser.add_argument(
        '--root-required', metavar='<trait>', action='append',
        default=[], dest='root_required',
        help='A trait the root of the tree must have; "!<trait>" one '
             'it must not have (1.35). Repeatable.')
    parser.add_argument(
        '--same-subtree', metavar='<suffix>,<suffix>[,...]',
        action='append', default=[], dest='same_subtree',
        help='Groups whose providers must be in one subtree (1.36). '
             'Repeatable.')
    return parser


def add_choice_options(parser, what):
    """How N ``what`` are chosen among the candidates, on ``parser``:
    ``--spread-by``, ``--max-per-domain``, ``--strict``, ``--order``."""
    parser.add_argument(
        '--spread-by', metavar='root|aggregate|trait:<PREFIX>',
        help='Failure domains: the provider tree, an aggregate of its '
             'root, or the trait of its root with this prefix.')
    parser.add_argument(
        '--max-per-domain', type=int, default=1, metavar='<k>',
        help='At most this many %s per domain (default 1).' % what)
    parser.add_argument(
        '--strict', action='store_true',
        help='Refuse when the spread rule cannot be met, rather than '
             'relax it (the answer says so).')
    parser.add_argument(
        '--order', choices=['pack', 'spread', 'random'],
        metavar='pack|spread|random',
        help='Try the candidates least free first (pack), most free '
             'first (spread), or at random.')
    return parser


def choice_body(parsed_args):
    """The ``spread`` and ``order`` of a body, from the options of
    ``add_choice_options``."""
    body = {}
    if parsed_args.spread_by:
        body['spread'] = {'by': parsed_args.spread_by,
                          'max_per_domain': parsed_args.max_per_domain,
                          'strict': parsed_args.strict}
    if parsed_args.order:
        body['order'] = parsed_args.order
    return body


def parsed_query(parsed_args):
    """The (key, value) parameters of the query the options name."""
    if not any(g.get('resources') for g in parsed_args.groups.values()):
        raise exceptions.CommandError(
            'At least one --resource must be specified.')
    policy = parsed_args.group_policy
    if policy is None and any(parsed_args.groups):
        policy = 'none'
    return query(parsed_args.groups, policy, parsed_args.limit,
                 parsed_args.root_required, parsed_args.same_subtree)


def whole(found):
    """``-f json``: the whole document."""
    columns = sorted(found)
    return columns, [found[c] for c in columns]


class ExplainAllocationCandidate(command.ShowOne):
    """Explain an allocation candidates query.

    Sends the query ``openstack allocation candidate list`` would send,
    with the same options, to allocsvc's explanation of it, and shows
    how many candidates it finds, why none (the first filter that left
    nothing, in words), each request group's filters with the providers
    and trees left after each (the blocking one marked ``>>``), and a
    few of the providers the blocking step dropped, with the reason.
    ``-f json`` shows the whole explanation document.

    For example::

      $ openstack allocation candidate explain --resource VCPU=4 \\
          --required HW_CPU_X86_AVX512F

    This command requires at least ``--os-placement-api-version 1.10``.
    """

    def get_parser(self, prog_name):
        return add_query_options(super().get_parser(prog_name))

    def take_action(self, parsed_args):
        http = self.app.client_manager.placement
        found = http.request('GET', PATH,
                             params=parsed_query(parsed_args)).json()
        if parsed_args.formatter == 'json':
            return whole(found)
        columns = ('allocation_candidates', 'reason', 'steps',
                   'dropped_examples')
        return columns, (found['allocation_candidates'],
                         found['reason'] or '', _steps(found),
                         _examples(found))


class ClaimAllocationCandidate(command.Lister):
    """Claim a group of allocation candidates.

    Chooses ``--count`` candidates of the query the options name (those
    of ``openstack allocation candidate list``) together, so that they
    fit their providers jointly and keep the spread rule, and writes the
    allocations of that many new consumers of ``--project`` and
    ``--user`` in one transaction: all or none. Lists each consumer
    with its allocations and its failure domains.

    For example, three consumers of 4 VCPU in three racks::

      $ openstack allocation candidate claim --resource VCPU=4 \\
          --count 3 --project P --user U \\
          --spread-by trait:CUSTOM_RACK_ --max-per-domain 1 --strict

    This command requires at least ``--os-placement-api-version 1.10``.
    """

    def get_parser(self, prog_name):
        parser = add_query_options(super().get_parser(prog_name))
        parser.add_argument(
            '--count', type=int, required=True, metavar='<count>',
            help='How many consumers to claim for.')
        parser.add_argument(
            '--project', required=True, metavar='<project_id>',
            help="The consumers' project.")
        parser.add_argument(
            '--user', required=True, metavar='<user_id>',
            help="The consumers' user.")
        parser.add_argument(
            '--consumer-type', metavar='<consumer_type>',
            help="The consumers' type (e.g. INSTANCE).")
        return add_choice_options(parser, 'consumers')

    def take_action(self, parsed_args):
        http = self.app.client_manager.placement
        params = {}
        for key, value in parsed_query(parsed_args):
            params.setdefault(key, []).append(value)
        members = {}
        for _n in range(parsed_args.count):
            member = {'project_id': parsed_args.project,
                      'user_id': parsed_args.user,
                      'consumer_generation': None}
            if parsed_args.consumer_type:
                member['consumer_type'] = parsed_args.consumer_type
            members[str(uuid.uuid4())] = member
        body = {'query': params, 'consumers': members}
        body.update(choice_body(parsed_args))
        found = http.request('POST', CLAIM_PATH, json=body).json()
        columns = ('consumer', 'allocations', 'domains')
        rows = []
        for consumer, entry in sorted(found['allocations'].items()):
            rows.append((consumer, ','.join(
                '%s:%s' % (rp, ','.join('%s=%s' % item for item in sorted(
                    alloc['resources'].items())))
                for rp, alloc in sorted(entry['allocations'].items())),
                ','.join(entry['domains'])))
        return columns, rows
