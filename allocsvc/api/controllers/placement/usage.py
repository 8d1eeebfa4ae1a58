"""Placeholder: being written."""

import webob.exc


def list_usages(req):
    raise webob.exc.HTTPNotImplemented()


def get_total_usages(req):
    raise webob.exc.HTTPNotImplemented()
