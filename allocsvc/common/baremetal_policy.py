"""oslo.policy defaults of the bare-metal API (``/v1``): Ironic's rule
names and secure-RBAC check strings, for the parts of Ironic's API that
allocsvc serves. Each rule's check string, scope types and deprecated
(legacy) check string are Ironic 39's, so that a policy file written for
Ironic means the same here.

Who may do what by default:

* system scope: readers read everything, members manage nodes,
  allocations and chassis, admins also create and delete nodes and
  chassis, move a node to another chassis and may change an owner once
  a node is deployed; the ``service`` role with system scope reads
  everything and manages what members do; chassis are the system's
  alone (no project scoped caller reads them);
* project scope, on a node: the owner's readers read it, the owner's
  members operate it (power, provisioning, maintenance, most fields) and
  its admins/managers change its traits and driver; the lessee's readers
  read it (some fields redacted), its members change power and ``extra``,
  its admins/managers also provision and set maintenance; the owner's
  admins may create nodes owned by their project and delete them;
* project scope, on an allocation: any member creates allocations owned
  by its own project (and previews them, seeing only its project's
  nodes); the owner's readers read them, its members change and delete
  them.

A caller who may not even see a node or an allocation is told it does
not exist (404), so that nothing leaks; one who may see it but not act
on it gets a 403. ``allocsvc.api.controllers.v1.access`` applies these
rules. With ``[oslo_policy] enforce_new_defaults = False`` each rule also
accepts its legacy check string (an admin role, or ``baremetal_admin`` /
``baremetal_observer`` in the ``baremetal`` project), as Ironic before
secure RBAC did.
"""

from oslo_policy import policy

# -- personas ----------------------------------------------------------------
# Whole-deployment operators (system scope). ``rule:service_role`` matches
# nothing until an operator defines which service project is trusted (the
# target carries no ``config.service_project_name``): the service role is
# not elevated by default.
SYSTEM_ADMIN = 'role:admin and system_scope:all'
SYSTEM_MEMBER = '(role:member and system_scope:all) or rule:service_role'
SYSTEM_READER = ('(role:reader and system_scope:all) or '
                 '(role:service and system_scope:all) or rule:service_role')
SYSTEM_SERVICE = 'role:service and system_scope:all'

# Projects related to one node (the target's node.owner / node.lessee).
PROJECT_ADMIN = 'role:admin and project_id:%(node.owner)s'
PROJECT_MEMBER = ('role:member and '
                  '(project_id:%(node.owner)s or project_id:%(node.lessee)s)')
PROJECT_READER = ('role:reader and '
                  '(project_id:%(node.owner)s or project_id:%(node.lessee)s)')
PROJECT_SERVICE = 'role:service and project_id:%(node.owner)s'
OWNER_ADMIN = 'role:admin and project_id:%(node.owner)s'
OWNER_MANAGER = 'role:manager and project_id:%(node.owner)s'
OWNER_MEMBER = 'role:member and project_id:%(node.owner)s'
OWNER_READER = 'role:reader and project_id:%(node.owner)s'
LESSEE_ADMIN = 'role:admin and project_id:%(node.lessee)s'
LESSEE_MANAGER = 'role:manager and project_id:%(node.lessee)s'

# The project owning one allocation (the target's allocation.owner).
ALLOCATION_OWNER_MEMBER = 'role:member and project_id:%(allocation.owner)s'
ALLOCATION_OWNER_READER = 'role:reader and project_id:%(allocation.owner)s'


def _any(*checks):
    return ' or '.join('(%s)' % check for check in checks)


SYSTEM_OR_PROJECT_MEMBER = _any(SYSTEM_MEMBER, PROJECT_MEMBER,
                                SYSTEM_SERVICE)
SYSTEM_OR_PROJECT_READER = _any(SYSTEM_READER, PROJECT_READER,
                                PROJECT_SERVICE)
SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN = _any(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_MEMBER, LESSEE_ADMIN,
    LESSEE_MANAGER, PROJECT_SERVICE)
SYSTEM_MEMBER_OR_OWNER_ADMIN = _any(SYSTEM_MEMBER, SYSTEM_SERVICE,
                                    OWNER_ADMIN, OWNER_MANAGER,
                                    PROJECT_SERVICE)
