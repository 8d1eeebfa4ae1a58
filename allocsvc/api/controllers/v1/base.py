"""What every ``/v1`` handler uses: the request's version, and links."""

import pecan

from allocsvc.api.controllers.v1 import versions
from allocsvc.api.middleware import version as version_mw


def api_version():
    """The negotiated ``versions.APIVersion`` of the current request."""
    return pecan.request.environ.get(version_mw.ENV_VERSION,
                                     versions.MIN_VERSION)


def public_url():
    """The URL the API is reached at (it follows a mount point)."""
    return pecan.request.application_url


def make_link(rel, resource, args='', bookmark=False, **extra):
    """An Ironic link: ``/v1/<resource><args>``, or without ``/v1`` for a
    bookmark (Ironic serves both)."""
    template = '%s/%s%s' if bookmark else '%s/v1/%s%s'
    link = {'href': template % (public_url(), resource, args), 'rel': rel}
    link.update(extra)
    return link


def resource_links(resource, args=''):
    """The self and bookmark links of a resource, as Ironic lists them."""
    return [make_link('self', resource, args),
            make_link('bookmark', resource, args, bookmark=True)]
