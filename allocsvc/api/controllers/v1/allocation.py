"""``/v1/allocations`` and ``/v1/nodes/{ident}/allocation``: Ironic's
allocation API (1.52; PATCH 1.57; backfill 1.58; owner 1.60).

Routes (``routes.ROUTES``; everything else is a 404 or a 405)::

    GET    /v1/allocations                 list (filters, fields, paging)
    POST   /v1/allocations                 create (or backfill) -> 201
    GET    /v1/allocations/{ident}         show
    PATCH  /v1/allocations/{ident}         change name / extra (1.57)
    DELETE /v1/allocations/{ident}         delete, freeing the node -> 204
    GET    /v1/nodes/{ident}/allocation    the node's allocation
    DELETE /v1/nodes/{ident}/allocation    delete it -> 204

Creating persists intent, then hands over: the API picks a live
conductor, inserts the row (``allocating``, owned by that conductor) and
casts the work to it; a backfill is one RPC call that the conductor
answers with the allocation already ``active``, or with an error and no
row. The broker never holds a creation up for long: if the cast cannot
be sent within ``[api] conductor_handover_timeout`` (the broker is
down), the answer is the same 201 with the allocation ``allocating`` --
which is all Ironic's answer ever promises -- and the owner starts it
from the database (``[conductor] resume_allocations_interval``) once the
broker is back; only when no conductor is alive at all is it a 503,
with nothing written. Reads go through ``allocsvc.objects`` and never
touch the broker; PATCH and DELETE are RPC calls to a conductor, which
deletes under the node's lock, as Ironic's conductor does.

Where Ironic misbehaves (see the reference), this module answers 4xx
instead: a ``uuid`` that is not a UUID, an empty ``name``, a backfill
that does not fit; list filters combine with ``node`` and stay in the
``next`` link; an allocation named like a UUID can be fetched by name;
an unknown node under ``/nodes/{ident}/allocation`` is a 404, as the
API specification says (Ironic answers GET with a 400).
"""

from oslo_utils import uuidutils
import pecan
import webob.exc

from allocsvc import objects
from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import allocation_schema as schema
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import query_args
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

FIRST_VERSION = (1, 52)
PATCH_VERSION = (1, 57)
OWNER_VERSION = (1, 60)

FIELDS = ('candidate_nodes', 'created_at', 'extra', 'last_error', 'links',
          'name', 'node_uuid', 'resource_class', 'state', 'traits',
          'updated_at', 'uuid')
# Columns that exist but cannot be sorted on (JSON).
UNSORTABLE = ('extra', 'candidate_nodes', 'traits')
LIST_PARAMS = ('node', 'resource_class', 'state', 'owner', 'fields', 'limit',
               'marker', 'sort_key', 'sort_dir')
# What the query schema of Ironic's allocation list checks before its
# argument checks (limit, fields) run.
_SCHEMA_CHECKED = ('node', 'resource_class', 'state', 'owner', 'marker',
                   'sort_key', 'sort_dir')


# -- rendering ---------------------------------------------------------------

def allowed_fields():
    if utils.allowed(OWNER_VERSION):
        return FIELDS + ('owner',)
    return FIELDS


def render(allocation):
    """Ironic's allocation document (never ``id``, ``node_id`` or
    ``conductor_affinity``; ``owner`` from 1.60), its members in the
    order WSME gave them."""
    document = {
        'uuid': allocation.uuid,
        'name': allocation.name,
        'node_uuid': allocation.node_uuid,
        'state': allocation.state,
        'last_error': allocation.last_error,
        'resource_class': allocation.resource_class,
        'traits': list(allocation.traits or []),
        'candidate_nodes': list(allocation.candidate_nodes or []),
        'extra': dict(allocation.extra or {}),
        'owner': allocation.owner,
        'created_at': utils.isotime(allocation.created_at),
        'updated_at': utils.isotime(allocation.updated_at),
        'links': base.resource_links('allocations', '/' + allocation.uuid),
    }
    if not utils.allowed(OWNER_VERSION):
        del document['owner']
    return document


# -- look-ups -----------------------------------------------------------------

