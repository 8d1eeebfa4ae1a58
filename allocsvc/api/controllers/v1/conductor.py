"""``/v1/conductors`` (1.49): the conductor services and whether they are
alive, as Ironic shows them.

Routes (``routes.ROUTES``)::

    GET /v1/conductors               list (?detail, ?fields, paging)
    GET /v1/conductors/{conductor}   show (by host name)

A conductor is ``alive`` while it is online and its heartbeat is younger
than ``[conductor] heartbeat_timeout`` seconds. The list is short (one
row per conductor process), so it is read whole and paged here.
"""

import pecan
import webob.exc

from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc import objects

FIRST_VERSION = (1, 49)
# Without ?detail and ?fields, as Ironic's _DEFAULT_RETURN_FIELDS.
DEFAULT_FIELDS = ('hostname', 'conductor_group', 'alive')
FIELDS = ('hostname', 'conductor_group', 'alive', 'drivers', 'created_at',
          'updated_at', 'links')
SORTABLE = ('id', 'hostname', 'conductor_group', 'created_at',
            'updated_at')
UNSORTABLE = ('alive', 'drivers')
LIST_PARAMS = ('detail', 'fields', 'limit', 'marker', 'sort_key',
               'sort_dir')
# Ironic's default, used until the conductor registers the option.
DEFAULT_HEARTBEAT_TIMEOUT = 60


def heartbeat_timeout(conf):
    try:
        return conf.conductor.heartbeat_timeout
    except AttributeError:  # NoSuchOptError: not registered here
        return DEFAULT_HEARTBEAT_TIMEOUT


def render(conductor):
    return {
        'hostname': conductor.hostname,
        'conductor_group': conductor.conductor_group or '',
        'alive': conductor.alive,
        'drivers': list(conductor.drivers or []),
        'created_at': utils.isotime(conductor.created_at),
        'updated_at': utils.isotime(conductor.updated_at),
        'links': base.resource_links('conductors', '/' + conductor.hostname),
    }


def _return_fields(fields, detail):
    """Ironic's get_request_return_fields: ``fields`` or ``detail``, not
    both; neither means the short form."""
    names = utils.parse_fields(fields, FIELDS)
    if names is not None and detail:
        raise utils.BadRequest('Can not specify ?detail=True and fields in '
                               'the same request.')
    if names is None and not detail:
        return list(DEFAULT_FIELDS)
    return names


def _sorted(conductors, sort_key, sort_dir):
    """Ordered as the DB lists do: NULLs first ascending, ties by id."""
    def key(conductor):
        value = getattr(conductor, sort_key)
        return (value is not None, value if value is not None else 0,
                conductor.id)
    return sorted(conductors, key=key, reverse=(sort_dir == 'desc'))


def _check_hostname(hostname):
    """No conductor has a NUL in its name (PostgreSQL could not even look
    one up)."""
    if '\x00' in hostname:
        raise exception.ConductorNotFound(hostname.replace('\x00', '\\x00'))


def gate():
    """Before 1.49 there are no conductors to read (404); other methods
    are not allowed at any version (the table's 405)."""
    if not base.api_version() >= FIRST_VERSION and \
            pecan.request.method == 'GET':
        raise webob.exc.HTTPNotFound()


def list_conductors():
    params = pecan.request.GET
    utils.check_arguments(params, LIST_PARAMS)
    access.authorize('baremetal:conductor:get')
    detail_given = params.get('detail')
    fields = params.get('fields')
    sort_key = params.get('sort_key', 'id')
    sort_dir = params.get('sort_dir', 'asc')
    detail = utils.parse_bool('detail', detail_given)
    names = _return_fields(fields, detail)
    limit = utils.parse_limit(params.get('limit'))
    utils.check_sort(sort_key, sort_dir, SORTABLE, UNSORTABLE)
    conductors = _sorted(
        objects.Conductor.list(utils.context(),
                               heartbeat_timeout(utils.conf())),
        sort_key, sort_dir)
    marker = params.get('marker')
    if marker is not None:
        _check_hostname(marker)
        hosts = [c.hostname for c in conductors]
        if marker not in hosts:
            raise exception.ConductorNotFound(marker)
        conductors = conductors[hosts.index(marker) + 1:]
    items = [render(c) for c in conductors[:limit]]
    document = utils.collection(
        'conductors', items, limit, marker_key='hostname',
        sort_key=sort_key, sort_dir=sort_dir, detail=detail_given,
        fields=fields)
    document['conductors'] = [utils.select_fields(item, names)
                              for item in items]
    return document


def show_conductor(conductor):
    params = pecan.request.GET
    utils.check_arguments(params, ('fields',))
    access.authorize('baremetal:conductor:get')
    names = utils.parse_fields(params.get('fields'), FIELDS)
    _check_hostname(conductor)
    found = objects.Conductor.get(utils.context(), conductor,
                                  heartbeat_timeout(utils.conf()))
    return utils.select_fields(render(found), names)
