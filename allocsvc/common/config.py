"""Configuration options of allocsvc and the defaults it sets on libraries.

Options are registered on a ConfigOpts object passed in by the caller
(``register_opts``); nothing here reads configuration at import time.
``list_opts`` feeds oslo-config-generator (see etc/allocsvc).
"""

import copy
import importlib
import socket

from oslo_config import cfg
from oslo_db import options as db_options
from oslo_log import log
from oslo_messaging import opts as messaging_opts
from oslo_messaging import transport as messaging_transport
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import sizelimit
from oslo_policy import opts as policy_opts
from oslo_service import service as oslo_service

from allocsvc.common import hardware

DEFAULT_SQLITE_CONNECTION = 'sqlite:///allocsvc.sqlite'

# oslo.db keeps 5 idle connections by default and closes every other one
# as soon as it is given back. A conductor runs ``workers_pool_size`` (16)
# allocations at once, besides its RPC and periodic threads, so with 5 it
# opened and closed a database connection for most of its transactions.
DEFAULT_MAX_POOL_SIZE = 20
# [oslo_middleware] max_request_body_size: 1 MiB rather than the library's
# 112 KiB, so that a config drive (gzipped and base64-encoded, sent in a
# provisioning request as Ironic accepts it) fits. The largest hostile
# body it admits costs about a second of CPU to refuse.
DEFAULT_MAX_REQUEST_BODY_SIZE = 1 << 20

# Options that oslo.messaging reads in every RPC call and cast but
# registers on the global cfg.CONF only, and leaves out of its list_opts:
# (module, attribute, group), imported as oslo.messaging's own conf
# fixture does for other ConfigOpts; absent from older releases.
_MESSAGING_HIDDEN_OPTS = (
    ('oslo_messaging._metrics.client', 'oslo_messaging_metrics',
     'oslo_messaging_metrics'),
    ('oslo_messaging._tracing.client', 'oslo_messaging_tracing',
     'oslo_messaging_tracing'),
)

# The exchange RPC topics live in unless [DEFAULT] control_exchange says
# otherwise (oslo.messaging's default is "openstack").
CONTROL_EXCHANGE = 'allocsvc'

default_opts = [
    cfg.FloatOpt(
        'database_lock_wait_timeout', default=2.0, min=0,
        help='The most seconds a database statement of allocsvc waits for '
             'a row lock that another transaction holds (MariaDB/MySQL '
             'innodb_lock_wait_timeout, whole seconds; PostgreSQL '
             'lock_timeout). Past it, the transaction is given up: an '
             'API request is answered 503, a conductor leaves the '
             'allocation to its periodic check. '
             'The locks of allocsvc\'s transactions are held for '
             'milliseconds; a process stopped inside one (SIGSTOP, a '
             'frozen VM) keeps them, and without this bound everyone '
             'needing one of them would queue behind it. 0 keeps the '
             'server\'s own bound. SQLite has its own busy timeout.'),
    cfg.StrOpt(
        'host', default=socket.gethostname(), sample_default='localhost',
        help='The name of this service host. A conductor registers under '
             'it, receives its RPC messages on it and writes it into the '
             'nodes it locks, so every conductor must have its own: give '
             'each conductor on one machine a different value.'),
]

