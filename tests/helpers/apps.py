"""The WSGI applications tests send requests to, built in process
(no database preparation: the ``database`` fixture has done it)."""

from allocsvc.api import app as api_app
from allocsvc.common import policy
from tests import conftest


def placement(conf=None):
    """The Placement API on ``conf`` (by default the tests' own)."""
    return api_app.placement_app(conf or conftest.make_conf())


def whole(conf=None, rpcapi=None):
    """Placement and bare metal behind one prefix dispatcher, as
    ``allocsvc-all`` serves them; ``rpcapi``: the conductors' client
    (none: nothing that needs a conductor works)."""
    return api_app.setup_app(conf or conftest.make_conf(), prepare_db=False,
                             rpcapi=rpcapi)


def conducted(conf=None):
    """``whole``, handing its work to the API tests' live in-process
    conductor (``conductor_harness.api_conductor``)."""
    from tests.functional import conductor_harness
    return whole(conf, rpcapi=conductor_harness.api_conductor()[1])


def baremetal(conf, rpcapi, enforcer=None):
    """The bare-metal API alone (``/`` and ``/v1``) on ``conf``."""
    return api_app.baremetal_app(
        conf, enforcer or policy.get_enforcer(conf), rpcapi)


_CACHE = {}


def shared():
    """One ``conducted`` application for every test of the run that
    changes nodes through the API (its database is the ``database``
    fixture's, its conductor the ``api_conductor`` fixture's)."""
    if 'conducted' not in _CACHE:
        _CACHE['conducted'] = conducted()
    return _CACHE['conducted']
