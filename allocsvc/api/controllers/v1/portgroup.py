"""``/v1/portgroups`` (1.23): Ironic's port group API.

Routes (``routes.ROUTES``)::

    GET, POST           /v1/portgroups                list, create
    GET                 /v1/portgroups/detail
    GET, PATCH, DELETE  /v1/portgroups/{pg}           by UUID or name
    GET                 /v1/portgroups/{pg}/ports     (1.24) port.py
    GET                 /v1/nodes/{node}/portgroups   (1.24)
    GET                 /v1/nodes/{node}/portgroups/detail

Below 1.23 there are no port groups (404, whatever the method: the
resource's gate). Under a node only lists are served (403 otherwise,
as Ironic). ``port_common`` does the work; the handlers read their
requests as WSME did (``dispatch.wsme_arguments``).
"""

import webob.exc

from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import port_common as common
from allocsvc.api.controllers.v1 import utils
from allocsvc.common import exception

KIND = common.PORTGROUP
FIRST_VERSION = (1, 23)


def gate():
    """Port groups do not exist before 1.23."""
    if not utils.allowed(FIRST_VERSION):
        raise webob.exc.HTTPNotFound()


def _resource(node):
    """The path of a list, for its ``next`` link."""
    return 'portgroups' if node is None else 'nodes/%s/portgroups' % node


@dispatch.wsme_arguments()
def list_portgroups(node=None):
    """The port groups, or those of the ``node`` of the path."""
    return common.list_collection(KIND, _resource(node), node_ident=node)


@dispatch.wsme_arguments()
def list_portgroups_detail(node=None):
    return common.list_collection(KIND, _resource(node) + '/detail',
                                  detail_path=True, node_ident=node)


@dispatch.wsme_arguments('body')
def create_portgroup(body, node=None):
    """201 with the new port group; under a node, 403."""
    if node is not None:
        raise exception.OperationNotPermitted()
    node_common.query_without_arguments()
    return common.create(KIND, body)


@dispatch.wsme_arguments()
def show_portgroup(portgroup):
    return common.show(KIND, portgroup)


@dispatch.wsme_arguments('patch')
def update_portgroup(portgroup, body):
    node_common.query_without_arguments()
    return common.update(KIND, portgroup, body)


@dispatch.wsme_arguments()
def delete_portgroup(portgroup):
    node_common.query_without_arguments()
    common.destroy(KIND, portgroup)
    return dispatch.Reply(204)