api_opts = [
    cfg.HostAddressOpt(
        'host_ip', default='127.0.0.1',
        help='The IP address or host name on which the API listens.'),
    cfg.PortOpt(
        'port', default=6385,
        help='Port of the main listener: the bare-metal API under /v1 and '
             'the Placement API under /placement.'),
    cfg.PortOpt(
        'placement_port', default=8778,
        help='Port of a second listener serving the Placement API at its '
             'root, for clients configured with a stand-alone Placement '
             'endpoint. Set to 0 to disable it.'),
    cfg.StrOpt(
        'auth_strategy', default='noauth', choices=[
            ('noauth', 'No authentication. On /placement the token is '
                       '"user_id[:project_id]" and user "admin" is an '
                       'administrator (Placement\'s noauth2 rules).'),
            ('keystone', 'Validate tokens with keystonemiddleware.')],
        help='How API requests are authenticated.'),
    cfg.IntOpt(
        'max_limit', default=1000, min=1,
        help='The most items a list of the bare-metal API (/v1) returns '
             'in one answer; a larger "limit" is reduced to it, and a '
             'list without "limit" is paged at it.'),
    cfg.StrOpt(
        'default_portgroup_mode', default='active-backup',
        help='The mode a new port group of the bare-metal API gets when '
             'its creator names none (a Linux bonding mode, as Ironic\'s '
             'option of that name).'),
    cfg.IntOpt(
        'conductor_send_retries', default=1, min=0,
        help='How many times a request of the bare-metal API connects to '
             'the message broker again when the connection fails while it '
             'sends a message to a conductor. Each try waits longer '
             '([oslo_messaging_rabbit] kombu_reconnect_delay plus '
             'rabbit_retry_interval, growing by rabbit_retry_backoff): '
             'with those options\' defaults, 0 gives up at once, 1 after '
             'about 2 seconds and 2 after about 6. A write that needs an '
             'answer from a conductor is then answered 503, a new '
             'allocation is answered as usual (see '
             'conductor_handover_timeout), and the broker is suspected '
             '(see conductor_suspect_time). Keep at least 1: a pooled '
             'connection the broker closed (it restarted, or was cut '
             'off) is only opened again by a send that may reconnect, and '
             'with 0 every pooled connection would fail once more after '
             'the broker is back.'),
    cfg.FloatOpt(
        'conductor_handover_timeout', default=1.0, min=0.1,
        help='The most seconds POST /v1/allocations waits for the message '
             'broker to take the message that hands a new allocation to '
             'its conductor. The allocation is written to the database '
             '(state "allocating", owned by a live conductor) before: if '
             'the message cannot be sent in time, the request still '
             'answers 201 with the allocation "allocating", and its '
             'conductor, which needs no message for that, starts it from '
             'the database at one of its next [conductor] '
             'resume_allocations_interval checks. The same happens at '
             'once, without waiting, while the broker is suspected (see '
             'conductor_suspect_time). Only when no conductor is alive is '
             'the request refused (503), with nothing written.'),
    cfg.FloatOpt(
        'conductor_answer_timeout', default=1.5, min=0.1,
        help='The most seconds a write of the bare-metal API waits for '
             'one conductor to answer. A conductor that does not answer '
             'in time is suspected (see conductor_suspect_time). An '
             'operation any conductor can carry out safely (deleting or '
             'renaming an allocation, deleting an allocation group, a '
             'preview) is then sent to another live conductor, within '
             'conductor_call_timeout; any other (a node\'s changes go to '
             'the node\'s conductor) is answered 503, and the next '
             'requests go to the conductor that takes the suspect\'s '
             'place. Keep it above the time a conductor may take to '
             'answer ([conductor] request_node_locked_retry_attempts '
             'times request_node_locked_retry_interval, plus the work). '
             'allocsvc-all without a transport_url (the conductor in the '
             'API\'s process) waits [DEFAULT] rpc_response_timeout '
             'instead, and suspects nobody.'),
    cfg.FloatOpt(
        'conductor_call_timeout', default=2.5, min=0.1,
        help='The most seconds a write of the bare-metal API that needs '
             'an answer from a conductor (changes to nodes, ports, port '
             'groups, traits and states; deleting or renaming an '
             'allocation; a backfill) waits for the message broker and '
             'the conductors together, all conductors it tries included; '
             'it is answered 503 (with Retry-After) after that. Each '
             'message expires when its client stops waiting for it '
             '(conductor_answer_timeout), and a conductor that receives '
             'it later than that (plus [conductor] '
             'rpc_deadline_leeway) drops it, so a stalled conductor does '
             'not act on a request its client was already told failed '
             'or sent elsewhere. Reads never wait on the broker.'),
    cfg.FloatOpt(
        'conductor_suspect_time', default=10.0, min=0,
        help='Seconds an API process passes over a conductor that did not '
             'answer within conductor_answer_timeout, or the message '
             'broker after a message could not be sent, instead of '
             'waiting on it again: writes go to other live conductors, '
             'new allocations are handed over through the database, and '
             'what only the suspect could do is answered 503 at once. '
             'Any answer from it ends the suspicion sooner. 0 disables '
             'suspicion.'),
    cfg.FloatOpt(
        'conductor_probe_interval', default=2.0, min=0.1,
        help='While a conductor or the broker is suspected, one request '
             'in every this many seconds still tries it when no other '
             'conductor is left to try, so that a peer that is back is '
             'used again before conductor_suspect_time ends.'),
    cfg.IntOpt(
        'conductor_waiting_calls', default=0, min=0,
        help='How many requests of one API process may wait longer than '
             'conductor_slow_call seconds at once for a conductor\'s '
             'answer (through the message broker). While that many do, a '
             'peer is stalling, and a new request that needs a '
             'conductor\'s answer is answered 503 with Retry-After at once '
             'instead of joining them: a stalled conductor or broker holds '
             'at most about this many of the process\'s threads, and the '
             'others keep serving reads. Calls answered in the usual time '
             'are never refused. 0: half the threads seen serving the '
             'process\'s requests, at least 1.'),
    cfg.IntOpt(
        'conductor_spare_threads', default=1, min=0,
        help='How many of the threads seen serving an API process\'s '
             'requests are never taken by a request that waits for a '
             'conductor\'s answer (through the message broker): they '
             'stay free for requests that do not (reads), so that a read '
             'never queues behind calls to a stalled conductor or '
             'broker. A call that would take one of them waits for '
             'another call to end while no call has waited longer than '
             'conductor_slow_call seconds, and is answered 503 with '
             'Retry-After otherwise. A process that was not seen serving '
             'more requests at once than this has no bound. 0 disables '
             'the bound. Give each API process more threads than this '
             '(gunicorn --threads, uWSGI threads).'),
    cfg.FloatOpt(
        'conductor_slow_call', default=1.0, min=0,
        help='Seconds after which a call waiting for a conductor\'s '
             'answer counts as slow (see conductor_waiting_calls and '
             'conductor_spare_threads). Keep '
             'it above the time conductors take to answer under load, and '
             'below conductor_answer_timeout.'),
]

