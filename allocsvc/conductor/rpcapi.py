"""The client side of the conductor RPC API, used by the API service.

The API writes what it asks for first (an allocation row, state
``allocating``, owned by the conductor ``pick_conductor`` chose) and
then hands it over with a cast, so a lost message loses no work: the
owner's periodic check finds the row. Errors of a call come back as the
allocsvc exceptions the conductor raised (see ``allocsvc.common.rpc``).

``ConductorAPI.RPC_API_VERSION`` is the newest version the client
speaks; it moves with ``manager.RPC_API_VERSION``.
"""

import random
import time

from oslo_log import log as logging
import oslo_messaging as messaging

from allocsvc import objects
from allocsvc.common import exception
from allocsvc.common import rpc

LOG = logging.getLogger(__name__)

# How many times a cast is re-sent while the broker is unreachable
# before the API gives up on it (the periodic check then takes over);
# oslo.messaging would otherwise retry for ever and hang the request.
CAST_RETRY = 2

# Seconds the API reuses the list of live conductors it read.
ALIVE_CACHE_S = 1.0


class ConductorAPI:
    """Client of the conductors, on ``transport`` (default: the one of
    ``conf``)."""

    # 1.0: create_allocation (cast), backfill_allocation (call)
    RPC_API_VERSION = '1.0'

    def __init__(self, conf, transport=None):
        objects.register_all()
        self.conf = conf
        self.transport = transport or rpc.get_transport(conf)
        self.client = rpc.get_client(self.transport, self.RPC_API_VERSION)
        # (time.monotonic() when read, [live conductors]), see
        # ``pick_conductor``.
        self._alive = None

    def pick_conductor(self, context):
        """A conductor that is alive (heartbeat within ``[conductor]
        heartbeat_timeout``), chosen at random; NoConductorAvailable (503)
        if there is none.

        The list of live conductors is read at most once every
        ALIVE_CACHE_S seconds (and again at once while it is empty): it
        was one more transaction in every POST of an allocation, to learn
        what changes on the scale of the heartbeat timeout. A conductor
        that went down meanwhile loses nothing: the allocations handed to
        it are taken over by the others (``manager.take_over``)."""
        now = time.monotonic()
        cached = self._alive
        if cached is not None and now - cached[0] < ALIVE_CACHE_S:
            alive = cached[1]
        else:
            alive = [c for c in objects.Conductor.list(
                context, self.conf.conductor.heartbeat_timeout) if c.alive]
            self._alive = (now, alive) if alive else None
        if not alive:
            raise exception.NoConductorAvailable()
        return random.choice(alive)

    def create_allocation(self, context, allocation, hostname):
        """Hand the (already written) ``allocation`` to conductor
        ``hostname``. Returns None, also when the message could not be
        sent: the allocation is in the database, owned by that conductor,
        whose periodic check or whose successor will run it."""
        cctxt = self.client.prepare(server=hostname, retry=CAST_RETRY)
        try:
            cctxt.cast(context, 'create_allocation', allocation=allocation)
        except messaging.MessagingException as exc:
            LOG.warning('Could not send allocation %s to conductor %s (%s); '
                        'it will be picked up by a periodic check',
                        allocation.uuid, hostname, exc)

    @rpc.rebuild_errors
    def backfill_allocation(self, context, values, node_id, hostname):
        """Ask conductor ``hostname`` to record an active allocation from
        ``values`` for the deployed node ``node_id``; returns it as an
        ``objects.Allocation``. Raises what the conductor raised (400 for
        a mismatch, 409 for a clash; no row is left behind), or
        NoConductorAvailable (503) if it does not answer in time."""
        cctxt = self.client.prepare(server=hostname)
        try:
            return cctxt.call(context, 'backfill_allocation', values=values,
                              node_id=node_id)
        except messaging.MessagingTimeout:
            raise exception.NoConductorAvailable(
                'conductor %s did not answer in time' % hostname)
