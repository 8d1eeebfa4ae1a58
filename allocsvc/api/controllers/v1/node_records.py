"""What allocsvc's nodes do not keep, as Ironic shows it for a
``fake-hardware`` node without any: BIOS settings, firmware components,
inventory and history. The answers are data (``RECORDS``); the route
table points each path at ``show``.

Routes (``routes.ROUTES``; each from the version it appeared in)::

    GET .../bios[/{setting}]       1.40    no settings
    GET .../firmware               1.86    no components
    GET .../inventory              1.81    404: never inspected
    GET .../history[/{event}]      1.78    no events
"""

import functools

from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

_boolean = utils.strict_bool

# record -> (policy rule, the query it takes (None: none), the answer:
# a document, or the message of a 404 about the node's UUID and the
# path's other value).
RECORDS = {
    'bios': ('baremetal:node:bios:get', 'bios', {'bios': []}),
    'bios_setting': ('baremetal:node:bios:get', None,
                     "Node %s doesn't have a BIOS setting '%s'"),
    'firmware': ('baremetal:node:firmware:get', None, {'firmware': []}),
    'inventory': ('baremetal:node:inventory:get', None,
                  'Node inventory record for node %s could not be found.'),
    'history': ('baremetal:node:history:get', 'history', {'history': []}),
    'history_event': ('baremetal:node:history:get', None,
                      'Node history record %(other)s could not be found.'),
}


def _check_bios_query(params):
    known = ('detail', 'fields') if utils.allowed((1, 74)) else ()
    utils.check_arguments(params, known)
    if params.get('detail') is not None:
        _boolean('detail', params['detail'])


def _check_history_query(params):
    utils.check_arguments(params, ('detail', 'marker', 'limit'))
    if params.get('detail') is not None:
        _boolean('detail', params['detail'])
    utils.parse_limit(params.get('limit'))


_QUERIES = {'bios': _check_bios_query, 'history': _check_history_query}


def show(record, node, **other):
    """``GET`` of a node's ``record`` (see RECORDS); ``other``: the
    setting or event the path names."""
    action, query, answer = RECORDS[record]
    if query is None:
        found = node_common.node_for(node, action)
    else:
        _QUERIES[query](node_common.query())
        found = node_common.authorized_node(node, action)
    if isinstance(answer, dict):
        return {key: list(value) for key, value in answer.items()}
    value = next(iter(other.values()), None)
    if '%(other)s' in answer:
        raise exception.NotFound(answer % {'other': value})
    if value is None:
        raise exception.NotFound(answer % found.uuid)
    raise exception.NotFound(answer % (found.uuid, value))


def handler(record):
    """The route table's handler of ``record``."""
    return functools.partial(show, record)
