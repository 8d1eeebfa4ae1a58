"""``/v1/nodes/{node}/traits`` and ``.../traits/{trait}`` (API 1.37).

A trait is a custom name (``CUSTOM_[A-Z0-9_]+``) or a standard os-traits
name; a node has at most 50. Changes hold the node's lock: a conductor
re-checks a node's traits under it before allocating the node.
"""

import pecan

from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import utils
from allocsvc.db.baremetal import nodes
from allocsvc.db.baremetal import provisioning

_ONE_OR_ALL = ('A single node trait may be added via PUT /v1/nodes/<node '
               'identifier>/traits/<trait> with no body, or all node traits '
               'may be replaced via PUT /v1/nodes/<node identifier>/traits '
               'with the list of traits specified in the request body.')


class NodeTraitsController:
    """The traits of one node (handlers take its ident)."""

    @base.expose()
    def get_all(self, ident):
        node_common.query_without_arguments()
        node = node_common.get_node(ident)
        access.authorize_node('baremetal:node:traits:list', node, ident)
        return {'traits': nodes.get_traits(utils.context(), node.id)}

    @base.expose(204)
    def put_all(self, ident):
        node_common.query_without_arguments()
        body = node_common.json_object(allow_empty=True)
        node_schema.check_traits_body(body)
        if body.get('traits') is None:
            raise utils.BadRequest(_ONE_OR_ALL)
        node = node_common.get_node(ident)
        access.authorize_node('baremetal:node:traits:set', node, ident)
        provisioning.set_traits(utils.context(), node.id, body['traits'],
                                node_common.locker())

    @base.expose(204)
    def put_one(self, ident, trait):
        node_common.query_without_arguments()
        node_schema.check_trait(trait)
        if pecan.request.body and \
                node_common.json_object(allow_empty=True):
            raise utils.BadRequest('No body should be provided when adding '
                                   'a trait')
        node = node_common.get_node(ident)
        access.authorize_node('baremetal:node:traits:set', node, ident)
        provisioning.add_trait(utils.context(), node.id, trait,
                               node_common.locker())
        node_common.set_location(ident, 'traits', trait)

    @base.expose(204)
    def delete_all(self, ident):
        node_common.query_without_arguments()
        node = node_common.get_node(ident)
        access.authorize_node('baremetal:node:traits:delete', node, ident)
        provisioning.remove_all_traits(utils.context(), node.id,
                                       node_common.locker())

    @base.expose(204)
    def delete_one(self, ident, trait):
        node_common.query_without_arguments()
        node = node_common.get_node(ident)
        access.authorize_node('baremetal:node:traits:delete', node, ident)
        provisioning.remove_trait(utils.context(), node.id, trait,
                                  node_common.locker())
