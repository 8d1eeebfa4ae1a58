"""The checks of ``allocsvc-status upgrade check``, each way it can end.

* database schema (on an empty database of its own on every backend):
  at head; behind; empty; tables without a version; a revision of a
  newer release; a database that cannot be reached -- each failure
  names its remedy;
* conductors (every backend): alive; some dead; none alive (stale
  heartbeat, or unregistered); none registered -- warnings, not
  failures; the heartbeat timeout is the one the API uses;
* node resource providers (every backend): none missing; missing ones
  named, the list capped;
* policy file: none; YAML with known rules; JSON (oslo.upgradecheck's
  common check); unreadable; a reference to an undefined rule; rules
  this release does not have;
* the checks after the schema's are not run while the schema is not
  this release's.
"""

import datetime

from oslo_upgradecheck import upgradecheck
from oslo_utils import timeutils
import sqlalchemy as sa

from allocsvc.cmd import status
from allocsvc.common import context as ctx
from allocsvc.conductor import mirror
from allocsvc.db import api as db_api
from allocsvc.db import migration
from allocsvc.db import models
from allocsvc.db.baremetal import conductors as db_conductors
from allocsvc.placement import node_providers
from tests import conftest

SUCCESS = upgradecheck.Code.SUCCESS
WARNING = upgradecheck.Code.WARNING
FAILURE = upgradecheck.Code.FAILURE


# -- database schema ----------------------------------------------------------

def test_schema_at_head(scratch_engine):
    migration.upgrade(engine=scratch_engine)
    result = status.check_schema(scratch_engine)
    assert result.code == SUCCESS
    assert migration.head_revision() in result.details


def test_schema_behind(scratch_engine):
    migration.upgrade('0006_node_fields', engine=scratch_engine)
    result = status.check_schema(scratch_engine)
    assert result.code == FAILURE
    assert '0006_node_fields, 7 migration(s) behind' in result.details
    assert ('0007_ports_portgroups, 0008_instance_info_longtext, '
            '0009_chassis, 0010_port_dynamic_portgroups') in result.details
    assert 'allocsvc-dbsync --config-file' in result.details


def test_schema_of_an_empty_database(scratch_engine):
    result = status.check_schema(scratch_engine)
    assert result.code == FAILURE
    assert 'The database is empty' in result.details
    assert 'allocsvc-dbsync' in result.details


def test_tables_without_a_schema_version(scratch_engine):
    sa.Table('foreign', sa.MetaData(),
             sa.Column('id', sa.Integer, primary_key=True)).create(
        scratch_engine)
    result = status.check_schema(scratch_engine)
    assert result.code == FAILURE
    assert 'tables but no schema version' in result.details
    assert '[database] connection' in result.details


def test_schema_of_a_newer_release(scratch_engine):
    migration.upgrade(engine=scratch_engine)
    with scratch_engine.begin() as conn:
        conn.execute(sa.text(
            "UPDATE alembic_version SET version_num = '0099_future'"))
    result = status.check_schema(scratch_engine)
    assert result.code == FAILURE
    assert '0099_future, which this release' in result.details


def test_schema_of_a_database_that_cannot_be_reached(tmp_path):
    engine = sa.create_engine(
        'sqlite:///%s' % (tmp_path / 'no-such-dir' / 'db.sqlite'))
    result = status.check_schema(engine)
    assert result.code == FAILURE
    assert result.details.startswith('The database cannot be read: ')
    assert 'unable to open database file' in result.details
    assert 'Traceback' not in result.details


# -- conductors ---------------------------------------------------------------

def _register(hostname, heartbeat_age=None, online=True):
    context = ctx.get_admin_context()
    conductor = db_conductors.register(context, hostname, online=online)
    if heartbeat_age is not None:
        with db_api.get_engine().begin() as conn:
            conn.execute(models.conductors.update().where(
                models.conductors.c.id == conductor.id).values(
                heartbeat_at=timeutils.utcnow() - datetime.timedelta(
                    seconds=heartbeat_age)))
    return conductor


def _conductors(timeout=60):
    return status.check_conductors(ctx.get_admin_context(), timeout)


def test_a_live_conductor(database):
    _register('status-c1')
    result = _conductors()
    assert result.code == SUCCESS
    assert result.details == '1 of 1 registered conductor(s) alive: ' \
                             'status-c1.'


def test_some_conductors_alive(database):
    _register('status-c1')
    _register('status-c2', heartbeat_age=3600)
    result = _conductors()
    assert result.code == SUCCESS
    assert result.details == ('1 of 2 registered conductor(s) alive: '
                              'status-c1. Not alive: status-c2.')


