"""An inventory set below what is allocated from it.

By default it is accepted and logged, as Placement does (the gabbi file
inventory-in-use.yaml shows the HTTP side on every back end); with
``[placement] refuse_inventory_below_usage`` the same writes (PUT of one
inventory, PUT of all, POST /reshaper) are 409 placement.inventory.inuse
and change nothing.
"""

import logging
import uuid

import pytest

from tests import client
from tests import conftest
from tests.helpers import apps

CONSUMER = str(uuid.uuid4())
SERVICE = {'X-Roles': 'service'}


def _app(database, refuse):
    conf = conftest.make_conf()
    conf.set_override('refuse_inventory_below_usage', refuse,
                      group='placement')
    return apps.placement(conf)


def _provider_with_allocation(app):
    """A provider with VCPU 8 of which 6 are allocated; its uuid."""
    rp = client.ok(client.placement_request(
        app, 'POST', '/resource_providers', body={'name': 'cn1'}))['uuid']
    client.ok(client.placement_request(
        app, 'PUT', '/resource_providers/%s/inventories' % rp,
        body={'resource_provider_generation': 0,
              'inventories': {'VCPU': {'total': 8}}}))
    resp = client.placement_request(
        app, 'PUT', '/allocations/%s' % CONSUMER,
        body={'allocations': {rp: {'resources': {'VCPU': 6}}},
              'project_id': 'p', 'user_id': 'u',
              'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    client.ok(resp, status=204)
    return rp


def _shrinking_writes(rp):
    """(method, path, body, headers) of three writes leaving VCPU 4,
    all made at provider generation 2."""
    inventories = '/resource_providers/%s/inventories' % rp
    return [
        ('PUT', inventories + '/VCPU',
         {'resource_provider_generation': 2, 'total': 4}, None),
        ('PUT', inventories,
         {'resource_provider_generation': 2,
          'inventories': {'VCPU': {'total': 4}}}, None),
        ('POST', '/reshaper',
         {'inventories': {rp: {'resource_provider_generation': 2,
                               'inventories': {'VCPU': {'total': 4}}}},
          'allocations': {}}, SERVICE),
    ]


@pytest.mark.parametrize('write', range(3))
def test_refused_when_configured(database, write):
    app = _app(database, refuse=True)
    rp = _provider_with_allocation(app)
    method, path, body, headers = _shrinking_writes(rp)[write]
    resp = client.placement_request(app, method, path, body=body,
                                    headers=headers)
    assert resp.status_int == 409
    err = resp.json['errors'][0]
    assert err['code'] == 'placement.inventory.inuse'
    assert ("Inventory for 'VCPU' on resource provider '%s' in use: its "
            "capacity would be 4, less than the 6 already allocated" % rp
            in err['detail'])
    inv = client.ok(client.placement_request(
        app, 'GET', '/resource_providers/%s/inventories' % rp))
    assert inv['resource_provider_generation'] == 2
    assert inv['inventories']['VCPU']['total'] == 8


class _Messages(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.mark.parametrize('write', range(3))
def test_accepted_and_logged_by_default(database, write):
    app = _app(database, refuse=False)
    rp = _provider_with_allocation(app)
    method, path, body, headers = _shrinking_writes(rp)[write]
    # oslo.log's loggers need not propagate to pytest's root handler.
    logger = logging.getLogger('allocsvc.placement.inventories')
    log = _Messages()
    logger.addHandler(log)
    try:
        resp = client.placement_request(app, method, path, body=body,
                                        headers=headers)
    finally:
        logger.removeHandler(log)
    assert resp.status_int in (200, 204), resp.body
    assert ('Resource provider %s is now over-capacity for VCPU' % rp
            in log.messages)
    usages = client.ok(client.placement_request(
        app, 'GET', '/resource_providers/%s/usages' % rp))
    assert usages['usages'] == {'VCPU': 6}
    inv = client.ok(client.placement_request(
        app, 'GET', '/resource_providers/%s/inventories' % rp))
    assert inv['inventories']['VCPU']['total'] == 4
