"""The bare-metal route table (allocsvc.api.controllers.v1.routes) and
how a path finds its row in it (dispatch), without an application."""

import ast
import inspect
import pathlib
import re

import pytest
import webob.exc

from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import routes

TABLE = [dispatch.Route(*row) for row in routes.ROUTES]


def _filled(template):
    return re.sub(r'\{\w+\}', 'x1', template)


def test_each_path_has_one_row():
    templates = [route.template for route in TABLE]
    assert len(templates) == len(set(templates))


@pytest.mark.parametrize('route', TABLE, ids=lambda r: r.template)
def test_every_row_is_reachable(route):
    # No row before it takes its paths.
    segments = dispatch.split(_filled(route.template))
    match = dispatch.find(TABLE, segments)
    assert match.route is route and match.rest == []


@pytest.mark.parametrize('route', TABLE, ids=lambda r: r.template)
def test_every_row_answers_something(route):
    assert route.methods
    for method, handler in route.methods.items():
        assert method in ('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE',
                          dispatch.ANY)
        assert callable(handler) or isinstance(
            handler, (dispatch.Legacy, dispatch.Refuse))


@pytest.mark.parametrize('path,segments', [
    ('/', ['']), ('/v1', ['v1']), ('/v1/', ['v1']),
    ('/nodes', ['v1', 'nodes']), ('/nodes/', ['v1', 'nodes']),
    ('/v1/nodes/n1/states/', ['v1', 'nodes', 'n1', 'states']),
    ('/v1//nodes', ['v1', '', 'nodes']),
])
def test_paths_split_as_pecan_reads_them(path, segments):
    assert dispatch.split(path) == segments


@pytest.mark.parametrize('path,template,rest', [
    ('/v1/nodes/n1', '/v1/nodes/{node}', []),
    ('/nodes/n1/states/power', '/v1/nodes/{node}/states/power', []),
    # Below a row: the longest row the path starts with, and the rest.
    ('/v1/nodes/n1/name', '/v1/nodes/{node}', ['name']),
    ('/v1/nodes/n1/states/x/y', '/v1/nodes/{node}/states', ['x', 'y']),
    ('/v1/nosuch', '/v1', ['nosuch']),
    ('/v1/chassis/c1/nodes/n1', '/v1/chassis/{chassis}/nodes', ['n1']),
    # An empty segment: below what comes before it.
    ('/v1/nodes//n1', '/v1/nodes', ['', 'n1']),
    ('/v1//nodes', '/v1', ['', 'nodes']),
])
def test_what_a_path_matches(path, template, rest):
    match = dispatch.find(TABLE, dispatch.split(path))
    assert match.route.template == template
    assert match.rest == rest


def test_allow_lists_the_methods_of_the_row():
    route = dispatch.Route('/v1/x', None, {'GET': len, 'PATCH': len,
                                           'DELETE': len, 'HEAD': len})
    assert route.allow() == 'DELETE, GET, PATCH'
    assert route.handler('GET') is len and route.handler('PUT') is None
    anything = dispatch.Route('/v1/y', None, {dispatch.ANY: len})
    assert anything.handler('PUT') is len and anything.allow() == ''


@pytest.mark.parametrize('mimetype,body,wanted,read', [
    ('application/json', b'{"a": 1}', True, {'a': 1}),
    ('application/json', b'[1]', True, [1]),
    ('text/javascript', b'"s"', True, 's'),
    ('application/json', b'{"a": 1}', False, None),
    ('application/x-www-form-urlencoded', b'a=1', True, None),
    ('text/xml', b'<a>1</a>', True, '1'),
    ('application/json', b'', True, None),
])
def test_bodies_read_as_wsme_read_them(mimetype, body, wanted, read):
    request = _Request(mimetype, body)
    assert dispatch.read_body(request, wanted) == read


@pytest.mark.parametrize('mimetype,body,wanted,status,message', [
    ('application/json', b'[1]', False, 400, 'Request must be a JSON dict'),
    ('text/javascript', b'{', True, 400,
     'Request is not in valid JSON format'),
    ('text/xml', b'{', True, 400, 'Request is not in valid XML format'),
    ('text/plain', b'x', True, 415, 'Unknown mimetype: text/plain'),
])
def test_unreadable_bodies(mimetype, body, wanted, status, message):
    with pytest.raises(Exception) as caught:
        dispatch.read_body(_Request(mimetype, body), wanted)
    assert caught.value.code == status
    assert dispatch.fault(caught.value) == (status, {
        'faultcode': 'Client', 'faultstring': message, 'debuginfo': None})


class _Request:
    def __init__(self, content_type, body):
        self.content_type = content_type
        self.body = body


@pytest.mark.parametrize('mimetype,body,params,name,read', [
    ('application/json', b'{"a": 1}', {}, 'body', {'a': 1}),
    ('application/json', b'', {'__body__': '[1]'}, 'body', [1]),
    ('application/json', b'', {'body': 'x'}, 'body', 'x'),
    ('application/x-www-form-urlencoded', b'body=x', {'body': 'x'}, 'body',
     'x'),
    ('application/json', b'[1]', {'body': 'x'}, 'patch', [1]),
    ('application/json', b'', {}, 'patch', None),
])
def test_arguments_read_as_wsme_read_them(mimetype, body, params, name,
                                          read):
    request = _Request(mimetype, body)
    request.params = params
    assert dispatch.read_wsme_arguments(request, True, name) == read


@pytest.mark.parametrize('mimetype,body,params,name,status,message', [
    ('application/json', b'{}', {'body': 'x'}, 'body', 400,
     'Parameter body was given several times'),
    ('text/xml', b'<a/>', {'patch': 'x'}, 'patch', 400,
     'Parameter patch was given several times'),
    ('', b'', {'__body__': '{}'}, None, 415, 'Unknown mimetype: '),
])
def test_arguments_wsme_refused(mimetype, body, params, name, status,
                                message):
    request = _Request(mimetype, body)
    request.params = params
    with pytest.raises(Exception) as caught:
        dispatch.read_wsme_arguments(request, name is not None, name)
    assert dispatch.fault(caught.value) == (status, {
        'faultcode': 'Client', 'faultstring': message, 'debuginfo': None})


def test_methods_below_a_row():
    methods = dispatch.Methods({'GET': len, 'POST': print})
    assert methods.handler('GET') is len
    with pytest.raises(webob.exc.HTTPMethodNotAllowed) as caught:
        methods.handler('PUT')
    assert caught.value.headers['Allow'] == 'GET, POST'


@pytest.mark.parametrize('route', TABLE, ids=lambda r: r.template)
def test_every_route_is_served_by_plain_handlers(route):
    # No Pecan controller behind any row: a function (or a partial of
    # one), a routing refusal, or the below-rules of the table.
    for handler in list(route.methods.values()) + [route.below]:
        if handler is None or handler == dispatch.AS_METHODS:
            continue
        if isinstance(handler, dispatch.Methods):
            handlers = list(handler.values())
        else:
            handlers = [handler]
        for one in handlers:
            assert isinstance(one, dispatch.Refuse) or inspect.isfunction(
                getattr(one, 'func', one)), (route.template, one)


def test_wsme_is_not_imported():
    # The /v1 handlers build their documents themselves (see dispatch).
    root = pathlib.Path(dispatch.__file__).parents[3]
    for path in root.rglob('*.py'):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = ([alias.name for alias in node.names]
                     if isinstance(node, ast.Import) else
                     [node.module or ''] if isinstance(node, ast.ImportFrom)
                     else [])
            assert not any(name.split('.')[0] in ('wsme', 'wsmeext')
                           for name in names), path
