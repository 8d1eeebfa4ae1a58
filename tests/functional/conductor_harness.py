"""In-process conductors for tests: real ConductorService instances on
allocsvc's ``inproc://`` transport (an exchange of their own per
test), on the database of the ``database`` fixture.

The periodic tasks are off by default (tests call ``heartbeat`` and
``check_allocations`` themselves, so nothing depends on timing); the
test plays the API: it writes allocations the way the API does
(``allocating``, owned by a conductor) and casts them with the real
``rpcapi.ConductorAPI``.
"""

import threading
import uuid

from futurist import _thread as futurist_thread

from allocsvc import objects
from allocsvc.common import context as ctx
from allocsvc.common import rpc
from allocsvc.common import states
from allocsvc.conductor import mirror
from allocsvc.conductor import rpcapi
from allocsvc.conductor import service
from allocsvc.db.baremetal import allocations as db_allocations
from tests import conftest
from tests.helpers import waiting

# Stopping an RPC server joins its executor's idle threads, which look
# for work once a second: a second per conductor stopped, in every test.
# Idle threads look every 20 ms in tests (a few hundred wake-ups a
# second, for a tenth of the time each test used to wait), and the
# executors are kept small.
futurist_thread.ThreadWorker.MAX_IDLE_FOR = 0.02


def make_conf(**conductor):
    conf = conftest.make_conf()
    conf.set_override('control_exchange', 'test_%s' % uuid.uuid4().hex)
    conf.set_override('executor_thread_pool_size', 8)
    settings = dict(heartbeat_interval=3600, check_allocations_interval=0,
                    resume_allocations_interval=0,
                    node_locked_retry_interval=0.01)
    settings.update(conductor)
    for name, value in settings.items():
        conf.set_override(name, value, group='conductor')
    return conf


class Harness:
    def __init__(self, conf=None):
        objects.register_all()
        self.conf = conf or make_conf()
        self.transport = rpc.get_transport(self.conf, url=rpc.LOCAL_URL)
        self.rpcapi = rpcapi.ConductorAPI(self.conf, self.transport)
        self.context = ctx.get_admin_context()
        self.services = []
        self.tag = uuid.uuid4().hex[:6]

    def make_conf(self, **conductor):
        """A configuration like this harness's (same allocation back
        end) with other ``[conductor]`` settings."""
        conductor.setdefault('allocation_backend',
                             self.conf.conductor.allocation_backend)
        return make_conf(**conductor)

    def host(self, name):
        """A host name of this test's own."""
        return '%s-%s' % (name, self.tag)

    def start_conductor(self, name='c', conf=None):
        svc = service.ConductorService(
            conf or self.conf, host=self.host(name),
            transport=self.transport)
        svc.start()
        self.services.append(svc)
        return svc

    def stop(self):
        for svc in self.services:
            svc.stop()
        self.transport.cleanup()

    # -- data ----------------------------------------------------------------

    @staticmethod
    def check_at_once(services):
        """Run the periodic check of every conductor of ``services`` at
        the same moment, one thread each; what each took over, by host
        name."""
        barrier = threading.Barrier(len(services))
        taken = {}

        def check(svc):
            barrier.wait()
            taken[svc.host] = svc.check_allocations()

        threads = [threading.Thread(target=check, args=(svc,))
                   for svc in services]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return taken

    def node(self, name=None, rc='baremetal', traits=(), **values):
        values.setdefault('driver', 'fake-hardware')
        values.setdefault('provision_state', states.AVAILABLE)
        values.setdefault('power_state', states.POWER_OFF)
        return mirror.create_node(self.context, dict(
            values, name=name, resource_class=rc, traits=list(traits)))

    def nodes(self, count, prefix='node', **values):
        return [self.node('%s-%d' % (prefix, i), **values)
                for i in range(count)]

    def write_allocation(self, conductor_id, rc='baremetal', **values):
        """Write an allocation as the API does, without casting it."""
        values.setdefault('traits', [])
        values.setdefault('candidate_nodes', [])
        values.setdefault('extra', {})
        allocation = objects.Allocation(
            self.context, resource_class=rc, conductor_affinity=conductor_id,
            **values)
        allocation.create()
        return allocation

    def allocate(self, rc='baremetal', **values):
        """Write an allocation for a conductor picked as the API does and
        cast it; return the object."""
        conductor = self.rpcapi.pick_conductor(self.context)
        allocation = self.write_allocation(conductor.id, rc, **values)
        self.rpcapi.create_allocation(self.context, allocation,
                                      conductor.hostname)
        return allocation

    def final(self, allocation_id, timeout=waiting.WAIT):
        """The allocation once it is no longer ``allocating``."""
        def done():
            record = db_allocations.get_by_id(self.context, allocation_id)
            return record if record.state != states.ALLOCATING else None
        return waiting.wait_for(done, timeout)

    def get(self, allocation_id):
        return db_allocations.get_by_id(self.context, allocation_id)


# -- the conductor of the API tests ------------------------------------------

_API = {}


def api_conductor():
    """The conductor the bare-metal API tests' applications talk to: one
    in-process ConductorService on ``inproc://`` for the whole run, started
    on first use and registered again on the database of the current
    test (the ``database`` fixture's clean removes its row). Returns
    ``(service, client)``, ``client`` an ``rpcapi.ConductorAPI`` to give
    ``allocsvc.api.app.setup_app``."""
    if 'service' not in _API:
        conf = make_conf()
        # A call to a conductor that is not there fails in seconds.
        conf.set_override('rpc_response_timeout', 30)
        harness = Harness(conf)
        service_ = harness.start_conductor('api')
        _API.update(harness=harness, service=service_,
                    client=rpcapi.ConductorAPI(harness.conf,
                                               harness.transport))
    else:
        # Registers it again when its row is gone.
        _API['service'].heartbeat()
    return _API['service'], _API['client']


def stop_api_conductor():
    harness = _API.pop('harness', None)
    service_ = _API.pop('service', None)
    _API.clear()
    if harness is not None:
        # Its row is gone with the last test's clean database; with it
        # back, the conductor stops (and unregisters) as it should.
        service_.heartbeat()
        harness.stop()