SYSTEM_MEMBER_OR_OWNER_MEMBER = _any(SYSTEM_MEMBER, SYSTEM_SERVICE,
                                     OWNER_MEMBER, PROJECT_SERVICE)
SYSTEM_OR_OWNER_READER = _any(SYSTEM_READER, SYSTEM_SERVICE, OWNER_READER,
                              PROJECT_SERVICE)
SYSTEM_ADMIN_OR_OWNER_ADMIN = _any(SYSTEM_ADMIN, SYSTEM_SERVICE, OWNER_ADMIN,
                                   OWNER_MANAGER, PROJECT_SERVICE)
ALLOCATION_MEMBER = _any(SYSTEM_MEMBER, ALLOCATION_OWNER_MEMBER)
ALLOCATION_READER = _any(SYSTEM_READER, ALLOCATION_OWNER_READER)
ALLOCATION_CREATOR = _any(SYSTEM_MEMBER, 'role:member')
# Listing needs no relation to a record: the list is filtered instead.
API_READER = '(role:reader) or (role:service)'

BOTH_SCOPES = ['system', 'project']
SYSTEM_ONLY = ['system']

_LEGACY = ('The bare-metal API now knows system scope and the reader, '
           'member and admin roles; the legacy rule (an admin role, or the '
           'baremetal_admin / baremetal_observer roles in the baremetal '
           'project) is accepted only with [oslo_policy] '
           'enforce_new_defaults = False.')
_LEGACY_SINCE = '1.0'
LEGACY_ADMIN = 'rule:is_admin'
LEGACY_READER = 'rule:is_admin or rule:is_observer'

_base_rules = [
    policy.RuleDefault(
        'service_role',
        'role:service and project_name:%(config.service_project_name)s',
        description='The service role of the trusted service project. '
                    'Nothing names that project by default, so this rule '
                    'matches nobody until an operator redefines it (for '
                    'example as "role:service and project_id:<id>").'),
    policy.RuleDefault(
        'is_member',
        '(project_domain_id:default or project_domain_id:None) and '
        '(project_name:demo or project_name:baremetal)',
        description='Legacy: the projects whose baremetal_* roles count.',
        deprecated_for_removal=True, deprecated_reason=_LEGACY,
        deprecated_since=_LEGACY_SINCE),
    policy.RuleDefault(
        'is_observer',
        'rule:is_member and (role:observer or role:baremetal_observer)',
        description='Legacy: read-only access to the bare-metal API.',
        deprecated_for_removal=True, deprecated_reason=_LEGACY,
        deprecated_since=_LEGACY_SINCE),
    policy.RuleDefault(
        'is_admin',
        'rule:admin_api or (rule:is_member and role:baremetal_admin)',
        description='Legacy: full access to the bare-metal API.',
        deprecated_for_removal=True, deprecated_reason=_LEGACY,
        deprecated_since=_LEGACY_SINCE),
    policy.RuleDefault(
        'is_node_owner', 'project_id:%(node.owner)s',
        description='The caller\'s project owns the node.',
        deprecated_for_removal=True, deprecated_reason=_LEGACY,
        deprecated_since=_LEGACY_SINCE),
    policy.RuleDefault(
        'is_node_lessee', 'project_id:%(node.lessee)s',
        description='The caller\'s project leases the node.',
        deprecated_for_removal=True, deprecated_reason=_LEGACY,
        deprecated_since=_LEGACY_SINCE),
    policy.RuleDefault(
        'is_allocation_owner', 'project_id:%(allocation.owner)s',
        description='The caller\'s project owns the allocation.',
        deprecated_for_removal=True, deprecated_reason=_LEGACY,
        deprecated_since=_LEGACY_SINCE),
]


def _rule(name, check_str, description, operations, legacy=None,
          scope_types=BOTH_SCOPES):
    deprecated = None
    if legacy is not None:
        deprecated = policy.DeprecatedRule(
            name=name, check_str=legacy, deprecated_reason=_LEGACY,
            deprecated_since=_LEGACY_SINCE)
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'path': '/v1' + path, 'method': method}
                    for method, path in operations],
        scope_types=list(scope_types), deprecated_rule=deprecated)


