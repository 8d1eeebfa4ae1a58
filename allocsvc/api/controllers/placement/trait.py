"""Handlers for /traits, /traits/{name} and /resource_providers/{uuid}/traits.

All exist from microversion 1.6; from 1.15 responses carry last-modified
and cache-control, including the empty 204s of GET and PUT /traits/{name}.
"""

from oslo_utils import timeutils

from allocsvc.api.controllers.placement.schemas import trait as schema
from allocsvc.api.controllers.placement import util
from allocsvc.common import exception
from allocsvc.placement import query
from allocsvc.placement import traits

# The provider generation is a 32-bit column: a value outside this range
# can never match it.
_GENERATION_RANGE = (-2 ** 31, 2 ** 31 - 1)


def parse_name_filter(value, max_items=None):
    """The ``name`` query parameter of GET /traits -> {'names': [...]}
    for ``in:A,B`` (at most ``max_items`` names) or {'prefix': P} for
    ``startswith:P``."""
    op, sep, arg = value.partition(':')
    if sep and op == 'in':
        query.check_count(max_items, arg.count(',') + 1,
                          "items in an 'in:' list of 'name'")
        return {'names': [n.strip() for n in arg.split(',') if n.strip()]}
    if sep and op == 'startswith':
        return {'prefix': arg}
    raise exception.BadRequest(
        'Badly formatted name parameter. Expected name query string '
        'parameter in form: ?name=[in|startswith]:[name1,name2|prefix]. '
        'Got: "%s"' % value)


def parse_associated(value):
    """The ``associated`` query parameter of GET /traits -> bool."""
    lowered = value.lower()
    if lowered not in ('true', 'false'):
        raise exception.BadRequest(
            'The query parameter "associated" only accepts "true" or '
            '"false". Got: "%s"' % value)
    return lowered == 'true'


def _url(req, name):
    return '%s/traits/%s' % (util.base_url(req), name)


def _last_modified(*records):
    stamps = [t for r in records for t in (r.created_at, r.updated_at)]
    return util.latest(*stamps)


def _empty_response(req, status, last_modified=None, location=None):
    """An empty 201/204; with cache headers from 1.15 like the JSON ones."""
    resp = util.empty_response(status, location=location)
    if util.want_version(req) >= (1, 15):
        resp.last_modified = last_modified or timeutils.utcnow(
            with_timezone=True)
        resp.cache_control = 'no-cache'
    return resp


@util.require_version((1, 6))
@util.check_accept('application/json')
def list_traits(req):
    context = util.authorize(req, 'placement:traits:list')
    params = util.validate_query(req, schema.LIST_QUERY)
    filters = {}
    if 'name' in params:
        filters.update(parse_name_filter(
            params['name'], util.conf(req).placement.max_in_items))
    if 'associated' in params:
        filters['associated'] = parse_associated(params['associated'])
    found = traits.list_traits(context, **filters)
    return util.json_response(req, {'traits': [t.name for t in found]},
                              last_modified=_last_modified(*found))


@util.require_version((1, 6))
def get_trait(req):
    context = util.authorize(req, 'placement:traits:show')
    trait = traits.get_by_name(context, req.urlvars['name'])
    return _empty_response(req, 204, last_modified=_last_modified(trait))


@util.require_version((1, 6))
def put_trait(req):
    context = util.authorize(req, 'placement:traits:update')
    name = req.urlvars['name']
    if not schema.is_custom_trait(name):
        raise exception.BadRequest(
            'The trait is invalid. A valid trait must be no longer than 255 '
            'characters, start with the prefix "CUSTOM_" and use following '
            'characters: "A"-"Z", "0"-"9" and "_"')
    trait, created = traits.ensure(context, name)
    return _empty_response(req, 201 if created else 204,
                           last_modified=_last_modified(trait),
                           location=_url(req, trait.name))


@util.require_version((1, 6))
def delete_trait(req):
    context = util.authorize(req, 'placement:traits:delete')
    traits.delete(context, req.urlvars['name'])
    return util.empty_response()


def _provider_traits_body(names, generation):
    return {'traits': names, 'resource_provider_generation': generation}


@util.require_version((1, 6))
@util.check_accept('application/json')
def list_traits_for_resource_provider(req):
    context = util.authorize(req, 'placement:resource_providers:traits:list')
    with util.provider_named_twice(': '):
        rp, found = traits.get_provider_traits(context,
                                               util.provider_uuid(req))
    body = _provider_traits_body([t.name for t in found], rp.generation)
    # The provider's updated_at moves whenever its trait set changes.
    return util.json_response(req, body,
                              last_modified=_last_modified(rp, *found))


@util.require_version((1, 6))
@util.require_content('application/json')
def update_traits_for_resource_provider(req):
    context = util.authorize(req,
                             'placement:resource_providers:traits:update')
    data = util.extract_json(req, schema.SET_PROVIDER_TRAITS)
    uuid = util.provider_uuid(req)
    # JSON Schema counts 1.0 as an integer: make it one.
    generation = int(data['resource_provider_generation'])
    if not _GENERATION_RANGE[0] <= generation <= _GENERATION_RANGE[1]:
        # Read the provider first so that an unknown one is still a 404.
        traits.get_provider_traits(context, uuid)
        raise exception.ConcurrentUpdate(
            "Resource provider's generation already changed. Please update "
            "the generation and try again.")
    new_generation, found = traits.set_provider_traits(
        context, uuid, data['traits'], generation)
    body = _provider_traits_body([t.name for t in found], new_generation)
    return util.json_response(req, body)


@util.require_version((1, 6))
def delete_traits_for_resource_provider(req):
    context = util.authorize(req,
                             'placement:resource_providers:traits:delete')
    traits.clear_provider_traits(context, util.provider_uuid(req))
    return util.empty_response()
