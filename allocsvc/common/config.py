"""Configuration options of allocsvc and the defaults it sets on libraries.

Options are registered on a ConfigOpts object passed in by the caller
(``register_opts``); nothing here reads configuration at import time.
``list_opts`` feeds oslo-config-generator (see etc/allocsvc).
"""

import copy

from oslo_config import cfg
from oslo_db import options as db_options
from oslo_log import log
from oslo_middleware import cors
from oslo_policy import opts as policy_opts

DEFAULT_SQLITE_CONNECTION = 'sqlite:///allocsvc.sqlite'

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
             'fresh transaction, when another request changed one of its '
             'resource providers meanwhile, before the request is answered '
             'with 409 placement.concurrent_update.'),
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
]


def register_opts(conf):
    """Register every option allocsvc reads on ``conf``."""
    conf.register_opts(api_opts, group='api')
    conf.register_opts(placement_opts, group='placement')
    db_options.set_defaults(conf, connection=DEFAULT_SQLITE_CONNECTION)
    log.register_options(conf)
    conf.register_opts(cors.CORS_OPTS, group='cors')
    policy_opts.set_defaults(conf)


def set_lib_defaults():
    """Defaults allocsvc wants for options owned by libraries."""
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
        ('api', copy.deepcopy(api_opts)),
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
