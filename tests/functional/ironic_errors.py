"""Reading Ironic's error document in tests: the body is
``{"error_message": "<JSON>"}`` and the inner document is either a fault
(``faultcode``, ``faultstring``) or, for errors raised before a
controller runs, ``code``/``title``/``description``."""

import json


def fault(resp):
    """The inner document of the error body."""
    assert resp.content_type == 'application/json'
    assert list(resp.json) == ['error_message']
    return json.loads(resp.json['error_message'])


def message(resp):
    """The human-readable message, whichever form the error took."""
    inner = fault(resp)
    return inner.get('faultstring') or inner.get('description')
