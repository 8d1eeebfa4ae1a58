"""The bare-metal API's default policy, through HTTP, with the identity
headers keystonemiddleware would set (its token check is left out).

Scenarios, under ``[oslo_policy] enforce_new_defaults = True`` (this
deployment's default; scope is always enforced by oslo.policy >= 4.5,
which has no ``enforce_scope`` option any more):

* nodes ``owned`` (by project OWN), ``leased`` (owned by OWN, leased to
  LEASE), ``foreign`` (owned by another project) and ``free`` (no owner);
* system admin does everything; system member manages but neither
  creates nor deletes nodes; system reader only reads;
* lists: system users see every node, the owner's users the owned and
  the leased node, the lessee's users the leased node, another project
  none (200, empty), on SQLite, MariaDB and PostgreSQL;
* one node, per persona and action, Ironic's answers: the owner's
  member operates the node but does not change its owner, driver or
  traits nor delete it; its admin does, and deletes it; the lessee's
  member changes power and ``extra`` only, its admin also provisions and
  sets maintenance; readers read; another project gets 404 everywhere;
* what a node's driver does beyond power and provisioning (console,
  indicators, RAID, boot device, boot mode, vmedia, vendor methods):
  Ironic 39's personas for each, also on the legacy console path; the
  fields with rules of their own (shard, parent_node, disable_power_off,
  instance_name); drivers for system scope only;
* below ``get:filter_threshold`` the lessee sees last_error, reservation,
  driver_info and driver_internal_info redacted, the owner does not;
* a project admin creates nodes owned by its project only;
* the owner of a deployed node is changed by a system admin only (409);
* allocations: a project member's allocation is owned by its project
  (another owner: 403), candidate and backfill nodes must be its own;
  owners read, change and delete their allocations, others get 404 and
  do not see them listed; the allocation of a visible node is a 403;
* ``enforce_new_defaults = False``: the legacy rules (baremetal_admin in
  the baremetal project) work, and an allocation without owner needs
  ``create_pre_rbac``;
* chassis are the system's: its readers read them, its members change
  them, its admins create and delete them; no project scoped caller
  does any of it, not even the legacy admin with
  ``enforce_new_defaults = False`` (the rules' scope is the system, as
  in Ironic); moving a node to another chassis needs a system admin,
  even for the node's owner;
* manual clean and service steps need rules of their own;
* a domain scoped token is refused; noauth checks nothing.
"""

import pytest

from allocsvc.common import states
from allocsvc.conductor import mirror
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import nodes as db_nodes
from tests import conftest
from tests.functional.ironic_errors import message
from tests.helpers.v1_policy import ADMIN
from tests.helpers.v1_policy import LEASE
from tests.helpers.v1_policy import make_env
from tests.helpers.v1_policy import OTHER
from tests.helpers.v1_policy import OWN
from tests.helpers.v1_policy import PERSONAS
from tests.helpers.v1_policy import project
from tests.helpers.v1_policy import system
from tests.helpers.v1_policy import SYSTEM_ADMIN
from tests.helpers.v1_policy import SYSTEM_MEMBER
from tests.helpers.v1_policy import SYSTEM_READER


@pytest.fixture
def env(monkeypatch):
    """For what does not depend on the database: SQLite."""
    conftest.get_database('sqlite').clean()
    return make_env(monkeypatch)


@pytest.fixture
def db_env(database, monkeypatch):
    """For what the database filters: every backend."""
    return make_env(monkeypatch)


def _names(resp):
    assert resp.status_int == 200, resp.text
    return sorted(n['name'] for n in resp.json['nodes'])


def _uuids(resp):
    assert resp.status_int == 200, resp.text
    return sorted(a['uuid'] for a in resp.json['allocations'])


# -- node lists ---------------------------------------------------------------

ALL_NODES = ['foreign', 'free', 'leased', 'owned']