placement_opts = [
    cfg.BoolOpt(
        'sync_on_startup', default=True,
        help='Make sure the standard resource classes (os-resource-classes) '
             'and traits (os-traits) are in the database when the API '
             'starts.'),
    cfg.StrOpt(
        'incomplete_consumer_project_id',
        default='00000000-0000-0000-0000-000000000000',
        help='The project recorded for consumers whose allocations are '
             'written without a project, which Placement API '
             'microversions before 1.8 allow.'),
    cfg.StrOpt(
        'incomplete_consumer_user_id',
        default='00000000-0000-0000-0000-000000000000',
        help='The user recorded for consumers whose allocations are '
             'written without a user, which Placement API microversions '
             'before 1.8 allow.'),
    cfg.IntOpt(
        'allocation_conflict_retry_count', default=10, min=1,
        help='How many times an allocation write (PUT or POST '
             '/allocations, POST /reshaper) is attempted, each time in a '
             'fresh transaction, before the request is answered with 409 '
             'placement.concurrent_update. Allocation writes start again '
             'when one of their resource providers was deleted meanwhile '
             '(concurrent writers of a provider otherwise wait for each '
             'other); a reshape also when another request changed one of '
             'its providers.'),
    cfg.BoolOpt(
        'refuse_inventory_below_usage', default=False,
        help='Refuse (409 placement.inventory.inuse) an inventory write '
             '(PUT /resource_providers/{uuid}/inventories and '
             '/inventories/{resource_class}, POST /reshaper) that leaves '
             'less capacity than is already allocated from it. By '
             'default such a write is accepted and a warning is logged, '
             'as Placement does: the inventory is what the hypervisor '
             'reports it has, and a client that cannot write it (nova\'s '
             'resource tracker) retries for ever. The allocations stay; '
             'new ones fit only once usage is back under capacity. '
             'Removing the inventory of a class that has allocations is '
             'refused either way.'),
    cfg.BoolOpt(
        'randomize_allocation_candidates', default=False,
        help='Shuffle the answers of GET /allocation_candidates. Without '
             'it, candidates come in a stable order (round-robin over the '
             'root providers), so that clients asking with a small limit '
             'at the same time all get the same providers first and race '
             'for them; with it, each answer is a random selection, which '
             'spreads concurrent claims over the providers.'),
    cfg.IntOpt(
        'max_allocation_candidates', default=-1, min=-1,
        help='The most allocation requests one GET /allocation_candidates '
             'answer holds, whatever limit the client asks for (or when it '
             'asks for none). The search stops once it has found this '
             'many, which bounds the time and memory a request can take. '
             '-1 (or 0), the default, removes the cap: like Placement, a '
             'request without limit gets every candidate.'),
    # Query limits: the work a read request causes grows with what it
    # names. These bound it far above what a scheduler sends (nova sends
    # a few member_of, a few tens of traits and one group per device
    # or port with a resource request).
    cfg.IntOpt(
        'max_request_groups', default=128, min=1,
        help='The most request groups (the unsuffixed one and each '
             'resources<S>/required<S>/member_of<S>/in_tree<S> suffix) one '
             'GET /allocation_candidates may have, and the most '
             'same_subtree parameters. Nova asks for one group per port or '
             'device with a resource request; the search for candidates '
             'grows with the number of groups. More gives a 400.'),
    cfg.IntOpt(
        'max_member_of', default=100, min=1,
        help='How many times one member_of (or member_of<S>) parameter '
             'may be repeated in GET /resource_providers and GET '
             '/allocation_candidates (each repeat is one more aggregate '
             'condition every provider must meet). Nova sends a few. More '
             'gives a 400.'),
    cfg.IntOpt(
        'max_required_traits', default=128, min=1,
        help='The most traits the required (or required<S>) parameter of '
             'one request group may name, over all its repeats, forbidden '
             'traits and in: lists included, in GET /resource_providers and '
             'GET /allocation_candidates; also the most traits '
             'root_required may name. Nova sends a few tens at most. More '
             'gives a 400.'),
    cfg.IntOpt(
        'max_in_items', default=1000, min=1,
        help='The most items one in: (or !in:) list of a member_of or '
             'required value may hold, in GET /resource_providers and GET '
             '/allocation_candidates, and the name=in: list of GET '
             '/traits. Nova lists the aggregates of a project or an '
             'availability zone this way. More gives a 400.'),
]


