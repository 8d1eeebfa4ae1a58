"""``allocsvc-status --config-file F upgrade check [--json]``: is this
deployment ready to run (or to be upgraded to) this release?

Built on oslo.upgradecheck, like the ``*-status`` commands of OpenStack's
services: each check answers Success, Warning (look into it; the service
may be fine) or Failure (the service will not work as it should), and
the exit code is the worst of them -- 0, 1 or 2 -- or 255 when a check
itself broke. Nothing is written.

The checks, and why each one is a failure or a warning:

* **Database schema** -- failure unless the schema is at this release's
  head: this release's code needs it (allocsvc-api and
  allocsvc-conductor refuse to start on an older one; ``allocsvc-dbsync
  upgrade`` is the remedy), and a newer one belongs to a newer release.
  A database that cannot be reached is a failure too, reported as such.
* **Conductors** -- a warning when no conductor is alive. The bare-metal
  API then refuses new allocations and every node write (503), but the
  Placement API works, and during an upgrade the conductors are often
  down on purpose: a failure would stop the upgrade tooling that runs
  this command for a state the upgrade itself causes.
* **Node resource providers** -- a warning for nodes without their
  resource provider: Placement's clients do not see them, but the
  bare-metal API works, and each comes back with its node's next
  change.
* **Policy file** -- a failure for a JSON policy file (oslo.upgradecheck's
  common check, as every OpenStack service runs it: oslo.policy
  deprecated JSON policy files) or one that cannot be parsed or refers
  to undefined rules; a warning for
  rules this release does not define (renamed or removed: they have no
  effect).

The checks after the first read the database only when its schema is
this release's, and are reported unchecked (a warning) otherwise.
"""

import sys

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck
import sqlalchemy as sa

from allocsvc.common import config
from allocsvc.common import context as ctx
from allocsvc.common import exception
from allocsvc.common import policy
from allocsvc.db import api as db_api
from allocsvc.db import migration
from allocsvc.db.baremetal import conductors as db_conductors
from allocsvc.placement import node_providers

SUCCESS = upgradecheck.Code.SUCCESS
WARNING = upgradecheck.Code.WARNING
FAILURE = upgradecheck.Code.FAILURE

# The most nodes (or conductors) a result names; the rest are counted.
MAX_LISTED = 20

DBSYNC = 'allocsvc-dbsync --config-file <your allocsvc.conf> upgrade'

# What reading the database may raise when it cannot be reached (or is
# not the database it should be), to be reported rather than a traceback.
DATABASE_ERRORS = (db_exc.DBError, sa.exc.SQLAlchemyError,
                   exception.DatabaseUnavailable)


def _listed(names, total=None):
    """``names`` (at most MAX_LISTED of them) joined, and how many more
    of ``total`` (default: as many as there are names) there are."""
    total = len(names) if total is None else total
    shown = ', '.join(names[:MAX_LISTED])
    if total > MAX_LISTED:
        shown += ' and %d more' % (total - MAX_LISTED)
    return shown


def _unreachable(exc):
    # The first line says what the driver said; the rest is SQL and
    # links to SQLAlchemy's documentation.
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else \
        type(exc).__name__
    return upgradecheck.Result(FAILURE, (
        'The database cannot be read: %s. Check [database] connection '
        'and that the database server is up.' % reason))


def check_schema(engine):
    """The Result of the schema of the database of ``engine``."""
    try:
        current = migration.current_revision(engine)
        with engine.connect() as connection:
            tables = sa.inspect(connection).get_table_names()
    except DATABASE_ERRORS as exc:
        return _unreachable(exc)
    head = migration.head_revision()
    if current is None:
        if tables:
            return upgradecheck.Result(FAILURE, (
                'The database has tables but no schema version: it was '
                'not made by allocsvc-dbsync, or it is not allocsvc\'s '
                'database. Check [database] connection; for an empty '
                'database, run %s.' % DBSYNC))
        return upgradecheck.Result(FAILURE, (
            'The database is empty (no schema version): run %s to create '
            'the schema.' % DBSYNC))
    pending = migration.pending_revisions(current)
    if pending is None:
        return upgradecheck.Result(FAILURE, (
            'The database schema is at revision %s, which this release '
            '(head %s) does not know: a newer release of allocsvc migrated '
            'it. Run that release\'s allocsvc-status.' % (current, head)))
    if pending:
        return upgradecheck.Result(FAILURE, (
            'The database schema is at revision %s, %d migration(s) '
            'behind this release\'s %s (%s): this release\'s API and '
            'conductors need it upgraded. Run %s.'
            % (current, len(pending), head, ', '.join(pending), DBSYNC)))
    return upgradecheck.Result(
        SUCCESS, 'The database schema is at head (%s).' % head)


def check_conductors(context, heartbeat_timeout):
    """The Result of the conductors' liveness, judged as the API judges
    it before it hands an allocation to one."""
    conductors = db_conductors.list_conductors(context, heartbeat_timeout)
    alive = [c.hostname for c in conductors if c.alive]
    dead = [c.hostname for c in conductors if not c.alive]
    if alive:
        details = '%d of %d registered conductor(s) alive: %s.' % (
            len(alive), len(conductors), _listed(alive))
        if dead:
            details += ' Not alive: %s.' % _listed(dead)
        return upgradecheck.Result(SUCCESS, details)
    consequence = (
        'Until one runs, the bare-metal API refuses new allocations and '
        'node, port and port group writes (503), and allocations being '
        'made wait; the Placement API is not affected. A warning, not a '
        'failure: conductors are often stopped on purpose during an '
        'upgrade, and a Placement-only deployment runs none.')
    if not conductors:
        return upgradecheck.Result(WARNING, (
            'No conductor has ever registered. Start allocsvc-conductor '
            '(same database and [DEFAULT] transport_url) to serve the '
            'bare-metal API. ' + consequence))
    return upgradecheck.Result(WARNING, (
        'None of the %d registered conductor(s) is alive (online with a '
        'heartbeat within [conductor] heartbeat_timeout = %s s): %s. '
        'Start allocsvc-conductor, and check that its host\'s clock agrees '
        'with this one\'s. %s' % (len(conductors), heartbeat_timeout,
                                  _listed(dead), consequence)))