@pytest.mark.parametrize('persona,expected', [
    ('system_admin', ALL_NODES), ('system_reader', ALL_NODES),
    ('owner_member', ['leased', 'owned']), ('owner_reader',
                                            ['leased', 'owned']),
    ('lessee_admin', ['leased']), ('lessee_reader', ['leased']),
    ('other_admin', []),
])
def test_node_lists_show_what_the_project_owns_or_leases(db_env, persona,
                                                         expected):
    headers = PERSONAS[persona]
    for path in ('/v1/nodes', '/v1/nodes/detail',
                 '/v1/nodes?fields=name,owner'):
        assert _names(db_env.call('GET', path, headers=headers)) == expected
    # The caller's own filters narrow its view; they never widen it.
    resp = db_env.call('GET', '/v1/nodes?owner=p-foreign', headers=headers)
    assert _names(resp) == (['foreign'] if expected == ALL_NODES else [])
    resp = db_env.call('GET', '/v1/nodes?lessee=%s' % LEASE, headers=headers)
    assert _names(resp) == [n for n in expected if n == 'leased']


def test_node_list_pages_within_the_project(db_env):
    headers = PERSONAS['owner_reader']
    resp = db_env.call('GET', '/v1/nodes?limit=1', headers=headers)
    assert _names(resp) == ['owned']
    path = resp.json['next'].replace('http://localhost', '')
    assert _names(db_env.call('GET', path, headers=headers)) == ['leased']


def test_node_list_needs_a_role(env):
    resp = env.call('GET', '/v1/nodes', headers=project(OWN, ''))
    assert resp.status_int == 403


# -- one node -----------------------------------------------------------------

def _patch(path, value):
    return ('PATCH', '', [{'op': 'replace', 'path': path, 'value': value}])


ACTIONS = {
    'get': ('GET', '', None),
    'states': ('GET', '/states', None),
    'patch_extra': _patch('/extra', {'a': 1}),
    'patch_description': _patch('/description', 'rack 4'),
    'patch_instance_info': _patch('/instance_info', {'image': 'x'}),
    'patch_name': _patch('/name', 'renamed'),
    'patch_lessee': _patch('/lessee', 'p-new'),
    'patch_owner': _patch('/owner', 'p-new'),
    'patch_driver': _patch('/driver', 'fake-hardware'),
    'patch_properties': _patch('/properties', {'cpus': 2}),
    'patch_no_cleaning': _patch('/automated_clean', False),
    'patch_boot_interface': _patch('/boot_interface', 'pxe'),
    'patch_network_data': _patch('/network_data', {'links': []}),
    'validate': ('GET', '/validate', None),
    'maintenance_on': ('PUT', '/maintenance', {'reason': 'x'}),
    'maintenance_off': ('DELETE', '/maintenance', None),
    'power': ('PUT', '/states/power', {'target': 'power on'}),
    'provision': ('PUT', '/states/provision', {'target': 'provide'}),
    'traits': ('GET', '/traits', None),
    'add_trait': ('PUT', '/traits/CUSTOM_GOLD', None),
    'set_traits': ('PUT', '/traits', {'traits': ['CUSTOM_GOLD']}),
    'remove_traits': ('DELETE', '/traits', None),
    'delete': ('DELETE', '', None),
}
OK = {'GET': 200, 'PATCH': 200, 'PUT': 202, 'DELETE': 202}


def _ok(action):
    method, suffix, _ = ACTIONS[action]
    if 'traits' in suffix and method != 'GET' or action == 'delete':
        return 204
    return OK[method]


# Who may do what on the node it owns / leases (Ironic's defaults). An
# action a persona is not listed for is a 403.
ALLOWED = {
    'system_admin': set(ACTIONS),
    'system_member': set(ACTIONS) - {'patch_no_cleaning', 'delete'},
    'system_reader': {'get', 'states', 'traits'},
    'owner_admin': set(ACTIONS) - {'patch_owner', 'patch_no_cleaning'},
    'owner_member': set(ACTIONS) - {
        'patch_owner', 'patch_driver', 'patch_boot_interface',
        'patch_no_cleaning', 'add_trait', 'set_traits', 'remove_traits',
        'delete'},
    'owner_reader': {'get', 'states', 'traits'},
    'lessee_admin': {'get', 'states', 'traits', 'patch_extra',
                     'patch_description', 'patch_instance_info',
                     'maintenance_on', 'maintenance_off', 'power',
                     'provision', 'validate'},
    'lessee_member': {'get', 'states', 'traits', 'patch_extra',
                      'patch_description', 'power'},
    'lessee_reader': {'get', 'states', 'traits'},
}


