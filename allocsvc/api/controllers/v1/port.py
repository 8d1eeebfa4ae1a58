"""``/v1/ports``: Ironic's port API (a node's network interfaces).

Routes (``routes.ROUTES``)::

    GET, POST           /v1/ports                   list (filters, fields,
                                                    detail, paging), create
    GET                 /v1/ports/detail
    GET, PATCH, DELETE  /v1/ports/{port}            by UUID (name, 1.88)
    GET                 /v1/nodes/{node}/ports      the node's ports
    GET                 /v1/nodes/{node}/ports/detail
    GET                 /v1/portgroups/{pg}/ports   (1.24) its members
    GET                 /v1/portgroups/{pg}/ports/detail

Under a node or a port group only lists are served: a POST there, and
any request below them, is Ironic's 403 "Operation not permitted.". The
handlers are thin: ``port_common`` does the work for ports and port
groups alike. They read their requests as WSME did
(``dispatch.wsme_arguments``).
"""

from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import node_common
from allocsvc.api.controllers.v1 import port_common as common
from allocsvc.common import exception

KIND = common.PORT


def _resource(node, portgroup):
    """The path of a list, for its ``next`` link."""
    if node is not None:
        return 'nodes/%s/ports' % node
    if portgroup is not None:
        return 'portgroups/%s/ports' % portgroup
    return 'ports'


@dispatch.wsme_arguments()
def list_ports(node=None, portgroup=None):
    """The ports, or those of the ``node`` or ``portgroup`` of the
    path."""
    return common.list_collection(KIND, _resource(node, portgroup),
                                  node_ident=node, portgroup_ident=portgroup)


@dispatch.wsme_arguments()
def list_ports_detail(node=None, portgroup=None):
    return common.list_collection(
        KIND, _resource(node, portgroup) + '/detail', detail_path=True,
        node_ident=node, portgroup_ident=portgroup)


@dispatch.wsme_arguments('body')
def create_port(body, node=None, portgroup=None):
    """201 with the new port; under a node or a port group, 403."""
    if node is not None or portgroup is not None:
        raise exception.OperationNotPermitted()
    node_common.query_without_arguments()
    return common.create(KIND, body)


@dispatch.wsme_arguments()
def show_port(port):
    return common.show(KIND, port)


@dispatch.wsme_arguments('patch')
def update_port(port, body):
    node_common.query_without_arguments()
    return common.update(KIND, port, body)


@dispatch.wsme_arguments()
def delete_port(port):
    node_common.query_without_arguments()
    common.destroy(KIND, port)
    return dispatch.Reply(204)
