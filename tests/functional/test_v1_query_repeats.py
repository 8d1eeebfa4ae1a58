"""A query parameter given more than once, answered as Ironic 39
answers it (each text below checked against it).

Scenarios:
* ``fields`` (and the list filters ``shard``, ``conductor_groups``)
  add up, on lists and single resources;
* any other repeated parameter is a 400 naming its values: Ironic's
  argument check (``limit``, ``sort_key``, ``detail``, ``node``,
  ``address`` ...) or, where its query schema checks first (port
  groups, allocations), the schema's.
"""

import pytest

from tests.helpers.v1 import call
from tests.helpers.v1 import error
from tests.helpers.v1 import mac
from tests.helpers.v1 import node
from tests.helpers.v1 import port

pytestmark = pytest.mark.usefixtures('api_conductor')

_BOOLEAN = ("acceptable values are: '0', '1', 'f', 'false', 'n', 'no', "
            "'off', 'on', 't', 'true', 'y', 'yes'")


def test_fields_add_up(database):
    n = node(name='n1')
    port(n['uuid'], mac(1), name='p1')
    for path, key in (('/v1/nodes', 'nodes'), ('/v1/ports', 'ports')):
        resp = call('GET', path + '?fields=uuid&fields=name')
        assert resp.status_int == 200, resp.text
        assert set(resp.json[key][0]) == {'uuid', 'name', 'links'}
    for path in ('/v1/nodes/n1', '/v1/ports/p1'):
        resp = call('GET', path + '?fields=uuid&fields=name')
        assert set(resp.json) == {'uuid', 'name', 'links'}
    resp = call('GET', '/v1/nodes?shard=s1&shard=s2')
    assert resp.status_int == 200


@pytest.mark.parametrize('query, text', [
    ('/v1/nodes?limit=1&limit=2',
     "Expected an integer for limit: ['1', '2']"),
    ('/v1/ports?limit=1&limit=2',
     "Expected an integer for limit: ['1', '2']"),
    ('/v1/chassis?limit=1&limit=2',
     "Expected an integer for limit: ['1', '2']"),
    ('/v1/portgroups?limit=1&limit=2',
     "Expected an integer for limit: ['1', '2']"),
    ('/v1/allocations?limit=1&limit=2',
     "Expected an integer for limit: ['1', '2']"),
    ('/v1/nodes?sort_key=uuid&sort_key=id',
     "Expected string for sort_key: ['uuid', 'id']"),
    ('/v1/chassis?sort_dir=asc&sort_dir=desc',
     "Expected string for sort_dir: ['asc', 'desc']"),
    ('/v1/nodes?detail=true&detail=false',
     "Invalid detail: Unrecognized value '['true', 'false']', "
     + _BOOLEAN),
    ('/v1/nodes?maintenance=true&maintenance=false',
     "Invalid maintenance: Unrecognized value '['true', 'false']', "
     + _BOOLEAN),
    ('/v1/nodes?driver=fake-hardware&driver=x',
     "Expected string for driver: ['fake-hardware', 'x']"),
    ('/v1/ports?node=n1&node=n2',
     "Expected UUID or name for node: ['n1', 'n2']"),
    ('/v1/ports?address=%s&address=%s' % (mac(1), mac(2)),
     "Expected valid MAC address for address: ['%s', '%s']"
     % (mac(1), mac(2))),
    ('/v1/portgroups?sort_key=uuid&sort_key=id',
     "Schema error: ['uuid', 'id'] is not of type 'string'"),
    ('/v1/allocations?sort_dir=asc&sort_dir=desc',
     "Schema error: ['asc', 'desc'] is not of type 'string'"),
    ('/v1/allocations?node=n1&node=n2',
     "Schema error: ['n1', 'n2'] is not valid under any of the given "
     "schemas. Possible root cause: ['n1', 'n2'] is not of type "
     "'string'"),
])
def test_other_repeats_are_400(database, query, text):
    assert error(call('GET', query), 400) == text
