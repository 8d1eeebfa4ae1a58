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
  (``EXTRA_SEGMENTS``) is the next argument of the node's own method:
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

import functools

import webob.exc

from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import utils
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


def legacy_path(root, segments):
    """``(node ident, path below the node)`` of ``/v1/nodes/<root>/
    <segments>``, the form that names the node last (``root`` in
    LEGACY_ROOTS); ``(None, message)`` when the path names no node
    (``message``: Ironic's 400 saying which argument is missing). An
    indicator's name may follow the node, as Ironic reads it."""
    tree, path, rest = _LEGACY_TREES[root], [root], list(segments)
    while rest and rest[0] in tree:
        tree = tree[rest[0]]
        path.append(rest.pop(0))
    if not rest or not rest[0]:
        return None, 'Missing mandatory parameter: node_ident'
    ident = rest.pop(0)
    if path[-1] == 'indicators':
        if not rest:
            return None, 'Missing mandatory parameter: indicator'
        path.append(rest.pop(0))
    if rest:
        raise webob.exc.HTTPNotFound()
    return ident, path


@dispatch.bodiless
def refuse(message, rest=None, **values):
    """Any request: 400 with ``message``, in Ironic's fault document."""
    raise utils.BadRequest(message)


# Sub-resources of a node that appeared after 1.1: 404 before, whatever
# the method (Ironic checks the version before routing). The traits of
# a node are not among them: below 1.37 their path means what Ironic's
# node methods make of it (``EXTRA_SEGMENTS``).
SUBRESOURCE_SINCE = {'portgroups': (1, 24), 'vifs': (1, 28),
                     'bios': (1, 40), 'allocation': (1, 52),
                     'history': (1, 78), 'inventory': (1, 81),
                     'children': (1, 83), 'firmware': (1, 86),
                     'vmedia': (1, 89)}
TRAITS_SINCE = (1, 37)
# What lies below /v1/nodes that is not a node ('': below the collection).
_COLLECTION_PATHS = ('detail', 'validate', '')


def valid_ident(ident):
    # Whatever the version: below 1.5 a name is then not found, below
    # 1.10 one that is no host name a 400 (node_common.get_node).
    return utils.is_uuid(ident) or utils.is_name_syntax(ident)


def check_ident(ident, name='node'):
    """As Ironic: a node's ident is checked before anything else, with
    its words for the argument ``name``."""
    if not valid_ident(ident):
        raise webob.exc.HTTPBadRequest(
            detail='Expected UUID or name for %s: %s' % (name, ident))


def resolve(segments):
    """``/v1/nodes/...`` (``segments``) as the route table reads it: the
    node named last moved after ``nodes``; or ``(handler, path values,
    rest)`` when Ironic answers the path before any route: a 400 for a
    path naming no node or an invalid one, ``extra`` (what a node's
    methods make of extra segments) for its traits below 1.37. 404 for a
    node's sub-resource without a node or newer than the request."""
    if len(segments) < 3 or segments[2] in _COLLECTION_PATHS:
        return segments
    ident, remainder = segments[2], segments[3:]
    if any('\x00' in segment for segment in segments[2:]):
        raise webob.exc.HTTPBadRequest(
            detail='The request path contains a NUL character.')
    if ident in LEGACY_ROOTS:
        # /v1/nodes/states/console/{node}: the node comes last.
        ident, remainder = legacy_path(ident, remainder)
        if ident is None:
            return functools.partial(refuse, remainder), {}, []
    elif ident in SUBRESOURCES:
        raise webob.exc.HTTPNotFound()
    if remainder and remainder[0] in LEGACY_ROOTS and \
            not valid_ident(ident):
        # Ironic's states, management... resources check the node
        # themselves, as their argument node_ident.
        return functools.partial(
            refuse, 'Expected UUID or name for node_ident: %s' % ident), \
            {}, []
    check_ident(ident)
    if remainder:
        if remainder[0] == 'traits' and not utils.allowed(TRAITS_SINCE):
            return EXTRA_SEGMENTS, {'node': ident}, remainder
        since = SUBRESOURCE_SINCE.get(remainder[0])
        if since is not None and not utils.allowed(since):
            raise webob.exc.HTTPNotFound()
    return segments[:2] + [ident] + list(remainder)


# ``/v1/nodes/{node}/<segments>``, where the first segment names nothing
# of the node at the request's version: what Ironic's node methods make
# of it, per method (``EXTRA_SEGMENTS``; PUT and HEAD a 405 naming the
# node's methods).

@dispatch.wsme_arguments()
def show_field(node, rest):
    """GET: the segment is the node's ``fields``; 404 for more."""
    if len(rest) != 1:
        raise webob.exc.HTTPNotFound()
    node_common.query_without_arguments()
    return node_common.show(node, rest[0])


@dispatch.wsme_arguments('patch')
def patch_resetting(node, rest, body):
    """PATCH: the segment is ``reset_interfaces``; the next one would
    be the patch itself."""
    node_common.query_without_arguments()
    reset = rest[0]
    utils.strict_bool('reset_interfaces', reset)
    if len(rest) > 1:
        raise utils.BadRequest("Schema error for patch: '%s' is not of "
                               "type 'array'" % rest[1])
    return node_common.patch(node, body, reset)


@dispatch.wsme_arguments('body')
def post_below(node, rest, body):
    """POST: Ironic passes the node's ident where the new node's body
    goes."""
    raise utils.BadRequest("Schema error for node: '%s' is not of type "
                           "'object'" % node)


@dispatch.wsme_arguments()
def delete_below(node, rest):
    raise exception.NotFound('Resource could not be found.')


EXTRA_SEGMENTS = dispatch.Methods({
    'GET': show_field, 'PATCH': patch_resetting, 'POST': post_below,
    'DELETE': delete_below})
