"""Request helpers every ``/v1`` controller shares.

What the request carries (context, configuration, conductor client),
microversion gates, identifiers, ``fields``, list paging and its
``next`` link, JSON bodies and JSON patches, and the rendering of
timestamps, all with Ironic's error messages. No SQL and no business
rules here.
"""

import json
import re
import urllib.parse

import jsonpatch
import jsonschema
from oslo_utils import strutils
from oslo_utils import uuidutils
import pecan
import webob.exc

from allocsvc.api.controllers.v1 import base
from allocsvc.api.middleware import auth
from allocsvc.common import exception

# Logical names from API 1.10: RFC 3986 unreserved characters.
_NAME_RE = re.compile(r'^[A-Za-z0-9\-._~]+$')
# Before 1.10 a logical name had to be a valid host name.
_HOSTNAME_LABEL_RE = re.compile(r'^(?!-)[a-z0-9-]{1,63}(?<!-)$')
NAME_MAX_LENGTH = 255
_UUID_CHARS = re.compile(r'^[0-9a-fA-F-]+$')

# MariaDB's TEXT, where free-form values (reasons, descriptions, JSON
# documents) are stored, holds 64 KiB.
MAX_TEXT_BYTES = 65535

PATCH_OPS = ('add', 'replace', 'remove')


class BadRequest(exception.BadRequest):
    """A 400 raised by the API layer itself."""


class NotAcceptable(exception.AllocsvcException):
    status = 406


def context():
    return pecan.request.environ[auth.ENV_CONTEXT]


def conf():
    return pecan.request.environ[auth.ENV_CONF]


def rpcapi():
    """The conductor RPC client (``allocsvc.conductor.rpcapi``), through
    which every change is made; 503 in an API process set up without
    one."""
    client = pecan.request.environ[auth.ENV_RPCAPI]
    if client is None:
        raise exception.NoConductorAvailable('no conductor client is '
                                             'configured')
    return client


def version():
    return base.api_version()


def allowed(minimum):
    """Whether the request's version is ``minimum`` (a (major, minor)
    tuple) or newer."""
    return version() >= minimum


def require_version(minimum, error=webob.exc.HTTPNotFound):
    """Reject a request below ``minimum`` as Ironic does for a resource
    that does not exist yet at that version: 404 for reads, 405 (pass
    ``webob.exc.HTTPMethodNotAllowed``) for writes."""
    if not allowed(minimum):
        raise error()


def is_valid_logical_name(name):
    """Ironic's logical name rules at the request's version."""
    if not isinstance(name, str) or not name or \
            len(name) > NAME_MAX_LENGTH:
        return False
    if allowed((1, 10)):
        return bool(_NAME_RE.match(name))
    labels = name.split('.')
    return all(_HOSTNAME_LABEL_RE.match(label.lower()) for label in labels)


def is_name_syntax(name):
    """Whether ``name`` may be a logical name at some version (RFC 3986
    unreserved characters, at most 255): what Ironic's routing checks of
    an ident before the request's version is looked at."""
    return (isinstance(name, str) and len(name) <= NAME_MAX_LENGTH and
            bool(_NAME_RE.match(name)))


def is_uuid(value):
    """Whether ``value`` is a UUID this API takes: uuid-like for
    oslo.utils (32 hex digits, dashes anywhere) in at most 36
    characters of hex digits and dashes. uuidutils also takes the
    braced (``{...}``) and ``urn:uuid:`` forms and any number of dashes:
    stored as given, they are not the UUIDs their clients meant, and
    longer ones overflow the 36-character columns."""
    return (isinstance(value, str) and len(value) <= 36 and
            _UUID_CHARS.match(value) is not None and
            uuidutils.is_uuid_like(value))


# The formats of the /v1 JSON schemas: a ``uuid`` is one this API takes
# (``is_uuid``: oslo.utils' ``is_uuid_like``, in the 36 characters of
# hex digits and dashes of its canonical form). A value of another type
# is the schema's ``type`` to refuse.
FORMATS = jsonschema.FormatChecker(formats=())


@FORMATS.checks('uuid')
def _uuid_format(instance):
    return not isinstance(instance, str) or is_uuid(instance)


def format_validator(fmt, *names):
    """A validator of the format ``fmt`` of the properties ``names`` of
    a document, in that order."""
    return jsonschema.Draft202012Validator(
        {'properties': {name: {'format': fmt} for name in names}},
        format_checker=FORMATS)


def check_formats(validator, document, message):
    """400 with ``message`` (of ``%(name)s`` and ``%(value)s``, Ironic's
    words) for the first property of ``document`` not of its format."""
    for error in validator.iter_errors(document):
        raise BadRequest(message % {'name': error.path[0],
                                    'value': error.instance})


