"""Handlers for /resource_providers/{uuid}/inventories and
/resource_providers/{uuid}/inventories/{resource_class}."""

import contextlib

from allocsvc.api.controllers.placement.schemas import inventory as schema
from allocsvc.api.controllers.placement import util
from allocsvc.common import exception
from allocsvc.placement import inventories


def _reserved_may_equal_total(req):
    return util.want_version(req) >= (1, 26)


@contextlib.contextmanager
def _unable_to(action, uuid):
    """Say which write an invalid inventory refused, in Placement's words
    ("Unable to create inventory for resource provider <uuid>: ...")."""
    try:
        yield
    except exception.InvalidInventory as exc:
        raise exception.BadRequest(
            'Unable to %s inventory for resource provider %s: %s'
            % (action, uuid, exc.message))


def _refuse_overcommit(req):
    return util.conf(req).placement.refuse_inventory_below_usage


def _inventory(resource_class, data):
    return inventories.Inventory.from_request(resource_class, data)


def _serialize_one(inv, generation):
    data = inv.values()
    data['resource_provider_generation'] = generation
    return data


def _send_all(req, generation, invs, last_modified=None):
    body = {
        'resource_provider_generation': generation,
        'inventories': {inv.resource_class: inv.values() for inv in invs},
    }
    resp = util.json_response(req, body, last_modified=last_modified)
    if not invs:
        # Placement dates an inventory list by its inventories: with none
        # it sends no Last-Modified (Cache-Control stays).
        resp.last_modified = None
    return resp


def _inventory_url(req, uuid, resource_class):
    return '%s/inventories/%s' % (util.resource_provider_url(req, uuid),
                                  resource_class)


@util.check_accept('application/json')
def get_inventories(req):
    context = util.authorize(
        req, 'placement:resource_providers:inventories:list')
    with util.provider_named_twice(' : '):
        rp, found = inventories.get_all(context, util.provider_uuid(req))
    invs = list(found.values())
    return _send_all(req, rp.generation, invs, last_modified=util.latest(
        *[t for inv in invs for t in (inv.created_at, inv.updated_at)]))


@util.check_accept('application/json')
def get_inventory(req):
    context = util.authorize(
        req, 'placement:resource_providers:inventories:show')
    with util.provider_named_twice(' : '):
        rp, inv = inventories.get_one(context, util.provider_uuid(req),
                                      req.urlvars['resource_class'])
    return util.json_response(
        req, _serialize_one(inv, rp.generation),
        last_modified=util.latest(inv.created_at, inv.updated_at))


@util.require_content('application/json')
def create_inventory(req):
    context = util.authorize(
        req, 'placement:resource_providers:inventories:create')
    uuid = util.provider_uuid(req)
    data = util.extract_provider_json(req, schema.POST)
    inv = _inventory(data['resource_class'], data)
    with _unable_to('create', uuid):
        generation = inventories.create(context, uuid, inv,
                                        _reserved_may_equal_total(req))
    resp = util.json_response(req, _serialize_one(inv, generation),
                              status=201)
    resp.location = _inventory_url(req, uuid, inv.resource_class)
    return resp


@util.require_content('application/json')
def set_inventories(req):
    context = util.authorize(
        req, 'placement:resource_providers:inventories:update')
    uuid = util.provider_uuid(req)
    data = util.extract_provider_json(req, schema.PUT_ALL)
    invs = [_inventory(name, fields)
            for name, fields in sorted(data['inventories'].items())]
    with _unable_to('update', uuid):
        generation = inventories.replace_all(
            context, uuid, data['resource_provider_generation'], invs,
            _reserved_may_equal_total(req), _refuse_overcommit(req))
    return _send_all(req, generation, invs)


@util.require_version((1, 5), status=405)
def delete_inventories(req):
    context = util.authorize(
        req, 'placement:resource_providers:inventories:delete')
    inventories.delete_all(context, util.provider_uuid(req))
    return util.empty_response()


@util.require_content('application/json')
def update_inventory(req):
    context = util.authorize(
        req, 'placement:resource_providers:inventories:update')
    uuid = util.provider_uuid(req)
    data = util.extract_provider_json(req, schema.PUT_ONE)
    inv = _inventory(req.urlvars['resource_class'], data)
    with _unable_to('update', uuid):
        generation = inventories.update(
            context, uuid, data['resource_provider_generation'], inv,
            _reserved_may_equal_total(req), _refuse_overcommit(req))
    return util.json_response(req, _serialize_one(inv, generation))


def delete_inventory(req):
    context = util.authorize(
        req, 'placement:resource_providers:inventories:delete')
    inventories.delete(context, util.provider_uuid(req),
                       req.urlvars['resource_class'])
    return util.empty_response()
