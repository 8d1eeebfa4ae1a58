"""Personas (system and project scoped credentials) and an allocation
environment with their nodes, for the bare-metal API's policy tests."""

from allocsvc.api.middleware import auth
from allocsvc.common import states
from tests import conftest
from tests.helpers import apps
from tests.helpers.v1_allocations import Env


OWN, LEASE, OTHER = 'p-own', 'p-lease', 'p-other'
ADMIN, MANAGER, MEMBER, READER = (
    'admin,manager,member,reader', 'manager,member,reader', 'member,reader',
    'reader')


def system(roles):
    return {'OpenStack-System-Scope': 'all', 'X-Roles': roles,
            'X-User-Id': 'system-' + roles.split(',')[0]}


def project(project_id, roles, **extra):
    return dict({'X-Project-Id': project_id, 'X-Roles': roles,
                 'X-User-Id': '%s-%s' % (project_id, roles.split(',')[0])},
                **extra)


SYSTEM_ADMIN, SYSTEM_MEMBER, SYSTEM_READER = (
    system(ADMIN), system(MEMBER), system(READER))
PERSONAS = {
    'system_admin': SYSTEM_ADMIN, 'system_member': SYSTEM_MEMBER,
    'system_reader': SYSTEM_READER,
    'owner_admin': project(OWN, ADMIN), 'owner_member': project(OWN, MEMBER),
    'owner_reader': project(OWN, READER),
    'lessee_admin': project(LEASE, ADMIN),
    'lessee_member': project(LEASE, MEMBER),
    'lessee_reader': project(LEASE, READER),
    'other_admin': project(OTHER, ADMIN),
}


# The application (with its configuration and conductor client) of each
# configuration without a policy file, built by the first test that asks
# and served to the next ones, as one server serves its clients: building
# one (its policy enforcer copies every rule) cost more than most tests.
_BUILT = {}


def make_env(monkeypatch, new_defaults=True, strategy='keystone',
             policy_file=None):
    """The environment of a policy test on a clean database: its
    application and four manageable nodes (owned, leased, foreign,
    free). The tests read their environment's configuration and
    application and never change them."""
    key = (new_defaults, strategy)
    if policy_file is None and key in _BUILT:
        conf, app, rpc = _BUILT[key]
        env = Env(conf=conf, app=app)
        env.rpc = rpc
    else:
        conf = conftest.make_conf(auth_strategy=strategy)
        conf.set_override('enforce_new_defaults', new_defaults,
                          group='oslo_policy')
        if policy_file is not None:
            conf.set_override('policy_file', str(policy_file),
                              group='oslo_policy')
        monkeypatch.setattr(auth, 'KeystoneAuth', lambda app, conf: app)
        env = Env(conf=conf, build=apps.baremetal)
        if policy_file is None:
            _BUILT[key] = (conf, env.app, env.rpc)
    # Manageable: a state nodes may be deleted and provided in.
    manageable = states.MANAGEABLE
    env.node('owned', owner=OWN, provision_state=manageable)
    env.node('leased', owner=OWN, lessee=LEASE, last_error='boom',
             driver_info={'ipmi_address': '10.0.0.2'},
             provision_state=manageable)
    env.node('foreign', owner='p-foreign', provision_state=manageable)
    env.node('free', provision_state=manageable)
    return env
