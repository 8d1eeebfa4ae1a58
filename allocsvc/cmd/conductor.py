"""``allocsvc-conductor``: one conductor service.

Reads the configuration files given with ``--config-file`` (the
database, ``[DEFAULT] transport_url`` of the message broker, ``[DEFAULT]
host`` -- distinct for each conductor -- and ``[conductor]``), checks
that the schema is current, and runs the service in this process under
oslo.service's launcher (threading backend): SIGTERM stops it gracefully
(running allocations finish, the conductor unregisters), SIGINT at once.
"""

import sys

from oslo_log import log as logging
from oslo_service import service

from allocsvc.common import config
from allocsvc.common import startup
from allocsvc.conductor import service as conductor_service
from allocsvc.db import api as db_api
from allocsvc.db import migration

LOG = logging.getLogger(__name__)


def main(argv=None):
    conf = config.prepare(sys.argv[1:] if argv is None else argv)
    db_api.configure(conf)
    if migration.needs_upgrade():
        LOG.error('The database schema is not up to date: run '
                  '"allocsvc-dbsync --config-file ... upgrade" first.')
        return 1
    startup.freeze_startup_objects()
    # One process: the service runs in this one (no_fork) rather than in
    # a child the launcher would fork and supervise, so that the process
    # a supervisor starts, signals or kills is the conductor itself.
    launcher = service.launch(
        conf, conductor_service.ConductorService(conf), workers=1,
        no_fork=True, restart_method='mutate')
    return launcher.wait()


if __name__ == '__main__':
    sys.exit(main())