conductor_opts = [
    cfg.StrOpt(
        'allocation_backend', default='database',
        choices=[('database', 'Find free nodes in the nodes table, as '
                              'Ironic does; a bound node has the unit of '
                              'its resource provider reserved.'),
                 ('placement', 'Find nodes through the Placement engine\'s '
                               'allocation candidates and bind one by '
                               'claiming its unit for a consumer that is '
                               'the allocation, in the same transaction.')],
        help='How conductors allocate nodes. Either way every node is a '
             'resource provider of the Placement API (uuid and name the '
             'node\'s, one unit of CUSTOM_<resource class>, the node\'s '
             'traits), and no node is ever held by a bare-metal allocation '
             'and another Placement consumer at once. Every conductor of a '
             'deployment must use the same back end.'),
    cfg.BoolOpt(
        'allow_deleting_available_nodes', default=True,
        help='Whether a node in the "available" provision state (and out '
             'of maintenance, with no instance) may be deleted, as Ironic '
             'allows by default. Nodes in "enroll" and "manageable" may '
             'always be deleted, nodes in maintenance in any state; a node '
             'a Placement consumer holds never is.'),
    cfg.StrOpt(
        'conductor_group', default='', max_length=255,
        regex=r'^[a-zA-Z0-9_\-\.]*$',
        help='The conductor group this conductor belongs to (letters, '
             'digits, "_", "-" and "."; case does not matter). A node is '
             'served by the live conductors of its own conductor_group: '
             'they are the candidates of the hash ring that names the '
             'node\'s conductor and receives its changes.'),
    cfg.IntOpt(
        'workers_pool_size', default=16, min=1,
        help='How many threads of a conductor run allocations at once.'),
    cfg.IntOpt(
        'workers_pool_backlog', default=256, min=0,
        help='How many allocations may wait for a free worker thread. A '
             'conductor whose workers and backlog are all taken leaves a '
             'new allocation "allocating" in the database, and its '
             'periodic check (check_allocations_interval) starts it later: '
             'no allocation is lost.'),
    cfg.IntOpt(
        'node_locked_retry_attempts', default=3, min=0,
        help='How many more times an allocation tries the suitable nodes '
             'that were locked by another operation, once it has tried '
             'every candidate, before it fails.'),
    cfg.FloatOpt(
        'node_locked_retry_interval', default=1.0, min=0,
        help='Seconds before the last such attempt of an allocation; '
             'each earlier wait is a quarter of the next (with the '
             'defaults: 0.0625, 0.25 and 1 second), as the locks of '
             'available nodes are usually held for milliseconds. A '
             'backfill waits this long between all its attempts.'),
    cfg.IntOpt(
        'request_node_locked_retry_attempts', default=5, min=0,
        help='How many more times a conductor tries to lock a node for a '
             'change the bare-metal API asked for (PATCH or DELETE of a '
             'node, its states, maintenance and traits, DELETE of an '
             'allocation) while another operation holds the lock, before '
             'the request is answered with 409 NodeLocked. A client waits '
             'for these attempts: keep attempts times interval a small '
             'part of [DEFAULT] rpc_response_timeout. The allocation '
             'algorithm has its own, node_locked_retry_attempts.'),
    cfg.FloatOpt(
        'request_node_locked_retry_interval', default=0.2, min=0,
        help='Seconds between those attempts '
             '(request_node_locked_retry_attempts). The locks of other '
             'operations are usually held for milliseconds.'),
    cfg.FloatOpt(
        'heartbeat_interval', default=10.0, min=0.1,
        help='Seconds between two heartbeats of a conductor (written to '
             'its database row).'),
    cfg.FloatOpt(
        'heartbeat_timeout', default=60.0, min=0.1,
        help='A conductor whose last heartbeat is older than this many '
             'seconds is taken for dead: the API no longer sends it work, '
             'and the other conductors take over its unfinished '
             'allocations and release its node locks. Keep it several '
             'times heartbeat_interval.'),
    cfg.FloatOpt(
        'rpc_deadline_leeway', default=2.0, min=0,
        help='A request of the API (an RPC call) carries the moment its '
             'client stops waiting for the answer; a conductor that '
             'receives it more than this many seconds after that moment '
             '(it was stopped, or the broker held the message) drops it '
             'instead of acting, since the API has already answered 503 '
             'or sent it to another conductor. The leeway covers the '
             'clocks of the API\'s and the conductor\'s hosts disagreeing; '
             'keep them in sync (NTP).'),
    cfg.FloatOpt(
        'check_allocations_interval', default=60.0, min=0,
        help='Seconds between two runs of the periodic check that takes '
             'over the "allocating" allocations of dead conductors, '
             'restarts those a live conductor has left unfinished for '
             'stuck_allocation_timeout, and starts this conductor\'s own '
             'allocations that found no free worker. 0 disables it.'),
    cfg.FloatOpt(
        'resume_allocations_interval', default=5.0, min=0,
        help='Seconds between two runs of the periodic check that starts '
             'the "allocating" allocations this conductor owns but does '
             'not run, and that were written at least that long ago: '
             'those whose message from the API was lost, for example '
             'while the message broker was unreachable (the API answered '
             '201 all the same). Keep it short, so that they finish soon '
             'after the broker is back; each run is one indexed query. 0 '
             'leaves them to check_allocations_interval.'),
    cfg.FloatOpt(
        'stuck_allocation_timeout', default=120.0, min=0.1,
        help='An allocation that a live conductor has left "allocating" '
             'and unchanged for this many seconds is taken over by the '
             'conductor whose periodic check finds it, and run again. '
             'Running one twice is harmless: only the conductor that owns '
             'an allocation can bind it to a node.'),
    cfg.StrOpt(
        'rpc_version_cap', default=None,
        choices=[('1.0', 'Allocations are created and backfilled through '
                         'the conductors; the bare-metal API\'s other '
                         'writes are refused (503).'),
                 ('1.1', 'Every bare-metal write goes through a '
                         'conductor.'),
                 ('1.2', 'Conductors also write ports and port groups, '
                         'validate node interfaces (/validate) and reset '
                         'them on a driver change (reset_interfaces).'),
                 ('1.3', 'Conductors also enable and disable consoles, '
                         'keep target RAID configurations and take boot '
                         'mode, secure boot and virtual media requests.'),
                 ('1.4', 'Conductors also take the provisioning verbs '
                         'clean, adopt, rescue, unrescue, abort, unhold '
                         'and service and their arguments.'),
                 ('1.5', 'Conductors also write a port group\'s physical '
                         'network and a port\'s '
                         'available_for_dynamic_portgroup.')],
        help='The newest conductor RPC API version the API may send to '
             'the conductors; unset, the newest it knows. Upgrade the '
             'conductors first, then the API processes: a conductor '
             'answers every older version. Set it to the version of the '
             'previous release on an API process that must run while some '
             'conductors are not upgraded yet, and remove it once they all '
             'are: meanwhile that process answers a request that needs a '
             'newer version with 503 instead of sending it to a conductor '
             'that cannot serve it.'),
    cfg.StrOpt(
        'coordination_backend_url', default='', secret=True,
        help='A tooz coordination backend (for example '
             'redis://127.0.0.1:6379 or etcd3+http://127.0.0.1:2379) in '
             'whose group each conductor keeps a membership; a conductor '
             'that drops out of the group is taken for dead without '
             'waiting for heartbeat_timeout. Empty: liveness comes from the '
             'database heartbeats alone. Every conductor must use the same '
             'backend.'),
]


