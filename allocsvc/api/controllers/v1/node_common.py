"""What every ``/v1/nodes`` handler shares: finding the node (or the
chassis) a request names, rendering a node as Ironic does at the
request's version, and the lock holder through which the API changes
nodes."""

from oslo_utils import strutils
import pecan

from allocsvc import objects
from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import chassis_schema
from allocsvc.api.controllers.v1 import node_conductor
from allocsvc.api.controllers.v1 import node_schema
from allocsvc.api.controllers.v1 import query_args
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.common import states

_SECRET = '******'


def _lookup(ident):
    ctx = utils.context()
    if utils.is_uuid(ident):
        return objects.Node.get_by_uuid(ctx, ident)
    if utils.allowed(node_schema.SINCE['name']):
        utils.check_ident(ident)
        return objects.Node.get_by_name(ctx, ident)
    # Before names existed, anything else was simply not found.
    raise exception.NodeNotFound(ident)


def get_node(ident, with_suffix=False):
    """The node ``ident`` (UUID or name) names: 400 for an ident that is
    neither, 404 if there is no such node. ``with_suffix``: up to 1.90 a
    node not found under ``ident`` is looked for without a ``.json``
    suffix (Ironic's format suffix)."""
    try:
        return _lookup(ident)
    except (exception.NodeNotFound, utils.BadRequest) as exc:
        stripped = utils.strip_json_suffix(ident)
        if not with_suffix or stripped == ident:
            raise
        error = exc
    try:
        return _lookup(stripped)
    except exception.NodeNotFound:
        # Ironic names the ident as the client gave it.
        raise error


def authorized_node(ident, action, with_suffix=False):
    """The node ``ident`` names (see ``get_node``), if the caller may
    ``action`` it: 404 for a node it may not even see, 403 for one it
    may see but not ``action`` (``access.authorize_node``)."""
    node = get_node(ident, with_suffix=with_suffix)
    access.authorize_node(action, node, ident)
    return node


def chassis_for_filter(uuid):
    """The chassis a node list is limited to: 400 for a value that is
    not a UUID, 404 if there is no such chassis (Ironic's answers)."""
    utils.check_uuid(uuid, 'chassis_uuid')
    return objects.Chassis.get_by_uuid(utils.context(), uuid)


def provision_state(state):
    """The provision state as a client of the request's version knows
    it: before 1.2, ``available`` was called null (NOSTATE)."""
    if state == states.AVAILABLE and not utils.allowed((1, 2)):
        return None
    return state


def _masked_instance_info(info):
    info = strutils.mask_dict_password(info, _SECRET)
    for key in ('configdrive', 'image_url'):
        if info.get(key):
            info[key] = _SECRET
    return info


def _value(node, name):
    if name in node_schema.TIMESTAMPS:
        return utils.isotime(getattr(node, name))
    if name == 'provision_state':
        return provision_state(node.provision_state)
    if name == 'driver_info':
        # Ironic shows secrets to nobody by default (its show_password
        # policy): passwords are masked.
        return strutils.mask_dict_password(node.driver_info, _SECRET)
    if name == 'instance_info':
        return _masked_instance_info(node.instance_info)
    if name == 'conductor':
        return node_conductor.host(node)
    return getattr(node, name)


def stored(node, name):
    """The value of field ``name`` of ``node`` as PATCH sees it (no
    masking)."""
    return getattr(node, name)


# The links of a whole node document to its sub-resources, from the
# version each appeared in (Ironic's; not its volume, which allocsvc
# does not provide).
_LINKED = (('ports', (1, 1)), ('states', (1, 14)), ('portgroups', (1, 24)))


def render(node, fields=None):
    """The node's document at the request's version: the fields that
    exist at that version (only ``fields`` if given), and its links."""
    doc = {name: _value(node, name) for name, since in node_schema.FIELDS
           if utils.allowed(since)}
    doc['links'] = base.resource_links('nodes', '/' + node.uuid)
    if fields is None:
        for name, since in _LINKED:
            if utils.allowed(since):
                doc[name] = base.resource_links(
                    'nodes', '/%s/%s' % (node.uuid, name))
    # Its members by name, as WSME gave them.
    return dict(sorted(utils.select_fields(
        access.redact_node(doc, node), fields).items()))


def parse_fields(text, one=False):
    """The ``fields`` query parameter: None if absent; 406 before 1.8 and
    for a field newer than the request's version, before the 400 for an
    unknown field (``one``: of a single node, in Ironic's words for it)."""
    return utils.parse_fields(
        text, node_schema.SINCE, gates=node_schema.SINCE, gates_first=True,
        unknown='Field %s is not a valid field.' if one else None)


