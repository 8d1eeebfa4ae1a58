"""``GET /`` and ``GET /v1``: the version documents.

Ironic clients discover the bare-metal API at ``/``; its extra ``apis``
key points to both APIs this service offers (Ironic clients ignore it).
``/v1`` links the resources of the request's version, in the order
Ironic lists them. Both answer ``HEAD`` as a ``GET`` without the body,
as Ironic does.
"""

from allocsvc.api.controllers.v1 import base
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import versions

# Under PrefixDispatcher's mount point (allocsvc.api.app).
PLACEMENT_PATH = '/placement/'

# (name, first version) of each resource linked from GET /v1, in the order
# Ironic lists them: those of every version, then (after the version) the
# later ones.
LINKED_RESOURCES = [
    ('chassis', (1, 1)),
    ('nodes', (1, 1)),
    ('ports', (1, 1)),
    ('drivers', (1, 1)),
    ('portgroups', (1, 23)),
    ('conductors', (1, 49)),
    ('allocations', (1, 52)),
    ('shards', (1, 82)),
]


def version_document():
    """The description of v1 that ``/`` and ``/v1`` both carry."""
    return {
        'id': 'v1',
        'links': [base.make_link('self', 'v1', '/', bookmark=True)],
        'status': 'CURRENT',
        'min_version': str(versions.MIN_VERSION),
        'version': str(versions.MAX_VERSION),
    }


# (name, path, methods, first microversion) of each extension.
EXTENSIONS = (
    ('allocation_preview', '/v1/allocation_preview', ('POST',), '1.52'),
    ('allocation_groups', '/v1/allocation_groups',
     ('DELETE', 'GET', 'POST'), '1.52'),
    ('node_reservations', '/v1/nodes/{node_ident}/reservations', ('GET',),
     '1.52'),
)


@dispatch.bodiless
def root():
    version = version_document()
    return {
        'name': 'allocsvc',
        'description': 'Resource allocation service: an Ironic '
                       'compatible bare-metal API under /v1 and a '
                       'Placement compatible API under /placement.',
        'versions': [version],
        'default_version': version,
        'apis': [
            {'id': 'baremetal', 'links': version['links']},
            {'id': 'placement', 'links': [{
                'rel': 'self',
                'href': base.public_url() + PLACEMENT_PATH}]},
        ],
        # allocsvc's extensions of the bare-metal API (the Placement
        # root lists those of the Placement API). Not in /v1, whose
        # answer is Ironic's.
        'extensions': [
            {'name': name, 'href': base.public_url() + path,
             'methods': list(methods), 'min_version': first}
            for name, path, methods, first in EXTENSIONS],
    }


@dispatch.bodiless
def v1():
    want = base.api_version()
    document = {
        'id': 'v1',
        'links': [
            base.make_link('self', 'v1', '/', bookmark=True),
            {'href': 'https://docs.openstack.org/ironic/latest/'
                     'contributor/webapi.html',
             'rel': 'describedby', 'type': 'text/html'},
        ],
        # One object, not a list: what Ironic 39 answers.
        'media_types': {
            'base': 'application/json',
            'type': 'application/vnd.openstack.ironic.v1+json',
        },
    }
    for name, since in LINKED_RESOURCES:
        if since == versions.MIN_VERSION:
            document[name] = base.resource_links(name, '/')
    document['version'] = version_document()
    for name, since in LINKED_RESOURCES:
        if since != versions.MIN_VERSION and want >= since:
            document[name] = base.resource_links(name, '/')
    return document