def _node_cases():
    for persona, allowed in ALLOWED.items():
        node = 'leased' if persona.startswith('lessee') else 'owned'
        for action in ACTIONS:
            yield persona, node, action, (_ok(action) if action in allowed
                                          else 403)
    # Nodes a project may not see do not exist for it.
    for persona, node in (('other_admin', 'owned'), ('lessee_admin', 'owned'),
                          ('owner_admin', 'foreign'),
                          ('owner_admin', 'free')):
        for action in ACTIONS:
            yield persona, node, action, 404


@pytest.mark.parametrize('persona,node,action,status', list(_node_cases()))
def test_node_actions(env, persona, node, action, status):
    method, suffix, body = ACTIONS[action]
    resp = env.call(method, '/v1/nodes/%s%s' % (node, suffix), body,
                    headers=PERSONAS[persona])
    assert resp.status_int == status, resp.text
    if status == 404:
        assert message(resp) == 'Node %s could not be found.' % node
    if status == 403:
        assert message(resp).startswith(
            'Access was denied to the following resource: baremetal:')


def test_steps_of_ones_choice_have_rules_of_their_own(monkeypatch,
                                                      tmp_path):
    # As Ironic 39: clean_steps and service_steps need their own rule,
    # whatever the verb they come with, before the state is checked.
    conftest.get_database('sqlite').clean()
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text(
        '"baremetal:node:set_provision_state:clean_steps": "!"\n'
        '"baremetal:node:set_provision_state:service_steps": "!"\n')
    env = make_env(monkeypatch, policy_file=policy_file)
    step = [{'interface': 'bios', 'step': 'factory_reset'}]
    for name, target in (('clean_steps', 'clean'),
                         ('clean_steps', 'provide'),
                         ('service_steps', 'service'),
                         ('service_steps', 'manage')):
        resp = env.call('PUT', '/v1/nodes/owned/states/provision',
                        {'target': target, name: step},
                        headers=SYSTEM_ADMIN)
        assert resp.status_int == 403, (name, target)
        assert message(resp) == ('Access was denied to the following '
                                 'resource: baremetal:node:'
                                 'set_provision_state:%s' % name)
    resp = env.call('PUT', '/v1/nodes/owned/states/provision',
                    {'target': 'provide'}, headers=SYSTEM_ADMIN)
    assert resp.status_int == 202, resp.text


def test_fields_are_redacted_below_the_filter_threshold(env):
    # A conductor holds the node (reservation shows its host).
    mirror.update_node(env.ctx, db_nodes.get(env.ctx, 'leased').id,
                       {'reservation': 'cond-9'})
    redacted = {
        'last_error': '** Value Redacted - Requires baremetal:node:get:'
                      'last_error permission. **',
        'reservation': '** Redacted - requires baremetal:node:get:'
                       'reservation permission. **',
        'driver_info': {'content': '** Redacted - requires baremetal:node:'
                                   'get:driver_info permission. **'},
        'driver_internal_info': {
            'content': '** Redacted - Requires baremetal:node:get:'
                       'driver_internal_info permission. **'}}
    for persona in ('lessee_reader', 'lessee_admin'):
        headers = PERSONAS[persona]
        shown = env.call('GET', '/v1/nodes/leased', headers=headers).json
        assert {key: shown[key] for key in redacted} == redacted
        listed = env.call('GET', '/v1/nodes/detail', headers=headers).json
        assert {key: listed['nodes'][0][key]
                for key in redacted} == redacted
    for persona in ('owner_reader', 'system_reader'):
        shown = env.call('GET', '/v1/nodes/leased',
                         headers=PERSONAS[persona]).json
        assert shown['last_error'] == 'boom'
        assert shown['reservation'] == 'cond-9'
        assert shown['driver_info'] == {'ipmi_address': '10.0.0.2'}
        assert shown['driver_internal_info'] == {}