_N = '/nodes'
_N1 = '/nodes/{node_ident}'
_A = '/allocations'
_A1 = '/allocations/{allocation_ident}'
_G = '/allocation_groups'
_G1 = '/allocation_groups/{allocation_group_ident}'
_PATCH = [('PATCH', _N1)]


def _field_rule(name, check_str, field, legacy=LEGACY_ADMIN,
                scope_types=BOTH_SCOPES):
    return _rule(name, check_str, 'Change the %s of a node (PATCH).' % field,
                 _PATCH, legacy, scope_types)


def _shown_rule(name, field):
    return _rule(name, SYSTEM_OR_OWNER_READER,
                 'See the %s of a node; below '
                 'baremetal:node:get:filter_threshold, it is redacted for '
                 'callers without this rule.' % field,
                 [('GET', _N1), ('GET', _N), ('GET', _N + '/detail')],
                 LEGACY_READER)


_node_rules = [
    _rule('baremetal:node:create', _any(SYSTEM_ADMIN, SYSTEM_SERVICE),
          'Create a node.', [('POST', _N)], LEGACY_ADMIN),
    _rule('baremetal:node:create:self_owned_node',
          '(role:admin) or (role:service)',
          'Create a node owned by the caller\'s own project (a project '
          'scoped caller without baremetal:node:create).', [('POST', _N)]),
    _rule('baremetal:node:list', API_READER,
          'List nodes, limited to those the caller\'s project owns or '
          'leases.', [('GET', _N), ('GET', _N + '/detail')],
          'rule:baremetal:node:get'),
    _rule('baremetal:node:list_all', SYSTEM_READER,
          'List the nodes of every project.',
          [('GET', _N), ('GET', _N + '/detail')],
          'rule:baremetal:node:get'),
    _rule('baremetal:node:get', SYSTEM_OR_PROJECT_READER,
          'Show a node. A caller without it is told that the node does '
          'not exist.', [('GET', _N1)], LEGACY_READER),
    _rule('baremetal:node:get:filter_threshold', SYSTEM_READER,
          'See every field of a node; callers without it have '
          'last_error, reservation and driver_info checked by their own '
          'rules.', [('GET', _N1), ('GET', _N), ('GET', _N + '/detail')],
          LEGACY_READER),
    _shown_rule('baremetal:node:get:last_error', 'last_error'),
    _shown_rule('baremetal:node:get:reservation', 'reservation'),
    _shown_rule('baremetal:node:get:driver_info', 'driver_info'),
    _shown_rule('baremetal:node:get:driver_internal_info',
                'driver_internal_info'),
    _field_rule('baremetal:node:update:driver_info',
                SYSTEM_MEMBER_OR_OWNER_MEMBER, 'driver_info'),
    _field_rule('baremetal:node:update:properties',
                SYSTEM_MEMBER_OR_OWNER_MEMBER, 'properties'),
    _field_rule('baremetal:node:update:instance_uuid',
                SYSTEM_MEMBER_OR_OWNER_MEMBER, 'instance_uuid'),
    _field_rule('baremetal:node:update:lessee',
                SYSTEM_MEMBER_OR_OWNER_MEMBER, 'lessee'),
    _field_rule('baremetal:node:update:owner', SYSTEM_MEMBER, 'owner'),
    _field_rule('baremetal:node:update:driver_interfaces',
                SYSTEM_MEMBER_OR_OWNER_ADMIN, 'driver'),
    _field_rule('baremetal:node:update:conductor_group', SYSTEM_MEMBER,
                'conductor_group'),
    _field_rule('baremetal:node:update:name', SYSTEM_MEMBER_OR_OWNER_MEMBER,
                'name'),
    _field_rule('baremetal:node:update:retired',
                SYSTEM_MEMBER_OR_OWNER_MEMBER, 'retired'),
    _field_rule('baremetal:node:update:network_data',
                SYSTEM_MEMBER_OR_OWNER_MEMBER, 'network_data'),
    _field_rule('baremetal:node:update:chassis_uuid', SYSTEM_ADMIN,
                'chassis_uuid'),
    _field_rule('baremetal:node:update:shard', SYSTEM_ADMIN, 'shard',
                legacy=None),
    _field_rule('baremetal:node:update:parent_node', SYSTEM_MEMBER,
                'parent_node', legacy=None),
    _field_rule('baremetal:node:update:disable_power_off', SYSTEM_ADMIN,
                'disable_power_off', legacy=None),
    _rule('baremetal:shards:get', SYSTEM_READER,
          'List the shards of nodes and how many nodes each has.',
          [('GET', '/shards')]),
    _rule('baremetal:node:validate', SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Validate the driver interfaces of a node.',
          [('GET', _N1 + '/validate'), ('GET', _N + '/validate')],
          LEGACY_ADMIN),
    _rule('baremetal:node:update', SYSTEM_OR_PROJECT_MEMBER,
          'Change the fields of a node that no more specific '
          'baremetal:node:update* rule governs (PATCH).', _PATCH,
          LEGACY_ADMIN),
    _rule('baremetal:node:update_extra', SYSTEM_OR_PROJECT_MEMBER,
          'Change the extra of a node (PATCH).', _PATCH,
          'rule:baremetal:node:update'),
    _rule('baremetal:node:update_instance_info',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Change the instance_info of a node (PATCH).', _PATCH,
          'rule:baremetal:node:update'),
    _rule('baremetal:node:update_owner_provisioned', SYSTEM_ADMIN,
          'Change the owner of a node that is deployed (active); without '
          'it such a change is a conflict (409).', _PATCH, LEGACY_ADMIN,
          scope_types=['system']),
    _rule('baremetal:node:disable_cleaning', SYSTEM_ADMIN,
          'Set automated_clean of a node to false (PATCH).', _PATCH,
          'rule:baremetal:node:update'),
    _rule('baremetal:node:delete', SYSTEM_ADMIN, 'Delete a node.',
          [('DELETE', _N1)], LEGACY_ADMIN),
    _rule('baremetal:node:delete:self_owned_node', PROJECT_ADMIN,
          'Delete a node owned by the caller\'s own project (a caller '
          'without baremetal:node:delete).', [('DELETE', _N1)]),
    _rule('baremetal:node:set_maintenance',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Put a node into maintenance.', [('PUT', _N1 + '/maintenance')],
          LEGACY_ADMIN),
    _rule('baremetal:node:clear_maintenance',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Take a node out of maintenance.',
          [('DELETE', _N1 + '/maintenance')], LEGACY_ADMIN),
    _rule('baremetal:node:get_states', SYSTEM_OR_PROJECT_READER,
          'Show the power and provision states of a node.',
          [('GET', _N1 + '/states')], LEGACY_READER),
    _rule('baremetal:node:set_power_state', SYSTEM_OR_PROJECT_MEMBER,
          'Change the power state of a node.',
          [('PUT', _N1 + '/states/power')], LEGACY_ADMIN),
    _rule('baremetal:node:set_provision_state',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Change the provision state of a node.',
          [('PUT', _N1 + '/states/provision')], LEGACY_ADMIN),
    _rule('baremetal:node:set_provision_state:clean_steps',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Run manual clean steps of your choice on a node.',
          [('PUT', _N1 + '/states/provision')]),
    _rule('baremetal:node:set_provision_state:service_steps',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Run service steps of your choice on a node.',
          [('PUT', _N1 + '/states/provision')]),
    # An allocsvc extension: the Placement reservations holding a node
    # (who holds it, and until when); whoever may see the node.
    _rule('baremetal:node:reservations:list', SYSTEM_OR_PROJECT_READER,
          'List the reservations holding a node now or later (an '
          'allocsvc extension).', [('GET', _N1 + '/reservations')],
          LEGACY_READER),
    _rule('baremetal:node:traits:list', SYSTEM_OR_PROJECT_READER,
          'List the traits of a node.', [('GET', _N1 + '/traits')],
          LEGACY_READER),
    _rule('baremetal:node:traits:set', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Add a trait to a node, or replace all its traits.',
          [('PUT', _N1 + '/traits'), ('PUT', _N1 + '/traits/{trait}')],
          LEGACY_ADMIN),
    _rule('baremetal:node:traits:delete', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Remove one or all traits from a node.',
          [('DELETE', _N1 + '/traits'),
           ('DELETE', _N1 + '/traits/{trait}')], LEGACY_ADMIN),
]

