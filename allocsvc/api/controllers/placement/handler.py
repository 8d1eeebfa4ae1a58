"""The Placement URL surface in one table, and the dispatcher that uses it.

Every route maps HTTP methods to a handler taking a webob Request and
returning a webob Response. A known path with an unknown method is a 405
with an ``Allow`` header; an unknown path is a 404.
"""

import re

import webob.dec
import webob.exc

from allocsvc.api.controllers.placement import aggregate
from allocsvc.api.controllers.placement import allocation_candidate
from allocsvc.api.controllers.placement import allocation
from allocsvc.api.controllers.placement import errors
from allocsvc.api.controllers.placement import inventory
from allocsvc.api.controllers.placement import resource_class
from allocsvc.api.controllers.placement import reservation
from allocsvc.api.controllers.placement import reshaper
from allocsvc.api.controllers.placement import resource_provider
from allocsvc.api.controllers.placement import root
from allocsvc.api.controllers.placement import trait
from allocsvc.api.controllers.placement import usage

ROUTE_DECLARATIONS = {
    '/': {
        'GET': root.home,
    },
    '/resource_providers': {
        'GET': resource_provider.list_resource_providers,
        'POST': resource_provider.create_resource_provider,
    },
    '/resource_providers/{uuid}': {
        'GET': resource_provider.get_resource_provider,
        'PUT': resource_provider.update_resource_provider,
        'DELETE': resource_provider.delete_resource_provider,
    },
    '/resource_classes': {
        'GET': resource_class.list_resource_classes,
        'POST': resource_class.create_resource_class,
    },
    '/resource_classes/{name}': {
        'GET': resource_class.get_resource_class,
        'PUT': resource_class.update_resource_class,
        'DELETE': resource_class.delete_resource_class,
    },
    '/resource_providers/{uuid}/inventories': {
        'GET': inventory.get_inventories,
        'POST': inventory.create_inventory,
        'PUT': inventory.set_inventories,
        'DELETE': inventory.delete_inventories,
    },
    '/resource_providers/{uuid}/inventories/{resource_class}': {
        'GET': inventory.get_inventory,
        'PUT': inventory.update_inventory,
        'DELETE': inventory.delete_inventory,
    },
    '/resource_providers/{uuid}/usages': {
        'GET': usage.list_usages,
    },
    '/resource_providers/{uuid}/aggregates': {
        'GET': aggregate.get_aggregates,
        'PUT': aggregate.set_aggregates,
    },
    '/resource_providers/{uuid}/traits': {
        'GET': trait.list_traits_for_resource_provider,
        'PUT': trait.update_traits_for_resource_provider,
        'DELETE': trait.delete_traits_for_resource_provider,
    },
    '/traits': {
        'GET': trait.list_traits,
    },
    '/traits/{name}': {
        'GET': trait.get_trait,
        'PUT': trait.put_trait,
        'DELETE': trait.delete_trait,
    },
    '/usages': {
        'GET': usage.get_total_usages,
    },
    '/resource_providers/{uuid}/allocations': {
        'GET': allocation.list_for_resource_provider,
    },
    '/allocations': {
        'POST': allocation.set_allocations,
    },
    '/allocations/{uuid}': {
        'GET': allocation.list_for_consumer,
        'PUT': allocation.set_allocations_for_consumer,
        'DELETE': allocation.delete_allocations,
    },
    '/reshaper': {
        'POST': reshaper.reshape,
    },
    '/allocation_candidates': {
        'GET': allocation_candidate.list_allocation_candidates,
    },
    # allocsvc's extensions: no Placement resource has these paths, and
    # no name a client chooses can take them.
    '/allocation_candidates/explanation': {
        'GET': allocation_candidate.explain_allocation_candidates,
    },
    '/allocation_candidates/claim': {
        'POST': allocation_candidate.claim_allocation_candidates,
    },
    '/reservations': {
        'GET': reservation.list_reservations,
        'POST': reservation.create_reservation,
    },
    # Before the next: no reservation has this uuid.
    '/reservations/availability': {
        'GET': reservation.get_availability,
    },
    '/reservations/{uuid}': {
        'GET': reservation.get_reservation,
        'PUT': reservation.update_reservation,
        'DELETE': reservation.delete_reservation,
    },
}


def _compile(template):
    pattern = re.sub(r'\{(\w+)\}', r'(?P<\1>[^/]+)', template)
    return re.compile('^%s$' % pattern)


def _check_body_headers(req):
    """A body must say what it is: 400 for a request with a non-empty body
    (Content-Length above 0) and no Content-Type, before any routing, as
    Placement does. A request without a body reaches its handler, which
    may still refuse it (415) for lack of a JSON body."""
    length = req.environ.get('CONTENT_LENGTH')
    if not length:
        return
    try:
        length = int(length)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'content-length header must be an integer')
    if length > 0 and not req.environ.get('CONTENT_TYPE'):
        raise webob.exc.HTTPBadRequest(
            'content-type header required when content-length > 0')


class PlacementHandler:
    """WSGI application dispatching through ROUTE_DECLARATIONS."""

    def __init__(self, routes=None):
        self._routes = [(_compile(path), methods) for path, methods in
                        (routes or ROUTE_DECLARATIONS).items()]

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            return self._dispatch(req)
        except Exception as exc:
            return errors.to_http_error(req, exc)

    def _dispatch(self, req):
        _check_body_headers(req)
        path = req.path_info or '/'
        if len(path) > 1:
            path = path.rstrip('/') or '/'
        for regex, methods in self._routes:
            match = regex.match(path)
            if not match:
                continue
            handler = methods.get(req.method)
            if handler is None:
                raise webob.exc.HTTPMethodNotAllowed(
                    'The method specified is not allowed for this resource.',
                    headers=[('Allow', ', '.join(sorted(methods)))])
            req.urlvars = match.groupdict()
            return handler(req)
        raise webob.exc.HTTPNotFound('The resource could not be found.')