def test_no_conductor_alive_is_a_warning(database):
    _register('status-c1', heartbeat_age=120)
    _register('status-c2', online=False)
    result = _conductors()
    assert result.code == WARNING
    assert result.details.startswith(
        'None of the 2 registered conductor(s) is alive (online with a '
        'heartbeat within [conductor] heartbeat_timeout = 60 s): '
        'status-c1, status-c2.')
    assert 'refuses new allocations' in result.details
    assert 'A warning, not a failure' in result.details
    # The same heartbeat is fresh under a longer timeout.
    assert _conductors(timeout=300).code == SUCCESS


def test_no_conductor_registered_is_a_warning(database):
    result = _conductors()
    assert result.code == WARNING
    assert result.details.startswith('No conductor has ever registered.')
    assert 'Start allocsvc-conductor' in result.details


def test_the_heartbeat_timeout_is_the_configured_one(database):
    _register('status-c1', heartbeat_age=120)
    conf = conftest.make_conf()
    checks = status.Checks(conf)
    assert checks._check_conductors().code == WARNING
    conf.set_override('heartbeat_timeout', 300, group='conductor')
    assert checks._check_conductors().code == SUCCESS


# -- node resource providers --------------------------------------------------

def _node(name):
    return mirror.create_node(ctx.get_admin_context(), {
        'name': name, 'driver': 'fake-hardware',
        'resource_class': 'baremetal'})


@db_api.writer
def _delete_provider(context, node):
    node_providers.delete(context, node.uuid)


def _node_providers():
    return status.check_node_providers(ctx.get_admin_context())


def test_every_node_has_its_provider(database):
    assert _node_providers().code == SUCCESS
    _node('status-n1')
    result = _node_providers()
    assert result.code == SUCCESS
    assert result.details == 'Every node has its resource provider.'


def test_nodes_without_a_provider_are_named(database):
    _node('status-n1')
    lost = _node('status-n2')
    _delete_provider(ctx.get_admin_context(), lost)
    result = _node_providers()
    assert result.code == WARNING
    assert result.details.startswith(
        '1 node(s) have no resource provider: %s (status-n2). '
        % lost.uuid)
    assert "node's next change" in result.details


def test_the_list_of_nodes_without_a_provider_is_capped(
        database, monkeypatch):
    monkeypatch.setattr(status, 'MAX_LISTED', 2)
    lost = sorted((_node('status-n%d' % i) for i in range(3)),
                  key=lambda node: node.uuid)
    for node in lost:
        _delete_provider(ctx.get_admin_context(), node)
    result = _node_providers()
    assert result.code == WARNING
    assert result.details.startswith(
        '3 node(s) have no resource provider: %s (%s), %s (%s) and 1 '
        'more. ' % (lost[0].uuid, lost[0].name, lost[1].uuid, lost[1].name))


# -- the checks after the schema's --------------------------------------------

def test_database_checks_wait_for_the_schema(database):
    checks = status.Checks(conftest.make_conf())
    assert checks._check_schema().code == SUCCESS
    assert checks._check_node_providers().code == SUCCESS
    checks._schema = upgradecheck.Result(FAILURE, 'behind')
    result = checks._check_node_providers()
    assert result.code == WARNING
    assert result.details.startswith('Not checked')
    assert checks._check_conductors().details.startswith('Not checked')


# -- policy file --------------------------------------------------------------

def _policy(tmp_path, text=None, name='policy.yaml'):
    conf = conftest.make_conf()
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    conf.set_override('policy_file', str(path), group='oslo_policy')
    return status.check_policy(status.Checks(conf), conf)


def test_no_policy_file(tmp_path):
    result = _policy(tmp_path)
    assert result.code == SUCCESS
    assert 'the defaults apply' in result.details


def test_a_yaml_policy_file_of_known_rules(tmp_path):
    result = _policy(tmp_path, ('"placement:traits:list": "role:admin"\n'
                                '"baremetal:node:get": "role:admin"\n'))
    assert result.code == SUCCESS
    assert result.details == 'The policy file sets 2 known rule(s).'


def test_a_json_policy_file_fails(tmp_path):
    result = _policy(tmp_path, '{"placement:traits:list": "role:admin"}',
                     name='policy.json')
    assert result.code == FAILURE
    assert 'JSON-formatted' in result.details


def test_an_unreadable_policy_file_fails(tmp_path):
    result = _policy(tmp_path, '"placement:traits:list": [unclosed\n')
    assert result.code == FAILURE
    assert result.details.startswith('The policy file %s cannot be read'
                                     % (tmp_path / 'policy.yaml'))


def test_a_rule_referring_to_an_undefined_rule_fails(tmp_path):
    result = _policy(tmp_path,
                     '"placement:traits:list": "rule:no_such_rule"\n')
    assert result.code == FAILURE
    assert 'not defined' in result.details


def test_rules_this_release_does_not_have_warn(tmp_path):
    result = _policy(tmp_path, ('"placement:traits:list": "role:admin"\n'
                                '"placement:trait:lists": "role:admin"\n'))
    assert result.code == WARNING
    assert 'placement:trait:lists.' in result.details
    assert 'placement:traits:list.' not in result.details