def test_no_project_is_not_the_project_of_unowned_nodes(env):
    # oslo.policy would compare str(None) with str(None): a system scoped
    # manager would then be the "lessee manager" of every node without
    # lessee, and provision it.
    headers = system('manager,reader')
    assert env.call('GET', '/v1/nodes/free',
                    headers=headers).status_int == 200
    resp = env.call('PUT', '/v1/nodes/free/states/provision',
                    {'target': 'provide'}, headers=headers)
    assert resp.status_int == 403


@pytest.mark.parametrize('persona,status,owner', [
    ('system_admin', 201, None), ('owner_admin', 201, OWN),
    ('other_admin', 201, OTHER), ('system_member', 403, None),
    ('owner_member', 403, None), ('system_reader', 403, None),
])
def test_node_create(env, persona, status, owner):
    resp = env.call('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                          'name': 'new'},
                    headers=PERSONAS[persona])
    assert resp.status_int == status, resp.text
    if status == 201:
        assert resp.json['owner'] == owner
        # ... and its creator may manage it.
        resp = env.call('PATCH', '/v1/nodes/new',
                        [{'op': 'add', 'path': '/extra/a', 'value': 1}],
                        headers=PERSONAS[persona])
        assert resp.status_int == 200, resp.text


def test_project_admin_creates_nodes_for_its_project_only(env):
    headers = PERSONAS['owner_admin']
    body = {'driver': 'fake-hardware', 'name': 'new'}
    resp = env.call('POST', '/v1/nodes', dict(body, owner=OTHER),
                    headers=headers)
    assert resp.status_int == 403
    resp = env.call('POST', '/v1/nodes', dict(body, owner=OWN),
                    headers=headers)
    assert resp.status_int == 201 and resp.json['owner'] == OWN
    # Also below 1.50, where the client cannot see the owner.
    resp = env.call('POST', '/v1/nodes', dict(body, name='old'),
                    version='1.49', headers=headers)
    assert resp.status_int == 201, resp.text
    assert db_nodes.get(env.ctx, 'old').owner == OWN


def test_owner_of_a_deployed_node_needs_a_system_admin(env):
    node = db_nodes.get(env.ctx, 'owned')
    mirror.update_node(env.ctx, node.id,
                       {'provision_state': states.ACTIVE})
    patch = [{'op': 'replace', 'path': '/owner', 'value': 'p-new'}]
    resp = env.call('PATCH', '/v1/nodes/owned', patch,
                    headers=SYSTEM_MEMBER)
    assert resp.status_int == 409
    assert message(resp) == ('Cannot update owner of node "%s" while it '
                             'is in state "active".' % node.uuid)
    resp = env.call('PATCH', '/v1/nodes/owned', patch, headers=SYSTEM_ADMIN)
    assert resp.status_int == 200 and resp.json['owner'] == 'p-new'


# -- allocations --------------------------------------------------------------

def _create(env, headers, status=201, **body):
    body.setdefault('resource_class', 'baremetal')
    resp = env.post(body, headers=headers)
    assert resp.status_int == status, resp.text
    return resp


def _owner(env, allocation):
    return db_allocations.get_by_uuid(env.ctx, allocation['uuid']).owner


def test_project_allocations_are_owned_by_the_project(env):
    member = PERSONAS['owner_member']
    mine = _create(env, member).json
    assert mine['owner'] == OWN
    assert _create(env, member, owner=OWN).json['owner'] == OWN
    resp = _create(env, member, 403, owner=OTHER)
    assert 'create_restricted' in message(resp)
    # Before 1.60 the client cannot see the owner; it is set all the same.
    old = env.create(version='1.52', headers=member)
    assert 'owner' not in old and _owner(env, old) == OWN
    # Readers do not create.
    _create(env, PERSONAS['owner_reader'], 403)
    # System members give any owner, or none.
    assert _create(env, SYSTEM_MEMBER, owner=OTHER).json['owner'] == OTHER
    assert _create(env, SYSTEM_ADMIN).json['owner'] is None
    _create(env, SYSTEM_READER, 403)


