"""WSGI entry point for real servers (uwsgi, gunicorn, mod_wsgi).

    gunicorn 'allocsvc.api.wsgi:init_application()'

The configuration file comes from ``ALLOCSVC_CONFIG_FILE`` (default
``/etc/allocsvc/allocsvc.conf``); the schema must already be current.
The bare-metal API hands allocations to the conductors over ``[DEFAULT]
transport_url`` (``allocsvc-conductor`` processes on the same broker).
"""

import os

from allocsvc.api import app
from allocsvc.common import config
from allocsvc.common import startup
from allocsvc.conductor import rpcapi


def init_application():
    config_file = os.environ.get('ALLOCSVC_CONFIG_FILE',
                                 '/etc/allocsvc/allocsvc.conf')
    files = [config_file] if os.path.exists(config_file) else []
    conf = config.prepare([], default_config_files=files)
    application = app.setup_app(conf, rpcapi=rpcapi.ConductorAPI(conf))
    startup.freeze_startup_objects()
    return application
