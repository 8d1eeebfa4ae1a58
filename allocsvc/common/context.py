"""The request context: who is asking, and the database transaction."""

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """An oslo.context RequestContext that carries oslo.db transactions."""


def get_admin_context():
    return RequestContext(is_admin=True, roles=['admin'])
