"""The bare-metal API's root: ``/``, ``/v1`` and what lies below, in one
route table (``allocsvc.api.controllers.v1.routes``). Any other first
path segment than ``v1`` is served by ``/v1`` (``/nodes`` is
``/v1/nodes``), as Ironic does, which is what its bookmark links rely
on."""

from allocsvc.api.controllers.v1 import controller


def make_root():
    return controller.make_root()
