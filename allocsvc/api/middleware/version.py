"""Microversion negotiation for the bare-metal API, as Ironic does it.

Every request is negotiated, the root document's (``GET /``) too, as
Ironic does: it gets the version headers, and a 406 for a version out
of range.
"""

import json

import webob
import webob.dec

from allocsvc.api.controllers.v1 import versions
from allocsvc.api.middleware import errors

# Where the controllers find the negotiated versions.APIVersion.
ENV_VERSION = 'allocsvc.baremetal.version'

_VARY = '%s, %s' % (versions.STANDARD_HEADER, versions.VERSION_HEADER)


class Microversion:
    """In: negotiates the version (a 406 with Ironic's message when out of
    range or malformed) and leaves it in ``ENV_VERSION``. Out: the
    minimum and maximum version headers on every response, errors
    included; the negotiated version in Ironic's header and in the
    standard ``OpenStack-API-Version: baremetal 1.N``; ``Vary`` on both
    request headers."""

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            version = versions.negotiate(req.headers)
        except versions.NotAcceptable as exc:
            resp = webob.Response(status=406, content_type='application/json',
                                  charset='UTF-8')
            resp.text = json.dumps(errors.http_error_body(
                406, 'Not Acceptable', str(exc)))
        else:
            req.environ[ENV_VERSION] = version
            resp = req.get_response(self.application)
            resp.headers[versions.VERSION_HEADER] = str(version)
            resp.headers[versions.STANDARD_HEADER] = '%s %s' % (
                versions.SERVICE_TYPE, version)
        resp.headers[versions.MIN_VERSION_HEADER] = str(versions.MIN_VERSION)
        resp.headers[versions.MAX_VERSION_HEADER] = str(versions.MAX_VERSION)
        vary = resp.headers.get('Vary')
        resp.headers['Vary'] = '%s, %s' % (vary, _VARY) if vary else _VARY
        return resp
