"""The whole application, without conductors, and the conductors'
rows: the environment of the /v1/conductors and /v1/drivers tests."""

import datetime

from oslo_utils import timeutils
import webob

from allocsvc.common import context as context_mod
from allocsvc.db.baremetal import conductors as db_conductors
from allocsvc.db import models
from tests import conftest
from tests.helpers import apps
from tests.helpers.v1 import IRONIC


class Env:
    def __init__(self, database, conf=None):
        self.database = database
        self.conf = conf or conftest.make_conf()
        self.app = apps.whole(self.conf)
        self.ctx = context_mod.get_admin_context()

    def call(self, path, version='latest'):
        headers = {IRONIC: version} if version else {}
        return webob.Request.blank(path, headers=headers).get_response(
            self.app)

    def register(self, hostname, drivers=('fake-hardware',), group=''):
        return db_conductors.register(self.ctx, hostname, list(drivers),
                                      group)

    def silence(self, hostname, seconds):
        """Make the last heartbeat of ``hostname`` ``seconds`` old."""
        table = models.conductors
        when = timeutils.utcnow() - datetime.timedelta(seconds=seconds)
        with self.database.engine.begin() as conn:
            conn.execute(table.update().where(table.c.hostname == hostname)
                         .values(heartbeat_at=when))
