"""Placeholder: being written."""

import webob.exc


def list_resource_classes(req):
    raise webob.exc.HTTPNotImplemented()


def create_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


def get_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


def update_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


def delete_resource_class(req):
    raise webob.exc.HTTPNotImplemented()
