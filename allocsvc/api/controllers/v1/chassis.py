"""``/v1/chassis``: Ironic's chassis API.

Routes (``routes.ROUTES``)::

    GET, POST           /v1/chassis                 list (fields, detail,
                                                    paging), create
    GET                 /v1/chassis/detail
    GET, PATCH, DELETE  /v1/chassis/{uuid}
    GET                 /v1/chassis/{uuid}/nodes    the node list's, with
    GET                 /v1/chassis/{uuid}/nodes/detail   its filters
                                                    (``node``)

A chassis is not node state: the API reads and writes it through
``objects.Chassis``, as Ironic's API does, with no conductor and no
node lock. A node joins or leaves a chassis by its own ``chassis_uuid``
(a node write, made by the node's conductor). A chassis with nodes is
not deleted (400), and the database's foreign key keeps a node from
naming a chassis that a concurrent delete removed.

Requests are checked in Ironic's order and words (see
``chassis_schema``); Ironic's answers are followed to the letter,
``nodes`` included: Ironic renders the chassis's node links as a list
holding the list of links, and its response schema says so. The
handlers read their requests as WSME did (``dispatch.wsme_arguments``).
"""

import pecan

from allocsvc import objects
from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import chassis_schema as schema
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import utils

_LIST_ARGUMENTS = ('marker', 'limit', 'sort_key', 'sort_dir', 'fields',
                   'detail')
_DETAIL_ARGUMENTS = ('marker', 'limit', 'sort_key', 'sort_dir')


# -- rendering ---------------------------------------------------------------

def render(chassis, fields=None):
    """Ironic's chassis document: every field (only ``fields`` and the
    links, if given), its links and the links to its nodes."""
    nodes_path = '/%s/nodes' % chassis.uuid
    doc = {
        'uuid': chassis.uuid,
        'created_at': utils.isotime(chassis.created_at),
        'updated_at': utils.isotime(chassis.updated_at),
        'description': chassis.description,
        'extra': dict(chassis.extra or {}),
        'links': base.resource_links('chassis', '/' + chassis.uuid),
        'nodes': [base.resource_links('chassis', nodes_path)],
    }
    return utils.select_fields(doc, fields)


# -- arguments ---------------------------------------------------------------

def _arguments(known):
    """The query's parameters, after Ironic's first checks: 400 for an
    unknown one, then the UUID, integer and boolean ones converted."""
    params = node_common.query()
    utils.check_arguments(params, known)
    args = {}
    for name in known:
        if name not in params:
            continue
        value = params[name]
        if name == 'marker':
            value = utils.check_uuid(value, name)
        elif name == 'limit':
            value = schema.integer(name, value)
        elif name == 'fields':
            value = schema.string_list(value)
        elif name == 'detail':
            value = schema.boolean(name, value)
        args[name] = value
    return args


def _ident(ident):
    """The chassis UUID of a path: up to 1.90 a ``.json`` suffix is
    dropped (Ironic's format suffix)."""
    return utils.strip_json_suffix(ident)


def _check_fields_version(fields):
    if fields is not None and not utils.allowed((1, 8)):
        raise utils.NotAcceptable('Request not acceptable.')


def _fetch(uuid):
    return objects.Chassis.get_by_uuid(utils.context(), uuid)


# -- lists -------------------------------------------------------------------

def _next_link(resource, found, limit, args):
    """Ironic's ``next`` link of a full page: the sort, then ``detail``
    (if asked) and ``fields`` (those shown), limit and marker."""
    if not found or len(found) != limit:
        return None
    query = ['sort_key=%s' % args['sort_key'],
             'sort_dir=%s' % args['sort_dir']]
    if args.get('detail') is not None:
        query.append('detail=%s' % args['detail'])
    if args.get('fields'):
        query.append('fields=%s' % ','.join(args['fields']))
    query.append('limit=%d&marker=%s' % (limit, found[-1].uuid))
    return '%s/v1/%s?%s' % (base.public_url(), resource, '&'.join(query))


def _collection(resource, args, fields):
    limit = args.get('limit')
    if limit is not None and limit <= 0:
        raise utils.BadRequest('Limit must be positive')
    max_limit = utils.conf().api.max_limit
    limit = max_limit if limit is None else min(limit, max_limit)
    marker = args.get('marker')
    if marker is not None:
        _fetch(marker)      # 404 before a bad sort key, as in Ironic
    sort_key = args.get('sort_key') or 'id'
    if sort_key in schema.UNSORTABLE:
        raise utils.BadRequest('The sort_key value %s is an invalid field '
                               'for sorting' % sort_key)
    args = dict(args, sort_key=sort_key,
                sort_dir=args.get('sort_dir', 'asc'))
    found = objects.Chassis.list(utils.context(), limit, marker, sort_key,
                                 args['sort_dir'])
    document = {'chassis': [render(chassis, fields) for chassis in found]}
    link = _next_link(resource, found, limit, args)
    if link is not None:
        document['next'] = link
    return document


