"""The request checks both APIs share (allocsvc.api.request_checks)."""

import pytest

from allocsvc.api import request_checks as checks

LIMIT = checks.MAX_JSON_DEPTH


def _lists(depth):
    value = []
    for _level in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize('text,value', [
    ('1', 1), ('[]', []), ('{"a": [1, {"b": "c"}]}', {'a': [1, {'b': 'c'}]}),
    # A surrogate pair is one character; an escaped backslash is text.
    ('["\\ud83d\\ude00"]', ['\U0001f600']), ('"\\\\ud800"', '\\ud800'),
    ('[' * LIMIT + ']' * LIMIT, _lists(LIMIT)),
    ('"caf\u00e9"', 'caf\u00e9'),
])
def test_readable_bodies(text, value):
    assert checks.load_json(text.encode()) == value


@pytest.mark.parametrize('body,words', [
    (b'"\\ud800"', "the string '\\ud800' is not valid Unicode"),
    (b'[1, {"a": ["\\udfff"]}]', 'lone surrogate'),
    (b'{"\\udc00": 1}', "the member name '\\udc00' is not valid Unicode"),
    (b'"\\ude00\\ud83d"', 'lone surrogate'),
    (b'"\xed\xa0\x80"', 'not valid UTF-8'),
    (b'\xff\xfe{}', 'not valid UTF-8'),
    (('[' * (LIMIT + 1) + ']' * (LIMIT + 1)).encode(), 'nested too deeply'),
    (('{"a":' * (LIMIT + 1) + '1' + '}' * (LIMIT + 1)).encode(),
     'nested too deeply'),
    (b'[' * 100000, 'nested too deeply'),
    (b'NaN', 'NaN is not a valid JSON value'),
    (b'{"a": ', 'Expecting value'),
])
def test_unreadable_bodies(body, words):
    with pytest.raises(checks.InvalidBody) as raised:
        checks.load_json(body)
    assert words in str(raised.value)


@pytest.mark.parametrize('content_type,foreign', [
    ('application/json', None), ('application/json; charset=utf-8', None),
    ('application/json;charset="UTF8"', None),
    ('application/json; charset=us-ascii', None),
    ('application/json; charset=bogus', 'bogus'),
    ('application/json; charset=latin-1', 'latin-1'),
    ('application/json; boundary=x; charset=utf-16', 'utf-16'),
])
def test_foreign_charset(content_type, foreign):
    assert checks.foreign_charset({'CONTENT_TYPE': content_type}) == foreign


@pytest.mark.parametrize('path,query,readable', [
    ('/v1/nodes', 'name=caf%C3%A9', True),
    ('/v1/nodes/caf\xc3\xa9', '', True),
    ('/v1/nodes/\xff', '', False),
    ('/v1/nodes', 'name=%FF', False),
    ('/v1/nodes', 'name=%ED%A0%80', False),
])
def test_readable_target(path, query, readable):
    environ = {'PATH_INFO': path, 'QUERY_STRING': query}
    assert checks.readable_target(environ) is readable
