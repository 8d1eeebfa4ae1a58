"""Who may do what in the bare-metal API: policy checks on nodes and
allocations, and the filters that limit lists to what a caller may see.

The rules and their defaults are in ``allocsvc.common.baremetal_policy``;
this module decides which rule a request needs and what it is checked
against, as Ironic's API does:

* the target of a check is the caller's own policy values plus the
  record's ``node.owner`` / ``node.lessee`` or ``allocation.owner``;
* a node or allocation the caller may not even see (``...:get``) does
  not exist for it: 404, the same answer as for a missing one, so that
  nothing leaks; one it may see but not act on is a 403;
* a caller without ``...:list_all`` lists only its project's records
  (nodes its project owns or leases, allocations its project owns), and
  asking for another project's allocations is a 403;
* with new defaults a project scoped caller's allocation is owned by
  its project unless it may ``create_restricted``.

With ``[api] auth_strategy = noauth`` nothing is checked and nothing is
filtered, as in Ironic. Handlers call one function here per decision.
"""

from oslo_utils import strutils
import pecan

from allocsvc.api.controllers.v1 import utils
from allocsvc.api.middleware import auth
from allocsvc.common import exception
from allocsvc.common import hardware
from allocsvc.common import policy
from allocsvc.common import states

# The rule a change of a node field needs (PATCH), by the field's path;
# any other field needs ``baremetal:node:update``. ``automated_clean``
# needs its own rule only when set to false (see _patch_rules).
_FIELD_RULES = {
    'instance_info': 'baremetal:node:update_instance_info',
    'extra': 'baremetal:node:update_extra',
    'driver_info': 'baremetal:node:update:driver_info',
    'properties': 'baremetal:node:update:properties',
    'instance_uuid': 'baremetal:node:update:instance_uuid',
    'lessee': 'baremetal:node:update:lessee',
    'owner': 'baremetal:node:update:owner',
    'driver': 'baremetal:node:update:driver_interfaces',
    'conductor_group': 'baremetal:node:update:conductor_group',
    'name': 'baremetal:node:update:name',
    'retired': 'baremetal:node:update:retired',
    'retired_reason': 'baremetal:node:update:retired',
    'network_data': 'baremetal:node:update:network_data',
    'chassis_uuid': 'baremetal:node:update:chassis_uuid',
    'instance_name': 'baremetal:node:update_instance_info',
    'shard': 'baremetal:node:update:shard',
    'parent_node': 'baremetal:node:update:parent_node',
    'disable_power_off': 'baremetal:node:update:disable_power_off',
}
# Every driver interface field is governed by the driver's rule.
_FIELD_RULES.update({
    '%s_interface' % kind: 'baremetal:node:update:driver_interfaces'
    for kind in hardware.INTERFACE_TYPES})
_UPDATE = 'baremetal:node:update'
_DISABLE_CLEANING = 'baremetal:node:disable_cleaning'

# Fields a caller below baremetal:node:get:filter_threshold sees only with
# their own rule, and what it sees instead (Ironic's wording, which
# clients may show or compare).
_REDACTED = {
    'last_error': ('baremetal:node:get:last_error',
                   '** Value Redacted - Requires baremetal:node:get:'
                   'last_error permission. **'),
    'reservation': ('baremetal:node:get:reservation',
                    '** Redacted - requires baremetal:node:get:'
                    'reservation permission. **'),
    'driver_info': ('baremetal:node:get:driver_info',
                    {'content': '** Redacted - requires baremetal:node:'
                                'get:driver_info permission. **'}),
    'driver_internal_info': (
        'baremetal:node:get:driver_internal_info',
        {'content': '** Redacted - Requires baremetal:node:get:'
                    'driver_internal_info permission. **'}),
}


class Forbidden(policy.PolicyNotAuthorized):
    """403 with a message of its own."""


# -- plumbing ----------------------------------------------------------------

def _enforced():
    return utils.conf().api.auth_strategy == 'keystone'


def _credentials():
    """The caller's policy values, plus the project name (which
    ``rule:service_role`` and operators' rules may name)."""
    ctx = utils.context()
    credentials = dict(ctx.to_policy_values())
    credentials['project_name'] = ctx.project_name
    return credentials


def _target(**record):
    """The caller's values plus the record's owners. An owner that is
    not set is left out rather than None: a check against it then fails,
    instead of matching a caller without a project (``project_id:None``
    would compare 'None' with 'None')."""
    target = _credentials()
    target.update((key, value) for key, value in record.items()
                  if value is not None)
    return target


def _node_target(node):
    return _target(**{'node.owner': node.owner, 'node.lessee': node.lessee})


def _allocation_target(allocation):
    return _target(**{'allocation.owner': allocation.owner})


