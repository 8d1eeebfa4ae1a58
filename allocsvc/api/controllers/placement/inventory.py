"""Placeholder: being written."""

import webob.exc


def get_inventories(req):
    raise webob.exc.HTTPNotImplemented()


def create_inventory(req):
    raise webob.exc.HTTPNotImplemented()


def set_inventories(req):
    raise webob.exc.HTTPNotImplemented()


def delete_inventories(req):
    raise webob.exc.HTTPNotImplemented()


def get_inventory(req):
    raise webob.exc.HTTPNotImplemented()


def update_inventory(req):
    raise webob.exc.HTTPNotImplemented()


def delete_inventory(req):
    raise webob.exc.HTTPNotImplemented()