@dispatch.wsme_arguments()
def list_chassis():
    args = _arguments(_LIST_ARGUMENTS)
    schema.check_request(schema.LIST_QUERY, args)
    access.authorize('baremetal:chassis:get')
    fields = args.get('fields')
    _check_fields_version(fields)
    detail = args.get('detail')
    if detail is not None and not utils.allowed((1, 43)):
        raise utils.BadRequest('Invalid query parameter ?detail=%s '
                               'received.' % detail)
    if fields is not None and detail:
        raise utils.BadRequest('Can not specify ?detail=True and fields '
                               'in the same request.')
    if fields is None and not detail:
        fields = list(schema.LIST_FIELDS)
    return _collection('chassis', dict(args, fields=fields), fields)


@dispatch.wsme_arguments()
def list_chassis_detail():
    args = _arguments(_DETAIL_ARGUMENTS)
    schema.check_request(schema.DETAIL_QUERY, args)
    access.authorize('baremetal:chassis:get')
    return _collection('chassis/detail', args, None)


@dispatch.wsme_arguments('body')
def create_chassis(body):
    """201 with the new chassis and its Location."""
    _arguments(())
    if not pecan.request.body:
        body = {}       # Ironic creates a chassis from no body
    values = schema.check_document('chassis', body)
    schema.check_request(schema.CREATE_BODY, values)
    access.authorize('baremetal:chassis:create')
    chassis = objects.Chassis(utils.context(), **{
        key: value for key, value in values.items() if value is not None})
    chassis.create()
    return dispatch.Reply(201, render(chassis), '%s/v1/chassis/%s' % (
        base.public_url(), chassis.uuid))


@dispatch.wsme_arguments()
def show_chassis(chassis):
    args = _arguments(('fields',))
    uuid = utils.check_uuid(_ident(chassis), 'chassis_uuid')
    schema.check_request(schema.PATH, {'chassis_uuid': uuid})
    schema.check_request(schema.SHOW_QUERY, args)
    access.authorize('baremetal:chassis:get')
    _check_fields_version(args.get('fields'))
    return render(_fetch(uuid), args.get('fields'))


@dispatch.wsme_arguments('patch')
def update_chassis(chassis, body):
    """The JSON patch ``body`` applied to the chassis."""
    _arguments(())
    patch = body if pecan.request.body else {}  # what Ironic validates
    uuid = _ident(chassis)
    schema.check_argument('patch', schema.PATCH, patch)
    schema.check_request(schema.PATH, {'chassis_uuid': uuid})
    schema.check_request(schema.UPDATE_BODY, patch)
    access.authorize('baremetal:chassis:update')
    for op in patch:
        if utils.patch_root(op) not in schema.PATCHABLE:
            raise utils.BadRequest(
                'Cannot patch %s. Only the following can be updated: %s'
                % (op['path'], ', '.join(schema.PATCHABLE)))
    found = _fetch(uuid)
    current = {'uuid': found.uuid, 'extra': dict(found.extra),
               'description': found.description}
    patched = utils.apply_patch(current, patch)
    schema.check_document('patch', patched)
    if patched.get('uuid') != current['uuid']:
        raise utils.BadRequest('Cannot overwrite UUID for an existing '
                               'Chassis.')
    for name in schema.PATCHABLE:
        value = patched.get(name)
        if name == 'extra' and value is None:
            value = {}
        if value != current[name]:
            setattr(found, name, value)
    # Every PATCH is a write, as in Ironic: an empty one stamps
    # updated_at too. It is conditional on the fields it changes having
    # kept the values the patch was applied to.
    found.save(expected={name: current[name]
                         for name in found.obj_what_changed()})
    return render(found)


@dispatch.wsme_arguments()
def delete_chassis(chassis):
    _arguments(())
    uuid = utils.check_uuid(_ident(chassis), 'chassis_uuid')
    schema.check_request(schema.PATH, {'chassis_uuid': uuid})
    access.authorize('baremetal:chassis:delete')
    _fetch(uuid).destroy()
    return dispatch.Reply(204)
