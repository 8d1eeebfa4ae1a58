"""Handlers for /resource_providers and /resource_providers/{uuid}."""

import uuid as uuidlib

from allocsvc.api.controllers.placement.schemas import resource_provider \
    as schema
from allocsvc.api.controllers.placement import util
from allocsvc.common import exception
from allocsvc.placement import providers
from allocsvc.placement import query
from allocsvc.placement import resource_classes
from allocsvc.placement import traits


def _serialize(req, rp):
    data = {
        'uuid': rp.uuid,
        'name': rp.name,
        'generation': rp.generation,
        'links': util.provider_links(req, rp.uuid),
    }
    if util.want_version(req) >= (1, 14):
        data['parent_provider_uuid'] = rp.parent_provider_uuid
        data['root_provider_uuid'] = rp.root_provider_uuid
    return data


def _last_modified(*rps):
    stamps = [t for rp in rps for t in (rp.created_at, rp.updated_at)]
    return util.latest(*stamps)


@util.check_accept('application/json')
def get_resource_provider(req):
    context = util.authorize(req, 'placement:resource_providers:show')
    rp = providers.get_by_uuid(context, util.provider_uuid(req))
    return util.json_response(req, _serialize(req, rp),
                              last_modified=_last_modified(rp))


def _canonical(uuid):
    """The dashed, lower-case form of a uuid-like body value (or None).

    The schema accepts any uuid-like string, as Placement does, and
    Placement stores its canonical form: a provider created as
    2290d4af9e6e... is 2290d4af-9e6e-..., and conflicts with it.
    """
    return None if uuid is None else str(uuidlib.UUID(uuid))


@util.require_content('application/json')
def create_resource_provider(req):
    context = util.authorize(req, 'placement:resource_providers:create')
    want = util.want_version(req)
    data = util.extract_json(
        req, schema.POST_1_14 if want >= (1, 14) else schema.POST_1_0)
    rp = providers.create(context, data['name'],
                          uuid=_canonical(data.get('uuid')),
                          parent_provider_uuid=_canonical(
                              data.get('parent_provider_uuid')))
    location = util.resource_provider_url(req, rp.uuid)
    if want >= (1, 20):
        resp = util.json_response(req, _serialize(req, rp),
                                  last_modified=_last_modified(rp))
        resp.location = location
        return resp
    return util.empty_response(201, location=location)


@util.require_content('application/json')
def update_resource_provider(req):
    context = util.authorize(req, 'placement:resource_providers:update')
    want = util.want_version(req)
    data = util.extract_provider_json(
        req, schema.PUT_1_14 if want >= (1, 14) else schema.PUT_1_0)
    kwargs = {}
    if 'parent_provider_uuid' in data:
        kwargs['parent_provider_uuid'] = _canonical(
            data['parent_provider_uuid'])
    rp = providers.update(context, util.provider_uuid(req), data['name'],
                          allow_move=want >= (1, 37), **kwargs)
    return util.json_response(req, _serialize(req, rp),
                              last_modified=_last_modified(rp))


def delete_resource_provider(req):
    context = util.authorize(req, 'placement:resource_providers:delete')
    providers.delete(context, util.provider_uuid(req))
    return util.empty_response()


def _list_filters(req, context):
    want = util.want_version(req)
    multi = set()
    if want >= (1, 3):
        multi.add('member_of')
    if want >= (1, 18):
        multi.add('required')
    params = util.validate_query(req, schema.list_schema(want), multi=multi)
    limits = query.Limits.from_conf(util.conf(req))
    filters = providers.ListFilters(name=params.get('name'),
                                    uuid=params.get('uuid'),
                                    in_tree=params.get('in_tree'))
    if 'member_of' in params:
        filters.member_of, filters.forbidden_aggs = query.parse_member_of(
            params['member_of'], want, limits=limits)
    if 'required' in params:
        filters.required, filters.forbidden_traits = query.parse_required(
            params['required'], want, limits)
        unknown = traits.get_missing(context, query.all_trait_names(
            filters.required, filters.forbidden_traits))
        if unknown:
            raise query.unknown_traits(unknown)
    if 'resources' in params:
        amounts = query.parse_resources(params['resources'])
        try:
            ids = resource_classes.get_ids(context, amounts)
        except exception.NotFound as exc:
            raise exception.BadRequest(
                'Invalid resource class in resources parameter: %s' % exc)
        filters.resources = {ids[name]: amount
                             for name, amount in amounts.items()}
    return filters


@util.check_accept('application/json')
def list_resource_providers(req):
    context = util.authorize(req, 'placement:resource_providers:list')
    rps = providers.list_providers(context, _list_filters(req, context))
    body = {'resource_providers': [_serialize(req, rp) for rp in rps]}
    return util.json_response(req, body, last_modified=_last_modified(*rps))
