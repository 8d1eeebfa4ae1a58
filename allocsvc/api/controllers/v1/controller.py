"""The one Pecan controller of the bare-metal API (``/`` and ``/v1``):
every request is routed through ``routes.ROUTES`` (see ``dispatch``)."""

from allocsvc.api.controllers.v1 import base  # noqa: F401 (tests patch it)
from allocsvc.api.controllers.v1 import dispatch
from allocsvc.api.controllers.v1 import routes


def make_root():
    """The Pecan root controller of the bare-metal API."""
    return dispatch.Dispatcher(routes.ROUTES, routes.GATES,
                               routes.RESOLVERS)