def test_project_allocations_name_only_the_projects_nodes(env):
    member = PERSONAS['lessee_member']
    resp = _create(env, member, candidate_nodes=['leased'])
    assert resp.json['candidate_nodes'] == [
        db_nodes.get(env.ctx, 'leased').uuid]
    foreign = db_nodes.get(env.ctx, 'foreign').uuid
    for ident in ('owned', foreign, 'ghost'):
        resp = _create(env, member, 400, candidate_nodes=['leased', ident])
        assert message(resp) == 'Nodes cannot be found: %s' % ident
    assert _create(env, SYSTEM_MEMBER,
                   candidate_nodes=['owned', foreign]).status_int == 201
    # A backfill names a node the caller sees, or none at all.
    for ident in ('owned', 'ghost'):
        resp = _create(env, member, 400, node=ident)
        assert message(resp) == 'Node %s could not be found.' % ident


@pytest.fixture
def allocations(env):
    """An allocation of OWN, one of OTHER and one without owner, made by
    a system admin: their UUIDs."""
    return {owner: _create(env, SYSTEM_ADMIN, owner=owner).json['uuid']
            for owner in (OWN, OTHER, None)}


@pytest.mark.parametrize('persona,visible', [
    ('system_reader', (OWN, OTHER, None)), ('owner_reader', (OWN,)),
    ('owner_member', (OWN,)), ('lessee_admin', ()), ('other_admin', (OTHER,)),
])
def test_allocation_list_and_show(env, allocations, persona, visible):
    headers = PERSONAS[persona]
    assert _uuids(env.call('GET', '/v1/allocations', headers=headers)) == \
        sorted(allocations[owner] for owner in visible)
    for owner, uuid in allocations.items():
        resp = env.call('GET', '/v1/allocations/' + uuid, headers=headers)
        assert resp.status_int == (200 if owner in visible else 404)
    if persona.startswith('system'):
        resp = env.call('GET', '/v1/allocations?owner=%s' % OTHER,
                        headers=headers)
        assert _uuids(resp) == [allocations[OTHER]]
    else:
        resp = env.call('GET', '/v1/allocations?owner=%s' % OTHER,
                        headers=headers)
        assert resp.status_int == (200 if OTHER in visible else 403)


@pytest.mark.parametrize('persona,mine,status', [
    ('owner_member', OWN, 200), ('owner_reader', OWN, 403),
    ('owner_member', OTHER, 404), ('owner_member', None, 404),
    ('system_member', OTHER, 200), ('system_reader', OWN, 403),
])
def test_allocation_patch(env, allocations, persona, mine, status):
    resp = env.call('PATCH', '/v1/allocations/' + allocations[mine],
                    [{'op': 'add', 'path': '/extra/a', 'value': 1}],
                    headers=PERSONAS[persona])
    assert resp.status_int == status, resp.text


@pytest.mark.parametrize('persona,mine,status', [
    ('owner_member', OWN, 204), ('owner_reader', OWN, 403),
    ('owner_admin', OTHER, 404), ('owner_member', None, 404),
    ('system_member', OTHER, 204), ('system_reader', OWN, 403),
])
def test_allocation_delete(env, allocations, persona, mine, status):
    resp = env.call('DELETE', '/v1/allocations/' + allocations[mine],
                    headers=PERSONAS[persona])
    assert resp.status_int == status, resp.text
    if status == 404:
        assert message(resp) == ('Allocation %s could not be found.'
                                 % allocations[mine])