def register_opts(conf):
    """Register every option allocsvc reads on ``conf``."""
    conf.register_opts(default_opts)
    hardware.register_opts(conf)
    conf.register_opts(api_opts, group='api')
    conf.register_opts(placement_opts, group='placement')
    conf.register_opts(conductor_opts, group='conductor')
    # oslo.messaging registers its options when a transport is made; they
    # are registered here too so that the configuration can be inspected
    # first (is a transport_url set?), with allocsvc's exchange default.
    messaging_transport.set_transport_defaults(CONTROL_EXCHANGE)
    for group, opts in messaging_opts.list_opts():
        conf.register_opts(opts, group=group)
    for module, attribute, group in _MESSAGING_HIDDEN_OPTS:
        try:
            opts = getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError):
            continue
        conf.register_opts(opts, group=group)
    db_options.set_defaults(conf, connection=DEFAULT_SQLITE_CONNECTION)
    log.register_options(conf)
    conf.register_opts(cors.CORS_OPTS, group='cors')
    conf.register_opts(http_proxy_to_wsgi.OPTS, group='oslo_middleware')
    conf.register_opts(sizelimit.OPTS, group='oslo_middleware')
    policy_opts.set_defaults(conf)
    # graceful_shutdown_timeout bounds the stop of every service command,
    # also of those that do not run under oslo.service's launcher.
    for _group, opts in oslo_service.list_opts():
        conf.register_opts(opts)


