"""``/v1/nodes/{node}/traits`` and ``.../traits/{trait}`` (API 1.37).

A trait is a custom name (``CUSTOM_[A-Z0-9_]+``) or a standard os-traits
name; a node has at most 50. Changes hold the node's lock: a conductor
re-checks a node's traits under it before allocating the node.
"""

from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import utils

_ONE_OR_ALL = ('A single node trait may be added via PUT /v1/nodes/<node '
               'identifier>/traits/<trait> with no body, or all node traits '
               'may be replaced via PUT /v1/nodes/<node identifier>/traits '
               'with the list of traits specified in the request body.')


def list_traits(node):
    found = node_common.node_for(node, 'baremetal:node:traits:list')
    return {'traits': list(found.traits)}


def set_traits(node, body):
    """``PUT .../traits``: all of the node's traits."""
    node_common.query_without_arguments()
    body = node_common.json_object(body, allow_empty=True)
    node_schema.check_traits_body(body)
    if body.get('traits') is None:
        raise utils.BadRequest(_ONE_OR_ALL)
    found = node_common.authorized_node(node, 'baremetal:node:traits:set')
    utils.rpcapi().set_node_traits(utils.context(), found, body['traits'])
    return dispatch.Reply(204)


def remove_traits(node):
    found = node_common.node_for(node, 'baremetal:node:traits:delete')
    utils.rpcapi().remove_node_traits(utils.context(), found)
    return dispatch.Reply(204)


def add_trait(node, trait, body):
    """``PUT .../traits/{trait}``: one more, with no body."""
    node_common.query_without_arguments()
    node_schema.check_trait(trait)
    if node_common.json_object(body, allow_empty=True):
        raise utils.BadRequest('No body should be provided when adding a '
                               'trait')
    found = node_common.authorized_node(node, 'baremetal:node:traits:set')
    utils.rpcapi().add_node_trait(utils.context(), found, trait)
    return dispatch.Reply(204, location=node_common.location(
        node, 'traits', trait))


def remove_trait(node, trait):
    found = node_common.node_for(node, 'baremetal:node:traits:delete')
    utils.rpcapi().remove_node_traits(utils.context(), found, trait)
    return dispatch.Reply(204)