def check_uuid(value, name=None):
    """``value`` (None stays None) if it is a UUID of the ``uuid``
    format; 400 otherwise, in Ironic's words: "Expected UUID for
    <name>: <value>" for a named argument, "Expected a UUID but
    received <value>." for the others."""
    if value is None or (isinstance(value, str) and
                         FORMATS.conforms(value, 'uuid')):
        return value
    if name is None:
        raise BadRequest('Expected a UUID but received %s.' % value)
    raise BadRequest('Expected UUID for %s: %s' % (name, value))


def check_ident(ident):
    """``ident`` must be a UUID or a logical name: 400 otherwise, with
    Ironic's message."""
    if is_uuid(ident) or is_valid_logical_name(ident):
        return ident
    raise BadRequest('Expected a logical name or UUID but received %s.'
                     % ident)


def strip_json_suffix(ident):
    """Up to 1.90 an ident may end with ``.json``, which means the ident
    without it (Ironic's format suffix); from 1.91 it is part of it."""
    if ident.endswith('.json') and not allowed((1, 91)):
        return ident[:-len('.json')]
    return ident


def parse_fields(fields, allowed_fields, gates=None, gates_first=False,
                 unknown=None):
    """The list of field names in ``fields`` (a comma-separated string, or
    None for all); 400 naming any that ``allowed_fields`` lacks (in
    ``unknown``'s words for the first of them, if given). With ``gates``
    (field -> first version it may be named at), Ironic's 406 before 1.8
    (no ``fields`` yet) and for a field newer than the request: after the
    check for unknown fields, or before it with ``gates_first`` (as
    Ironic's nodes answer)."""
    if fields is None:
        return None
    if gates is not None and not allowed((1, 8)):
        raise NotAcceptable('Request not acceptable.')
    names = [name.strip() for name in fields.split(',') if name.strip()]
    if gates_first:
        check_gates(names, gates)
    bad = [name for name in names if name not in allowed_fields]
    if bad and unknown is not None:
        raise BadRequest(unknown % bad[0])
    if bad:
        raise BadRequest('Field(s) "%s" are not valid' % ', '.join(bad))
    if gates is not None and not gates_first:
        check_gates(names, gates)
    return names


def check_gates(names, gates):
    """406 for a name of ``gates`` newer than the request's version."""
    for name in names:
        since = gates.get(name)
        if since is not None and not allowed(since):
            raise NotAcceptable('Request not acceptable.')


def select_fields(document, names):
    """``document`` reduced to ``names`` (plus ``links``, which Ironic
    always keeps); the whole document for None."""
    if names is None:
        return document
    keep = set(names) | {'links'}
    return {key: value for key, value in document.items() if key in keep}


def check_arguments(params, known):
    """400 for any query parameter not in ``known``."""
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise BadRequest('Unexpected arguments: %s' % ', '.join(unknown))


def strict_bool(name, value, message='Invalid %(name)s: %(error)s'):
    """``value`` of argument ``name`` (a JSON boolean or one of Ironic's
    boolean strings, read by oslo.utils' strict ``bool_from_string``) as
    a boolean, None if absent; Ironic's 400 otherwise, in ``message``'s
    words ("Invalid detail: Unrecognized value ..." by default)."""
    if value is None:
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except (ValueError, TypeError) as exc:
        raise BadRequest(message % {'name': name, 'value': value,
                                    'error': exc})


def parse_bool(name, value):
    """A boolean query filter: ``strict_bool`` in the words of Ironic's
    list filters."""
    return strict_bool(name, value, 'Invalid value for %(name)s: '
                                    '"%(value)s" is not a boolean')


def parse_limit(limit):
    """The page size: ``limit`` capped at ``[api] max_limit``, which is
    also the default. 400 for a negative or non-integer value."""
    max_limit = conf().api.max_limit
    if limit is None or limit == '':
        return max_limit
    try:
        value = int(limit)
    except (TypeError, ValueError):
        raise BadRequest('Invalid value for limit: "%s" is not an integer'
                         % limit)
    if value < 0:
        raise BadRequest('Limit must be positive')
    return min(value, max_limit) if value else max_limit


def check_sort(sort_key, sort_dir, sortable, unsortable=()):
    """400 unless ``sort_key`` is one of ``sortable`` and ``sort_dir`` is
    asc or desc; ``unsortable`` names fields that exist but cannot be
    sorted on (Ironic says so in its message)."""
    if sort_key in unsortable:
        raise BadRequest('The sort_key value "%s" is an invalid field for '
                         'sorting' % sort_key)
    if sort_key not in sortable:
        raise BadRequest('The sort_key value "%s" is an invalid field for '
                         'sorting' % sort_key)
    if sort_dir not in ('asc', 'desc'):
        raise BadRequest("Invalid sort direction: %s. Acceptable values are "
                         "'asc' or 'desc'" % sort_dir)