def set_lib_defaults():
    """Defaults allocsvc wants for options owned by libraries."""
    messaging_transport.set_transport_defaults(CONTROL_EXCHANGE)
    cfg.set_defaults(db_options.database_opts,
                     max_pool_size=DEFAULT_MAX_POOL_SIZE)
    cfg.set_defaults(sizelimit.OPTS,
                     max_request_body_size=DEFAULT_MAX_REQUEST_BODY_SIZE)
    cors.set_defaults(
        allow_headers=['X-Auth-Token', 'X-Openstack-Request-Id',
                       'OpenStack-API-Version', 'Content-Type'],
        expose_headers=['X-Auth-Token', 'X-Openstack-Request-Id',
                        'OpenStack-API-Version', 'Vary', 'Last-Modified',
                        'Cache-Control', 'Location'],
        allow_methods=['GET', 'PUT', 'POST', 'DELETE', 'PATCH'])


def list_opts():
    """Options of allocsvc itself, for oslo-config-generator."""
    return [
        ('DEFAULT', copy.deepcopy(default_opts) +
         hardware.list_opts()[0][1]),
        ('api', copy.deepcopy(api_opts)),
        ('conductor', copy.deepcopy(conductor_opts)),
        ('placement', copy.deepcopy(placement_opts)),
    ]


def prepare(argv=None, default_config_files=None, conf=None):
    """Register options, parse the command line and set up logging."""
    conf = conf or cfg.ConfigOpts()
    register_opts(conf)
    set_lib_defaults()
    conf(argv if argv is not None else [], project='allocsvc',
         default_config_files=default_config_files)
    log.setup(conf, 'allocsvc')
    return conf