def _allowed(action, target=None):
    enforcer = pecan.request.environ[auth.ENV_ENFORCER]
    target = target if target is not None else _credentials()
    return bool(enforcer.authorize(action, target, _credentials(),
                                   do_raise=False))


def _require(action, target=None):
    if not _allowed(action, target):
        # Ironic's HTTPForbidden text, which names the rule.
        raise policy.PolicyNotAuthorized(
            'Access was denied to the following resource: %s' % action)


def _project():
    return utils.context().project_id


def _system_scoped():
    return utils.context().system_scope == 'all'


# -- generic -----------------------------------------------------------------

def authorize(action):
    """403 unless the caller may ``action`` (a rule about no particular
    node or allocation, e.g. ``baremetal:conductor:get``)."""
    if _enforced():
        _require(action)


# -- nodes -------------------------------------------------------------------

def authorize_node(action, node, ident=None):
    """404 (as if ``ident`` named no node) unless the caller may see
    ``node``; then 403 unless it may ``action`` it."""
    if not _enforced():
        return
    target = _node_target(node)
    if not _allowed('baremetal:node:get', target):
        raise exception.NodeNotFound(ident or node.uuid)
    if action != 'baremetal:node:get':
        _require(action, target)


def node_list_project():
    """The project a node list is limited to (nodes it owns or leases),
    or None for every node. 403 when the caller may not list nodes."""
    if not _enforced() or _allowed('baremetal:node:list_all'):
        return None
    project = _project()
    if not project:
        _require('baremetal:node:list_all')
    _require('baremetal:node:list')
    return project


def node_create_owner(body):
    """Whether the caller may create a node, and the owner it must get:
    None when ``baremetal:node:create`` allows any node; the caller's
    project when only ``create:self_owned_node`` does (403 if the body
    names another owner); 403 otherwise."""
    if not _enforced() or _allowed('baremetal:node:create'):
        return None
    project = _project()
    if not project:
        _require('baremetal:node:create')
    _require('baremetal:node:create:self_owned_node')
    owner = body.get('owner') if isinstance(body, dict) else None
    if owner is not None and owner != project:
        raise Forbidden('A node created with baremetal:node:create:'
                        'self_owned_node is owned by the project %s; it '
                        'cannot be created for the project %s.'
                        % (project, owner))
    return project


def authorize_node_delete(node, ident=None):
    """As ``authorize_node('baremetal:node:delete', ...)``, except that a
    node of the caller's own project may also be deleted with
    ``baremetal:node:delete:self_owned_node``."""
    if not _enforced():
        return
    authorize_node('baremetal:node:get', node, ident)
    target = _node_target(node)
    if not _allowed('baremetal:node:delete:self_owned_node', target):
        _require('baremetal:node:delete', target)


def _patch_rules(patch):
    rules = []
    for op in patch:
        field = utils.patch_root(op)
        if field == 'automated_clean':
            value = strutils.bool_from_string(op.get('value'),
                                              default=None)
            if value is False:
                rules.append(_DISABLE_CLEANING)
            else:
                rules.append(_UPDATE)
        else:
            rules.append(_FIELD_RULES.get(field, _UPDATE))
    return list(dict.fromkeys(rules)) or [_UPDATE]


def authorize_node_patch(patch, node, ident=None):
    """404 unless the caller may see ``node``; 403 unless it may change
    every field ``patch`` (a checked JSON patch) touches; 409 for setting
    the owner of a deployed node without
    ``baremetal:node:update_owner_provisioned``."""
    if not _enforced():
        return
    authorize_node('baremetal:node:get', node, ident)
    target = _node_target(node)
    for rule in _patch_rules(patch):
        _require(rule, target)
    sets_owner = any(op['op'] != 'remove' and utils.patch_root(op) == 'owner'
                     for op in patch)
    if sets_owner and node.provision_state == states.ACTIVE and \
            not _allowed('baremetal:node:update_owner_provisioned', target):
        raise exception.Conflict(
            'Cannot update owner of node "%s" while it is in state "%s".'
            % (node.uuid, states.ACTIVE))


def redact_node(document, node):
    """``document`` (a node rendered for this caller) with the fields the
    caller may not read replaced, unless it is at least at
    ``baremetal:node:get:filter_threshold``."""
    if not _enforced():
        return document
    target = _node_target(node)
    if _allowed('baremetal:node:get:filter_threshold', target):
        return document
    for field, (rule, hidden) in _REDACTED.items():
        if field in document and not _allowed(rule, target):
            document[field] = hidden
    return document


# -- allocations -------------------------------------------------------------

