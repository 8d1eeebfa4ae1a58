"""The conductor's RPC endpoint and its worker pool.

``ConductorManager`` answers the RPC methods of
``allocsvc.conductor.rpcapi`` (only methods marked ``@messaging.expose``
are reachable over RPC) and runs allocations in a futurist thread pool.

Every write of the bare-metal API comes here (1.1; ports and port
groups 1.2): the conductor changes nodes under their locks, taken under
its own host name with the patience of ``[conductor]
request_node_locked_retry_*``, by the rules of
``allocsvc.conductor.provisioning`` (and ``verbs``), and answers with
the result or with the allocsvc exception the rules raised. The
allocation preview (1.6) comes here too, though it writes nothing: it
runs this conductor's allocation back end, so that it finds what an
allocation would.

Work is never lost to a full pool: the API writes the allocation
(``allocating``, owned by this conductor) before it casts, so an
allocation the pool cannot take stays in the database, and the periodic
check (``resume``) starts it once there is room. The pool holds
``[conductor] workers_pool_size`` threads and at most
``workers_pool_backlog`` allocations waiting for one. The same
allocation is never queued twice in one conductor: a cast, the start-up
resume and the periodic check may all name it.

Between conductors, ownership is ``conductor_affinity``: ``take_over``
moves allocations of dead conductors (or stuck under live ones) to this
one by compare-and-swap, and each write of the algorithm is conditional
on it, so a conductor that lost an allocation stops when it next writes.
"""

import threading

import futurist
from futurist import waiters
from oslo_log import log as logging
import oslo_messaging as messaging

from allocsvc import objects
from allocsvc.common import context as ctx
from allocsvc.common import exception
from allocsvc.common import hardware
from allocsvc.common import rpc
from allocsvc.conductor import allocation_groups
from allocsvc.conductor import allocations
from allocsvc.conductor import backends
from allocsvc.conductor import explain
from allocsvc.conductor import locking
from allocsvc.conductor import node_actions
from allocsvc.conductor import port_rules
from allocsvc.conductor import provisioning
from allocsvc.conductor import verbs
from allocsvc.conductor import vifs
from allocsvc.db.baremetal import allocation_groups as db_groups
from allocsvc.db.baremetal import allocations as db_allocations

LOG = logging.getLogger(__name__)

# Version 1.0: create_allocation (cast), backfill_allocation (call)
# Version 1.1: destroy_allocation, update_allocation, create_node,
#              update_node, destroy_node, set_maintenance,
#              change_node_power_state, do_provisioning_action,
#              set_node_traits, add_node_trait, remove_node_traits (calls)
# Version 1.2: create_port, update_port, destroy_port, create_portgroup,
#              update_portgroup, destroy_portgroup,
#              validate_driver_interfaces, vif_attach, vif_detach
#              (calls); update_node's reset_interfaces
# Version 1.3: set_console_mode, set_target_raid_config,
#              change_node_boot_mode, change_node_secure_boot,
#              attach_virtual_media, detach_virtual_media (calls;
#              node_actions); create_node's values and update_node's
#              changes may name the node's chassis (chassis_uuid)
# 1.4:         do_provisioning_action's clean_steps, rescue_password,
#              disable_ramdisk and service_steps, and the verbs clean,
#              adopt, rescue, unrescue, abort, unhold and service
# Version 1.5: create_port's values and update_port's changes may name
#              available_for_dynamic_portgroup; create_portgroup's and
#              update_portgroup's physical_network (the group's members
#              follow a change of it)
# Version 1.6: preview_allocation (call)
# Version 1.7: create_allocation_group (cast), destroy_allocation_group
#              (call)
RPC_API_VERSION = '1.7'

# What PATCH /v1/allocations/{ident} may change.
ALLOCATION_CHANGES = frozenset(('name', 'extra'))


def _worker_context(context=None):
    """A context of the conductor's own for its work (the API checked
    the caller's rights), keeping the request's id for the logs."""
    request_id = None
    if context is not None:
        request_id = context.global_request_id or context.request_id
    return ctx.RequestContext(is_admin=True, roles=['admin'],
                              global_request_id=request_id)


