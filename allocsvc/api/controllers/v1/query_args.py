"""A query parameter given more than once, as Ironic 39 reads it.

Pecan hands Ironic a repeated parameter as a list of its values. The
parameters that are lists anyway (``fields``, ``shard``,
``conductor_groups``) take them all, as if comma-separated. Any other
fails the check Ironic runs on it, and the 400 names the list as
Python writes it: its argument check (``ironic.common.args``: "Expected
an integer for limit: ['1', '2']") or, for an endpoint whose OpenAPI
query schema checks the parameter first, the schema's ("Schema error:
['asc', 'desc'] is not of type 'string'").
"""

from oslo_utils import strutils

from allocsvc.api.controllers.v1 import utils

# Parameters whose values are lists: repeated, they add up.
LISTS = frozenset(('fields', 'shard', 'conductor_groups'))

# The argument check of each other parameter a list takes (a string
# unless named here).
_CHECKS = {
    'limit': 'Expected an integer for %s: %s',
    'marker': 'Expected UUID for %s: %s',
    'chassis_uuid': 'Expected UUID for %s: %s',
    'instance_uuid': 'Expected UUID for %s: %s',
    'node_uuid': 'Expected UUID for %s: %s',
    'node': 'Expected UUID or name for %s: %s',
    'portgroup': 'Expected UUID or name for %s: %s',
    'address': 'Expected valid MAC address for %s: %s',
}
_BOOLEANS = frozenset(('detail', 'maintenance', 'associated', 'retired',
                       'sharded', 'include_children'))


# Parameters whose schema is a choice (a UUID or a name).
_CHOICES = frozenset(('node',))


def _refusal(name, values, schema_checked):
    if name in schema_checked:
        text = "%s is not of type 'string'" % values
        if name in _CHOICES:
            return ('Schema error: %s is not valid under any of the given '
                    'schemas. Possible root cause: %s' % (values, text))
        return 'Schema error: ' + text
    if name in _BOOLEANS:
        try:
            strutils.bool_from_string(str(values), strict=True)
        except ValueError as exc:
            return 'Invalid %s: %s' % (name, exc)
    return _CHECKS.get(name, 'Expected string for %s: %s') % (name, values)


def read(multidict, schema_checked=()):
    """The parameters of ``multidict`` (a request's GET) as a dict: a
    list parameter given more than once has its values joined with
    commas; any other is a 400 (``schema_checked``: the parameters the
    endpoint's query schema checks before its arguments are)."""
    params = {}
    for name in multidict:
        if name in params:
            continue
        values = multidict.getall(name)
        if len(values) == 1:
            params[name] = values[0]
        elif name in LISTS:
            params[name] = ','.join(values)
        else:
            raise utils.BadRequest(_refusal(name, values, schema_checked))
    return params