# What a node's driver does beyond power and provisioning: boot device,
# VIFs, console, RAID, BIOS, firmware, inventory, history, children.
_node_extension_rules = [
    _rule('baremetal:node:get_boot_device', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Show the boot device of a node, or the ones it supports.',
          [('GET', _N1 + '/management/boot_device'),
           ('GET', _N1 + '/management/boot_device/supported')],
          LEGACY_READER),
    _rule('baremetal:node:set_boot_device', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Set the boot device of a node.',
          [('PUT', _N1 + '/management/boot_device')], LEGACY_ADMIN),
    _rule('baremetal:node:inject_nmi', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Inject a non-maskable interrupt into a node.',
          [('PUT', _N1 + '/management/inject_nmi')], LEGACY_ADMIN),
    _rule('baremetal:node:get_indicator_state', SYSTEM_OR_PROJECT_READER,
          'List the indicators of a node, or show the state of one.',
          [('GET', _N1 + '/management/indicators'),
           ('GET', _N1 + '/management/indicators/{indicator}')],
          LEGACY_READER),
    _rule('baremetal:node:set_indicator_state',
          SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Change the state of an indicator of a node.',
          [('PUT', _N1 + '/management/indicators/{indicator}')],
          LEGACY_ADMIN),
    _rule('baremetal:node:set_boot_mode', SYSTEM_OR_PROJECT_MEMBER,
          'Change the boot mode of a node.',
          [('PUT', _N1 + '/states/boot_mode')], LEGACY_ADMIN),
    _rule('baremetal:node:set_secure_boot', SYSTEM_OR_PROJECT_MEMBER,
          'Turn the secure boot of a node on or off.',
          [('PUT', _N1 + '/states/secure_boot')], LEGACY_ADMIN),
    _rule('baremetal:node:vendor_passthru', SYSTEM_ADMIN,
          'Call a vendor method of a node, or list them.',
          [('GET', _N1 + '/vendor_passthru/methods'),
           ('POST', _N1 + '/vendor_passthru')], LEGACY_ADMIN),
    _rule('baremetal:node:vmedia:attach', SYSTEM_OR_PROJECT_MEMBER,
          'Attach virtual media to a node.', [('POST', _N1 + '/vmedia')]),
    _rule('baremetal:node:vmedia:detach', SYSTEM_OR_PROJECT_MEMBER,
          'Detach virtual media from a node.',
          [('DELETE', _N1 + '/vmedia')]),
    _rule('baremetal:node:vmedia:get', SYSTEM_OR_PROJECT_READER,
          'Show the virtual media attached to a node.',
          [('GET', _N1 + '/vmedia')]),
    _rule('baremetal:node:vif:list', SYSTEM_OR_PROJECT_READER,
          'List the VIFs attached to a node.', [('GET', _N1 + '/vifs')],
          LEGACY_ADMIN),
    _rule('baremetal:node:vif:attach',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Attach a VIF to a node.', [('POST', _N1 + '/vifs')],
          LEGACY_ADMIN),
    _rule('baremetal:node:vif:detach',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Detach a VIF from a node.',
          [('DELETE', _N1 + '/vifs/{vif_ident}')], LEGACY_ADMIN),
    _rule('baremetal:node:get_console', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Show the console of a node.', [('GET', _N1 + '/states/console')],
          LEGACY_ADMIN),
    _rule('baremetal:node:set_console_state',
          SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Enable or disable the console of a node.',
          [('PUT', _N1 + '/states/console')], LEGACY_ADMIN),
    _rule('baremetal:node:set_raid_state', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Set the target RAID configuration of a node.',
          [('PUT', _N1 + '/states/raid')], LEGACY_ADMIN),
    _rule('baremetal:node:bios:get', SYSTEM_OR_PROJECT_READER,
          'Show the BIOS settings of a node.',
          [('GET', _N1 + '/bios'), ('GET', _N1 + '/bios/{setting}')],
          LEGACY_READER),
    _rule('baremetal:node:firmware:get', SYSTEM_OR_PROJECT_READER,
          'Show the firmware components of a node.',
          [('GET', _N1 + '/firmware')]),
    _rule('baremetal:node:inventory:get', SYSTEM_OR_OWNER_READER,
          'Show the inventory inspection found on a node.',
          [('GET', _N1 + '/inventory')], LEGACY_READER),
    _rule('baremetal:node:history:get', SYSTEM_OR_OWNER_READER,
          'Show the event history of a node.',
          [('GET', _N1 + '/history'), ('GET', _N1 + '/history/{event}')],
          LEGACY_READER),
]