class ConductorManager(node_actions.NodeActions):
    """The RPC endpoint of conductor ``host`` (database id
    ``conductor_id``); a node's console, RAID and management changes are
    ``node_actions``'."""

    target = messaging.Target(version=RPC_API_VERSION)

    def __init__(self, conf, host, conductor_id):
        objects.register_all()
        self.conf = conf
        self.host = host
        self.conductor_id = conductor_id
        self.backend = backends.from_conf(conf)
        options = conf.conductor
        self._capacity = (options.workers_pool_size +
                          options.workers_pool_backlog)
        self._pool = futurist.ThreadPoolExecutor(
            max_workers=options.workers_pool_size)
        self._lock = threading.Lock()
        self._in_flight = {}        # allocation id -> future
        self._again = set()         # keys to run once more when done
        self._stopped = False

    # -- RPC methods ---------------------------------------------------------

    @messaging.expose
    def create_allocation(self, context, allocation):
        """Cast by the API once it has written ``allocation``
        (``allocating``, owned by this conductor): run it in the pool."""
        if allocation.conductor_affinity is None:
            # Written with no owner: claim it like an orphan.
            if not db_allocations.take_over(_worker_context(context),
                                            allocation.id, None,
                                            self.conductor_id):
                return
        elif allocation.conductor_affinity != self.conductor_id:
            LOG.warning('Allocation %s belongs to conductor %s, not to '
                        'this one (%s); leaving it to its owner',
                        allocation.uuid, allocation.conductor_affinity,
                        self.conductor_id)
            return
        # The allocation as the API wrote it: the algorithm starts from
        # it instead of reading it again (its writes are conditional on
        # what it relies on, the state and the owner).
        self.spawn(allocation.id, context, allocation)

    @messaging.expose
    @rpc.translate_errors
    def backfill_allocation(self, context, values, node_id):
        """Record an active allocation for a deployed node, all or nothing
        (see ``allocations.backfill``); errors reach the caller as the
        allocsvc exceptions they are."""
        options = self.conf.conductor
        return allocations.backfill(
            _worker_context(context), values, node_id, self.host,
            self.conductor_id, options.node_locked_retry_attempts,
            options.node_locked_retry_interval, backend=self.backend)

    @messaging.expose
    @rpc.translate_errors
    def preview_allocation(self, context, request, visible_to=None):
        """(1.6) Which nodes an allocation asking ``request`` (a dict:
        ``resource_class``, ``traits``, ``candidate_nodes``, ``owner``)
        could take now through this conductor's allocation back end,
        and why the others could not (``explain.preview``)."""
        return explain.preview(_worker_context(context), self.backend,
                               explain.Request(**request), visible_to)

    @messaging.expose
    def create_allocation_group(self, context, group_id):
        """(1.7) Cast by the API once it has written allocation group
        ``group_id`` and its members (``allocating``, owned by this
        conductor): run it in the pool (``allocation_groups``)."""
        self.spawn_group(group_id, context)

    @messaging.expose
    @rpc.translate_errors
    def destroy_allocation_group(self, context, group_id):
        """(1.7) Delete allocation group ``group_id``: its members as
        ``destroy_allocation`` deletes one, then the group."""
        context = _worker_context(context)
        allocation_groups.destroy_group(
            context, db_groups.get_by_id(context, group_id), self._locker())

    # -- the bare-metal API's writes (1.1) -----------------------------------

    @staticmethod
    def _worker_context(context):
        return _worker_context(context)

    def _locker(self):
        """This conductor as the holder of node locks for API requests,
        with their patience (read now: configuration may be reloaded)."""
        options = self.conf.conductor
        return locking.Locker(
            self.host, retries=options.request_node_locked_retry_attempts,
            interval=options.request_node_locked_retry_interval)

    @messaging.expose
    @rpc.translate_errors
    def destroy_allocation(self, context, allocation):
        """Delete ``allocation`` (an ``objects.Allocation`` as the API
        read it) and free its node; see
        ``provisioning.destroy_allocation``."""
        provisioning.destroy_allocation(_worker_context(context), allocation,
                                        self._locker())

    @messaging.expose
    @rpc.translate_errors
    def update_allocation(self, context, allocation_id, changes):
        """Write ``changes`` (``name``, ``extra``) to the allocation;
        return it."""
        refused = set(changes) - ALLOCATION_CHANGES
        if refused:
            raise exception.InvalidParameterValue(
                'Cannot update %s of an allocation.'
                % ', '.join(sorted(refused)))
        context = _worker_context(context)
        return objects.Allocation.from_record(
            context, db_allocations.update_allocation(
                context, allocation_id, changes))

    @messaging.expose
    @rpc.translate_errors
    def create_node(self, context, values, legacy=False):
        """Insert a node from ``values`` (columns, and ``traits``);
        ``legacy``: for a client older than API 1.11. Returns it."""
        context = _worker_context(context)
        return objects.Node.from_record(
            context, provisioning.create_node(context, values, legacy,
                                              conf=self.conf))

    @messaging.expose
    @rpc.translate_errors
    def update_node(self, context, node, changes, expected=None,
                    reset_interfaces=False):
        """Write ``changes`` to ``node`` (computed from the column values
        ``expected``); return it. ``reset_interfaces`` (1.2): a driver
        change resets the interfaces not in ``changes``. See
        ``provisioning.update_node``."""
        context = _worker_context(context)
        return objects.Node.from_record(context, provisioning.update_node(
            context, node.id, changes, self._locker(), expected=expected,
            reset_interfaces=reset_interfaces, conf=self.conf))

    @messaging.expose
    @rpc.translate_errors
    def validate_driver_interfaces(self, context, node):
        """(1.2) What validating ``node``'s driver interfaces finds,
        per interface type (``hardware.validate``)."""
        node = objects.Node.get_by_id(_worker_context(context), node.id)
        return hardware.validate(node.driver, {
            field: getattr(node, field) for field in hardware.FIELDS})

    @messaging.expose
    @rpc.translate_errors
    def destroy_node(self, context, node):
        provisioning.destroy_node(
            _worker_context(context), node.id, self._locker(),
            allow_available=self.conf.conductor
            .allow_deleting_available_nodes)

    @messaging.expose
    @rpc.translate_errors
    def set_maintenance(self, context, node, maintenance, reason=None):
        context = _worker_context(context)
        return objects.Node.from_record(context, provisioning.set_maintenance(
            context, node.id, maintenance, reason, self._locker()))

    @messaging.expose
    @rpc.translate_errors
    def change_node_power_state(self, context, node, target):
        context = _worker_context(context)
        return objects.Node.from_record(context, provisioning.set_power_state(
            context, node.id, target, self._locker()))

    @messaging.expose
    @rpc.translate_errors
    def do_provisioning_action(self, context, node, verb, configdrive=None,
                               clean_steps=None, rescue_password=None,
                               disable_ramdisk=False, service_steps=None):
        context = _worker_context(context)
        return objects.Node.from_record(context, verbs.provision(
            context, node.id, verb, self._locker(), configdrive=configdrive,
            clean_steps=clean_steps, rescue_password=rescue_password,
            disable_ramdisk=disable_ramdisk, service_steps=service_steps))

    @messaging.expose
    @rpc.translate_errors
    def set_node_traits(self, context, node, traits):
        """Replace the node's traits; return them, sorted."""
        return provisioning.set_traits(_worker_context(context), node.id,
                                       traits, self._locker())

    @messaging.expose
    @rpc.translate_errors
    def add_node_trait(self, context, node, trait):
        provisioning.add_trait(_worker_context(context), node.id, trait,
                               self._locker())

    @messaging.expose
    @rpc.translate_errors
    def remove_node_traits(self, context, node, trait=None):
        """Remove ``trait`` from the node (NodeTraitNotFound if it lacks
        it), or every trait if ``trait`` is None."""
        context = _worker_context(context)
        if trait is None:
            provisioning.remove_all_traits(context, node.id, self._locker())
        else:
            provisioning.remove_trait(context, node.id, trait,
                                      self._locker())

    # -- ports and port groups (1.2) ------------------------------------------

    @messaging.expose
    @rpc.translate_errors
    def create_port(self, context, values):
        """Insert a port from ``values`` (columns, ``node_id`` among
        them); return it. See ``port_rules.create_port``."""
        context = _worker_context(context)
        return objects.Port.from_record(context, port_rules.create_port(
            context, values, self._locker()))

    @messaging.expose
    @rpc.translate_errors
    def update_port(self, context, port, changes, expected=None):
        context = _worker_context(context)
        return objects.Port.from_record(context, port_rules.update_port(
            context, port.id, changes, self._locker(), expected=expected))

    @messaging.expose
    @rpc.translate_errors
    def destroy_port(self, context, port):
        port_rules.destroy_port(_worker_context(context), port.id,
                                self._locker())

    @messaging.expose
    @rpc.translate_errors
    def create_portgroup(self, context, values):
        context = _worker_context(context)
        return objects.Portgroup.from_record(
            context, port_rules.create_portgroup(context, values,
                                                 self._locker()))

    @messaging.expose
    @rpc.translate_errors
    def update_portgroup(self, context, portgroup, changes, expected=None):
        context = _worker_context(context)
        return objects.Portgroup.from_record(
            context, port_rules.update_portgroup(
                context, portgroup.id, changes, self._locker(),
                expected=expected))

    @messaging.expose
    @rpc.translate_errors
    def destroy_portgroup(self, context, portgroup):
        port_rules.destroy_portgroup(_worker_context(context), portgroup.id,
                                     self._locker())

    @messaging.expose
    @rpc.translate_errors
    def vif_attach(self, context, node, vif_info):
        """Attach the VIF ``vif_info['id']`` to a free port or port group
        of ``node`` (``vifs.attach``)."""
        vifs.attach(_worker_context(context), node.id, vif_info,
                    self._locker())

    @messaging.expose
    @rpc.translate_errors
    def vif_detach(self, context, node, vif_id):
        vifs.detach(_worker_context(context), node.id, vif_id,
                    self._locker())

    # -- the pool ------------------------------------------------------------

    def spawn(self, allocation_id, context=None, allocation=None):
        """Queue the allocation unless it is queued or running already;
        False if there is no room (it then waits for ``resume``).
        ``allocation``: the allocation as written, if the caller has it
        (an ``objects.Allocation``)."""
        return self._queue(allocation_id, 'allocation %s' % allocation_id,
                           self._run, _worker_context(context), allocation)

    def spawn_group(self, group_id, context=None):
        """Queue allocation group ``group_id`` as ``spawn`` queues an
        allocation (its key in the pool: ``('group', group_id)``)."""
        return self._queue(('group', group_id),
                           'allocation group %s' % group_id,
                           self._run_group, _worker_context(context))

    def _queue(self, key, what, work, context, given=None):
        """Submit ``work(key's id, context[, given])`` under ``key``.

        A key already running is run once more after: what it read may
        predate the row this call is about. Ids repeat -- SQLite gives
        the next row the id of the last one deleted -- so an allocation
        deleted while its job was finishing can have a successor of the
        same id, whose cast would otherwise be dropped and left
        ``allocating`` until the periodic ``resume``. The run after reads
        everything again (``given`` is not passed on) and stops at once
        if there is nothing to do."""
        with self._lock:
            running = self._in_flight.get(key)
            if running is not None:
                if running.running():
                    self._again.add(key)
                return True
            if self._stopped or len(self._in_flight) >= self._capacity:
                LOG.info('No free conductor worker for %s; the periodic '
                         'check will start it', what)
                return False
            self._in_flight[key] = self._pool.submit(
                self._job, key, work, context, given)
        return True

    def _job(self, key, work, context, given):
        job_id = key[1] if isinstance(key, tuple) else key
        try:
            if given is None:
                work(job_id, context)
            else:
                work(job_id, context, given)
        finally:
            with self._lock:
                if key in self._again and not self._stopped:
                    self._in_flight[key] = self._pool.submit(
                        self._job, key, work, context, None)
                else:
                    self._in_flight.pop(key, None)
                self._again.discard(key)

    def _run_group(self, group_id, context):
        try:
            allocation_groups.allocate_group(
                context, group_id, self.host, self.conductor_id,
                self.backend)
        except Exception:
            LOG.exception('Allocation group %s could not be processed',
                          group_id)

    def has_room(self):
        with self._lock:
            return not self._stopped and \
                len(self._in_flight) < self._capacity

    def in_flight(self):
        """The ids of the allocations queued or running here."""
        with self._lock:
            return set(self._in_flight)

    def _run(self, allocation_id, context, allocation=None):
        options = self.conf.conductor
        try:
            allocations.allocate(
                context, allocation_id, self.host, self.conductor_id,
                retry_attempts=options.node_locked_retry_attempts,
                retry_interval=options.node_locked_retry_interval,
                backend=self.backend,
                given=None if allocation is None else
                db_allocations.Allocation.of_object(allocation))
        except Exception:
            # allocate() records failures itself; this is an outage
            # while even that failed. The periodic check retries.
            LOG.exception('Allocation %s could not be processed',
                          allocation_id)

    # -- ownership -----------------------------------------------------------

    def resume(self, context, older_than=None):
        """Start every ``allocating`` allocation this conductor owns that
        is not queued here: at start-up (its previous life's), and
        periodically (those that found the pool full, or whose cast was
        lost). ``older_than``: only those not written for that many
        seconds (the cast of a newer one may still be on its way).
        Returns how many were started."""
        started = 0
        running = self.in_flight()
        if older_than is None:
            owned = db_allocations.list_allocating_of(context,
                                                      self.conductor_id)
        else:
            owned = db_allocations.list_stuck(context, older_than,
                                              self.conductor_id)
        for allocation in owned:
            if allocation.id in running:
                continue
            if not self.spawn(allocation.id):
                break
            started += 1
        # This conductor's allocation groups: their members are not in
        # the lists above (a group binds them all together).
        for group_id in db_groups.list_allocating_of(context,
                                                     self.conductor_id):
            if ('group', group_id) in running:
                continue
            if not self.spawn_group(group_id):
                break
            started += 1
        if started:
            LOG.info('Conductor %s resumed %d allocations', self.host,
                     started)
        return started

    def take_over(self, context, candidates):
        """Claim each allocation in ``candidates`` (records of other
        conductors' allocations: orphaned or stuck) by compare-and-swap
        on its owner and run the ones won, while the pool has room (the
        rest are left for other conductors). Returns the ids won."""
        won = []
        for allocation in candidates:
            if allocation.conductor_affinity == self.conductor_id:
                continue
            if not self.has_room():
                break
            if db_allocations.take_over(context, allocation.id,
                                        allocation.conductor_affinity,
                                        self.conductor_id):
                LOG.info('Conductor %s took over allocation %s from '
                         'conductor %s', self.host, allocation.uuid,
                         allocation.conductor_affinity)
                won.append(allocation.id)
                self.spawn(allocation.id)
        return won

    def take_over_groups(self, context, orphans):
        """Claim each allocation group of ``orphans`` (``(group id,
        dead owner)``) with its members by compare-and-swap and run the
        ones won from the start (a group binds its nodes in one
        transaction: a dead owner left none bound), while the pool has
        room. Returns the ids won."""
        won = []
        for group_id, owner in orphans:
            if owner == self.conductor_id:
                continue
            if not self.has_room():
                break
            if db_groups.take_over(context, group_id, owner,
                                   self.conductor_id):
                LOG.info('Conductor %s took over allocation group %s from '
                         'conductor %s', self.host, group_id, owner)
                won.append(group_id)
                self.spawn_group(group_id)
        return won

    def stop(self, timeout=None):
        """Accept no more work, drop what waits for a worker (it stays
        ``allocating`` in the database for the next owner) and wait for
        the running allocations to finish, at most ``timeout`` seconds
        (None: no limit). Returns how many are still running."""
        with self._lock:
            self._stopped = True
            for allocation_id, future in list(self._in_flight.items()):
                if future.cancel():
                    del self._in_flight[allocation_id]
            running = list(self._in_flight.values())
        _done, not_done = waiters.wait_for_all(running, timeout)
        if not_done:
            LOG.warning('Conductor %s stops with %d allocations still '
                        'running; they stay allocating for the next '
                        'owner', self.host, len(not_done))
        # The idle worker threads notice within a second and end; no
        # need to wait for that.
        self._pool.shutdown(wait=False)
        return len(not_done)
