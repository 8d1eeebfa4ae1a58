"""The client side of the conductor RPC API, used by the API service.

To create an allocation, the API writes what it asks for first (an
allocation row, state ``allocating``, owned by the conductor
``pick_conductor`` chose) and then hands it over with a cast, so a lost
message loses no work: the owner's periodic check finds the row.

Every other write is a call that returns its result. A node's (and
one of its ports' or port groups') goes to the node's conductor
(``hash_ring``: its owner while alive, else the hash ring's choice in
its conductor group), and an allocation's deletion to the allocation's
conductor while it is alive; otherwise, and for the other writes, to
any live conductor. Errors of a call come back as the allocsvc
exceptions the conductor raised (see ``allocsvc.common.rpc``); a
conductor that does not answer in time is NoConductorAvailable (503).

No request waits on a dead peer for long (``call_guard``):

* a call waits for one conductor at most ``[api]
  conductor_answer_timeout`` seconds, and for all it tries at most
  ``[api] conductor_call_timeout``. A conductor that did not answer is
  suspected at once: the process's next requests pass it over (a
  node's go to the conductor that takes its place on the hash ring).
  What any conductor can do safely under the database's
  compare-and-swap (deleting or renaming an allocation, deleting an
  allocation group, a preview) goes on to the next live conductor in
  the same request; the rest fails with a 503 that says why. The
  context of each call carries when its client stops waiting, and a
  conductor that gets it later does not act on it;
* a message the broker does not take gets the broker suspected: calls
  are answered 503 at once, and a new allocation is handed over
  through the database (its conductor's periodic check) without
  waiting;
* while ``[api] conductor_waiting_calls`` requests of the process have
  waited longer than ``[api] conductor_slow_call`` for an answer, new
  calls get a 503 at once, and calls never take the last ``[api]
  conductor_spare_threads`` threads (``call_guard.Waiting``).

Nothing here waits on the message broker without a bound: while it is
unreachable, oslo.messaging would reconnect for ever (or, with
``retry``, for seconds per message) in the request's thread. Messages
are sent with ``[api] conductor_send_retries`` and from a pool of
sender threads, and the request waits for its message at most as said
above. A message still waiting for a sender thread when its request
gives up is never sent; one being sent may still arrive, as with any
RPC timeout.

Versions: ``ConductorAPI.RPC_API_VERSION`` is the newest version the
client speaks; it moves with ``manager.RPC_API_VERSION``. Each method
sends the version it appeared in, so conductors of an older release
answer what they know; ``[conductor] rpc_version_cap`` keeps the client
from sending newer ones (ConductorTooOld, 503) while they run.
"""

import concurrent.futures
import copy
import random
import threading
import time

import futurist
import kombu.exceptions
from oslo_log import log as logging
import oslo_messaging as messaging

from allocsvc import objects
from allocsvc.common import exception
from allocsvc.common import rpc
from allocsvc.conductor import call_guard
from allocsvc.conductor import hash_ring
from allocsvc.objects import base as objects_base

LOG = logging.getLogger(__name__)

# Threads of an API process that send messages to the conductors (each
# request waits for its own, see ``_bounded``): as many as requests of
# one process may send at once; more wait for a free one.
SENDER_THREADS = 64

# What sending raises when the broker cannot be reached: oslo.messaging's
# own error once its retries are spent, or, when its pool opens a new
# connection, kombu's or the socket's own.
BROKER_DOWN = (messaging.MessageDeliveryFailure, kombu.exceptions.KombuError,
               OSError)

# Port and port group columns a conductor older than RPC API 1.5 cannot
# write.
NEW_PORT_COLUMNS = frozenset(('available_for_dynamic_portgroup',))
NEW_PORTGROUP_COLUMNS = frozenset(('physical_network', 'dynamic_portgroup'))

# The provisioning verbs a conductor of RPC API 1.1 knows.
_VERBS_1_1 = ('manage', 'provide', 'active', 'rebuild', 'inspect',
              'deleted')

# Seconds the API reuses the list of live conductors it read.
ALIVE_CACHE_S = 1.0