_other_rules = [
    _rule('baremetal:conductor:get', SYSTEM_READER,
          'List and show conductors.',
          [('GET', '/conductors'), ('GET', '/conductors/{hostname}')],
          LEGACY_READER),
    _rule('baremetal:driver:get', SYSTEM_READER,
          'List and show drivers (hardware types).',
          [('GET', '/drivers'), ('GET', '/drivers/{driver_name}')],
          LEGACY_READER, scope_types=SYSTEM_ONLY),
    _rule('baremetal:driver:get_properties', SYSTEM_READER,
          'Show the node properties a driver reads.',
          [('GET', '/drivers/{driver_name}/properties')], LEGACY_READER,
          scope_types=SYSTEM_ONLY),
    _rule('baremetal:driver:vendor_passthru', SYSTEM_ADMIN,
          'Call a driver-wide vendor method, or list them.',
          [('GET', '/drivers/{driver_name}/vendor_passthru/methods'),
           ('POST', '/drivers/{driver_name}/vendor_passthru')],
          LEGACY_ADMIN, scope_types=SYSTEM_ONLY),
    _rule('baremetal:driver:get_raid_logical_disk_properties',
          SYSTEM_READER, 'Show the RAID logical disk properties a driver '
          'takes.',
          [('GET', '/drivers/{driver_name}/raid/logical_disk_properties')],
          LEGACY_READER, scope_types=SYSTEM_ONLY),
    _rule('baremetal:allocation:get', ALLOCATION_READER,
          'Show an allocation. A caller without it is told that the '
          'allocation does not exist.',
          [('GET', _A1), ('GET', _N1 + '/allocation')], LEGACY_READER),
    _rule('baremetal:allocation:list', API_READER,
          'List allocations, limited to those the caller\'s project '
          'owns.', [('GET', _A)], 'rule:baremetal:allocation:get'),
    _rule('baremetal:allocation:list_all', SYSTEM_READER,
          'List the allocations of every project.', [('GET', _A)],
          'rule:baremetal:allocation:get and is_admin_project:True'),
    _rule('baremetal:allocation:create', ALLOCATION_CREATOR,
          'Create an allocation. With new defaults, a project scoped '
          'caller\'s allocation is owned by its project.', [('POST', _A)],
          'rule:is_admin and is_admin_project:True'),
    _rule('baremetal:allocation:create_restricted', SYSTEM_MEMBER,
          'Create an allocation owned by any project, and name any node '
          'as a candidate.', [('POST', _A)],
          'rule:baremetal:allocation:create'),
    _rule('baremetal:allocation:create_pre_rbac',
          '(rule:is_member and role:baremetal_admin) or '
          '(is_admin_project:True and role:admin)',
          'Only with [oslo_policy] enforce_new_defaults = False: who may '
          'create, with project scope, an allocation whose owner is not '
          'forced to the caller\'s project.', [('POST', _A)],
          scope_types=['project']),
    _rule('baremetal:allocation:preview', ALLOCATION_CREATOR,
          'Preview which nodes an allocation could take now and why the '
          'others could not (an allocsvc extension). The caller needs '
          'the rules of creating such an allocation too (its owner is '
          'the one that allocation would get); one who may not list '
          'every node (baremetal:node:list_all) sees only the nodes its '
          'project owns or leases, listed and counted.',
          [('POST', '/allocation_preview')],
          'rule:is_admin and is_admin_project:True'),
    _rule('baremetal:allocation:update', ALLOCATION_MEMBER,
          'Change the name or extra of an allocation.', [('PATCH', _A1)],
          LEGACY_ADMIN),
    _rule('baremetal:allocation:delete', ALLOCATION_MEMBER,
          'Delete an allocation.',
          [('DELETE', _A1), ('DELETE', _N1 + '/allocation')], LEGACY_ADMIN),
    # Allocation groups (an allocsvc extension): the defaults of the
    # allocation rules, the group's owner in place of the allocation's.
    _rule('baremetal:allocation_group:get', ALLOCATION_READER,
          'Show an allocation group (an allocsvc extension). A caller '
          'without it is told that the group does not exist.',
          [('GET', _G1)], LEGACY_READER),
    _rule('baremetal:allocation_group:list', API_READER,
          'List allocation groups, limited to those the caller\'s project '
          'owns unless it may list every project\'s allocations '
          '(baremetal:allocation:list_all).', [('GET', _G)],
          'rule:baremetal:allocation_group:get'),
    _rule('baremetal:allocation_group:create', ALLOCATION_CREATOR,
          'Create an allocation group (an allocsvc extension). The caller '
          'needs the rules of creating its member allocations too (the '
          'group\'s owner is the one such an allocation would get).',
          [('POST', _G)], 'rule:is_admin and is_admin_project:True'),
    _rule('baremetal:allocation_group:delete', ALLOCATION_MEMBER,
          'Delete an allocation group and its member allocations.',
          [('DELETE', _G1)], LEGACY_ADMIN),
]


