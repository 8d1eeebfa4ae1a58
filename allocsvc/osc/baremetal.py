"""``openstack baremetal allocation preview``: which nodes an
allocation with these parameters could take now, and why the other
nodes of its class could not (POST /v1/allocation_preview); and
``openstack baremetal allocation group create|list|show|delete``
(/v1/allocation_groups).

It takes the options of python-ironicclient's ``openstack baremetal
allocation create`` that choose a node (``--resource-class``,
``--trait``, ``--candidate-node``, ``--owner``) and reserves nothing.
"""

import time

from osc_lib.command import command
from osc_lib import exceptions

PATH = '/v1/allocation_preview'


def body(resource_class, traits=(), candidate_nodes=(), owner=None):
    """The preview's request body."""
    found = {'resource_class': resource_class}
    if traits:
        found['traits'] = list(traits)
    if candidate_nodes:
        found['candidate_nodes'] = list(candidate_nodes)
    if owner:
        found['owner'] = owner
    return found


def _nodes(found):
    lines = ['%s%s' % (node['uuid'],
                       ' (%s)' % node['name'] if node.get('name') else '')
             for node in found['nodes']]
    hidden = found['node_count'] - len(found['nodes'])
    if hidden > 0:
        lines.append('... and %d more' % hidden)
    return '\n'.join(lines)


def _dropped(found):
    return '\n'.join('%s: %s' % (entry['detail'], entry['count'])
                     for entry in found['dropped'])


class PreviewBaremetalAllocation(command.ShowOne):
    """Preview a bare metal allocation.

    Shows the nodes an allocation with these parameters could take now,
    how many nodes of its resource class there are and how many of
    them each reason ruled out, in the order the allocation algorithm
    checks them, and the error an allocation created now would end in
    when none fits. Nothing is reserved. Project-scoped users see their
    project's nodes only. ``-f json`` shows the whole answer.

    For example::

      $ openstack baremetal allocation preview --resource-class baremetal \\
          --trait CUSTOM_GPU
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--resource-class', dest='resource_class', required=True,
            metavar='<resource_class>',
            help='Resource class the node must have.')
        parser.add_argument(
            '--trait', action='append', dest='traits', default=[],
            metavar='<trait>',
            help='A trait the node must have. Repeatable.')
        parser.add_argument(
            '--candidate-node', action='append', dest='candidate_nodes',
            default=[], metavar='<candidate_node>',
            help='A node (name or UUID) the allocation may take; only '
                 'these if given. Repeatable.')
        parser.add_argument(
            '--owner', metavar='<owner>',
            help='The project that must own or lease the node '
                 '(microversion 1.60).')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.baremetal
        request = body(parsed_args.resource_class, parsed_args.traits,
                       parsed_args.candidate_nodes, parsed_args.owner)
        _resp, found = client.http_client.json_request('POST', PATH,
                                                       body=request)
        if parsed_args.formatter == 'json':
            columns = sorted(found)
            return columns, [found[c] for c in columns]
        columns = ('node_count', 'nodes', 'nodes_of_class', 'dropped',
                   'last_error')
        return columns, (found['node_count'], _nodes(found),
                         found['nodes_of_class'], _dropped(found),
                         found['last_error'] or '')


# -- allocation groups --------------------------------------------------------
#
# ``openstack baremetal allocation group create|list|show|delete``:
# /v1/allocation_groups, N nodes at once, all or none.

GROUPS = '/v1/allocation_groups'
GROUP_COLUMNS = ('uuid', 'name', 'state', 'resource_class', 'count',
                 'spread', 'members', 'owner', 'traits', 'candidate_nodes',
                 'last_error', 'created_at', 'updated_at')


def group_body(resource_class, count, name=None, member_names=(),
               traits=(), candidate_nodes=(), owner=None, spread_by=None,
               max_per_domain=None, strict=False):
    """The body of ``POST /v1/allocation_groups``."""
    found = body(resource_class, traits, candidate_nodes, owner)
    found['count'] = count
    if name:
        found['name'] = name
    if member_names:
        found['member_names'] = list(member_names)
    if spread_by:
        found['spread'] = {'by': spread_by, 'strict': bool(strict)}
        if max_per_domain is not None:
            found['spread']['max_per_domain'] = max_per_domain
    return found


def _members(group):
    return '\n'.join('%s%s' % (m['uuid'], ' -> %s' % m['node_uuid']
                               if m.get('node_uuid') else '')
                     for m in group['members'])


def _group_row(group, formatter):
    if formatter == 'json':
        return GROUP_COLUMNS, [group[c] for c in GROUP_COLUMNS]
    spread = group['spread']
    shown = dict(group, members=_members(group),
                 spread='' if not spread else
                 'by %(by)s, at most %(max_per_domain)s per domain, '
                 '%(kind)s' % dict(spread, kind='strict' if spread['strict']
                                   else 'preferred'),
                 traits=', '.join(group['traits']),
                 candidate_nodes=', '.join(group['candidate_nodes']),
                 last_error=group['last_error'] or '')
    return GROUP_COLUMNS, [shown[c] for c in GROUP_COLUMNS]


def _get_group(client, ident):
    _resp, found = client.http_client.json_request(
        'GET', '%s/%s' % (GROUPS, ident))
    return found


class CreateBaremetalAllocationGroup(command.ShowOne):
    """Create a bare metal allocation group: N nodes, all or none.

    The conductor chooses the nodes together, optionally spread over
    failure domains (``--spread-by conductor_group``, ``aggregate`` or
    ``trait:PREFIX``), and either binds all of them or none. Each member
    is an ordinary allocation. ``--wait`` waits until the group is
    active or in error.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--resource-class', dest='resource_class',
                            required=True, metavar='<resource_class>',
                            help='Resource class the nodes must have.')
        parser.add_argument('--count', type=int, required=True,
                            metavar='<count>', help='How many nodes.')
        parser.add_argument('--name', metavar='<name>',
                            help='Name of the group.')
        parser.add_argument('--member-name', action='append',
                            dest='member_names', default=[],
                            metavar='<name>',
                            help='Name of the next member allocation. '
                                 'Repeatable.')
        parser.add_argument('--trait', action='append', dest='traits',
                            default=[], metavar='<trait>',
                            help='A trait every node must have. '
                                 'Repeatable.')
        parser.add_argument('--candidate-node', action='append',
                            dest='candidate_nodes', default=[],
                            metavar='<candidate_node>',
                            help='A node (name or UUID) the group may '
                                 'take; only these if given. Repeatable.')
        parser.add_argument('--owner', metavar='<owner>',
                            help='The project that must own or lease the '
                                 'nodes (microversion 1.60).')
        parser.add_argument('--spread-by', dest='spread_by',
                            metavar='<domain>',
                            help='Spread the nodes over failure domains: '
                                 'conductor_group, aggregate or '
                                 'trait:PREFIX.')
        parser.add_argument('--max-per-domain', dest='max_per_domain',
                            type=int, metavar='<count>',
                            help='At most this many nodes per domain '
                                 '(default 1).')
        parser.add_argument('--strict', action='store_true',
                            help='Fail rather than break the spread rule.')
        parser.add_argument('--wait', type=int, metavar='<seconds>',
                            help='Wait this long (0: forever) for the '
                                 'group to be active or in error.')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.baremetal
        request = group_body(
            parsed_args.resource_class, parsed_args.count, parsed_args.name,
            parsed_args.member_names, parsed_args.traits,
            parsed_args.candidate_nodes, parsed_args.owner,
            parsed_args.spread_by, parsed_args.max_per_domain,
            parsed_args.strict)
        _resp, group = client.http_client.json_request('POST', GROUPS,
                                                       body=request)
        if parsed_args.wait is not None:
            group = _wait(client, group['uuid'], parsed_args.wait)
        return _group_row(group, parsed_args.formatter)


