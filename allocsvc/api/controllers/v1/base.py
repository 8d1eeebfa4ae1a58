"""What every ``/v1`` controller uses: exposing, version, links.

``@expose(ReturnType, ArgType, ..., body=..., status_code=...)`` is WSME's
``wsexpose``: the handler's result is rendered through its WSME type, and
an exception becomes Ironic's fault document, its status the exception's
``code`` (``AllocsvcException.code`` and webob's errors carry it): a
``Client`` fault below 500, a logged ``Server`` fault otherwise.
``ParsableErrors`` then wraps it in ``error_message``.
"""

import functools
import inspect
import logging
import sys

from oslo_db import exception as db_exc
import pecan
import webob.exc
from wsmeext import pecan as wsme_pecan

from allocsvc.api.controllers.v1 import versions
from allocsvc.api.middleware import version as version_mw
from allocsvc.common import exception


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


# For a handler registered with a generic ``index`` (``index.when``):
# Pecan renders its result through WSME, as ``expose`` asks.
WSME_JSON = {'template': 'wsmejson:', 'content_type': 'application/json'}


class Resource:
    """A controller whose paths end with it and its attributes: Pecan
    calls ``_lookup`` with the rest of a path it found no attribute for.
    Without it, Pecan would give those segments to the generic ``index``
    as its arguments (``/v1/allocations/x/y`` read as ``?fields=y``)."""

    @pecan.expose()
    def _lookup(self, *remainder):
        raise webob.exc.HTTPNotFound()


def not_allowed(allow):
    """What a generic ``index`` answers to a method none of its handlers
    takes: 405 with ``Allow`` (e.g. ``'DELETE, GET'``)."""
    raise webob.exc.HTTPMethodNotAllowed(headers={'Allow': allow})


class _OutageAsWarning(logging.Filter):
    """WSME logs every 5xx fault as an ERROR with a traceback. A 503 --
    no conductor reachable, the database unavailable -- is an outage the
    service answers for and recovers from, and during one every request
    would log a traceback: it becomes one WARNING line. (WSME logs from
    inside its ``except`` block, so the exception is the one handled.)"""

    def filter(self, record):
        error = sys.exc_info()[1]
        if isinstance(error, exception.ServiceUnavailable):
            record.levelno, record.levelname = logging.WARNING, 'WARNING'
            record.msg, record.args = 'Answered 503: %s', (error,)
        return True


logging.getLogger('wsme.api').addFilter(_OutageAsWarning())


def expose(*args, **kwargs):
    """``wsmeext.pecan.wsexpose`` for JSON only (as Ironic's API), with
    extra query parameters left to the handler, which refuses them with
    Ironic's message (``utils.check_arguments``).

    A lost database connection the DB layer did not turn into the 503
    DatabaseUnavailable becomes that too.

    The endpoint WSME makes takes ``(self, *args, **kwargs)``; it carries
    the handler's own signature, which is what Pecan reads (also when a
    generic ``index`` registers it with ``when``) to pass only the
    parameters the handler declares."""
    kwargs.setdefault('rest_content_types', ('json',))
    kwargs.setdefault('ignore_extra_args', True)
    wsexpose = wsme_pecan.wsexpose(*args, **kwargs)

    def decorate(handler):
        @functools.wraps(handler)
        def checked(*args, **kwargs):
            try:
                return handler(*args, **kwargs)
            except db_exc.DBConnectionError as exc:
                # Lost outside the DB layer's retries (which raise the
                # 503 DatabaseUnavailable themselves): the same answer.
                raise exception.DatabaseUnavailable() from exc
        # Where WSME reads the arguments of a wrapped handler.
        checked._wsme_original_func = getattr(
            handler, '_wsme_original_func', handler)
        endpoint = wsexpose(checked)
        endpoint.__signature__ = inspect.signature(handler)
        return endpoint
    return decorate