def _port_rules(kind, collection, list_legacy=None):
    """Ironic's rules of ports or port groups (``kind``), whose target
    is the node they belong to. ``list_legacy``: the legacy rule of
    listing them (Ironic's differs between the two)."""
    list_legacy = list_legacy or 'rule:baremetal:%s:get' % kind
    many = '/' + collection
    one = '%s/{%s_ident}' % (many, kind)
    under_node = _N1 + many
    return [
        _rule('baremetal:%s:get' % kind, SYSTEM_OR_PROJECT_READER,
              'Show a %s. A caller without it is told that the %s does not '
              'exist.' % (kind, kind), [('GET', one)], LEGACY_READER),
        _rule('baremetal:%s:list' % kind, API_READER,
              'List %s, limited to those of nodes the caller\'s project '
              'owns or leases.' % collection,
              [('GET', many), ('GET', many + '/detail'),
               ('GET', under_node), ('GET', under_node + '/detail')],
              list_legacy),
        _rule('baremetal:%s:list_all' % kind, SYSTEM_READER,
              'List the %s of every project.' % collection,
              [('GET', many), ('GET', many + '/detail')],
              list_legacy),
        _rule('baremetal:%s:create' % kind, SYSTEM_ADMIN_OR_OWNER_ADMIN,
              'Create a %s.' % kind, [('POST', many)], LEGACY_ADMIN),
        _rule('baremetal:%s:update' % kind, SYSTEM_MEMBER_OR_OWNER_ADMIN,
              'Change a %s (PATCH).' % kind, [('PATCH', one)],
              LEGACY_ADMIN),
        _rule('baremetal:%s:delete' % kind, SYSTEM_ADMIN_OR_OWNER_ADMIN,
              'Delete a %s.' % kind, [('DELETE', one)], LEGACY_ADMIN),
    ]


_C = '/chassis'
_C1 = '/chassis/{chassis_id}'

# Chassis belong to no project: only the system reads and changes them.
_chassis_rules = [
    _rule('baremetal:chassis:get', SYSTEM_READER, 'Show or list chassis.',
          [('GET', _C), ('GET', _C + '/detail'), ('GET', _C1)],
          LEGACY_READER, scope_types=['system']),
    _rule('baremetal:chassis:create', SYSTEM_ADMIN, 'Create a chassis.',
          [('POST', _C)], LEGACY_ADMIN, scope_types=['system']),
    _rule('baremetal:chassis:delete', SYSTEM_ADMIN, 'Delete a chassis.',
          [('DELETE', _C1)], LEGACY_ADMIN, scope_types=['system']),
    _rule('baremetal:chassis:update', SYSTEM_MEMBER, 'Change a chassis '
          '(PATCH).', [('PATCH', _C1)], LEGACY_ADMIN,
          scope_types=['system']),
]


def list_rules():
    return (_base_rules + _node_rules + _node_extension_rules +
            _port_rules('port', 'ports') +
            _port_rules('portgroup', 'portgroups', LEGACY_READER) +
            _chassis_rules +
            _other_rules)
