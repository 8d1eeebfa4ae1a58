"""``allocsvc-all``: the whole service in one process.

Serves the API on ``[api] host_ip``:``port`` (``/v1``, ``/placement``,
and the service root) and the Placement API at the root of ``[api]
placement_port``, and runs a conductor in the same process, on threads.
Without a ``[DEFAULT] transport_url`` the API and the conductor talk
over allocsvc's in-process ``inproc://`` transport; with one, over
that broker (so more conductors may join). An embedded SQLite database
is created or upgraded on start; other databases are upgraded with
``allocsvc-dbsync``.
"""

import sys

from oslo_log import log as logging

from allocsvc.api import app as api_app
from allocsvc.cmd import server
from allocsvc.common import config
from allocsvc.common import rpc
from allocsvc.conductor import rpcapi
from allocsvc.conductor import service as conductor_service
from allocsvc.db import api as db_api
from allocsvc.db import migration
from allocsvc.placement import sync

LOG = logging.getLogger(__name__)


def main(argv=None):
    conf = config.prepare(sys.argv[1:] if argv is None else argv)
    code = _run(conf)
    if code == 0 and argv is None:
        server.finish(code)
    return code


def _run(conf):
    db_api.configure(conf)
    if conf.database.connection.startswith('sqlite'):
        if migration.needs_upgrade():
            LOG.info('Upgrading the embedded database schema')
            migration.upgrade()
    elif migration.needs_upgrade():
        LOG.error('The database schema is not up to date: run '
                  '"allocsvc-dbsync --config-file ... upgrade" first.')
        return 1
    sync.prepare_database(conf)
    url = None if rpc.transport_configured(conf) else rpc.LOCAL_URL
    transport = rpc.get_transport(conf, url=url)
    conductor = conductor_service.ConductorService(conf, transport=transport)
    conductor.start()
    # SIGTERM: the listeners stop, the requests in flight finish, then
    # the conductor stops (its running allocations finish, it
    # unregisters), all within graceful_shutdown_timeout.
    stopper = server.Stopper(conf.graceful_shutdown_timeout)
    try:
        app = api_app.setup_app(conf, prepare_db=False,
                                rpcapi=rpcapi.ConductorAPI(
                                    conf, transport,
                                    in_process=url == rpc.LOCAL_URL))
        servers = [server.make_server(conf.api.host_ip, conf.api.port, app)]
        if conf.api.placement_port:
            servers.append(server.make_server(
                conf.api.host_ip, conf.api.placement_port,
                api_app.placement_app(conf)))
        return server.serve_forever(servers, stopper)
    finally:
        conductor.stop()
        transport.cleanup()
        stopper.cancel()


if __name__ == '__main__':
    sys.exit(main())
