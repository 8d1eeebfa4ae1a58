"""``/v1/conductors`` (1.49): the conductor services and whether they are
alive, as Ironic shows them.

Route table::

    GET /v1/conductors               list (?detail, ?fields, paging)
    GET /v1/conductors/{hostname}    show

A conductor is ``alive`` while it is online and its heartbeat is younger
than ``[conductor] heartbeat_timeout`` seconds. The list is short (one
row per conductor process), so it is read whole and paged here.
"""

import pecan
from pecan import rest
import webob.exc

from allocsvc.api.controllers.v1 import access
from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception
from allocsvc.db.baremetal import conductors as db_conductors

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


class ConductorsController(rest.RestController):
    """``/v1/conductors``."""

    _HANDLERS = frozenset(('get_all', 'get_one'))

    def _lookup_child(self, remainder):
        # Path segments are host names, never attributes.
        if remainder in self._HANDLERS:
            return getattr(self, remainder, None)
        return None

    @pecan.expose()
    def _route(self, args, request=None):
        if not utils.allowed(FIRST_VERSION) and \
                pecan.request.method == 'GET':
            raise webob.exc.HTTPNotFound()
        return super()._route(args, request)

    @base.expose()
    def get_all(self, **kwargs):
        params = pecan.request.GET
        utils.check_arguments(params, LIST_PARAMS)
        access.authorize('baremetal:conductor:get')
        detail = utils.parse_bool('detail', params.get('detail'))
        fields = _return_fields(params.get('fields'), detail)
        limit = utils.parse_limit(params.get('limit'))
        sort_key = params.get('sort_key', 'id')
        sort_dir = params.get('sort_dir', 'asc')
        utils.check_sort(sort_key, sort_dir, SORTABLE, UNSORTABLE)
        conductors = _sorted(
            db_conductors.list_conductors(
                utils.context(), heartbeat_timeout(utils.conf())),
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
            sort_key=sort_key, sort_dir=sort_dir,
            detail=params.get('detail'), fields=params.get('fields'))
        document['conductors'] = [utils.select_fields(item, fields)
                                  for item in items]
        return document

    @base.expose()
    def get_one(self, hostname, **kwargs):
        params = pecan.request.GET
        utils.check_arguments(params, ('fields',))
        access.authorize('baremetal:conductor:get')
        fields = utils.parse_fields(params.get('fields'), FIELDS)
        _check_hostname(hostname)
        conductor = db_conductors.get(utils.context(), hostname,
                                      heartbeat_timeout(utils.conf()))
        return utils.select_fields(render(conductor), fields)