def query(schema_checked=()):
    """The query parameters, a repeated one read as Ironic reads it
    (``query_args``); 400 for a value with a NUL character."""
    params = query_args.read(pecan.request.GET, schema_checked)
    for name, value in params.items():
        node_schema.check_text(name, value)
    return params


def json_object(body, allow_empty=False, required=None, schema=None):
    """``body`` (the request body as ``dispatch.read_body`` parsed it) as
    a JSON object ({} for an empty body when ``allow_empty``); 400
    otherwise, in Ironic's words for what it was asking: a body with the
    ``required`` argument reads as none ("Missing mandatory parameter:
    target"), a body checked against the ``schema`` of that name as not
    of type 'object'."""
    if allow_empty and not pecan.request.body:
        return {}
    body = utils.json_body(body)
    if not isinstance(body, dict):
        if required is not None:
            raise utils.BadRequest('Missing mandatory parameter: %s'
                                   % required)
        if schema is not None:
            raise utils.BadRequest("Schema error for %s: %r is not of type "
                                   "'object'" % (schema, body))
        raise utils.BadRequest('The request body must be a JSON object.')
    return body


def location(*parts):
    """The URL of ``/v1/nodes/<parts>``, for a ``Location`` header."""
    return '%s/v1/nodes/%s' % (base.public_url(), '/'.join(parts))


def query_without_arguments():
    """400 for any query parameter (the request takes none)."""
    utils.check_arguments(query(), ())


def node_for(ident, action):
    """The node ``ident`` names, if the caller may ``action`` it, for a
    request that takes no query parameter: what the handlers of one
    node's sub-resources start with."""
    query_without_arguments()
    return authorized_node(ident, action)


def required(body, name):
    """``body[name]``; Ironic's 400 when it is missing or null."""
    if body.get(name) is None:
        raise utils.BadRequest('Missing mandatory parameter: %s' % name)
    return body[name]


def show(ident, fields=None):
    """The document of the node ``ident``, with only ``fields`` (the
    text of Ironic's parameter) if given. As Ironic, the node is looked
    up first: 404 before any complaint about the fields."""
    node = authorized_node(ident, 'baremetal:node:get', with_suffix=True)
    return render(node, parse_fields(fields, one=True))


def _check_patch(ident, patch, reset):
    """Ironic's checks of a node's JSON ``patch`` that need no node."""
    # Ironic's JSON patch schema first ("Schema error for patch: ...").
    chassis_schema.check_argument('patch', chassis_schema.PATCH, patch)
    utils.check_patch(patch)
    if reset and not any(op['path'] == '/driver' and op['op'] != 'remove'
                         for op in patch):
        raise utils.BadRequest(
            "The reset_interfaces parameter can only be used when "
            "changing the node's driver.")
    for op in patch:
        root = utils.patch_root(op)
        if root not in node_schema.PATCHABLE:
            raise utils.BadRequest(
                'Cannot patch %s. Only the following can be updated: %s'
                % (op['path'], ', '.join(node_schema.PATCHABLE)))
        if not utils.allowed(node_schema.SINCE[root]):
            raise utils.NotAcceptable('Request not acceptable.')
        if op['path'] == '/name' and op.get('value') is not None:
            node_schema.check_name(
                op['value'], "Node %s: Cannot change name to invalid "
                             "name '%%s'" % ident)


def patch(ident, body, reset=None):
    """Apply the JSON patch ``body`` to the node ``ident`` and return its
    document; ``reset``: the text of Ironic's ``reset_interfaces``
    parameter, if given."""
    if reset is not None:
        if not utils.allowed((1, 45)):
            raise utils.NotAcceptable('Request not acceptable.')
        reset = utils.parse_bool('reset_interfaces', reset)
    body = utils.json_body(body)
    _check_patch(ident, body, reset)
    node = get_node(ident, with_suffix=True)
    access.authorize_node_patch(body, node, ident)
    current = {name: stored(node, name) for name in node_schema.PATCHABLE}
    patched = utils.apply_patch(current, body)
    for name in node_schema.PATCHABLE:
        if name not in node_schema.NODE['required']:
            patched.setdefault(name, None)  # removed: its default
    values = node_schema.check_node(patched, name='patch', patched=True)
    changes = {name: values[name] for name in node_schema.PATCHABLE
               if values[name] != current[name]}
    if 'chassis_uuid' in changes and changes['chassis_uuid'] is None \
            and not utils.allowed((1, 25)):
        # A node leaves its chassis from 1.25 on.
        raise utils.NotAcceptable('Request not acceptable.')
    node = utils.rpcapi().update_node(
        utils.context(), node, changes,
        expected={name: current[name] for name in changes},
        reset_interfaces=bool(reset))
    return render(node)