def _with_suffix(fetch, ident):
    """``fetch(ident)``; up to 1.90, if that is not found and the ident
    ends with ``.json``, ``fetch`` of the ident without it (Ironic tries
    both in this order)."""
    stripped = utils.strip_json_suffix(ident)
    try:
        return fetch(ident)
    except exception.NotFound as exc:
        if stripped == ident:
            raise
        error = exc
    try:
        return fetch(stripped)
    except exception.NotFound:
        # Ironic names the ident as the client gave it.
        raise error


def _fetch_allocation(ident):
    utils.check_ident(ident)
    ctx = utils.context()
    if utils.is_uuid(ident):
        try:
            return objects.Allocation.get_by_uuid(ctx, ident)
        except exception.AllocationNotFound:
            # An allocation may be named like a UUID (Ironic accepts the
            # name and then never finds it).
            if not utils.is_valid_logical_name(ident):
                raise
    return objects.Allocation.get_by_name(ctx, ident)


def _fetch_node(ident):
    utils.check_ident(ident)
    return objects.Node.get(utils.context(), ident)


def _visible_node(ident):
    """The node ``ident`` names, if the caller may see it (NodeNotFound
    otherwise, as for a missing node)."""
    node = _fetch_node(ident)
    access.authorize_node('baremetal:node:get', node, ident)
    return node


def _filter_value(key, value):
    """A list filter's value; a NUL character is refused here because
    PostgreSQL cannot even compare one."""
    if '\x00' in value:
        raise utils.BadRequest('Invalid value for %s: "%s"'
                               % (key, value.replace('\x00', '\\x00')))
    return value


# -- creation ----------------------------------------------------------------

def node_choice(body, rule):
    """The fields of a (validated) request ``body`` that choose a node
    -- ``resource_class``, ``traits``, ``candidate_nodes`` (as UUIDs),
    ``owner`` -- read as an allocation's are: the 406 for ``owner``
    below 1.60, policy ``rule``, then the owner the caller's allocation
    would get. For the extensions that choose nodes as an allocation
    does (the preview, allocation groups)."""
    owner = body.get('owner')
    if owner is not None and not utils.allowed(OWNER_VERSION):
        raise utils.NotAcceptable('Request not acceptable.')
    access.authorize(rule)
    return {
        'resource_class': body['resource_class'],
        'traits': list(body.get('traits') or []),
        'candidate_nodes': resolve_candidates(
            body.get('candidate_nodes') or []),
        'owner': access.allocation_create_owner(owner),
    }


def resolve_candidates(idents):
    """Node idents -> node UUIDs in the request's order; 400 naming those
    that are not nodes (Ironic's "Nodes cannot be found: ..."). Nodes
    outside the caller's project, when it is limited to one
    (``access.candidate_project``), are not found."""
    ctx = utils.context()
    project = access.candidate_project()
    uuids = [i for i in idents if utils.is_uuid(i)]
    found = {}
    if uuids:
        filters = {'uuid_in': sorted(set(uuids))}
        if project is not None:
            filters['project'] = project
        for node in objects.Node.list(ctx, filters):
            found[node.uuid] = node.uuid
    for ident in idents:
        if ident in found or utils.is_uuid(ident) or \
                not utils.is_valid_logical_name(ident):
            continue
        try:
            node = objects.Node.get_by_name(ctx, ident)
        except exception.NodeNotFound:
            continue
        if project is None or project in (node.owner, node.lessee):
            found[ident] = node.uuid
    missing = [i for i in dict.fromkeys(idents) if i not in found]
    if missing:
        raise utils.BadRequest('Nodes cannot be found: %s'
                               % ', '.join(missing))
    return [found[i] for i in idents]


def _backfill_node(ident):
    """The node a backfill names; 400 when there is none (Ironic re-codes
    its NodeNotFound)."""
    try:
        return _visible_node(ident)
    except exception.NodeNotFound as exc:
        raise utils.BadRequest(exc.message)