def test_allocation_of_a_node(env, allocations):
    node = db_nodes.get(env.ctx, 'leased')
    mirror.update_node(env.ctx, node.id,
                       {'provision_state': states.AVAILABLE})
    env.bind({'uuid': allocations[OWN]}, node)
    for persona in ('owner_reader', 'system_reader'):
        resp = env.call('GET', '/v1/nodes/leased/allocation',
                        headers=PERSONAS[persona])
        assert resp.json['uuid'] == allocations[OWN]
    # The lessee sees the node and so its allocation_uuid, but not the
    # allocation of another project.
    for method, unseen in (('GET', 'Resource could not be found.'),
                           ('DELETE', 'Node leased could not be found.')):
        resp = env.call(method, '/v1/nodes/leased/allocation',
                        headers=PERSONAS['lessee_admin'])
        assert resp.status_int == 403
        resp = env.call(method, '/v1/nodes/leased/allocation',
                        headers=PERSONAS['other_admin'])
        assert resp.status_int == 404
        # Ironic reads the node of a GET as a list filter's.
        assert message(resp) == unseen
    # The ?node= filter: a node the caller cannot see is no node.
    resp = env.call('GET', '/v1/allocations?node=leased',
                    headers=PERSONAS['other_admin'])
    assert resp.status_int == 400
    assert message(resp) == 'Node leased could not be found.'
    resp = env.call('GET', '/v1/allocations?node=leased',
                    headers=PERSONAS['owner_reader'])
    assert _uuids(resp) == [allocations[OWN]]
    resp = env.call('DELETE', '/v1/nodes/leased/allocation',
                    headers=PERSONAS['owner_member'])
    assert resp.status_int == 204


# -- modes --------------------------------------------------------------------

def test_the_deployment_defaults_are_the_ones_tested():
    conf = conftest.make_conf(auth_strategy='keystone')
    assert conf.oslo_policy.enforce_new_defaults is True
    assert getattr(conf.oslo_policy, 'enforce_scope', True) is True


LEGACY_ADMIN = project('p-bm', 'baremetal_admin', **{
    'X-Project-Name': 'baremetal'})


# oslo.policy warns, for every rule, that its legacy check is deprecated.
@pytest.mark.filterwarnings('ignore::UserWarning')
def test_legacy_rules_without_new_defaults(monkeypatch):
    conftest.get_database('sqlite').clean()
    env = make_env(monkeypatch, new_defaults=False)
    assert _names(env.call('GET', '/v1/nodes',
                           headers=LEGACY_ADMIN)) == ALL_NODES
    assert env.call('DELETE', '/v1/nodes/free',
                    headers=LEGACY_ADMIN).status_int == 204
    # The new defaults still hold: the owner's member sees its nodes.
    assert _names(env.call('GET', '/v1/nodes',
                           headers=PERSONAS['owner_member'])) == [
        'leased', 'owned']
    # An allocation without owner could take any node: it needs
    # create_pre_rbac, and the owner is not forced in this mode.
    resp = _create(env, PERSONAS['owner_member'], 403)
    assert 'create_pre_rbac' in message(resp)
    assert _create(env, PERSONAS['owner_member'],
                   owner=OWN).json['owner'] == OWN
    assert _create(env, PERSONAS['owner_admin']).json['owner'] is None
    assert _create(env, LEGACY_ADMIN).json['owner'] is None
    assert _create(env, SYSTEM_ADMIN).json['owner'] is None


def test_legacy_roles_mean_nothing_with_new_defaults(env):
    assert env.call('GET', '/v1/nodes',
                    headers=LEGACY_ADMIN).status_int == 403


def test_domain_scoped_tokens_are_refused(env):
    headers = {'X-Domain-Id': 'default', 'X-Roles': ADMIN,
               'X-User-Id': 'domain-admin'}
    for path in ('/v1/nodes', '/v1/allocations', '/v1/conductors'):
        assert env.call('GET', path, headers=headers).status_int == 403


def test_conductors_are_for_system_readers(env):
    assert env.call('GET', '/v1/conductors',
                    headers=SYSTEM_READER).status_int == 200
    assert env.call('GET', '/v1/conductors',
                    headers=PERSONAS['owner_admin']).status_int == 403


def test_shards_are_for_system_readers(env):
    assert env.call('GET', '/v1/shards',
                    headers=SYSTEM_READER).status_int == 200
    resp = env.call('GET', '/v1/shards', headers=PERSONAS['owner_admin'])
    assert resp.status_int == 403
    assert 'baremetal:shards:get' in message(resp)


