"""Helpers shared by the Placement handlers: request parsing and
validation, JSON responses, links and cache headers."""

import contextlib
import datetime
import functools
import json

import jsonschema
from oslo_utils import timeutils
from oslo_utils import uuidutils
import webob
import webob.acceptparse
import webob.exc

from allocsvc.api.controllers.placement import errors
from allocsvc.api.controllers.placement import microversion
from allocsvc.api import request_checks
from allocsvc.common import exception
from allocsvc.common import policy
from allocsvc.placement import providers

_FORMAT_CHECKER = jsonschema.FormatChecker()


@_FORMAT_CHECKER.checks('uuid')
def _is_uuid(value):
    # In a body Placement accepts any uuid-like string, with or without
    # dashes or braces.
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)


# In a query string Placement checks formats with jsonschema's own
# checkers, whose uuid is stricter: the dashed form only (any case), so
# ``in_tree={...}`` or a uuid without dashes is a 400 there.
_QUERY_FORMAT_CHECKER = jsonschema.FormatChecker()


def context(req):
    return req.environ['allocsvc.context']


def conf(req):
    """The service configuration (options are read per request, never at
    import time)."""
    return req.environ['allocsvc.conf']


def want_version(req):
    return microversion.version(req)


def authorize(req, action, target=None):
    ctx = context(req)
    policy.authorize(req.environ['allocsvc.policy_enforcer'], ctx, action,
                     target)
    return ctx


def require_version(min_version, status=404):
    """A handler that exists only from ``min_version`` on.

    Older requests get ``status``: 404 for a resource that did not exist
    yet, 405 for a method that was added to an existing resource.
    """
    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(req):
            if want_version(req) < min_version:
                if status == 405:
                    raise webob.exc.HTTPMethodNotAllowed()
                raise webob.exc.HTTPNotFound()
            return handler(req)
        return wrapper
    return decorator


def require_content(content_type='application/json'):
    """Refuse (415) a request body that is not ``content_type``."""
    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(req):
            if req.content_type != content_type:
                raise webob.exc.HTTPUnsupportedMediaType(
                    'The media type %(bad)s is not supported, use %(good)s'
                    % {'bad': req.content_type or None,
                       'good': content_type})
            return handler(req)
        return wrapper
    return decorator


def check_accept(*types):
    """Refuse (406) a request whose Accept header excludes JSON."""
    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(req):
            accept = webob.acceptparse.create_accept_header(
                req.environ.get(errors.ENV_ORIGINAL_ACCEPT))
            if not accept.acceptable_offers(list(types)):
                raise webob.exc.HTTPNotAcceptable(
                    'Only %s is provided' % ', '.join(types))
            return handler(req)
        return wrapper
    return decorator


# Checking a schema and building its validator costs far more than using
# it (it was half the time of an allocation PUT); schemas are module
# constants, so each is prepared once. The schema itself is kept in the
# entry: its id cannot be reused while the entry lives.
_VALIDATORS = {}


def _validator(schema, checker):
    key = (id(schema), id(checker))
    entry = _VALIDATORS.get(key)
    if entry is None or entry[0] is not schema:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        if len(_VALIDATORS) > 1000:
            _VALIDATORS.clear()
        entry = _VALIDATORS[key] = (
            schema, cls(schema, format_checker=checker))
    return entry[1]


def validate(data, schema, prefix='JSON does not validate',
             checker=_FORMAT_CHECKER):
    """BadRequest, in Placement's words, if ``data`` breaks ``schema``.

    The detail is ``<prefix>: `` and jsonschema's full report of the one
    error jsonschema.validate() would raise (best_match): its message,
    then "Failed validating '<keyword>' in schema[...]" with the failing
    part of the schema, then "On instance[...]" with the failing value.
    That is what Placement answers, and clients and Placement's own tests
    match on the keyword line, not only on the first one.
    """
    error = jsonschema.exceptions.best_match(
        _validator(schema, checker).iter_errors(data))
    if error is not None:
        raise exception.BadRequest('%s: %s' % (prefix, error))


