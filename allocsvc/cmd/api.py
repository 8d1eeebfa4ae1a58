"""``allocsvc-api``: the API service alone (the schema must be current).

It reaches the conductors (``allocsvc-conductor``) over ``[DEFAULT]
transport_url``.
"""

import sys

from oslo_log import log as logging

from allocsvc.api import app as api_app
from allocsvc.cmd import server
from allocsvc.common import config
from allocsvc.conductor import rpcapi
from allocsvc.db import migration
from allocsvc.placement import sync

LOG = logging.getLogger(__name__)


def main(argv=None):
    conf = config.prepare(sys.argv[1:] if argv is None else argv)
    sync.prepare_database(conf)
    if migration.needs_upgrade():
        LOG.error('The database schema is not up to date: run '
                  '"allocsvc-dbsync --config-file ... upgrade" first.')
        return 1
    servers = [server.make_server(conf.api.host_ip, conf.api.port,
                                  api_app.setup_app(
                                      conf, prepare_db=False,
                                      rpcapi=rpcapi.ConductorAPI(conf)))]
    if conf.api.placement_port:
        servers.append(server.make_server(
            conf.api.host_ip, conf.api.placement_port,
            api_app.placement_app(conf)))
    code = server.serve_forever(
        servers, server.Stopper(conf.graceful_shutdown_timeout))
    if code == 0 and argv is None:
        server.finish(code)
    return code


if __name__ == '__main__':
    sys.exit(main())
