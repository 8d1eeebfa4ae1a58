"""How a request finds its handler in ``routes.ROUTES``.

The path is split as Pecan splits it (``/v1/nodes/`` is ``/v1/nodes``;
``/nodes`` is ``/v1/nodes``, Ironic's bookmark form), then:

1. a segment Pecan's object dispatch would have read as an attribute of
   a controller (``index``, ``_lookup``, ``__class__`` ...) is not found:
   clients met that 404 before the table existed, it stays;
2. the resource's gate (``routes.GATES``) refuses what does not exist at
   the request's version, before anything else, as Ironic does;
3. node paths are read as Ironic reads them (``node_paths.resolve``: the
   node checked first, its older "node last" form, sub-resources newer
   than the request);
4. the first row whose path matches the whole path is the route: below
   its minimum version a 404; a method it does not take a 405 whose
   ``Allow`` lists those it does (``HEAD`` is a method of its own: only
   the version documents take it); otherwise its handler runs;
5. a path no row matches is looked up one segment shorter, and so on:
   the row found (the resource the path lies below) answers with its
   ``below`` rule -- 404 by default, ``AS_METHODS`` (404 for a method
   the resource takes, else its 405), or a handler of its own (or one
   per method, ``Methods``: a 405 with its ``Allow`` for another). No
   row at all is a 404.

A handler is a function of the path's values (``node=...``) and, if it
has a ``body`` parameter, of the request's JSON body (``read_body``). It
returns the document to answer with (200), or a ``Reply`` (another
status, a ``Location``, no body); what it raises becomes Ironic's fault
document (``fault``).

WSME is not in the path of the handlers: each resource has one
representation, the JSON document its handler builds (its fields at the
request's version, which no static type describes), and the JSON
schemas beside it validate what comes in, with Ironic's messages. WSME
had turned that document into typed objects and back into the same
JSON, and validated nothing of the bodies (typed "any JSON"). What it
did at the edges is kept here: how a body is read (``read_body``) and
how an error is answered (``fault``). A handler marked
``wsme_arguments`` also reads the query as WSME read it for the
resource (``read_wsme_arguments``: a ``__body__`` parameter, the body
argument given as a parameter).
"""

import http.client
import inspect
import json
import logging
import re
from xml.etree import ElementTree

from oslo_db import exception as db_exc
import pecan
import webob
import webob.exc

from allocsvc.api.controllers.v1 import base
from allocsvc.common import exception

LOG = logging.getLogger(__name__)

# Any method: a row whose handler answers every method itself.
ANY = '*'
# The ``below`` rule: 404 for a method the resource takes, else its 405.
AS_METHODS = 'as-methods'

# What Pecan's object dispatch read as controller attributes rather than
# paths (see the module docstring): a segment of these names is a 404.
RESERVED = frozenset(name for name in dir(object) if name.startswith('_')) | {
    '__dict__', '__module__', '__weakref__', 'index', '_lookup', '_route',
    '_default', '_lookup', '_get', '_post', '_put', '_patch', '_delete',
    '_list', '_detail', '_validate', '_children', '_passthru', '_parse',
    '_node', '_node_to_read', '_allocation', '_show', '_destroy',
    '_collection', '_filters', '_known', '_resource', '_parent_uuid',
    '_configdrive', '_nested', '_ident', '_name', '_segments', '_message',
    '_indicator', '_vif', '_event', '_check', '_kind', '_value',
    '_setting'}


class Methods(dict):
    """Handlers per method where a route's ``below`` rule, or a path a
    resolver answers, depends on the method (what a node's methods make
    of extra segments): another method is a 405 whose ``Allow`` lists
    these."""

    def handler(self, method):
        if method not in self:
            raise webob.exc.HTTPMethodNotAllowed(
                headers={'Allow': ', '.join(sorted(self))})
        return self[method]


class Refuse:
    """A routing answer (``error(**kwargs)``, a webob HTTP error), in
    routing's words (``{"code", "title", "description"}``), not a
    handler's fault."""

    def __init__(self, error, **kwargs):
        self.error = error
        self.kwargs = kwargs

    def __call__(self):
        return self.error(**self.kwargs)


class Reply:
    """What a handler answers when it is not a 200 with a document:
    ``status``, a ``document`` (None: no body, as a 202 or 204 has
    none) and a ``location`` header."""

    __slots__ = ('status', 'document', 'location')

    def __init__(self, status, document=None, location=None):
        self.status = status
        self.document = document
        self.location = location


def _json_response(status, document):
    return webob.Response(body=json.dumps(document).encode('utf-8'),
                          status=status, content_type='application/json')


def render(result):
    """The response of a handler's result: a document (200), a Reply,
    or a response it made itself."""
    if isinstance(result, webob.Response):
        return result
    if not isinstance(result, Reply):
        return _json_response(200, result)
    if result.document is None:
        resp = webob.Response(status=result.status)
        del resp.content_type
        resp.body = b''
    else:
        resp = _json_response(result.status, result.document)
    if result.location is not None:
        resp.location = result.location
    return resp