def authorize_allocation(action, allocation, ident=None, conceal=True):
    """``allocation``, if the caller may ``action`` it: 404 (as if
    ``ident`` named none) when it may not even see it, else 403. With
    ``conceal=False`` (the allocation of a node the caller sees, whose
    ``allocation_uuid`` is no secret) both are a 403."""
    if not _enforced():
        return allocation
    target = _allocation_target(allocation)
    if conceal and not _allowed('baremetal:allocation:get', target):
        raise exception.AllocationNotFound(ident or allocation.uuid)
    _require(action, target)
    return allocation


def allocation_list_owner(owner):
    """The owner to filter an allocation list on: ``owner`` as asked
    when the caller may list every project's allocations, else the
    caller's project (403 when it asks for another one or may not list
    allocations)."""
    if not _enforced() or _allowed('baremetal:allocation:list_all'):
        return owner
    project = _project()
    if not project or (owner is not None and owner != project):
        _require('baremetal:allocation:list_all')
    _require('baremetal:allocation:list')
    return project


def authorize_allocation_group(action, group, ident=None):
    """``group``, if the caller may ``action`` it: 404 (as if ``ident``
    named none) when it may not even see it, else 403. Its target is
    its owner, as an allocation's."""
    if not _enforced():
        return group
    target = _allocation_target(group)
    if not _allowed('baremetal:allocation_group:get', target):
        raise exception.AllocationGroupNotFound(ident or group.uuid)
    _require(action, target)
    return group


def allocation_group_list_owner():
    """The owner to filter a group list on: None (every group) when
    the caller may list every project's allocations, else its project
    (403 when it may not list groups)."""
    if not _enforced() or _allowed('baremetal:allocation:list_all'):
        return None
    project = _project()
    if not project:
        _require('baremetal:allocation:list_all')
    _require('baremetal:allocation_group:list')
    return project


def allocation_create_owner(owner):
    """Whether the caller may create an allocation asked for ``owner``
    (None: no owner), and the owner it gets.

    A project scoped caller's allocation is owned by its project when it
    names none, and naming another project needs
    ``baremetal:allocation:create_restricted`` (403 otherwise). With
    ``enforce_new_defaults = False`` the owner is left as asked, and an
    allocation without owner also needs
    ``baremetal:allocation:create_pre_rbac``: the rules of that mode let
    project members create allocations, which could otherwise take any
    node. System scoped callers are not subject to that restriction (in
    Ironic they hit a project-only rule and get a 500)."""
    if not _enforced():
        return owner
    project = _project()
    new_defaults = utils.conf().oslo_policy.enforce_new_defaults
    system = _system_scoped()
    if _allowed('baremetal:allocation:create'):
        if not new_defaults and not owner and not system:
            _require('baremetal:allocation:create_pre_rbac')
    else:
        if project and owner and owner != project:
            _require('baremetal:allocation:create')
        if owner and not new_defaults and not system:
            _require('baremetal:allocation:create_pre_rbac')
        _require('baremetal:allocation:create_restricted')
        owner = project
    if new_defaults and not system:
        if not owner:
            owner = project
        elif owner != project and \
                not _allowed('baremetal:allocation:create_restricted'):
            raise Forbidden(
                'An allocation created by the project %s cannot be owned '
                'by the project %s without baremetal:allocation:'
                'create_restricted.' % (project, owner))
    return owner


def preview_project():
    """The project whose nodes (owned or leased) are the only ones an
    allocation preview lists and counts, or None for every node: those
    the caller may list (``baremetal:node:list_all``), so that no count
    tells a project about another's nodes. 403 for a caller with
    neither that rule nor a project."""
    if not _enforced() or _allowed('baremetal:node:list_all'):
        return None
    project = _project()
    if not project:
        _require('baremetal:node:list_all')
    return project


def candidate_project():
    """The project whose nodes (owned or leased) are the only ones an
    allocation's ``candidate_nodes`` may name, or None for any node:
    callers with ``baremetal:allocation:create_restricted`` name any."""
    if not _enforced() or \
            _allowed('baremetal:allocation:create_restricted'):
        return None
    return _project()


# -- ports and port groups ---------------------------------------------------

def authorize_port(action, node, not_found):
    """For a port or port group of ``node``: raise ``not_found`` unless
    the caller may see the node (``baremetal:node:get``, as Ironic
    checks it), then 403 unless it may ``action`` (a ``baremetal:port:*``
    or ``baremetal:portgroup:*`` rule) against the node's owner and
    lessee."""
    if not _enforced():
        return
    target = _node_target(node)
    if not _allowed('baremetal:node:get', target):
        raise not_found
    _require(action, target)


def port_list_project(kind):
    """The project a port or port group list is limited to (those of
    nodes it owns or leases), or None for all; 403 when the caller may
    not list them."""
    if not _enforced() or _allowed('baremetal:%s:list_all' % kind):
        return None
    project = _project()
    if not project:
        _require('baremetal:%s:list_all' % kind)
    _require('baremetal:%s:list' % kind)
    return project