# -- chassis ------------------------------------------------------------------

def _chassis_answers(env, headers):
    """The statuses of list, show, detail, nodes list, PATCH, POST and
    DELETE of a chassis (made by a system admin) for ``headers``."""
    made = env.call('POST', '/v1/chassis', {}, headers=SYSTEM_ADMIN).json
    path = '/v1/chassis/' + made['uuid']
    ops = [{'op': 'add', 'path': '/extra/a', 'value': 1}]
    return [env.call('GET', '/v1/chassis', headers=headers).status_int,
            env.call('GET', path, headers=headers).status_int,
            env.call('GET', '/v1/chassis/detail',
                     headers=headers).status_int,
            env.call('PATCH', path, ops, headers=headers).status_int,
            env.call('POST', '/v1/chassis', {},
                     headers=headers).status_int,
            env.call('DELETE', path, headers=headers).status_int]


@pytest.mark.parametrize('persona, statuses', [
    ('system_admin', [200, 200, 200, 200, 201, 204]),
    ('system_member', [200, 200, 200, 200, 403, 403]),
    ('system_reader', [200, 200, 200, 403, 403, 403]),
    ('owner_admin', [403] * 6),
    ('owner_reader', [403] * 6),
])
def test_chassis_are_the_systems(env, persona, statuses):
    assert _chassis_answers(env, PERSONAS[persona]) == statuses


def test_chassis_policy_names_the_rule(env):
    resp = env.call('POST', '/v1/chassis', {},
                    headers=PERSONAS['owner_admin'])
    assert resp.status_int == 403
    assert 'baremetal:chassis:create' in message(resp)


@pytest.mark.parametrize('persona, status', [
    ('system_admin', 200), ('system_member', 403), ('owner_admin', 403),
    ('owner_member', 403), ('other_admin', 404)])
def test_moving_a_node_to_a_chassis_needs_a_system_admin(env, persona,
                                                         status):
    made = env.call('POST', '/v1/chassis', {}, headers=SYSTEM_ADMIN).json
    resp = env.call('PATCH', '/v1/nodes/owned',
                    [{'op': 'add', 'path': '/chassis_uuid',
                      'value': made['uuid']}],
                    headers=PERSONAS[persona])
    assert resp.status_int == status, resp.text


@pytest.mark.filterwarnings('ignore::UserWarning')
def test_chassis_with_legacy_rules(monkeypatch):
    conftest.get_database('sqlite').clean()
    env = make_env(monkeypatch, new_defaults=False)
    assert _chassis_answers(env, LEGACY_ADMIN) == [403] * 6
    assert _chassis_answers(env, SYSTEM_ADMIN) == [200, 200, 200, 200, 201,
                                                   204]


def test_noauth_checks_nothing(monkeypatch):
    conftest.get_database('sqlite').clean()
    env = make_env(monkeypatch, strategy='noauth')
    headers = PERSONAS['other_admin']
    assert _names(env.call('GET', '/v1/nodes', headers=headers)) == ALL_NODES
    assert _create(env, headers).json['owner'] is None
    assert env.call('DELETE', '/v1/nodes/owned',
                    headers=headers).status_int == 204


@pytest.mark.parametrize('path,value,rule,allowed', [
    ('/shard', 'rack-1', 'baremetal:node:update:shard', {'system_admin'}),
    ('/disable_power_off', True, 'baremetal:node:update:disable_power_off',
     {'system_admin'}),
    ('/parent_node', None, 'baremetal:node:update:parent_node',
     {'system_admin', 'system_member'}),
    ('/instance_name', 'vm-1', 'baremetal:node:update_instance_info',
     {'system_admin', 'system_member', 'owner_admin', 'owner_member'}),
])
def test_fields_with_rules_of_their_own(env, path, value, rule, allowed):
    # As Ironic 39: these fields are not governed by baremetal:node:update.
    for persona in ('system_admin', 'system_member', 'owner_admin',
                    'owner_member'):
        resp = env.call('PATCH', '/v1/nodes/owned',
                        [{'op': 'replace', 'path': path, 'value': value}],
                        headers=PERSONAS[persona])
        if persona in allowed:
            assert resp.status_int == 200, (persona, resp.text)
        else:
            assert resp.status_int == 403, (persona, resp.text)
            assert message(resp) == ('Access was denied to the following '
                                     'resource: %s' % rule)


