"""Placeholder: being written."""

import webob.exc


def get_aggregates(req):
    raise webob.exc.HTTPNotImplemented()


def set_aggregates(req):
    raise webob.exc.HTTPNotImplemented()
