"""oslo.policy rules and the enforcer of both APIs.

Placement's rules are here, with Placement's names and defaults: new
defaults let administrators and the ``service`` role (the other services
of a cloud) manage everything except the reshaper, which is the service
role's alone; project readers may read their own usages. With
``[oslo_policy] enforce_new_defaults = False`` the deprecated legacy rule
(``role:admin``) is accepted as well, as in Placement.

The bare-metal API's rules (Ironic's names and secure-RBAC defaults) are
in ``allocsvc.common.baremetal_policy``; ``list_rules`` returns both.
"""

from oslo_policy import policy

from allocsvc.common import baremetal_policy
from allocsvc.common import exception

ADMIN_OR_SERVICE = 'rule:admin_or_service_api'
SERVICE = 'rule:service_api'
PROJECT_READER_OR_ADMIN_OR_SERVICE = (
    'rule:admin_or_service_api or rule:project_reader_api')
PROJECT_MEMBER_OR_ADMIN_OR_SERVICE = (
    'rule:admin_or_service_api or rule:project_member_api')

_DEPRECATED_REASON = (
    'Placement API policies now also allow the service role and have '
    'project-scoped readers for usages.')

_base_rules = [
    policy.RuleDefault('admin_api', 'role:admin',
                       'Default rule for most administrative APIs.'),
    policy.RuleDefault('service_api', 'role:service',
                       'Default rule for service-to-service APIs.'),
    policy.RuleDefault('admin_or_service_api',
                       'role:admin or role:service',
                       'Default rule for administrative or service APIs.'),
    policy.RuleDefault('project_reader_api',
                       'role:reader and project_id:%(project_id)s',
                       'Default rule for project-level read-only APIs.'),
    policy.RuleDefault('project_member_api',
                       'role:member and project_id:%(project_id)s',
                       'Default rule for project-level APIs that change '
                       'what a project owns.'),
]


def _rule(name, description, operations, check_str=ADMIN_OR_SERVICE):
    deprecated = policy.DeprecatedRule(
        name=name, check_str='role:admin',
        deprecated_reason=_DEPRECATED_REASON, deprecated_since='1.0')
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'path': path, 'method': method}
                    for method, path in operations],
        scope_types=['project'], deprecated_rule=deprecated)


def _reservation_rule(verb, description, operations, check_str):
    return policy.DocumentedRuleDefault(
        name='placement:reservations:%s' % verb, check_str=check_str,
        description=description,
        operations=[{'path': path, 'method': method}
                    for method, path in operations],
        scope_types=['project'])


_RP = '/resource_providers'
_RP1 = '/resource_providers/{uuid}'