def _status(code):
    return code if isinstance(code, int) and code in http.client.responses \
        else None


def fault(error):
    """Ironic's fault document for ``error`` raised by a handler, and its
    status: the error's ``code`` (a ``Client`` fault below 500), else a
    500 ``Server`` fault, logged (a 503 -- an outage the service answers
    for -- as one warning line)."""
    status = _status(getattr(error, 'code', None))
    if status is not None and 400 <= status < 500:
        message = getattr(error, 'faultstring', None)
        if message is None:
            message = str(error)
        return status, {'faultcode': getattr(error, 'faultcode', 'Client'),
                        'faultstring': message, 'debuginfo': None}
    if isinstance(error, exception.ServiceUnavailable):
        LOG.warning('Answered 503: %s', error)
    else:
        LOG.error('Server-side error: "%s"', error, exc_info=error)
    return status or 500, {'faultcode': getattr(error, 'faultcode', 'Server'),
                           'faultstring': str(error), 'debuginfo': None}


class UnsupportedBody(exception.AllocsvcException):
    status = 415


# The media types of a JSON body, and of an XML one (WSME's).
JSON_TYPES = ('application/json', 'text/javascript', 'application/javascript')
XML_TYPES = ('text/xml',)


def read_body(request, wanted):
    """The request's body as a handler reads it, as WSME read it: None
    when there is none (or a form); JSON parsed, 400 when it is not
    JSON; an XML document's text; 415 for any other media type. For a
    handler that takes no body (not ``wanted``), None, once a JSON body
    is found to be an object."""
    return _read(request.body, request.content_type, wanted)[1]


def _read(body, mimetype, wanted):
    """``(found, value)``: the body read (``read_body``), and whether it
    gave WSME its body argument (a JSON or XML body)."""
    if not body:
        return False, None
    if mimetype == 'application/x-www-form-urlencoded':
        return False, None
    if mimetype in JSON_TYPES:
        try:
            document = json.loads(body.decode('utf-8'))
        except ValueError:
            raise exception.BadRequest('Request is not in valid JSON format')
        if not wanted and not isinstance(document, dict):
            raise exception.BadRequest('Request must be a JSON dict')
        return True, document if wanted else None
    if mimetype in XML_TYPES:
        try:
            element = ElementTree.fromstring(body)
        except ElementTree.ParseError:
            raise exception.BadRequest('Request is not in valid XML format')
        if not wanted or element.get('nil') == 'true':
            return True, None
        return True, element.text
    raise UnsupportedBody('Unknown mimetype: %s' % mimetype)


def wsme_arguments(name=None):
    """Mark a handler as reading its request as WSME read it for the
    resource before it had a handler (``read_wsme_arguments``): ``name``
    is what WSME called the body argument (``body``, ``patch``), None
    for a handler that takes no body."""
    def mark(handler):
        handler.wsme_body = name
        return handler
    return mark


def read_wsme_arguments(request, wanted, name):
    """The body of a request, read as WSME read its arguments: with no
    body, the query's ``__body__`` is the body (in the request's media
    type: a 415 without one); the body argument (``name``) may also be
    a parameter of the query or of a form, its text then the body, a
    400 when the body gives it too."""
    params = request.params
    body = request.body
    if not body and '__body__' in params:
        body = params['__body__'].encode('utf-8')
    found, document = _read(body, request.content_type, wanted)
    if name is None or name not in params:
        return document
    if found:
        raise exception.BadRequest('Parameter %s was given several times'
                                   % name)
    return params[name]


def bodiless(handler):
    """Mark ``handler`` as one that never reads the body (nor checks
    it): the version documents and the routing refusals."""
    handler.bodiless = True
    return handler


def _takes_body(handler):
    return 'body' in inspect.signature(handler).parameters


def _reads_body(handler):
    return not getattr(getattr(handler, 'func', handler), 'bodiless', False)


_NOT_WSME = object()


def _request_body(handler, wanted):
    name = getattr(getattr(handler, 'func', handler), 'wsme_body',
                   _NOT_WSME)
    if name is _NOT_WSME:
        return read_body(pecan.request, wanted)
    return read_wsme_arguments(pecan.request, wanted, name)


def run(handler, values, rest):
    """The response of ``handler`` for the path's ``values``; an error
    it raises becomes Ironic's fault document."""
    try:
        try:
            arguments = dict(values)
            if rest:
                arguments['rest'] = rest
            wanted = _takes_body(handler)
            if _reads_body(handler):
                body = _request_body(handler, wanted)
                if wanted:
                    arguments['body'] = body
            return render(handler(**arguments))
        except db_exc.DBConnectionError as exc:
            # Lost outside the DB layer's retries (which raise the 503
            # DatabaseUnavailable themselves): the same answer.
            raise exception.DatabaseUnavailable() from exc
    except Exception as error:
        status, document = fault(error)
        response = _json_response(status, document)
        if status == 503:
            # An outage the client may simply wait out: when to ask
            # again.
            response.headers['Retry-After'] = str(getattr(
                error, 'retry_after', exception.ServiceUnavailable
                .retry_after))
        return response


