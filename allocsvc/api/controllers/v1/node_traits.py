"""``/v1/nodes/{node}/traits`` and ``.../traits/{trait}`` (API 1.37).

A trait is a custom name (``CUSTOM_[A-Z0-9_]+``) or a standard os-traits
name; a node has at most 50. Changes hold the node's lock: a conductor
re-checks a node's traits under it before allocating the node.
"""

import pecan

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import utils

_ONE_OR_ALL = ('A single node trait may be added via PUT /v1/nodes/<node '
               'identifier>/traits/<trait> with no body, or all node traits '
               'may be replaced via PUT /v1/nodes/<node identifier>/traits '
               'with the list of traits specified in the request body.')


class NodeTraitsController:
    """``/v1/nodes/{node}/traits``; ``.../traits/{trait}`` is a
    ``NodeTraitController`` (see ``_lookup``)."""

    def __init__(self, ident):
        self.ident = ident

    @pecan.expose()
    def _lookup(self, trait, *remainder):
        return NodeTraitController(self.ident, trait), list(remainder)

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('DELETE, GET, PUT')

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.TraitsCollection)
    def _list(self):
        node_common.query_without_arguments()
        node = node_common.authorized_node(
            self.ident, 'baremetal:node:traits:list')
        return types.TraitsCollection.from_document(
            {'traits': list(node.traits)})

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        node_common.query_without_arguments()
        body = node_common.json_object(body, allow_empty=True)
        node_schema.check_traits_body(body)
        if body.get('traits') is None:
            raise utils.BadRequest(_ONE_OR_ALL)
        node = node_common.authorized_node(
            self.ident, 'baremetal:node:traits:set')
        utils.rpcapi().set_node_traits(utils.context(), node, body['traits'])

    @index.when(method='DELETE', **base.WSME_JSON)
    @base.expose(None, status_code=204)
    def _delete(self):
        node_common.query_without_arguments()
        node = node_common.authorized_node(
            self.ident, 'baremetal:node:traits:delete')
        utils.rpcapi().remove_node_traits(utils.context(), node)


class NodeTraitController(base.Resource):
    """``/v1/nodes/{node}/traits/{trait}``."""

    def __init__(self, ident, trait):
        self.ident = ident
        self.trait = trait

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed('DELETE, PUT')

    @index.when(method='PUT', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype, status_code=204)
    def _put(self, body=None):
        node_common.query_without_arguments()
        node_schema.check_trait(self.trait)
        if node_common.json_object(body, allow_empty=True):
            raise utils.BadRequest('No body should be provided when adding '
                                   'a trait')
        node = node_common.authorized_node(
            self.ident, 'baremetal:node:traits:set')
        utils.rpcapi().add_node_trait(utils.context(), node, self.trait)
        node_common.set_location(self.ident, 'traits', self.trait)

    @index.when(method='DELETE', **base.WSME_JSON)
    @base.expose(None, status_code=204)
    def _delete(self):
        node_common.query_without_arguments()
        node = node_common.authorized_node(
            self.ident, 'baremetal:node:traits:delete')
        utils.rpcapi().remove_node_traits(utils.context(), node,
                                          self.trait)
