"""The conductor service: registration, RPC server, periodic tasks.

An oslo.service ``Service`` on oslo.service's threading backend (chosen
when the ``allocsvc`` package is imported); the RPC server uses
oslo.messaging's ``threading`` executor and the work runs in the
manager's thread pool. Nothing is monkey-patched.

Start (in this order, each step for a reason):

1. join the tooz group, before registering, so that a registered
   conductor that is not a member can be taken for dead;
2. register the conductor row, offline for now (its id survives
   restarts, and allocations refer to it);
3. release the node locks its previous life may have died holding, and
   those API processes of the previous release left behind (that API
   took node locks itself; from this release on, only conductors do);
4. start the RPC server, and only then mark the row online: a message
   sent to a conductor whose queue the broker does not have yet is
   dropped, so a call the API made in that window would time out;
5. resume its own ``allocating`` allocations, then start the periodic
   tasks.

Periodic tasks (intervals in ``[conductor]``, read at start):

* ``heartbeat`` (``heartbeat_interval``): stamp the row, rejoin the
  group if it was lost;
* ``check_allocations`` (``check_allocations_interval``, 0 disables):
  release the locks of dead conductors; take over, by compare-and-swap,
  the ``allocating`` allocations of dead conductors (heartbeat older
  than ``heartbeat_timeout``, unregistered, or out of the tooz group)
  and those stuck under a live one for ``stuck_allocation_timeout``;
  start own allocations that found the pool full.
* ``resume_lost`` (``resume_allocations_interval``, 0 disables): start
  own ``allocating`` allocations not running here and written at least
  one interval ago -- those the API wrote but could not send, while the
  broker was unreachable. It runs more often than the check above, so
  that they finish soon after the broker is back.

Stop: the RPC server first (no new work), then the timers, then the
pool (running allocations finish within most of
``graceful_shutdown_timeout``; queued ones, and those still running
then, stay ``allocating`` for the next owner), then unregister (so the
others take over at once rather than after the heartbeat timeout) and
leave the group.
"""

from oslo_log import log as logging
from oslo_service import service

from allocsvc import objects
from allocsvc.common import context as ctx
from allocsvc.common import exception
from allocsvc.common import hardware
from allocsvc.common import rpc
from allocsvc.conductor import coordination
from allocsvc.conductor import manager
from allocsvc.db.baremetal import allocation_groups as db_groups
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import conductors as db_conductors
from allocsvc.db.baremetal import node_locks
from allocsvc.objects import base as objects_base

LOG = logging.getLogger(__name__)