_placement_rules = [
    _rule('placement:resource_providers:list', 'List resource providers.',
          [('GET', _RP)]),
    _rule('placement:resource_providers:create', 'Create resource provider.',
          [('POST', _RP)]),
    _rule('placement:resource_providers:show', 'Show resource provider.',
          [('GET', _RP1)]),
    _rule('placement:resource_providers:update', 'Update resource provider.',
          [('PUT', _RP1)]),
    _rule('placement:resource_providers:delete', 'Delete resource provider.',
          [('DELETE', _RP1)]),
    _rule('placement:resource_classes:list', 'List resource classes.',
          [('GET', '/resource_classes')]),
    _rule('placement:resource_classes:create', 'Create resource class.',
          [('POST', '/resource_classes')]),
    _rule('placement:resource_classes:show', 'Show resource class.',
          [('GET', '/resource_classes/{name}')]),
    _rule('placement:resource_classes:update', 'Update resource class.',
          [('PUT', '/resource_classes/{name}')]),
    _rule('placement:resource_classes:delete', 'Delete resource class.',
          [('DELETE', '/resource_classes/{name}')]),
    _rule('placement:resource_providers:inventories:list',
          'List resource provider inventories.',
          [('GET', _RP1 + '/inventories')]),
    _rule('placement:resource_providers:inventories:create',
          'Create one resource provider inventory.',
          [('POST', _RP1 + '/inventories')]),
    _rule('placement:resource_providers:inventories:show',
          'Show resource provider inventory.',
          [('GET', _RP1 + '/inventories/{resource_class}')]),
    _rule('placement:resource_providers:inventories:update',
          'Update resource provider inventory.',
          [('PUT', _RP1 + '/inventories'),
           ('PUT', _RP1 + '/inventories/{resource_class}')]),
    _rule('placement:resource_providers:inventories:delete',
          'Delete resource provider inventory.',
          [('DELETE', _RP1 + '/inventories'),
           ('DELETE', _RP1 + '/inventories/{resource_class}')]),
    _rule('placement:resource_providers:aggregates:list',
          'List resource provider aggregates.',
          [('GET', _RP1 + '/aggregates')]),
    _rule('placement:resource_providers:aggregates:update',
          'Update resource provider aggregates.',
          [('PUT', _RP1 + '/aggregates')]),
    _rule('placement:resource_providers:usages',
          'List resource provider usages.', [('GET', _RP1 + '/usages')]),
    _rule('placement:usages', 'List total resource usages for a given '
          'project.', [('GET', '/usages')],
          check_str=PROJECT_READER_OR_ADMIN_OR_SERVICE),
    _rule('placement:traits:list', 'List traits.', [('GET', '/traits')]),
    _rule('placement:traits:show', 'Show trait.',
          [('GET', '/traits/{name}')]),
    _rule('placement:traits:update', 'Update trait.',
          [('PUT', '/traits/{name}')]),
    _rule('placement:traits:delete', 'Delete trait.',
          [('DELETE', '/traits/{name}')]),
    _rule('placement:resource_providers:traits:list',
          'List resource provider traits.', [('GET', _RP1 + '/traits')]),
    _rule('placement:resource_providers:traits:update',
          'Update resource provider traits.', [('PUT', _RP1 + '/traits')]),
    _rule('placement:resource_providers:traits:delete',
          'Delete resource provider traits.',
          [('DELETE', _RP1 + '/traits')]),
    _rule('placement:resource_providers:allocations:list',
          'List resource provider allocations.',
          [('GET', _RP1 + '/allocations')]),
    _rule('placement:allocations:list', 'List allocations.',
          [('GET', '/allocations/{consumer_uuid}')]),
    _rule('placement:allocations:manage', 'Manage allocations.',
          [('POST', '/allocations')]),
    _rule('placement:allocations:update', 'Update allocations.',
          [('PUT', '/allocations/{consumer_uuid}')]),
    _rule('placement:allocations:delete', 'Delete allocations.',
          [('DELETE', '/allocations/{consumer_uuid}')]),
    _rule('placement:allocation_candidates:list',
          'List allocation candidates.',
          [('GET', '/allocation_candidates')]),
    # An allocsvc extension: whoever may list the candidates may ask
    # why there are none.
    policy.DocumentedRuleDefault(
        name='placement:allocation_candidates:explain',
        check_str='rule:placement:allocation_candidates:list',
        description='Explain an allocation candidates query: the '
        'providers each filter leaves and why the first empty step '
        'emptied it.',
        operations=[{'path': '/allocation_candidates/explanation',
                     'method': 'GET'}],
        scope_types=['project']),
    # An allocsvc extension: a group claim lists candidates and writes
    # allocations; whoever may do both may claim a group.
    policy.DocumentedRuleDefault(
        name='placement:allocation_candidates:claim',
        check_str='rule:placement:allocation_candidates:list and '
                  'rule:placement:allocations:manage',
        description='Claim a group: write the allocations of several '
        'consumers chosen together from an allocation candidates query, '
        'all or none.',
        operations=[{'path': '/allocation_candidates/claim',
                     'method': 'POST'}],
        scope_types=['project']),
    # allocsvc extensions: reservations. A project sees and manages its
    # own; administrators and the service role, every project's.
    _reservation_rule(
        'list', 'List reservations (a project\'s own, unless every '
        'project\'s may be read).', [('GET', '/reservations')],
        PROJECT_READER_OR_ADMIN_OR_SERVICE),
    _reservation_rule(
        'create', 'Hold capacity for a project over a window of time.',
        [('POST', '/reservations')], PROJECT_MEMBER_OR_ADMIN_OR_SERVICE),
    _reservation_rule(
        'show', 'Show a reservation.', [('GET', '/reservations/{uuid}')],
        PROJECT_READER_OR_ADMIN_OR_SERVICE),
    _reservation_rule(
        'update', 'Shorten or extend the window of a reservation.',
        [('PUT', '/reservations/{uuid}')],
        PROJECT_MEMBER_OR_ADMIN_OR_SERVICE),
    _reservation_rule(
        'availability', 'Show where and when a reservation of given '
        'resources would fit.', [('GET', '/reservations/availability')],
        'rule:admin_or_service_api or role:reader'),
    _reservation_rule(
        'delete', 'Delete a reservation.',
        [('DELETE', '/reservations/{uuid}')],
        PROJECT_MEMBER_OR_ADMIN_OR_SERVICE),
    # Only the compute service moves inventory it reports, as in
    # Placement: not even an administrator reshapes by hand.
    _rule('placement:reshaper:reshape', 'Reshape Inventory and '
          'Allocations.', [('POST', '/reshaper')], check_str=SERVICE),
]


def list_rules():
    return (_base_rules + _placement_rules +
            baremetal_policy.list_rules())


def get_enforcer(conf=None):
    """A new enforcer for ``conf`` with every default registered.

    Also the ``oslo.policy.enforcer`` entry point, for oslopolicy tools.
    """
    if conf is None:
        from oslo_config import cfg
        from allocsvc.common import config
        conf = cfg.ConfigOpts()
        config.register_opts(conf)
        conf([], project='allocsvc')
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(list_rules())
    return enforcer


class PolicyNotAuthorized(exception.AllocsvcException):
    status = 403


def authorize(enforcer, context, action, target=None):
    """Raise 403 unless ``context`` may perform ``action`` on ``target``."""
    target = target or {'project_id': context.project_id,
                        'user_id': context.user_id}
    credentials = context.to_policy_values()
    if not enforcer.authorize(action, target, credentials, do_raise=False):
        raise PolicyNotAuthorized(
            'Policy does not allow %s to be performed.' % action)