def conductor_for(alive, node):
    """Which of the live conductors ``alive`` serves ``node`` (its writes
    go to it), or None: ``hash_ring.conductor_for``, for the API, which
    knows the conductor through this client only."""
    return hash_ring.conductor_for(alive, node)


class ConductorAPI:
    """Client of the conductors, on ``transport`` (default: the one of
    ``conf``); ``in_process``: the only conductor runs in this process,
    on an in-process transport (see ``_call_on``)."""

    # 1.0: create_allocation (cast), backfill_allocation (call)
    # 1.1: destroy_allocation, update_allocation, create_node,
    #      update_node, destroy_node, set_maintenance,
    #      change_node_power_state, do_provisioning_action,
    #      set_node_traits, add_node_trait, remove_node_traits (calls)
    # 1.2: create_port, update_port, destroy_port, create_portgroup,
    #      update_portgroup, destroy_portgroup,
    #      validate_driver_interfaces, vif_attach, vif_detach (calls);
    #      update_node's reset_interfaces
    # 1.3: set_console_mode, set_target_raid_config, change_node_boot_mode,
    #      change_node_secure_boot, attach_virtual_media,
    #      detach_virtual_media (calls); create_node's values
    #      and update_node's changes may name the node's chassis
    #      (chassis_uuid)
    # 1.4: do_provisioning_action's clean_steps, rescue_password,
    #      disable_ramdisk and service_steps, and the verbs clean, adopt,
    #      rescue, unrescue, abort, unhold and service (node_actions)
    # 1.5: create_port's values and update_port's changes may name
    #      available_for_dynamic_portgroup, create_portgroup's and
    #      update_portgroup's physical_network (NEW_PORT_COLUMNS,
    #      NEW_PORTGROUP_COLUMNS)
    # 1.6: preview_allocation (call)
    # 1.7: create_allocation_group (cast), destroy_allocation_group (call)
    RPC_API_VERSION = '1.7'

    def __init__(self, conf, transport=None, in_process=False):
        objects.register_all()
        self.conf = conf
        self.transport = transport or rpc.get_transport(conf)
        self.client = rpc.get_client(
            self.transport, self.RPC_API_VERSION,
            objects_base.rpc_serializer(),
            version_cap=conf.conductor.rpc_version_cap)
        # (time.monotonic() when read, [live conductors]), see
        # ``live_conductors``.
        self._alive = None
        self._senders = None
        self._senders_lock = threading.Lock()
        self.suspects = call_guard.Suspects(conf)
        self.waiting = call_guard.Waiting(conf)
        # With the conductor in this process (allocsvc-all on its own
        # transport), a slow answer is load (SQLite's writers queue),
        # not a silent peer: calls wait [DEFAULT] rpc_response_timeout,
        # and nobody is suspected.
        self.in_process = in_process

    def _bounded(self, timeout, function, *args, **kwargs):
        """``function(*args, **kwargs)`` in a sender thread; its result
        or exception if it ends within ``timeout`` seconds, else
        MessagingTimeout (it is dropped if it has not started yet)."""
        with self._senders_lock:
            if self._senders is None:
                self._senders = futurist.ThreadPoolExecutor(
                    max_workers=SENDER_THREADS)
            senders = self._senders
        future = senders.submit(function, *args, **kwargs)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            if not future.cancel():
                # Still sending: if the broker refuses it in the end,
                # the next requests need not try.
                future.add_done_callback(self._note_broker_down)
            raise messaging.MessagingTimeout(
                'the message could not be sent and answered within %s '
                'seconds' % timeout)

    def _note_broker_down(self, future):
        """A message given up on by its request failed to be sent after
        all (oslo.messaging's reconnects outlast the request's wait): the
        broker is suspected."""
        if not future.cancelled() and \
                isinstance(future.exception(), BROKER_DOWN):
            self.suspects.suspect(call_guard.BROKER)

    def live_conductors(self, context, fresh=False):
        """The conductors that are alive (heartbeat within ``[conductor]
        heartbeat_timeout``).

        Unless ``fresh``, the list is read at most once every
        ALIVE_CACHE_S seconds (and again at once while it is empty): it
        was one more transaction in
        every request that needs a conductor, to learn what changes on
        the scale of the heartbeat timeout. A conductor that went down
        meanwhile loses nothing: the allocations handed to it are taken
        over by the others (``manager.take_over``)."""
        now = time.monotonic()
        cached = self._alive
        if not fresh and cached is not None and \
                now - cached[0] < ALIVE_CACHE_S:
            return cached[1]
        alive = [c for c in objects.Conductor.list(
            context, self.conf.conductor.heartbeat_timeout) if c.alive]
        self._alive = (now, alive) if alive else None
        return alive

    def pick_conductor(self, context, prefer=None):
        """A live conductor (``live_conductors``): the one whose id is
        ``prefer`` if it is alive and not suspected, else one chosen at
        random among those not suspected (among all live ones if every
        one is); NoConductorAvailable (503) if there is none."""
        alive = self.live_conductors(context)
        if not alive:
            raise exception.NoConductorAvailable()
        trusted = [c for c in alive
                   if not self.suspects.suspected(c.hostname)] or alive
        if prefer is not None:
            for conductor in trusted:
                if conductor.id == prefer:
                    return conductor
        return random.choice(trusted)

    def _hosts(self, context, prefer=None):
        """The host names of the live conductors, in the order a call
        that any of them may answer tries them: the one whose id is
        ``prefer`` first, the others at random, those not suspected
        before the suspects whose turn it is to be probed; the other
        suspects are left out. NoConductorAvailable (503) if none is
        left."""
        alive = list(self.live_conductors(context))
        if not alive:
            raise exception.NoConductorAvailable()
        random.shuffle(alive)
        alive.sort(key=lambda c: c.id != prefer)
        trusted = [c.hostname for c in alive
                   if not self.suspects.suspected(c.hostname)]
        probed = [c.hostname for c in alive
                  if c.hostname not in trusted and
                  not self.suspects.passed_over(c.hostname)]
        if not trusted and not probed:
            raise exception.NoConductorAvailable(
                'no live conductor answered in time a moment ago',
                retry_after=self.conf.api.conductor_probe_interval)
        return trusted + probed

    def conductor_for_node(self, context, node):
        """The conductor of ``node`` (``hash_ring.conductor_for``) among
        the live ones; None if no live conductor may serve it."""
        return conductor_for(self.live_conductors(context), node)

    def _cast(self, context, hostname, version, method, what, **kwargs):
        """Cast ``method`` to conductor ``hostname``, waiting at most
        ``[api] conductor_handover_timeout`` for the broker: True if it
        was sent. False at once while the broker is suspected; False if
        the broker does not take it in time (it is suspected then). A
        cast waits on the broker only, briefly, and once: it does not
        count among ``[api] conductor_waiting_calls``. ``what`` names the
        work for the log."""
        if self.suspects.passed_over(call_guard.BROKER):
            LOG.info('The message broker is suspected: %s stays in the '
                     'database for conductor %s', what, hostname)
            return False
        try:
            options = self.conf.api
            cctxt = self.client.prepare(
                server=hostname, version=version,
                retry=options.conductor_send_retries)
            self._bounded(options.conductor_handover_timeout, cctxt.cast,
                          context, method, **kwargs)
        except (messaging.MessagingException,) + BROKER_DOWN as exc:
            self.suspects.suspect(call_guard.BROKER)
            LOG.warning('Could not send %s to conductor %s (%s); the '
                        'conductor will start it from the database', what,
                        hostname, exc)
            return False
        self.suspects.clear(call_guard.BROKER)
        return True

    def create_allocation(self, context, allocation, hostname):
        """Hand the (already written) ``allocation`` to conductor
        ``hostname``, waiting at most ``[api] conductor_handover_timeout``
        for the broker. Returns True if the message was sent, False if
        it could not be in time: the allocation is in the database, owned
        by that conductor, whose periodic check (``[conductor]
        resume_allocations_interval``) or whose successor will run it."""
        return self._cast(context, hostname, '1.0', 'create_allocation',
                          'allocation %s' % allocation.uuid,
                          allocation=allocation)

    @rpc.rebuild_errors
    def backfill_allocation(self, context, values, node_id, hostname):
        """Ask conductor ``hostname`` to record an active allocation from
        ``values`` for the deployed node ``node_id``; returns it as an
        ``objects.Allocation``. Raises what the conductor raised (400 for
        a mismatch, 409 for a clash; no row is left behind), or
        NoConductorAvailable (503) if it does not answer in time."""
        return self._call(context, hostname, '1.0', 'backfill_allocation',
                          values=values, node_id=node_id)

    @rpc.rebuild_errors
    def preview_allocation(self, context, request, visible_to=None):
        """(1.6) Which nodes an allocation asking ``request``
        (``resource_class``, ``traits``, ``candidate_nodes`` as UUIDs,
        ``owner``) could take now, and why the other nodes of the class
        could not, as a live conductor's allocation back end sees it
        (a conductor picked as for an allocation); nothing is reserved.
        ``visible_to``: a project whose nodes (owned or leased) are the
        only ones listed and counted. Returns the preview's document
        (``allocsvc.conductor.explain.preview``)."""
        return self._call_anywhere(context, '1.6', 'preview_allocation',
                                   request=request, visible_to=visible_to)

    def create_allocation_group(self, context, group, hostname):
        """(1.7) Hand the (already written) allocation ``group`` (its
        ``id`` and ``uuid``) to conductor ``hostname``, as
        ``create_allocation`` hands over an allocation: True if sent,
        False if the broker did not take it in time (the owner's periodic
        check starts it from the database)."""
        if not self.client.can_send_version('1.7'):
            raise exception.ConductorTooOld('create_allocation_group',
                                            '1.7')
        return self._cast(context, hostname, '1.7',
                          'create_allocation_group',
                          'allocation group %s' % group.uuid,
                          group_id=group.id)

    @rpc.rebuild_errors
    def destroy_allocation_group(self, context, group):
        """(1.7) Delete allocation ``group`` and its members, freeing
        their nodes, on the group's conductor if it is alive and answers,
        else on another live one (``_call_anywhere``: a group gone there
        after the first did not answer was deleted by it)."""
        self._call_anywhere(context, '1.7', 'destroy_allocation_group',
                            group.conductor_affinity,
                            done_if=exception.AllocationGroupNotFound,
                            group_id=group.id)

    # -- the bare-metal API's writes (1.1) -----------------------------------

    def _call(self, context, hostname, version, method, **kwargs):
        """Call ``method`` (of RPC API ``version``) on conductor
        ``hostname``; see ``_call_on``."""
        return self._call_on(context, [hostname], version, method,
                             **kwargs)

    def _call_on(self, context, hosts, version, method, done_if=None,
                 **kwargs):
        """Call ``method`` (of RPC API ``version``) on conductor
        ``hosts[0]``; if it does not answer within ``[api]
        conductor_answer_timeout``, on the next one, and so on, within
        ``[api] conductor_call_timeout`` (give more than one host only
        for what any conductor may do, and do again). A host that does
        not answer is suspected. ``done_if``: an exception class that,
        from a conductor tried after one that did not answer, means the
        one before did the work (the call returns None).

        NoConductorAvailable (503) if the broker is suspected or cannot
        take the message (``[api] conductor_send_retries``), if no host
        answers in time, or while ``[api] conductor_waiting_calls``
        requests wait on slow conductors (``call_guard.Waiting``). With
        the in-process transport, the one conductor is waited for up to
        ``[DEFAULT] rpc_response_timeout``, without suspicion."""
        options = self.conf.api
        if self.in_process:
            try:
                return self._call_once(context, hosts[0], version, method,
                                       self.conf.rpc_response_timeout,
                                       kwargs)
            except messaging.MessagingTimeout:
                raise exception.NoConductorAvailable(
                    'the conductor did not answer in time',
                    retry_after=options.conductor_probe_interval)
        if self.suspects.passed_over(call_guard.BROKER):
            raise exception.NoConductorAvailable(
                'the message broker could not be reached a moment ago',
                retry_after=options.conductor_probe_interval)
        end = time.monotonic() + options.conductor_call_timeout
        silent = []
        token = self.waiting.enter()
        try:
            for hostname in hosts:
                left = end - time.monotonic()
                if silent and left <= 0:
                    break
                wait = min(options.conductor_answer_timeout,
                           left if silent else
                           options.conductor_call_timeout)
                try:
                    result = self._call_once(context, hostname, version,
                                             method, wait, kwargs)
                except messaging.MessagingTimeout:
                    self.suspects.suspect(hostname)
                    LOG.warning('Conductor %s did not answer %s within %.1f '
                                'seconds; it is suspected', hostname,
                                method, wait)
                    silent.append(hostname)
                    continue
                except BROKER_DOWN as exc:
                    self.suspects.suspect(call_guard.BROKER)
                    LOG.warning('Could not send %s to conductor %s: %s',
                                method, hostname, exc)
                    raise exception.NoConductorAvailable(
                        'the message broker cannot be reached',
                        retry_after=options.conductor_probe_interval)
                except (rpc.RemoteAllocsvcError,
                        exception.AllocsvcException) as exc:
                    self._answered(hostname)
                    if silent and done_if is not None and isinstance(
                            exc.rebuild() if isinstance(
                                exc, rpc.RemoteAllocsvcError) else exc,
                            done_if):
                        return None
                    raise
                except Exception:
                    self._answered(hostname)
                    raise
                self._answered(hostname)
                return result
        finally:
            self.waiting.leave(token)
        if len(silent) == 1:
            reason = 'conductor %s did not answer in time' % silent[0]
        else:
            reason = 'conductors %s did not answer in time' % ', '.join(
                silent)
        raise exception.NoConductorAvailable(
            reason, retry_after=options.conductor_probe_interval)

    def _call_once(self, context, hostname, version, method, wait, kwargs):
        """``method`` on ``hostname``, waiting ``wait`` seconds at most;
        the context sent says when that ends (``RequestContext.deadline``)
        and the message expires then."""
        cctxt = self.client.prepare(
            server=hostname, version=version,
            retry=self.conf.api.conductor_send_retries,
            timeout=min(wait, self.conf.rpc_response_timeout))
        sent = context
        if context is not None:
            sent = copy.copy(context)
            sent.deadline = time.time() + wait
        return self._bounded(wait, cctxt.call, sent, method, **kwargs)

    def _answered(self, hostname):
        """``hostname`` answered (through the broker)."""
        self.suspects.clear(hostname)
        self.suspects.clear(call_guard.BROKER)

    def _check_version(self, version, method):
        if not self.client.can_send_version(version):
            raise exception.ConductorTooOld(method, version)

    def _call_version(self, context, version, method, prefer=None,
                      **kwargs):
        """Call ``method`` (of RPC API ``version``) on the conductor whose
        id is ``prefer`` (the owner of what it is about) if it is alive
        and not suspected, else on another live one (``pick_conductor``);
        ConductorTooOld while the client is capped below ``version``."""
        self._check_version(version, method)
        conductor = self.pick_conductor(context, prefer=prefer)
        return self._call(context, conductor.hostname, version, method,
                          **kwargs)

    def _call_anywhere(self, context, version, method, prefer=None,
                       done_if=None, **kwargs):
        """Call ``method`` (of RPC API ``version``), which any conductor
        may carry out and carry out again, on the conductor whose id is
        ``prefer`` first, then on the others (``_hosts``, ``_call_on``)."""
        self._check_version(version, method)
        return self._call_on(context, self._hosts(context, prefer), version,
                             method, done_if=done_if, **kwargs)

    def _call_1_1(self, context, method, prefer=None, **kwargs):
        """``_call_version`` of a 1.1 method."""
        return self._call_version(context, '1.1', method, prefer, **kwargs)

    def _call_for_node(self, context, node, method, version='1.1',
                       **kwargs):
        """Call ``method`` (of ``version``) about ``node`` (an
        ``objects.Node``, passed as ``node``) on the node's conductor."""
        return self._call_on_node_conductor(context, node, version, method,
                                            node=node, **kwargs)

    def _call_on_node_conductor(self, context, target, version, method,
                                /, **kwargs):
        """Call ``method`` (of ``version``) on the conductor of the node
        ``target`` (``conductor_for_node``: its owner if alive, else the
        hash ring's choice in its conductor group), the one the API shows
        as the node's ``conductor``; without one (no live conductor of
        its group has its driver), on any live one.

        A suspected conductor is passed over as if it were dead: the
        hash ring's next choice takes its place, and if the node's group
        has no other, the answer is a 503 at once (unless it is this
        request's turn to probe the suspect)."""
        self._check_version(version, method)
        alive = self.live_conductors(context)
        trusted = [c for c in alive
                   if not self.suspects.passed_over(c.hostname)]
        conductor = conductor_for(trusted, target)
        if conductor is None:
            usual = conductor_for(alive, target)
            if usual is not None:
                raise exception.NoConductorAvailable(
                    'conductor %s of the node did not answer a moment ago '
                    'and no other live conductor of its conductor group '
                    '"%s" can serve it' % (usual.hostname,
                                           target.conductor_group or ''),
                    retry_after=self.conf.api.conductor_probe_interval)
            conductor = self.pick_conductor(context)
        return self._call(context, conductor.hostname, version, method,
                          **kwargs)

    @rpc.rebuild_errors
    def destroy_allocation(self, context, allocation):
        """Delete ``allocation`` (an ``objects.Allocation``) and free its
        node, on the allocation's conductor if it is alive and answers,
        else on another live one (``_call_anywhere``: any conductor
        deletes under the node's lock, and an allocation gone there after
        the first did not answer was deleted by it). Ironic's rules: a
        node out of maintenance keeps its allocation while active or busy
        (Conflict, 409); NodeLocked (409) if another holder keeps the
        node's lock; AllocationNotFound (404) if it is gone."""
        self._call_anywhere(context, '1.1', 'destroy_allocation',
                            allocation.conductor_affinity,
                            done_if=exception.AllocationNotFound,
                            allocation=allocation)

    @rpc.rebuild_errors
    def update_allocation(self, context, allocation_id, changes):
        """Write ``changes`` (``name``, ``extra``) to allocation
        ``allocation_id`` on any live conductor (``_call_anywhere``: the
        same changes written twice are written once); return the
        ``objects.Allocation``. AllocationDuplicateName (409),
        AllocationNotFound (404)."""
        return self._call_anywhere(context, '1.1', 'update_allocation',
                                   allocation_id=allocation_id,
                                   changes=changes)

    @rpc.rebuild_errors
    def create_node(self, context, values, legacy=False):
        """Insert a node from ``values`` (column values, and ``traits``)
        in its initial state -- ``available`` for a client older than
        API 1.11 (``legacy``) -- and return the ``objects.Node``.
        NoValidHost (400) for a driver nodes may not use; the unique
        clashes (409). A chassis (``chassis_uuid``, 1.3) that does not
        exist is a 400."""
        if 'chassis_uuid' in values:
            return self._call_version(context, '1.3', 'create_node',
                                      values=values, legacy=legacy)
        return self._call_1_1(context, 'create_node', values=values,
                              legacy=legacy)

    @rpc.rebuild_errors
    def update_node(self, context, node, changes, expected=None,
                    reset_interfaces=False):
        """Write ``changes`` (column values) to ``node`` (an
        ``objects.Node`` as the caller read it) under its lock; return
        the ``objects.Node``. ``expected``: the column values the changes
        were computed from (NodeChanged, 409, if another writer changed
        one). The rules of ``provisioning.update_node`` (InvalidState,
        NodeAssociated, NoValidHost, NodeLocked...). ``reset_interfaces``
        (1.2): a driver change resets the interfaces not changed.
        ``chassis_uuid`` among the changes (1.3) names the node's new
        chassis (None: none); 400 if it does not exist."""
        version = '1.1'
        if 'chassis_uuid' in changes:
            version = '1.3'
        elif reset_interfaces:
            version = '1.2'
        if reset_interfaces:
            return self._call_for_node(context, node, 'update_node',
                                       version=version, changes=changes,
                                       expected=expected,
                                       reset_interfaces=True)
        return self._call_for_node(context, node, 'update_node',
                                   version=version, changes=changes,
                                   expected=expected)

    @rpc.rebuild_errors
    def validate_driver_interfaces(self, context, node):
        """(1.2) Per interface type of ``node``: ``{'result': bool}``,
        with a ``reason`` when False."""
        return self._call_for_node(context, node,
                                   'validate_driver_interfaces',
                                   version='1.2')

    @rpc.rebuild_errors
    def destroy_node(self, context, node):
        """Delete ``node`` with its traits and allocation. Out of
        maintenance: NodeAssociated (409) with an instance, InvalidState
        (409) outside enroll, manageable and (unless ``[conductor]
        allow_deleting_available_nodes`` is off) available."""
        self._call_for_node(context, node, 'destroy_node')

    @rpc.rebuild_errors
    def set_maintenance(self, context, node, maintenance, reason=None):
        """Put ``node`` into maintenance with ``reason`` (True) or take it
        out (False); return the ``objects.Node``."""
        return self._call_for_node(context, node, 'set_maintenance',
                                   maintenance=maintenance, reason=reason)

    @rpc.rebuild_errors
    def change_node_power_state(self, context, node, target):
        """Apply the power ``target``; return the ``objects.Node`` in the
        power state it leaves. InvalidStateRequested (400) for an unknown
        target or while the node is being cleaned."""
        return self._call_for_node(context, node, 'change_node_power_state',
                                   target=target)

    @rpc.rebuild_errors
    def do_provisioning_action(self, context, node, verb, configdrive=None,
                               clean_steps=None, rescue_password=None,
                               disable_ramdisk=False, service_steps=None):
        """Apply the provisioning ``verb`` (``active`` stores
        ``configdrive``; ``clean`` runs ``clean_steps``, ``service``
        ``service_steps``, ``rescue`` keeps ``rescue_password``); return
        the ``objects.Node`` in the state it leads to.
        InvalidStateRequested (400) if the node's state does not allow
        it, NodeInMaintenance (400) to deploy, clean, rescue or service a
        node in maintenance. The verbs and arguments of 1.4 need a
        conductor that knows them (ConductorTooOld)."""
        if verb in _VERBS_1_1:
            return self._call_for_node(context, node,
                                       'do_provisioning_action', verb=verb,
                                       configdrive=configdrive)
        return self._call_for_node(context, node, 'do_provisioning_action',
                                   version='1.4', verb=verb,
                                   configdrive=configdrive,
                                   clean_steps=clean_steps,
                                   rescue_password=rescue_password,
                                   disable_ramdisk=disable_ramdisk,
                                   service_steps=service_steps)

    @rpc.rebuild_errors
    def set_node_traits(self, context, node, traits):
        """Replace the node's traits; return them (sorted).
        TooManyTraits (400)."""
        return self._call_for_node(context, node, 'set_node_traits',
                                   traits=traits)

    @rpc.rebuild_errors
    def add_node_trait(self, context, node, trait):
        """Give the node ``trait`` (nothing if it has it). TooManyTraits
        (400)."""
        self._call_for_node(context, node, 'add_node_trait', trait=trait)

    @rpc.rebuild_errors
    def remove_node_traits(self, context, node, trait=None):
        """Remove ``trait`` from the node (NodeTraitNotFound, 404, if it
        lacks it), or all its traits if ``trait`` is None."""
        self._call_for_node(context, node, 'remove_node_traits',
                            trait=trait)

    # -- console, RAID, boot mode, secure boot, virtual media (1.3) ----------

    def _act(self, context, node, method, **kwargs):
        return self._call_for_node(context, node, method, version='1.3',
                                   **kwargs)

    @rpc.rebuild_errors
    def set_console_mode(self, context, node, enabled):
        """Enable or disable the console of ``node``;
        UnsupportedDriverExtension (400) without a console interface."""
        return self._act(context, node, 'set_console_mode', enabled=enabled)

    @rpc.rebuild_errors
    def set_target_raid_config(self, context, node, target_raid_config):
        """Keep the target RAID configuration of ``node``: 400 for an
        invalid one, UnsupportedDriverExtension (404) without a RAID
        interface."""
        return self._act(context, node, 'set_target_raid_config',
                         target_raid_config=target_raid_config)

    @rpc.rebuild_errors
    def change_node_boot_mode(self, context, node, target):
        return self._act(context, node, 'change_node_boot_mode',
                         target=target)

    @rpc.rebuild_errors
    def change_node_secure_boot(self, context, node, target):
        return self._act(context, node, 'change_node_secure_boot',
                         target=target)

    @rpc.rebuild_errors
    def attach_virtual_media(self, context, node, device_type):
        return self._act(context, node, 'attach_virtual_media',
                         device_type=device_type)

    @rpc.rebuild_errors
    def detach_virtual_media(self, context, node, device_types=None):
        return self._act(context, node, 'detach_virtual_media',
                         device_types=device_types)

    # -- ports and port groups (1.2) ------------------------------------------

    def _call_for_node_1_2(self, context, node, method, columns=(),
                           new_columns=NEW_PORT_COLUMNS, **kwargs):
        """Call ``method`` (1.2) about something of ``node`` (an
        ``objects.Node``, not passed) on the node's conductor; 1.5 if
        ``columns`` (those written) name one of ``new_columns``."""
        version = '1.5' if new_columns.intersection(columns) else '1.2'
        return self._call_on_node_conductor(context, node, version, method,
                                            **kwargs)

    @rpc.rebuild_errors
    def create_port(self, context, node, values):
        """Insert a port of ``node`` from ``values`` (columns) under the
        node's lock; return the ``objects.Port``. MACAlreadyExists,
        PortAlreadyExists, PortDuplicateName (409); a port group of
        another node (400); the port group rules (409)."""
        return self._call_for_node_1_2(context, node, 'create_port',
                                       columns=values, values=values)

    @rpc.rebuild_errors
    def update_port(self, context, node, port, changes, expected=None):
        """Write ``changes`` (columns) to ``port`` (an ``objects.Port``
        of ``node``); ``expected``: the values they were computed from.
        Returns the ``objects.Port``. InvalidState (409) for a change the
        node's state forbids; see ``port_rules.update_port``."""
        return self._call_for_node_1_2(context, node, 'update_port',
                                       columns=changes,
                                       port=port, changes=changes,
                                       expected=expected)

    @rpc.rebuild_errors
    def destroy_port(self, context, node, port):
        """Delete ``port`` (an ``objects.Port`` of ``node``)."""
        self._call_for_node_1_2(context, node, 'destroy_port', port=port)

    @rpc.rebuild_errors
    def create_portgroup(self, context, node, values):
        """Insert a port group of ``node``; return the
        ``objects.Portgroup``. PortgroupMACAlreadyExists,
        PortgroupAlreadyExists, PortgroupDuplicateName (409)."""
        return self._call_for_node_1_2(context, node, 'create_portgroup',
                                       columns=values,
                                       new_columns=NEW_PORTGROUP_COLUMNS,
                                       values=values)

    @rpc.rebuild_errors
    def update_portgroup(self, context, node, portgroup, changes,
                         expected=None):
        """Write ``changes`` to ``portgroup``; return the
        ``objects.Portgroup``."""
        return self._call_for_node_1_2(context, node, 'update_portgroup',
                                       columns=changes,
                                       new_columns=NEW_PORTGROUP_COLUMNS,
                                       portgroup=portgroup, changes=changes,
                                       expected=expected)

    @rpc.rebuild_errors
    def destroy_portgroup(self, context, node, portgroup):
        """Delete ``portgroup``; PortgroupNotEmpty (400) while it has
        ports."""
        self._call_for_node_1_2(context, node, 'destroy_portgroup',
                                portgroup=portgroup)

    # -- VIFs (1.2) -------------------------------------------------------

    @rpc.rebuild_errors
    def vif_attach(self, context, node, vif_info):
        """Attach the VIF ``vif_info['id']`` to a free port or port group
        of ``node``: VifAlreadyAttached (409), NoFreePhysicalPorts
        (400)."""
        self._call_for_node(context, node, 'vif_attach', version='1.2',
                            vif_info=vif_info)

    @rpc.rebuild_errors
    def vif_detach(self, context, node, vif_id):
        """Detach VIF ``vif_id`` from ``node``: VifNotAttached (400)."""
        self._call_for_node(context, node, 'vif_detach', version='1.2',
                            vif_id=vif_id)