def check_node_providers(context):
    """The Result of the mirror of nodes as resource providers."""
    count, first = node_providers.nodes_without_provider(
        context, MAX_LISTED)
    if not count:
        return upgradecheck.Result(
            SUCCESS, 'Every node has its resource provider.')
    names = ['%s (%s)' % (uuid, name) if name else uuid
             for uuid, name in first]
    return upgradecheck.Result(WARNING, (
        '%d node(s) have no resource provider: %s. Placement\'s clients '
        '(nova) do not see them, and the placement allocation back end '
        'never allocates them. A Placement client deleted them; each comes '
        'back with its node\'s next change through the bare-metal API '
        '(e.g. openstack baremetal node set <node> --description ...), '
        'and gets the node\'s traits with its next change of traits.'
        % (count, _listed(names, count))))


def check_policy(checks, conf):
    """The Result of the policy file: YAML (oslo.upgradecheck's common
    check), readable, and only about rules this release has."""
    result = common_checks.check_policy_json(checks, conf)
    if result.code != SUCCESS:
        return result
    enforcer = policy.get_enforcer(conf)
    try:
        enforcer.load_rules()
    except Exception as exc:
        return upgradecheck.Result(FAILURE, (
            'The policy file %s cannot be read: %s'
            % (conf.oslo_policy.policy_file, exc)))
    if not enforcer.check_rules(raise_on_violation=False):
        return upgradecheck.Result(FAILURE, (
            'The policy rules refer to rules that are not defined, or to '
            'each other in a cycle (the log says which): requests they '
            'guard would be refused. Fix %s.'
            % conf.oslo_policy.policy_file))
    unknown = sorted(set(enforcer.file_rules) -
                     set(enforcer.registered_rules))
    if unknown:
        return upgradecheck.Result(WARNING, (
            'The policy file sets rules this release does not have, '
            'which have no effect (renamed or removed, or misspelt): %s. '
            'oslopolicy-sample-generator --namespace allocsvc lists the '
            'rules there are.' % _listed(unknown)))
    if enforcer.file_rules:
        return upgradecheck.Result(SUCCESS, (
            'The policy file sets %d known rule(s).'
            % len(enforcer.file_rules)))
    return upgradecheck.Result(
        SUCCESS, 'No policy rule is overridden: the defaults apply.')


class Checks(upgradecheck.UpgradeCommands):
    """allocsvc's upgrade checks, on the configuration ``conf`` (parsed
    by the time ``check`` runs) and the database of ``allocsvc.db.api``
    (configured by ``check``)."""

    display_title = 'allocsvc upgrade check results'

    def __init__(self, conf):
        super().__init__()
        self.conf = conf
        self._schema = None

    def check(self):
        log.setup(self.conf, 'allocsvc')
        db_api.configure(self.conf)
        return super().check()

    def _schema_result(self):
        if self._schema is None:
            try:
                engine = db_api.get_engine()
            except DATABASE_ERRORS as exc:
                self._schema = _unreachable(exc)
            else:
                self._schema = check_schema(engine)
        return self._schema

    def _database_check(self, check, *args):
        """``check(context, *args)`` once the schema is this release's;
        otherwise a warning that it was not made."""
        if self._schema_result().code != SUCCESS:
            return upgradecheck.Result(WARNING, (
                'Not checked: the database is not ready (see "Database '
                'schema").'))
        try:
            return check(ctx.get_admin_context(), *args)
        except DATABASE_ERRORS as exc:
            return _unreachable(exc)

    def _check_schema(self):
        return self._schema_result()

    def _check_conductors(self):
        return self._database_check(check_conductors,
                                    self.conf.conductor.heartbeat_timeout)

    def _check_node_providers(self):
        return self._database_check(check_node_providers)

    def _check_policy(self):
        return check_policy(self, self.conf)

    _upgrade_checks = (
        ('Database schema', _check_schema),
        ('Conductors', _check_conductors),
        ('Node resource providers', _check_node_providers),
        ('Policy file', _check_policy),
    )


def prepare_conf():
    """A ConfigOpts with allocsvc's options and this command's defaults
    (not parsed yet: ``upgradecheck.main`` does that)."""
    conf = cfg.ConfigOpts()
    config.register_opts(conf)
    config.set_lib_defaults()
    # The command reports a database it cannot reach at once, rather than
    # trying ten times ten seconds apart as a starting service does.
    conf.set_override('max_retries', 1, group='database')
    conf.set_override('retry_interval', 0, group='database')
    # Logs go to stderr (or the configured file): standard output is the
    # report, which --json makes machine-readable.
    conf.set_default('use_stderr', True)
    conf.set_default('default_log_levels',
                     log.get_default_log_levels() + ['alembic=WARN'])
    return conf


def main(argv=None):
    conf = prepare_conf()
    return upgradecheck.main(
        conf, project='allocsvc', upgrade_command=Checks(conf),
        argv=sys.argv[1:] if argv is None else argv)


if __name__ == '__main__':
    sys.exit(main())