def _hand_over(ctx, rpcapi, values):
    """Insert the allocation as the chosen conductor's and cast it the
    work. A cast the broker does not take in time leaves the row to the
    conductor's periodic check (``rpcapi.create_allocation``); if the
    hand-over fails otherwise (a bug), the row is withdrawn: nothing is
    left ``allocating`` without a conductor that will find it."""
    conductor = rpcapi.pick_conductor(ctx)
    allocation = objects.Allocation(ctx, **values)
    allocation.conductor_affinity = conductor.id
    try:
        allocation.create()
    except exception.ConductorNotFound:
        # The list of live conductors is cached for a moment, and the
        # row of the one picked is gone meanwhile: pick again from a
        # fresh list (503 if that finds none).
        rpcapi.live_conductors(ctx, fresh=True)
        conductor = rpcapi.pick_conductor(ctx)
        allocation.conductor_affinity = conductor.id
        try:
            allocation.create()
        except exception.ConductorNotFound:
            raise exception.NoConductorAvailable(
                'conductor %s is gone' % conductor.hostname)
    try:
        rpcapi.create_allocation(ctx, allocation, conductor.hostname)
    except Exception as exc:
        # Unless a conductor's periodic check took it meanwhile (then
        # it is that conductor's, and stays).
        allocation.withdraw()
        if isinstance(exc, exception.AllocsvcException):
            raise
        raise exception.NoConductorAvailable(
            'conductor %s could not be reached (%s)'
            % (conductor.hostname, type(exc).__name__))
    return allocation


def create(body):
    """POST /v1/allocations after its schema: Ironic's checks in Ironic's
    order, then hand-over (or backfill); return the allocation."""
    ctx = utils.context()
    if body.get('owner') is not None and not utils.allowed(OWNER_VERSION):
        raise utils.NotAcceptable('Request not acceptable.')
    owner = access.allocation_create_owner(body.get('owner'))
    schema.check_name(body.get('name'))
    node = _backfill_node(body['node']) if body.get('node') else None
    resource_class = body.get('resource_class')
    if not resource_class:
        if node is None:
            raise utils.BadRequest('The resource_class field is mandatory '
                                   'when not backfilling')
        resource_class = node.resource_class
    candidates = resolve_candidates(body.get('candidate_nodes') or [])
    uuid = body.get('uuid')
    if not uuid:
        uuid = ((node and node.instance_uuid) or
                uuidutils.generate_uuid())
    values = {'uuid': uuid, 'name': body.get('name'),
              'resource_class': resource_class,
              'traits': list(body.get('traits') or []),
              'candidate_nodes': candidates,
              'extra': dict(body.get('extra') or {}),
              'owner': owner}
    rpcapi = utils.rpcapi()
    if node is None:
        return _hand_over(ctx, rpcapi, values)
    conductor = rpcapi.pick_conductor(ctx)
    return rpcapi.backfill_allocation(ctx, values, node.id,
                                      conductor.hostname)


# -- handlers ----------------------------------------------------------------

def gate():
    """Below 1.52 allocations do not exist: 404 for reads, 405 for
    writes, before anything else is looked at (Ironic's order)."""
    if not utils.allowed(FIRST_VERSION):
        if pecan.request.method == 'GET':
            raise webob.exc.HTTPNotFound()
        raise webob.exc.HTTPMethodNotAllowed()


@dispatch.wsme_arguments()
def list_allocations():
    """``GET /v1/allocations``: unknown parameters first, then a repeated
    one as Ironic reads it (fields add up, the others fail its query
    schema, limit its argument check), then each argument's checks."""
    utils.check_arguments(pecan.request.GET, LIST_PARAMS)
    params = query_args.read(pecan.request.GET, _SCHEMA_CHECKED)
    node, owner = params.get('node'), params.get('owner')
    sort_key = params.get('sort_key', 'id')
    sort_dir = params.get('sort_dir', 'asc')
    if owner is not None and not utils.allowed(OWNER_VERSION):
        raise utils.NotAcceptable('Request not acceptable.')
    names = utils.parse_fields(params.get('fields'), allowed_fields())
    owner = access.allocation_list_owner(owner)
    limit = utils.parse_limit(params.get('limit'))
    utils.check_sort(sort_key, sort_dir, objects.Allocation.SORTABLE,
                     UNSORTABLE)
    marker = utils.check_uuid(params.get('marker'))
    filters = {key: _filter_value(key, params[key])
               for key in ('resource_class', 'state') if key in params}
    if owner is not None:
        filters['owner'] = _filter_value('owner', owner)
    if node is not None:
        try:
            filters['node_id'] = _visible_node(node).id
        except exception.NodeNotFound as exc:
            raise utils.BadRequest(exc.message)
    items = [render(a) for a in objects.Allocation.list(
        utils.context(), filters, limit, marker, sort_key, sort_dir)]
    document = utils.collection(
        'allocations', items, limit, sort_key=sort_key, sort_dir=sort_dir,
        fields=params.get('fields'), node=node,
        resource_class=params.get('resource_class'),
        state=params.get('state'), owner=params.get('owner'))
    document['allocations'] = [utils.select_fields(item, names)
                               for item in items]
    return document


