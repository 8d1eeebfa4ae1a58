"""The request context: who is asking, and the database transaction."""

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """An oslo.context RequestContext that carries oslo.db transactions,
    and, over RPC, ``deadline``: when (``time.time()``) the API stops
    waiting for the answer of the call it came with (None: no bound;
    see ``allocsvc.common.rpc.translate_errors``)."""

    FROM_DICT_EXTRA_KEYS = ['deadline']

    def __init__(self, *args, deadline=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.deadline = deadline

    def to_dict(self):
        values = super().to_dict()
        values['deadline'] = self.deadline
        return values


def get_admin_context():
    return RequestContext(is_admin=True, roles=['admin'])