def _wait(client, uuid, timeout, clock=time.monotonic, sleep=time.sleep):
    deadline = clock() + timeout if timeout else None
    while True:
        group = _get_group(client, uuid)
        if group['state'] != 'allocating':
            return group
        if deadline is not None and clock() > deadline:
            raise exceptions.CommandError(
                'Allocation group %s is still allocating after %d seconds'
                % (uuid, timeout))
        sleep(0.5)


class ShowBaremetalAllocationGroup(command.ShowOne):
    """Show a bare metal allocation group."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('group', metavar='<group>',
                            help='UUID or name of the group.')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.baremetal
        return _group_row(_get_group(client, parsed_args.group),
                          parsed_args.formatter)


class ListBaremetalAllocationGroup(command.Lister):
    """List bare metal allocation groups."""

    def take_action(self, parsed_args):
        client = self.app.client_manager.baremetal
        _resp, found = client.http_client.json_request('GET', GROUPS)
        columns = ('uuid', 'name', 'state', 'count', 'resource_class')
        return columns, [[g[c] for c in columns]
                         for g in found['allocation_groups']]


class DeleteBaremetalAllocationGroup(command.Command):
    """Delete bare metal allocation groups and their member allocations,
    freeing their nodes."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('groups', metavar='<group>', nargs='+',
                            help='UUID or name of a group.')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.baremetal
        for ident in parsed_args.groups:
            client.http_client.json_request('DELETE',
                                            '%s/%s' % (GROUPS, ident))