@dispatch.wsme_arguments('body')
def create_allocation(body):
    """``POST /v1/allocations``: 201, the allocation as created."""
    body = schema.validate_post(utils.json_body(body))
    document = render(create(body))
    return dispatch.Reply(201, document, document['links'][0]['href'])


def _fields():
    """The ``fields`` of a GET of one allocation, its only parameter;
    given more than once, the last one counts (as WSME read it)."""
    utils.check_arguments(pecan.request.GET, ('fields',))
    return utils.parse_fields(pecan.request.GET.get('fields'),
                              allowed_fields())


def _allocation(ident, action):
    """The allocation ``ident`` (UUID or name) names, if the caller may
    ``action`` it."""
    return access.authorize_allocation(
        action, _with_suffix(_fetch_allocation, ident), ident)


@dispatch.wsme_arguments()
def show_allocation(allocation):
    names = _fields()
    found = _allocation(allocation, 'baremetal:allocation:get')
    return utils.select_fields(render(found), names)


@dispatch.wsme_arguments('patch')
def update_allocation(allocation, body):
    """``PATCH /v1/allocations/{allocation}`` (1.57): its name and
    extra."""
    if not utils.allowed(PATCH_VERSION):
        raise webob.exc.HTTPMethodNotAllowed()
    patch = utils.json_body(body)
    schema.check_patch(patch)
    schema.check_patch_paths(patch)
    found = _allocation(allocation, 'baremetal:allocation:update')
    current = {'name': found.name, 'extra': found.extra}
    patched = schema.check_patched(utils.apply_patch(current, patch))
    changes = {key: value for key, value in patched.items()
               if value != current[key]}
    if changes:
        found = utils.rpcapi().update_allocation(
            utils.context(), found.id, changes)
    return render(found)


@dispatch.wsme_arguments()
def delete_allocation(allocation):
    found = _allocation(allocation, 'baremetal:allocation:delete')
    utils.rpcapi().destroy_allocation(utils.context(), found)
    return dispatch.Reply(204)


def _node_to_read(ident):
    """The node ``ident`` names, for reading its allocation: Ironic reads
    it as the node filter of the allocation list, so a missing node is a
    400 and one the caller may not see a bare 404."""
    try:
        node = _with_suffix(_fetch_node, ident)
    except exception.NodeNotFound as exc:
        raise utils.BadRequest(exc.message)
    try:
        access.authorize_node('baremetal:node:get', node, ident)
    except exception.NodeNotFound:
        raise exception.NotFound('Resource could not be found.')
    return node


def _node_allocation(ident, node, action):
    """The allocation of ``node`` (named ``ident``), if the caller may
    ``action`` it; the node's allocation_uuid is no secret to whoever
    sees the node."""
    if node.allocation_uuid is None:
        raise exception.NotFound('Allocation for node %s was not found'
                                 % ident)
    found = objects.Allocation.get_by_uuid(utils.context(),
                                           node.allocation_uuid)
    return access.authorize_allocation(action, found, conceal=False)


@dispatch.wsme_arguments()
def show_node_allocation(node):
    """``GET /v1/nodes/{node}/allocation``."""
    names = _fields()
    found = _node_allocation(node, _node_to_read(node),
                             'baremetal:allocation:get')
    return utils.select_fields(render(found), names)


@dispatch.wsme_arguments()
def delete_node_allocation(node):
    """``DELETE /v1/nodes/{node}/allocation``: 204."""
    found = _node_allocation(node, _with_suffix(_visible_node, node),
                             'baremetal:allocation:delete')
    utils.rpcapi().destroy_allocation(utils.context(), found)
    return dispatch.Reply(204)