class ConductorService(service.Service):
    """Conductor ``host`` (default ``[DEFAULT] host``) serving RPC on
    ``transport`` (default: the one ``conf`` names)."""

    def __init__(self, conf, host=None, transport=None):
        super().__init__()
        objects.register_all()
        self.conf = conf
        self.host = host or conf.host
        self.transport = transport
        self._own_transport = transport is None
        self.membership = coordination.Membership(
            conf.conductor.coordination_backend_url, self.host)
        self.conductor = None
        self.manager = None
        self.rpcserver = None
        self._stopped = False

    @property
    def conductor_id(self):
        return self.conductor.id

    def start(self):
        super().start()
        options = self.conf.conductor
        context = ctx.get_admin_context()
        self.membership.join()
        self.conductor = self._register(context, online=False)
        released = node_locks.release_all(context, self.host)
        if released:
            LOG.info('Conductor %s released %d stale node locks',
                     self.host, released)
        released = node_locks.release_api_locks(context)
        if released:
            LOG.warning('Conductor %s released %d node locks left by API '
                        'processes of the previous release', self.host,
                        released)
        self.manager = manager.ConductorManager(self.conf, self.host,
                                                self.conductor.id)
        if self.transport is None:
            self.transport = rpc.get_transport(self.conf)
        self.rpcserver = rpc.get_server(self.transport, self.host,
                                        [self.manager],
                                        objects_base.rpc_serializer())
        self.rpcserver.start()
        db_conductors.heartbeat(context, self.host)
        self.conductor.online = self.conductor.alive = True
        self.manager.resume(context)
        self.tg.add_timer_args(
            options.heartbeat_interval, self.heartbeat,
            initial_delay=options.heartbeat_interval,
            stop_on_exception=False)
        if options.resume_allocations_interval:
            self.tg.add_timer_args(
                options.resume_allocations_interval, self.resume_lost,
                initial_delay=options.resume_allocations_interval,
                stop_on_exception=False)
        if options.check_allocations_interval:
            self.tg.add_timer_args(
                options.check_allocations_interval, self.check_allocations,
                initial_delay=options.check_allocations_interval,
                stop_on_exception=False)
        LOG.info('Conductor %s (id %d) started', self.host,
                 self.conductor.id)

    def _register(self, context, online=True):
        """Record this conductor, with the hardware types it serves (the
        ``hosts`` of ``/v1/drivers``) and its conductor group."""
        return objects.Conductor.register(
            context, self.host,
            drivers=hardware.enabled_hardware_types(self.conf),
            conductor_group=self.conf.conductor.conductor_group.lower(),
            online=online)

    # -- periodic tasks ------------------------------------------------------

    def heartbeat(self):
        context = ctx.get_admin_context()
        try:
            db_conductors.heartbeat(context, self.host)
        except exception.ConductorNotFound:
            LOG.warning('The row of conductor %s is gone; registering '
                        'again', self.host)
            self.conductor = self._register(context)
            self.manager.conductor_id = self.conductor.id
        self.membership.ensure_member()

    def resume_lost(self):
        """Start own allocations whose message never came (see
        ``manager.resume``); returns how many were started."""
        return self.manager.resume(
            ctx.get_admin_context(),
            older_than=self.conf.conductor.resume_allocations_interval)

    def dead_conductors(self, context):
        """The other conductors taken for dead now: ``(by_database,
        by_membership)``, lists of conductor records. The second holds
        the ones whose row looks alive but who left the tooz group."""
        members = self.membership.members()
        by_database, by_membership = [], []
        for conductor in db_conductors.list_conductors(
                context, self.conf.conductor.heartbeat_timeout):
            if conductor.id == self.conductor.id:
                continue
            if not conductor.alive:
                by_database.append(conductor)
            elif members is not None and conductor.hostname not in members:
                by_membership.append(conductor)
        return by_database, by_membership

    def check_allocations(self):
        """Release dead conductors' locks, take over dead conductors'
        allocations and the stuck ones, and their allocation groups,
        start own allocations left waiting. Returns the ids of the
        allocations taken over."""
        options = self.conf.conductor
        context = ctx.get_admin_context()
        by_database, by_membership = self.dead_conductors(context)
        for conductor in by_database + by_membership:
            released = node_locks.release_all(context, conductor.hostname)
            if released:
                LOG.info('Released %d node locks of dead conductor %s',
                         released, conductor.hostname)
        candidates = db_allocations.list_orphaned(
            context, options.heartbeat_timeout)
        for conductor in by_membership:
            candidates += db_allocations.list_allocating_of(
                context, conductor.id)
        candidates += db_allocations.list_stuck(
            context, options.stuck_allocation_timeout)
        seen = set()
        unique = []
        for allocation in candidates:
            if allocation.id not in seen:
                seen.add(allocation.id)
                unique.append(allocation)
        won = self.manager.take_over(context, unique)
        orphans = db_groups.list_orphaned(context, options.heartbeat_timeout)
        for conductor in by_membership:
            orphans += [(group_id, conductor.id) for group_id in
                        db_groups.list_allocating_of(context, conductor.id)]
        self.manager.take_over_groups(context, orphans)
        self.manager.resume(context)
        return won

    # -- stop ----------------------------------------------------------------

    def _pool_timeout(self):
        """How long a stop waits for the running allocations: most of
        ``graceful_shutdown_timeout``, leaving the rest to unregister
        (the launcher ends the process when it runs out); None (no
        limit) when that is 0."""
        timeout = getattr(self.conf, 'graceful_shutdown_timeout', 0)
        if not timeout:
            return None
        return max(1.0, timeout * 0.8)

    def stop(self, graceful=True):
        if self._stopped:
            return
        self._stopped = True
        if self.rpcserver is not None:
            self.rpcserver.stop()
            self.rpcserver.wait()
            self.rpcserver = None
        self.tg.stop_timers(wait=True)
        if self.manager is not None:
            self.manager.stop(self._pool_timeout())
        if self.conductor is not None:
            try:
                db_conductors.unregister(ctx.get_admin_context(), self.host)
            except Exception:
                LOG.exception('Conductor %s could not unregister; it will '
                              'be taken for dead after the heartbeat '
                              'timeout', self.host)
        self.membership.leave()
        if self._own_transport and self.transport is not None:
            self.transport.cleanup()
            self.transport = None
        super().stop(graceful)
        LOG.info('Conductor %s stopped', self.host)
