"""Node paths that are not ``/v1/nodes/{node}/<resource>``, read as
Ironic's routing reads them.

Ironic's node controllers are Pecan ``RestController``s, which give a
meaning to paths its API reference never mentions, and its own clients
and tests use some of them:

* the older form of a node's state, management, maintenance and vendor
  resources names the node last: ``GET /v1/nodes/states/console/{node}``
  is ``GET /v1/nodes/{node}/states/console`` (``legacy_path``; the
  plugin's ``get_console`` sends it). With no node there, 400 "Missing
  mandatory parameter: node_ident";
* ``/v1/nodes/<sub-resource>/...`` (``ports``, ``traits`` ...) without a
  node is a 404;
* one more segment after a node that names nothing of it
  (``ExtraSegments``) is the next argument of the node's own method:
  ``GET /v1/nodes/{node}/name`` is ``GET /v1/nodes/{node}?fields=name``,
  ``PATCH /v1/nodes/{node}/true`` a patch with ``reset_interfaces=true``;
  ``PUT`` is a 405, ``DELETE`` Ironic's bare "Resource could not be
  found." and ``POST`` the schema error of a node that is a string. This
  is also what ``/v1/nodes/{node}/traits`` means below 1.37, where the
  traits resource does not exist yet: its ``GET`` is a 406 (the
  ``traits`` field is newer), its ``PUT`` a 405.

Where Ironic answers such a path with a server error (a ``GET`` with two
more segments), it is a 404 here.
"""

import pecan
from oslo_utils import strutils
import webob.exc

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import types
from allocsvc.api.controllers.v1 import utils
from allocsvc.api.middleware import errors
from allocsvc.common import exception

# The resources that take the node last, and the named resources below
# each (the segments before the node). A RestController reads a GET's
# own action names (``supported``, ``methods``) from the end of the
# path, after the node: those are not among them.
_LEGACY_TREES = {
    'states': {'console': {}, 'power': {}, 'provision': {}, 'raid': {},
               'boot_mode': {}, 'secure_boot': {}},
    'management': {'boot_device': {}, 'inject_nmi': {}, 'indicators': {}},
    'maintenance': {},
    'vendor_passthru': {},
}
LEGACY_ROOTS = frozenset(_LEGACY_TREES)

# Ironic's sub-resources of one node: without a node before them, 404.
SUBRESOURCES = frozenset((
    'ports', 'portgroups', 'vifs', 'volume', 'traits', 'bios', 'allocation',
    'history', 'inventory', 'children', 'firmware', 'vmedia'))

# What PUT on an extra segment is refused with: the methods of a node.
_NODE_METHODS = 'DELETE, GET, PATCH, POST'


def legacy_path(root, segments):
    """``(node ident, path below the node)`` of ``/v1/nodes/<root>/
    <segments>``, the form that names the node last (``root`` in
    LEGACY_ROOTS); ``(None, refusal)`` when the path names no node
    (``refusal``: a controller answering Ironic's 400). An indicator's
    name may follow the node, as Ironic reads it."""
    tree, path, rest = _LEGACY_TREES[root], [root], list(segments)
    while rest and rest[0] in tree:
        tree = tree[rest[0]]
        path.append(rest.pop(0))
    if not rest or not rest[0]:
        return None, Refusal('Missing mandatory parameter: node_ident')
    ident = rest.pop(0)
    if path[-1] == 'indicators':
        if not rest:
            return None, Refusal('Missing mandatory parameter: indicator')
        path.append(rest.pop(0))
    if rest:
        raise webob.exc.HTTPNotFound()
    return ident, path


class Refusal:
    """Any request: 400 with ``message``, in Ironic's fault document
    (routing cannot raise one: it would escape as a server error)."""

    _message = None

    def __init__(self, message):
        self._message = message

    @pecan.expose()
    def _lookup(self, *remainder):
        return self, []

    @pecan.expose('json')
    def index(self, *args, **kwargs):
        pecan.response.status = 400
        return errors.fault_body(400, self._message)


class ExtraSegments(base.Resource):
    """``/v1/nodes/{node}/<segments>``, where the first segment names
    nothing of the node at the request's version: what Ironic's node
    methods make of it. ``node_controller`` shows and patches the node
    (``show(fields)``, ``patch(body, reset_interfaces)``)."""

    _ident = _segments = _node = None

    def __init__(self, ident, segments, node_controller):
        self._ident = ident
        self._segments = list(segments)
        self._node = node_controller

    @pecan.expose('json', generic=True)
    def index(self, *args, **kwargs):
        base.not_allowed(_NODE_METHODS)

    @index.when(method='GET', **base.WSME_JSON)
    @base.expose(types.Node)
    def _get(self):
        if len(self._segments) != 1:
            raise webob.exc.HTTPNotFound()
        node_common.query_without_arguments()
        return self._node.show(self._segments[0])

    @index.when(method='PATCH', **base.WSME_JSON)
    @base.expose(types.Node, body=types.jsontype)
    def _patch(self, patch=None):
        node_common.query_without_arguments()
        reset = self._segments[0]
        try:
            strutils.bool_from_string(reset, strict=True)
        except ValueError as exc:
            raise utils.BadRequest('Invalid reset_interfaces: %s' % exc)
        if len(self._segments) > 1:
            # The next segment would be the patch itself.
            raise utils.BadRequest("Schema error for patch: '%s' is not of "
                                   "type 'array'" % self._segments[1])
        return self._node.patch(patch, reset)

    @index.when(method='POST', **base.WSME_JSON)
    @base.expose(None, body=types.jsontype)
    def _post(self, body=None):
        # Ironic passes the node's ident where the new node's body goes.
        raise utils.BadRequest("Schema error for node: '%s' is not of "
                               "type 'object'" % self._ident)

    @index.when(method='DELETE', **base.WSME_JSON)
    @base.expose(None)
    def _delete(self):
        raise exception.NotFound('Resource could not be found.')


# Every controller class here (the routing hook reads their attributes).
CONTROLLER_CLASSES = (ExtraSegments, Refusal)
