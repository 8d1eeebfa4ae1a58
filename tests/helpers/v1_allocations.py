"""The bare-metal API's allocations (/v1/allocations) with a fake
conductor client that records casts: the environment the allocation
and policy tests share."""

import json

import webob

from allocsvc.common import context as context_mod
from allocsvc.common import exception
from allocsvc.common import states
from allocsvc.conductor import backends
from allocsvc.conductor import mirror
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import conductors as db_conductors
from tests import conftest
from tests.functional import conductor_harness
from tests.helpers import apps
from tests.helpers.v1 import IRONIC


class FakeConductorAPI:
    """The conductor client the API talks to: picks the first live
    conductor of the database and records casts instead of sending them
    (the test binds allocations itself); a backfill runs the conductor's
    own backfill (allocsvc.conductor.allocations) without RPC. Every
    other call goes to ``client``, a real client of the API tests'
    conductor."""

    def __init__(self, backend, client):
        self.casts = []
        self.cast_error = None
        self.backend = backend
        self.client = client

    def __getattr__(self, name):
        return getattr(self.client, name)

    def pick_conductor(self, context):
        alive = [c for c in db_conductors.list_conductors(context, 60)
                 if c.alive]
        if not alive:
            raise exception.NoConductorAvailable()
        return alive[0]

    def create_allocation(self, context, allocation, hostname):
        self.casts.append((allocation, hostname))
        if self.cast_error is not None:
            raise self.cast_error

    def backfill_allocation(self, context, values, node_id, hostname):
        from allocsvc.conductor import allocations as conductor_allocations
        conductor = db_conductors.get(context, hostname)
        return conductor_allocations.backfill(
            context, values, node_id, hostname, conductor.id,
            retry_attempts=0, retry_interval=0, backend=self.backend)


class Env:
    """``build(conf, rpcapi)`` makes the application (by default the
    whole one, as ``allocsvc-all`` serves it); ``app`` is one already
    made."""

    def __init__(self, conf=None, app=None, backend='database',
                 build=None):
        self.conf = conf or conftest.make_conf()
        self.conf.set_override('allocation_backend', backend,
                               group='conductor')
        self.backend = backends.from_conf(self.conf)
        service, client = conductor_harness.api_conductor()
        self.rpc = FakeConductorAPI(self.backend, client)
        self.app = app or (build or apps.whole)(self.conf, self.rpc)
        self.ctx = context_mod.get_admin_context()
        # The conductor of the allocations the API writes, and the one
        # the calls go to.
        self.conductor = service.conductor

    def call(self, method, path, body=None, version='latest', raw=None,
             headers=None):
        headers = dict(headers or {})
        if version is not None:
            headers[IRONIC] = version
        req = webob.Request.blank(path, method=method, headers=headers)
        if body is not None or raw is not None:
            req.body = raw if raw is not None else json.dumps(body).encode()
            req.content_type = 'application/json'
        return req.get_response(self.app)

    def post(self, body=None, **kwargs):
        return self.call('POST', '/v1/allocations', body, **kwargs)

    def create(self, version='latest', headers=None, **body):
        body.setdefault('resource_class', 'baremetal')
        resp = self.post(body, version=version, headers=headers)
        assert resp.status_int == 201, resp.text
        return resp.json

    def node(self, name=None, **values):
        values.setdefault('driver', 'fake-hardware')
        values.setdefault('resource_class', 'baremetal')
        values.setdefault('provision_state', states.AVAILABLE)
        values.setdefault('power_state', states.POWER_OFF)
        return mirror.create_node(self.ctx, dict(values, name=name))

    def bind(self, allocation, node):
        """What a conductor does when it found ``node`` for it."""
        record = db_allocations.get_by_uuid(self.ctx, allocation['uuid'])
        return mirror.bind(
            self.ctx, record.id, node.id, self.conductor.id,
            claim=self.backend.claimer(self.ctx, record))

    def rows(self):
        return db_allocations.list_allocations(self.ctx)
