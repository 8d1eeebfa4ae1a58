"""What both APIs refuse before any handler looks at a request.

A request target (path, query string) and a JSON body are read here the
same way for Placement and for ``/v1``; each pipeline words the refusal
in its own error format:

* a path or query string whose percent-decoded bytes are not UTF-8
  (webob cannot even decode it);
* a JSON body that names a charset other than UTF-8 (JSON is UTF-8,
  RFC 8259; an unknown charset made webob raise LookupError);
* a JSON body that is not UTF-8, is not JSON, is nested deeper than
  ``MAX_JSON_DEPTH``, or holds a string that is not Unicode text (a lone
  surrogate such as ``"\\ud800"``, which JSON's escapes allow but which
  no database and no UTF-8 encoder can store).

The checks cost one pass of Python's C parser and, only for a body that
could hold what they look for, one walk of the parsed document.
"""

import codecs
import json
import re
import urllib.parse

# Deeper than any body either API defines (Placement's deepest, an
# allocation request, is 5 levels; free-form ``extra`` documents a few
# more). Python's parser would raise RecursionError around 1000, and
# some of what follows (jsonschema's report, copies, the database
# encoding) recurses on the way too, so a limit far below that.
MAX_JSON_DEPTH = 64

_TOO_DEEP = 'nested too deeply (more than %d levels)' % MAX_JSON_DEPTH

JSON_TYPES = ('application/json', 'application/javascript')

# A string with a UTF-16 surrogate code point: never valid Unicode text.
_SURROGATE = re.compile('[\ud800-\udfff]')
# What a body holding such a string must contain: the escape (a raw
# surrogate in the bytes is not UTF-8, refused by the decoding).
_SURROGATE_ESCAPE = re.compile(r'\\u[dD][89a-fA-F]')


class InvalidBody(ValueError):
    """The body cannot be read; the message says why."""


def readable_target(environ):
    """Whether the path and the query string decode as UTF-8."""
    try:
        environ.get('PATH_INFO', '').encode('latin-1').decode('utf-8')
        urllib.parse.unquote_to_bytes(
            environ.get('QUERY_STRING', '')).decode('utf-8')
    except UnicodeError:
        return False
    return True


def foreign_charset(environ):
    """The ``charset`` parameter of the request's Content-Type if it
    names anything but UTF-8 (or its subset ASCII); None when it is
    absent or fine."""
    _type, *params = environ.get('CONTENT_TYPE', '').split(';')
    for param in params:
        name, _eq, value = param.partition('=')
        if name.strip().lower() != 'charset':
            continue
        charset = value.strip().strip('"')
        try:
            if codecs.lookup(charset).name in ('utf-8', 'ascii'):
                continue
        except LookupError:
            pass
        return charset
    return None


def _check_depth(data):
    """InvalidBody for nesting beyond MAX_JSON_DEPTH. Level by level,
    containers only: a document Python's parser accepted may be too deep
    to walk recursively, and scalars need no look."""
    containers = (dict, list)
    level = [data] if type(data) in containers else []
    for _depth in range(MAX_JSON_DEPTH):
        if not level:
            return
        deeper = []
        for value in level:
            for child in (value.values() if type(value) is dict
                          else value):
                if type(child) in containers:
                    deeper.append(child)
        level = deeper
    if level:
        raise InvalidBody(_TOO_DEEP)


def _check_text(data):
    """InvalidBody for a string (value or member name) that is not
    Unicode text (a lone surrogate)."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key in value:
                if _SURROGATE.search(key):
                    raise InvalidBody(
                        'the member name %s is not valid Unicode (it holds '
                        'a lone surrogate)' % ascii(key))
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and _SURROGATE.search(value):
            raise InvalidBody('the string %s is not valid Unicode (it '
                              'holds a lone surrogate)' % ascii(value))


def _no_constants(name):
    # NaN and Infinity are not JSON; Python accepts them, and NaN would
    # pass every numeric comparison of a schema.
    raise ValueError('%s is not a valid JSON value' % name)


def load_json(body):
    """The JSON document in ``body`` (bytes); InvalidBody if unreadable.

    Decoded as UTF-8 (strictly: a raw surrogate is not UTF-8 either),
    parsed by Python's parser, then checked for depth and lone
    surrogates where the text could have them.
    """
    try:
        text = body.decode('utf-8')
    except UnicodeDecodeError as exc:
        raise InvalidBody('the body is not valid UTF-8: %s' % exc)
    try:
        data = json.loads(text, parse_constant=_no_constants)
    except RecursionError:
        raise InvalidBody(_TOO_DEEP)
    except ValueError as exc:
        raise InvalidBody(str(exc))
    # Only a body with that many containers can be that deep, only one
    # with a surrogate escape can hold a lone surrogate: the walk is for
    # those alone.
    if text.count('[') + text.count('{') > MAX_JSON_DEPTH:
        _check_depth(data)
    if _SURROGATE_ESCAPE.search(text):
        _check_text(data)
    return data
