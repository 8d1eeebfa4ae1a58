"""Placeholder: being written."""

import webob.exc


def list_traits_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


def update_traits_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


def delete_traits_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


def list_traits(req):
    raise webob.exc.HTTPNotImplemented()


def get_trait(req):
    raise webob.exc.HTTPNotImplemented()


def put_trait(req):
    raise webob.exc.HTTPNotImplemented()


def delete_trait(req):
    raise webob.exc.HTTPNotImplemented()
