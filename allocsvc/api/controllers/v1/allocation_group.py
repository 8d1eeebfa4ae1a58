"""``/v1/allocation_groups`` (from 1.52, an allocsvc extension): N nodes
asked for at once, all or none, optionally spread over failure domains.
Ironic has no such resource and no Ironic client sends it; the path is
not below ``/v1/allocations``, where any word may be an allocation's
name.

Routes (``routes.ROUTES``)::

    POST   /v1/allocation_groups           create -> 201, allocating
    GET    /v1/allocation_groups           list (limit, marker)
    GET    /v1/allocation_groups/{ident}   show (UUID or name)
    DELETE /v1/allocation_groups/{ident}   delete it and its members -> 204

Creating persists intent, then hands over, as an allocation does: a live
conductor is picked, the group and its ``count`` member allocations are
written ``allocating`` and owned by it (one transaction), and the work
is cast to it (conductor RPC API 1.7). The members are ordinary
allocations: ``/v1/allocations`` lists, shows and deletes them, with
Ironic's document (which never names the group).

The group document::

    {"uuid", "name", "state", "resource_class", "traits",
     "candidate_nodes", "owner", "count",
     "spread": {"by", "max_per_domain", "strict"} or null,
     "members": [{"uuid": <allocation>, "node_uuid": <node or null>}],
     "last_error", "created_at", "updated_at", "links"}
"""

import pecan

from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import allocation
from allocsvc.api.controllers.v1 import allocation_group_schema as schema
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.objects import allocation_group as groups

FIRST_VERSION = allocation.FIRST_VERSION
LIST_PARAMS = ('limit', 'marker')


def render(group):
    return {
        'uuid': group.uuid,
        'name': group.name,
        'state': group.state,
        'resource_class': group.resource_class,
        'traits': list(group.traits or []),
        'candidate_nodes': list(group.candidate_nodes or []),
        'owner': group.owner,
        'count': group.count,
        'spread': group.spread,
        'members': [{'uuid': m.uuid, 'node_uuid': m.node_uuid}
                    for m in group.members],
        'last_error': group.last_error,
        'created_at': utils.isotime(group.created_at),
        'updated_at': utils.isotime(group.updated_at),
        'links': base.resource_links('allocation_groups', '/' + group.uuid),
    }


def _spread(spread):
    if not spread:
        return None
    return {'by': spread['by'],
            'max_per_domain': spread.get('max_per_domain', 1),
            'strict': spread.get('strict', False)}


def _hand_over(ctx, rpcapi, values, member_names):
    """Write the group as the chosen conductor's and cast it the work;
    withdraw it if the hand-over fails otherwise than by a slow broker
    (see ``allocation._hand_over``)."""
    conductor = rpcapi.pick_conductor(ctx)
    try:
        group = groups.create(ctx, dict(values,
                                        conductor_affinity=conductor.id),
                              member_names)
    except exception.ConductorNotFound:
        rpcapi.live_conductors(ctx, fresh=True)
        conductor = rpcapi.pick_conductor(ctx)
        try:
            group = groups.create(ctx, dict(
                values, conductor_affinity=conductor.id), member_names)
        except exception.ConductorNotFound:
            raise exception.NoConductorAvailable(
                'conductor %s is gone' % conductor.hostname)
    try:
        rpcapi.create_allocation_group(ctx, group, conductor.hostname)
    except Exception as exc:
        groups.withdraw(ctx, group)
        if isinstance(exc, exception.AllocsvcException):
            raise
        raise exception.NoConductorAvailable(
            'conductor %s could not be reached (%s)'
            % (conductor.hostname, type(exc).__name__))
    return group


@dispatch.wsme_arguments('body')
def create_group(body):
    """``POST /v1/allocation_groups``: 201, the group as created."""
    body = schema.validate(utils.json_body(body))
    values = dict(allocation.node_choice(
        body, 'baremetal:allocation_group:create'),
        name=body.get('name'), count=body['count'],
        spread=_spread(body.get('spread')))
    ctx = utils.context()
    try:
        group = _hand_over(ctx, utils.rpcapi(), values,
                           body.get('member_names') or [])
    except (exception.AllocationGroupDuplicate,
            exception.AllocationDuplicateName) as exc:
        raise exception.Conflict(exc.message)
    document = render(group)
    return dispatch.Reply(201, document, document['links'][0]['href'])


@dispatch.wsme_arguments()
def list_groups():
    """``GET /v1/allocation_groups``: the caller's project's groups, or
    every group for a caller who may list every allocation."""
    utils.check_arguments(pecan.request.GET, LIST_PARAMS)
    limit = utils.parse_limit(pecan.request.GET.get('limit'))
    marker = utils.check_uuid(pecan.request.GET.get('marker'))
    access.authorize('baremetal:allocation_group:list')
    owner = access.allocation_group_list_owner()
    items = [render(g) for g in groups.list_groups(
        utils.context(), owner, limit, marker)]
    return utils.collection('allocation_groups', items, limit)


def _group(ident, action):
    utils.check_ident(ident)
    return access.authorize_allocation_group(
        action, groups.get(utils.context(), ident), ident)


@dispatch.wsme_arguments()
def show_group(group):
    utils.check_arguments(pecan.request.GET, ())
    return render(_group(group, 'baremetal:allocation_group:get'))


@dispatch.wsme_arguments()
def delete_group(group):
    """``DELETE /v1/allocation_groups/{group}``: 204; its members are
    deleted as ``DELETE /v1/allocations/{member}`` deletes one."""
    found = _group(group, 'baremetal:allocation_group:delete')
    utils.rpcapi().destroy_allocation_group(utils.context(), found)
    return dispatch.Reply(204)