def collection(name, items, limit, resource=None, marker_key='uuid',
               marker=None, **query):
    """Ironic's list document ``{name: items}``, with a ``next`` link when
    the page is full. Unlike Ironic, the link keeps the filters of the
    request (``query``: every parameter except limit and marker), so that
    following it continues the same list. The link's marker is ``marker``
    if given (for items rendered without their key), else the last item's
    ``marker_key``."""
    document = {name: items}
    if items and limit and len(items) >= limit:
        params = {key: value for key, value in query.items()
                  if value is not None}
        params['limit'] = limit
        params['marker'] = (marker if marker is not None
                            else items[-1][marker_key])
        document['next'] = '%s/v1/%s?%s' % (
            base.public_url(), resource or name,
            urllib.parse.urlencode(params))
    return document


def json_body(body):
    """The request body as ``dispatch.read_body`` parsed it (None for a
    JSON null). No body at all reads as an empty object, as Ironic reads it,
    so that the request is refused for what it lacks, in Ironic's words
    ("Schema error for port: 'address' is a required property"). A body
    that is not JSON never gets this far (``hooks.check_json_body``)."""
    if body is None and not pecan.request.body:
        return {}
    return body


def check_stored_size(field, value):
    """400 for a value too large for the TEXT column it is stored in
    (MAX_TEXT_BYTES once encoded: a string as UTF-8, anything else as
    the JSON the column holds), rather than a database error on MariaDB
    and a value other databases would keep."""
    if value is None or isinstance(value, (bool, int, float)):
        return
    if isinstance(value, str):
        size = len(value.encode('utf-8'))
    else:
        size = len(json.dumps(value))
    if size > MAX_TEXT_BYTES:
        raise BadRequest('Invalid input for field/attribute %s: the value '
                         'is larger than %d bytes once encoded.'
                         % (field, MAX_TEXT_BYTES))


def check_patch(patch):
    """400 unless ``patch`` is a JSON patch using only add, replace and
    remove with a path and, for add/replace, a value."""
    if not isinstance(patch, list):
        raise BadRequest("Schema error for patch: %r is not of type "
                         "'array'" % (patch,))
    for op in patch:
        if not isinstance(op, dict) or set(op) - {'op', 'path', 'value'}:
            raise BadRequest('Invalid input for field/attribute patch. '
                             'Each operation is an object with op, path '
                             'and value.')
        if op.get('op') not in PATCH_OPS:
            raise BadRequest("Invalid input for field/attribute op. Value: "
                             "'%s'. Value should be one of: %s"
                             % (op.get('op'), ', '.join(PATCH_OPS)))
        path = op.get('path')
        if not isinstance(path, str) or not re.match(r'^/[\w\-~.]', path):
            raise BadRequest("Invalid input for field/attribute path. "
                             "Value: '%s'. Invalid patch path" % (path,))
        if op['op'] != 'remove' and 'value' not in op:
            raise BadRequest("'add' and 'replace' operations need a value")


def patch_root(op):
    """The top-level field a patch operation touches (``/extra/a`` ->
    ``extra``)."""
    return op['path'].split('/')[1]


def apply_patch(document, patch):
    """``document`` with the JSON patch applied, one operation at a time
    as Ironic does; 400 naming the operation that cannot be applied (a
    missing member to remove, a bad pointer) with Ironic's message."""
    for op in patch:
        try:
            document = jsonpatch.apply_patch(document, [op])
        except (jsonpatch.JsonPatchException,
                jsonpatch.JsonPointerException, KeyError,
                IndexError) as exc:
            # e.g. "Couldn't apply patch '{'op': 'remove', 'path':
            # '/extra/a'}'. Reason: can't remove a non-existent object
            # 'a'": the operation as the client sent it, Python's repr.
            raise BadRequest("Couldn't apply patch '%s'. Reason: %s"
                             % (op, exc))
    return document


def request_schema_error(validator, document):
    """400 when ``document`` does not fit ``validator``, worded as Ironic
    39's request schemas (``ironic.api.validation``) word it: "Schema
    error: " and the message of the first error found, then, when that
    error is a choice among schemas, ". Possible root cause: " and the
    message of the best match among the choice's own errors."""
    error = next(iter(validator.iter_errors(document)), None)
    if error is None:
        return
    raise BadRequest(_with_cause('Schema error: %s' % error.message, error))


def _with_cause(text, error):
    cause = None
    while error.context:
        error = jsonschema.exceptions.best_match(error.context)
        cause = error.message
    if cause is not None:
        text += '. Possible root cause: %s' % cause
    return text


def args_schema_error(name, validator, document):
    """400 when ``document`` does not fit ``validator`` (a jsonschema
    validator), worded as Ironic 39's ``args.schema`` words it for nodes,
    traits, VIFs and virtual media: "Schema error for <name>: " and the
    message of jsonschema's best match, then, when that error is a choice
    among schemas, ". Possible root cause: " and the message of the best
    match among the choice's own errors."""
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is None:
        return
    raise BadRequest(_with_cause(
        'Schema error for %s: %s' % (name, error.message), error))


def isotime(value):
    """Timestamps as Ironic renders them: ISO 8601 with ``+00:00``."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.isoformat() + '+00:00'
    return value.isoformat()
