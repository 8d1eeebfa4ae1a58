"""What every ``/v1`` controller uses: exposing, version, links.

``@expose(ReturnType, ArgType, ..., body=..., status_code=...)`` is WSME's
``wsexpose``: the handler's result is rendered through its WSME type, and
an exception becomes Ironic's fault document, its status the exception's
``code`` (``AllocsvcException.code`` and webob's errors carry it): a
``Client`` fault below 500, a logged ``Server`` fault otherwise.
``ParsableErrors`` then wraps it in ``error_message``.
"""

import pecan
from wsmeext import pecan as wsme_pecan

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


def expose(*args, **kwargs):
    """``wsmeext.pecan.wsexpose`` for JSON only (as Ironic's API), with
    extra query parameters left to the handler, which refuses them with
    Ironic's message (``utils.check_arguments``)."""
    kwargs.setdefault('rest_content_types', ('json',))
    kwargs.setdefault('ignore_extra_args', True)
    return wsme_pecan.wsexpose(*args, **kwargs)
