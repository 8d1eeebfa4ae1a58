"""Handlers for /resource_classes and /resource_classes/{name}.

All exist from microversion 1.2. PUT changed meaning at 1.7: before, it
renames a custom class (JSON body with the new name); from 1.7 it has no
body and creates the class named in the URL, or confirms it exists.
"""

from allocsvc.api.controllers.placement.schemas import resource_class \
    as schema
from allocsvc.api.controllers.placement import util
from allocsvc.placement import resource_classes


def _url(req, name):
    return '%s/resource_classes/%s' % (util.base_url(req), name)


def _serialize(req, rc):
    return {'name': rc.name,
            'links': [{'rel': 'self', 'href': _url(req, rc.name)}]}


def _last_modified(*rcs):
    stamps = [t for rc in rcs for t in (rc.created_at, rc.updated_at)]
    return util.latest(*stamps)


@util.require_version((1, 2))
@util.check_accept('application/json')
def list_resource_classes(req):
    context = util.authorize(req, 'placement:resource_classes:list')
    rcs = resource_classes.list_all(context)
    body = {'resource_classes': [_serialize(req, rc) for rc in rcs]}
    return util.json_response(req, body, last_modified=_last_modified(*rcs))


@util.require_version((1, 2))
@util.require_content('application/json')
def create_resource_class(req):
    context = util.authorize(req, 'placement:resource_classes:create')
    data = util.extract_json(req, schema.POST_1_2)
    rc = resource_classes.create(context, data['name'])
    return util.empty_response(201, location=_url(req, rc.name))


@util.require_version((1, 2))
@util.check_accept('application/json')
def get_resource_class(req):
    context = util.authorize(req, 'placement:resource_classes:show')
    rc = resource_classes.get_by_name(context, req.urlvars['name'])
    return util.json_response(req, _serialize(req, rc),
                              last_modified=_last_modified(rc))


@util.require_content('application/json')
def _rename_resource_class(req):
    """1.2-1.6: rename a custom class; 200 with the renamed class."""
    context = util.authorize(req, 'placement:resource_classes:update')
    data = util.extract_json(req, schema.PUT_1_2)
    rc = resource_classes.rename(context, req.urlvars['name'], data['name'])
    return util.json_response(req, _serialize(req, rc),
                              last_modified=_last_modified(rc))


def _ensure_resource_class(req):
    """1.7 on: create the class named in the URL (201) or confirm it
    exists (204); any body is ignored."""
    context = util.authorize(req, 'placement:resource_classes:update')
    name = req.urlvars['name']
    # The name is checked as if it had been POSTed: the same schema, and
    # the same "JSON does not validate" report Placement gives.
    util.validate({'name': name}, schema.POST_1_2)
    rc, created = resource_classes.ensure(context, name)
    return util.empty_response(201 if created else 204,
                               location=_url(req, rc.name))


@util.require_version((1, 2))
def update_resource_class(req):
    if util.want_version(req) >= (1, 7):
        return _ensure_resource_class(req)
    return _rename_resource_class(req)


@util.require_version((1, 2))
def delete_resource_class(req):
    context = util.authorize(req, 'placement:resource_classes:delete')
    resource_classes.delete(context, req.urlvars['name'])
    return util.empty_response()
