"""Placement's error bodies carry exactly the status of the exception
that caused them (webob's status map), never a 400 in place of another."""

import json

import pytest
import webob

from allocsvc.api.controllers.placement import errors
from allocsvc.common import exception


def _answer(status):
    class Raised(exception.AllocsvcException):
        pass

    Raised.status = status
    req = webob.Request.blank('/resource_providers', method='PUT',
                              headers={'Accept': 'application/json'})
    resp = req.get_response(errors.to_http_error(req, Raised('it broke')))
    return resp, req


@pytest.mark.parametrize('status', [400, 403, 404, 405, 406, 409, 413, 415,
                                    422, 500, 503])
def test_every_error_status_is_kept(status):
    resp, req = _answer(status)
    assert resp.status_int == status
    [error] = json.loads(resp.body)['errors']
    assert error['status'] == status
    assert 'it broke' in error['detail']
    assert req.environ[errors.ENV_ERROR_CODE] == 'placement.undefined_code'


@pytest.mark.parametrize('status', [200, 302, 999])
def test_a_status_that_is_no_error_is_an_internal_error(status, caplog):
    resp, _req = _answer(status)
    assert resp.status_int == 500
    assert 'has no HTTP error status' in caplog.text


def test_a_server_error_is_logged(caplog):
    resp, _req = _answer(503)
    assert resp.status_int == 503
    assert 'it broke' in caplog.text
