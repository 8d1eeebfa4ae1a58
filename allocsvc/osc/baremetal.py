"""``openstack baremetal allocation preview``: which nodes an
allocation with these parameters could take now, and why the other
nodes of its class could not (POST /v1/allocation_preview).

It takes the options of python-ironicclient's ``openstack baremetal
allocation create`` that choose a node (``--resource-class``,
``--trait``, ``--candidate-node``, ``--owner``) and reserves nothing.
"""

from osc_lib.command import command

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
