"""Ironic's error document, for every error the ``/v1`` pipeline returns.

Ironic answers every error with one key whose value is itself a JSON
string: ``{"error_message": "{\\"faultcode\\": \\"Client\\", ...}"}``. What
is inside depends on who refused the request, and clients
(python-ironicclient, openstacksdk) read either form:

* a controller: ``{"faultcode": "Client"|"Server", "faultstring": ...,
  "debuginfo": null}`` (WSME's ``wsexpose`` makes these);
* the routing or the microversion check, before any controller runs:
  ``{"code": N, "title": ..., "description": ...}``.

Unlike Ironic, whose routing errors carry webob's HTML fragments
(``"...found.<br /><br />"``) and which answers some bad input with a bare
500, a description here is plain text and an exception that escapes is
logged and answered with a ``Server`` fault: always a bug to fix. A 500's
own text stays in the log: the fault says only that it was logged.
"""

import json

from oslo_db import exception as db_exc
from oslo_log import log as logging
import webob
import webob.dec
import webob.exc

from allocsvc.api import request_checks
from allocsvc.common import exception

LOG = logging.getLogger(__name__)

# What a 500 says: the error is a bug, logged with its traceback.
UNEXPECTED = 'An unexpected error occurred; it has been logged.'

# Where Pecan leaves the HTTP exception it turned into the response.
PECAN_EXCEPTION = 'pecan.original_exception'


def fault_body(status, message):
    """The inner document of an error a controller (or a bug) causes."""
    return {'faultcode': 'Client' if status < 500 else 'Server',
            'faultstring': message,
            'debuginfo': None}


def http_error_body(status, title, description):
    """The inner document of an error raised before any controller."""
    return {'code': status, 'title': title, 'description': description}


def _inner_document(req, resp):
    """The JSON text to put in ``error_message`` for the error ``resp``."""
    exc = req.environ.get(PECAN_EXCEPTION)
    if isinstance(exc, webob.exc.HTTPException):
        description = exc.detail or exc.explanation
        if exc.code in (404, 405) and not exc.detail:
            # What Ironic 39's routing says of a path or method it does
            # not have: nothing beyond the title.
            description = ''
        return json.dumps(http_error_body(exc.code, exc.title, description))
    if resp.content_type == 'application/json':
        try:
            document = json.loads(resp.text)
        except ValueError:
            document = None
        if isinstance(document, dict):
            if resp.status_int == 500 and 'faultstring' in document:
                # A bug: its text is in the log (WSME logged it), not on
                # the wire.
                return json.dumps(fault_body(500, UNEXPECTED))
            return resp.text
    # A plain webob error (text, or HTML): say the same thing as JSON.
    text = webob.exc.strip_tags(resp.text).strip() or None
    title = resp.status.split(' ', 1)[-1]
    return json.dumps(http_error_body(resp.status_int, title, text))


def _fault_response(status, message):
    resp = webob.Response(status=status, content_type='application/json',
                          charset='UTF-8')
    resp.text = json.dumps(fault_body(status, message))
    return resp


class ParsableErrors:
    """Wrap every error response in Ironic's ``error_message`` document.

    In: refuses (400) a path or query string that is not UTF-8 and asks
    the layers below for JSON. Out: a response of status 400 or more gets
    the JSON ``{"error_message": "<inner JSON>"}`` body (headers such as
    the version headers and ``Allow`` are kept); an exception raised below
    is logged and becomes a 500 ``Server`` fault (a 503 one when the
    database is unavailable).
    """

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, req):
        raw_path = req.environ.get('PATH_INFO', '')
        if not request_checks.readable_target(req.environ):
            # webob (and so Pecan) cannot even parse such a request.
            resp = _fault_response(400, 'The request path or query string '
                                        'is not valid UTF-8.')
        else:
            # JSON is all this API speaks; Pecan would otherwise refuse an
            # Accept header it has no template for.
            req.environ['HTTP_ACCEPT'] = 'application/json'
            try:
                resp = req.get_response(self.application)
            except webob.exc.HTTPException as exc:
                # Raised outside Pecan (the size limit): worded as
                # Pecan's own HTTP errors are.
                req.environ[PECAN_EXCEPTION] = exc
                resp = req.get_response(exc)
            except (exception.DatabaseUnavailable,
                    db_exc.DBConnectionError) as exc:
                LOG.error('%s %r: the database is unavailable: %s',
                          req.method, raw_path, exc)
                resp = _fault_response(
                    503, exception.DatabaseUnavailable().message)
                resp.headers['Retry-After'] = str(
                    exception.DatabaseUnavailable.retry_after)
            except Exception:
                LOG.exception('Unexpected error handling %s %r', req.method,
                              raw_path)
                resp = _fault_response(500, UNEXPECTED)
        if resp.status_int < 400:
            return resp
        inner = _inner_document(req, resp)
        # UTF-8 JSON, typed as Ironic types it: no charset parameter.
        resp.body = json.dumps({'error_message': inner}).encode('utf-8')
        resp.headers['Content-Type'] = 'application/json'
        return resp