class Route:
    """One row of the table, compiled."""

    __slots__ = ('template', 'since', 'methods', 'below', 'regex')

    def __init__(self, template, since, methods, below=None):
        self.template = template
        self.since = since
        self.methods = methods
        self.below = below
        pattern = re.sub(r'\\\{(\w+)\\\}', r'(?P<\1>[^/]+)',
                         re.escape(template))
        self.regex = re.compile('^%s$' % pattern)

    def allow(self):
        """The ``Allow`` header of a 405 here."""
        return ', '.join(sorted(set(self.methods) - {'HEAD', ANY}))

    def handler(self, method):
        return self.methods.get(method, self.methods.get(ANY))


def split(path):
    """The path's segments, as Pecan reads them: a trailing slash names
    the same resource, and the API's resources are under ``v1``
    whichever way they are reached."""
    segments = path.split('/')[1:]
    if len(segments) > 1 and segments[-1] == '':
        segments.pop()
    if segments and segments[0] not in ('', 'v1'):
        segments.insert(0, 'v1')
    return segments


class Match:
    """The outcome of routing: the route, the path's values, and what
    lies below it (``rest``: segments no row matched)."""

    __slots__ = ('route', 'values', 'rest')

    def __init__(self, route, values, rest=()):
        self.route = route
        self.values = values
        self.rest = list(rest)


def find(routes, segments):
    """The Match of ``segments`` in ``routes``: the whole path, else the
    longest prefix of it; None if not even ``/`` matches."""
    if '' in segments[1:]:
        # An empty segment inside the path: what lies below the part
        # before it (Pecan's reading).
        cut = segments.index('', 1)
    else:
        cut = len(segments)
    for end in range(cut, 0, -1):
        path = '/' + '/'.join(segments[:end])
        for route in routes:
            found = route.regex.match(path)
            if found:
                return Match(route, found.groupdict(), segments[end:])
    return None


def answer(match, method):
    """The handler that answers ``method`` at ``match``, or the
    routing's own 404 or 405."""
    route = match.route
    if route.since is not None and not base.api_version() >= route.since:
        raise webob.exc.HTTPNotFound()
    if match.rest:
        below = route.below
        if below is None:
            raise webob.exc.HTTPNotFound()
        if below == AS_METHODS:
            if route.handler(method) is not None:
                raise webob.exc.HTTPNotFound()
            raise webob.exc.HTTPMethodNotAllowed(
                headers={'Allow': route.allow()})
        handler = below
        if isinstance(handler, Methods):
            handler = handler.handler(method)
    else:
        handler = route.handler(method)
    if handler is None:
        raise webob.exc.HTTPMethodNotAllowed(
            headers={'Allow': route.allow()})
    if isinstance(handler, Refuse):
        raise handler()
    return handler


class Dispatcher:
    """The one Pecan controller of the bare-metal API: ``_route`` finds
    the handler of every request in the table."""

    def __init__(self, routes, gates, resolvers):
        self.routes = [Route(*row) for row in routes]
        self.gates = gates
        self.resolvers = resolvers

    def resolve(self, request):
        """``(handler, path values, rest)`` for the request; raises the
        routing's 404 or 405."""
        segments = split(request.path_info)
        # What lies below a route keeps its trailing slash: an empty
        # last segment (see node_paths.EXTRA_SEGMENTS).
        trailing = [''] if request.path_info.endswith('/') else []
        if any(segment in RESERVED for segment in segments):
            raise webob.exc.HTTPNotFound()
        resource = segments[1] if len(segments) > 1 else None
        gate = self.gates.get(resource)
        if gate is not None:
            gate()
        resolver = self.resolvers.get(resource)
        if resolver is not None:
            # The path as the table reads it, or a handler of its own.
            segments = resolver(segments)
            if isinstance(segments, tuple):
                handler, values, rest = segments
                if isinstance(handler, Methods):
                    handler = handler.handler(request.method)
                return handler, values, rest and rest + trailing
        match = find(self.routes, segments)
        if match is None:
            raise webob.exc.HTTPNotFound()
        handler = answer(match, request.method)
        return handler, match.values, match.rest and match.rest + trailing

    @pecan.expose()
    def _route(self, args, request):
        handler, values, rest = self.resolve(request)
        request.context['v1.handler'] = (handler, values, rest)
        return self.call, []

    @pecan.expose('json')
    def call(self, *args, **kwargs):
        return run(*pecan.request.context['v1.handler'])