def extract_json(req, schema):
    """The request body, parsed and validated against ``schema``: 415
    for a charset other than UTF-8, 400 for a body that is not UTF-8
    JSON text (``allocsvc.api.input``)."""
    charset = request_checks.foreign_charset(req.environ)
    if charset is not None:
        raise webob.exc.HTTPUnsupportedMediaType(
            'The charset %s is not supported, use UTF-8' % charset)
    try:
        data = request_checks.load_json(req.body)
    except request_checks.InvalidBody as exc:
        raise exception.BadRequest('Malformed JSON: %s' % exc)
    validate(data, schema)
    return data


def extract_provider_json(req, schema):
    """``extract_json`` for a request about the provider of the path.

    Placement reads the provider before it reads the body, so a bad body
    sent to a provider that does not exist is a 404, not a 400. The
    provider is looked up only once the body has failed: a good body goes
    on to the engine, whose own lookup answers the 404.
    """
    try:
        return extract_json(req, schema)
    except exception.BadRequest:
        providers.get_by_uuid(context(req), provider_uuid(req))
        raise


def validate_query(req, schema, multi=()):
    """Validate the query string against ``schema``.

    Parameters named in ``multi`` are given to the schema as lists of all
    their values; the others as their last value, as Placement does.
    """
    params = {}
    for key in req.GET:
        if key in multi:
            params[key] = req.GET.getall(key)
        else:
            params[key] = req.GET[key]
    validate(params, schema, 'Invalid query string parameters',
             _QUERY_FORMAT_CHECKER)
    return params


@contextlib.contextmanager
def provider_named_twice(separator):
    """Placement's detail for a missing provider as some of its reads
    word it: the engine's sentence, ``separator``, and the sentence again
    ("No resource provider with uuid U found : No resource provider with
    uuid U found")."""
    try:
        yield
    except exception.ProviderNotFound as exc:
        raise exception.NotFound('%s%s%s' % (exc.message, separator,
                                             exc.message))


def provider_uuid(req):
    """The provider uuid of the path; 404 at once if it cannot be one (a
    stray byte in it would otherwise reach the database, and a NUL byte
    is an error on PostgreSQL, not a miss)."""
    uuid = req.urlvars['uuid']
    if len(uuid) > 36 or not uuidutils.is_uuid_like(uuid):
        raise exception.NotFound(
            'No resource provider with uuid %s found' % uuid)
    return uuid


def json_response(req, data, status=200, last_modified=None, encode=None):
    """A JSON response; cache headers are added from microversion 1.15.
    ``encode``: a function turning ``data`` into the body's bytes, for a
    caller that knows a faster way for its data than the default."""
    resp = webob.Response(status=status, content_type='application/json',
                          charset=None)
    if encode is not None:
        resp.body = encode(data)
    else:
        # Bodies are fresh trees of dicts and lists, never cyclic:
        # checking for cycles was a third of the encoding time of large
        # answers.
        resp.body = json.dumps(data, check_circular=False).encode('utf-8')
    if want_version(req) >= (1, 15):
        resp.last_modified = last_modified or timeutils.utcnow(
            with_timezone=True)
        resp.cache_control = 'no-cache'
    return resp


def empty_response(status=204, location=None):
    resp = webob.Response(status=status)
    resp.content_type = None
    if location:
        resp.location = location
    return resp


def latest(*timestamps):
    """The most recent of some created_at/updated_at values (or None)."""
    stamps = [t for t in timestamps if t is not None]
    if not stamps:
        return None
    newest = max(stamps)
    if newest.tzinfo is None:
        newest = newest.replace(tzinfo=datetime.timezone.utc)
    return newest


def base_url(req):
    """Where this Placement API is mounted: links follow the mount point."""
    return req.script_name


def resource_provider_url(req, uuid):
    return '%s/resource_providers/%s' % (base_url(req), uuid)


def provider_links(req, uuid):
    want = want_version(req)
    url = resource_provider_url(req, uuid)
    # In Placement's order.
    links = [{'rel': 'self', 'href': url},
             {'rel': 'inventories', 'href': url + '/inventories'},
             {'rel': 'usages', 'href': url + '/usages'}]
    if want >= (1, 1):
        links.append({'rel': 'aggregates', 'href': url + '/aggregates'})
    if want >= (1, 6):
        links.append({'rel': 'traits', 'href': url + '/traits'})
    if want >= (1, 11):
        links.append({'rel': 'allocations', 'href': url + '/allocations'})
    return links