def test_drivers_are_for_system_scope(env):
    for path in ('/v1/drivers', '/v1/drivers/fake-hardware',
                 '/v1/drivers/fake-hardware/properties'):
        assert env.call('GET', path,
                        headers=SYSTEM_READER).status_int == 200, path
        resp = env.call('GET', path, headers=PERSONAS['owner_admin'])
        assert resp.status_int == 403, path


# What a node's driver does beyond power and provisioning: Ironic 39's
# rule of each (rbac_defaults/test_nodes.py pins them on Ironic).
EXTENSIONS = {
    'get_console': ('GET', '/states/console', None, 200),
    'set_console': ('PUT', '/states/console', {'enabled': True}, 202),
    'get_indicator': ('GET', '/management/indicators/led@system', None,
                      200),
    'set_raid': ('PUT', '/states/raid', {}, 204),
    'get_boot_device': ('GET', '/management/boot_device', None, 200),
    'set_boot_mode': ('PUT', '/states/boot_mode', {'target': 'uefi'},
                      202),
    'attach_vmedia': ('POST', '/vmedia', {'device_type': 'cdrom',
                                          'image_url': 'http://i/x'}, 204),
    # The fake management interface has none to show: a 400 once allowed.
    'get_vmedia': ('GET', '/vmedia', None, 400),
    'vendor_methods': ('GET', '/vendor_passthru/methods', None, 200),
}
_MEMBERS = {'system_admin', 'system_member', 'owner_admin', 'owner_member'}
EXTENSION_ALLOWED = {
    'get_console': _MEMBERS,
    'set_console': _MEMBERS,
    'get_indicator': {'system_admin', 'system_member', 'system_reader',
                      'owner_admin', 'owner_member', 'owner_reader',
                      'lessee_admin', 'lessee_member', 'lessee_reader'},
    'set_raid': _MEMBERS,
    'get_boot_device': {'system_admin', 'system_member', 'owner_admin'},
    'set_boot_mode': _MEMBERS | {'lessee_admin', 'lessee_member'},
    'attach_vmedia': _MEMBERS | {'lessee_admin', 'lessee_member'},
    'get_vmedia': _MEMBERS | {'system_reader', 'owner_reader',
                              'lessee_admin', 'lessee_member',
                              'lessee_reader'},
    'vendor_methods': {'system_admin'},
}


def _extension_cases():
    for action, allowed in EXTENSION_ALLOWED.items():
        for persona in ALLOWED:
            yield persona, action, (EXTENSIONS[action][3]
                                    if persona in allowed else 403)


@pytest.mark.parametrize('persona,action,status', list(_extension_cases()))
def test_node_extension_actions(env, persona, action, status):
    method, suffix, body, _ok = EXTENSIONS[action]
    node = 'leased' if persona.startswith('lessee') else 'owned'
    resp = env.call(method, '/v1/nodes/%s%s' % (node, suffix), body,
                    headers=PERSONAS[persona])
    assert resp.status_int == status, resp.text
    if status == 403:
        assert message(resp).startswith(
            'Access was denied to the following resource: baremetal:node:')


def test_legacy_console_path_has_the_same_rule(env):
    # rbac_defaults' test_reader_cannot_get_console asks for it so.
    node = db_nodes.get(env.ctx, 'owned')
    resp = env.call('GET', '/v1/nodes/states/console/' + node.uuid,
                    headers=SYSTEM_READER)
    assert resp.status_int == 403
    assert message(resp) == ('Access was denied to the following '
                             'resource: baremetal:node:get_console')
    resp = env.call('GET', '/v1/nodes/states/console/' + node.uuid,
                    headers=SYSTEM_MEMBER)
    assert resp.json == {'console_enabled': False, 'console_info': None}
