"""Pecan hooks of the bare-metal API: checks every request passes before
Pecan routes it or parses its body.

Pecan parses a JSON body into parameters before a handler runs, and a
form body while it routes; both need input they can handle:

* a JSON body that is not UTF-8, not JSON, nested too deeply or holding
  a lone surrogate is refused (400) with a message saying which, and one
  in another charset than UTF-8 (415);
* a form body Pecan cannot parse (it parses one while routing) is
  refused (400).
"""

from pecan import hooks
import webob.exc

from allocsvc.api import request_checks


class RequestChecksHook(hooks.PecanHook):
    """``on_route``: the checks above, for every request."""

    def on_route(self, state):
        check_json_body(state.request)
        check_form_body(state.request)


def check_json_body(request):
    """415 for a JSON body in a charset other than UTF-8, 400 for one
    that cannot be read (``allocsvc.api.request_checks``), with the
    reason."""
    # Every method: WSME reads a JSON body even on a GET.
    if request.content_type not in request_checks.JSON_TYPES:
        return
    # Pecan decodes even an empty JSON body in the charset it names.
    charset = request_checks.foreign_charset(request.environ)
    if charset is not None:
        raise webob.exc.HTTPUnsupportedMediaType(
            detail='The charset %s is not supported, use UTF-8.' % charset)
    if not request.body:
        return
    try:
        request_checks.load_json(request.body)
    except request_checks.InvalidBody as exc:
        raise webob.exc.HTTPBadRequest(
            detail='The request body is not valid JSON: %s' % exc)


# The content types whose body Pecan parses into parameters (webob's
# ``Request.POST``) while it routes, before any handler could refuse it.
FORM_TYPES = ('', 'application/x-www-form-urlencoded', 'multipart/form-data')


def check_form_body(request):
    """400 for a form body Pecan could not parse (a multipart body
    without a boundary, say) rather than the error escaping routing."""
    if request.content_type not in FORM_TYPES:
        return
    try:
        request.POST
    except (ValueError, LookupError, UnicodeError) as exc:
        raise webob.exc.HTTPBadRequest(
            detail='The request body cannot be read as a form: %s' % exc)
