"""A real Placement client against the real service: openstacksdk's
placement proxy (``conn.placement``), talking to ``allocsvc-all`` over
HTTP at microversion 1.39 with a noauth token, unchanged."""

import uuid

from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
import openstack
from openstack import exceptions
import pytest


@pytest.fixture
def placement(placement_url):
    auth = token_endpoint.Token(placement_url, 'admin')
    conn = openstack.connection.Connection(
        session=ks_session.Session(auth=auth),
        placement_api_version='1.39',
        placement_endpoint_override=placement_url)
    return conn.placement


def test_openstacksdk_placement_workflow(placement):
    rp = placement.create_resource_provider(name='compute-1')
    assert rp.generation == 0
    child = placement.create_resource_provider(
        name='numa-0', parent_provider_uuid=rp.id)
    assert placement.get_resource_provider(child.id).root_provider_id == \
        rp.id

    inventory = placement.create_resource_provider_inventory(
        rp, resource_class='VCPU', total=8, allocation_ratio=4.0)
    assert (inventory.total, inventory.resource_provider_generation) == (8, 1)
    assert [(i.resource_class, i.allocation_ratio) for i in
            placement.resource_provider_inventories(rp)] == [('VCPU', 4.0)]

    placement.create_resource_class(name='CUSTOM_GPU')
    assert 'CUSTOM_GPU' in [c.name for c in placement.resource_classes()]
    placement.create_trait(name='CUSTOM_FAST')
    # GET /traits/{name} is a 204 without a body: the SDK keeps the id.
    assert placement.get_trait('CUSTOM_FAST').id == 'CUSTOM_FAST'
    assert 'CUSTOM_FAST' in [t.name for t in placement.traits()]

    # The SDK sends the generation it holds: a stale one is a conflict.
    with pytest.raises(exceptions.ConflictException):
        placement.set_resource_provider_aggregates(rp, str(uuid.uuid4()))
    rp = placement.get_resource_provider(rp.id)
    agg = str(uuid.uuid4())
    assert placement.set_resource_provider_aggregates(
        rp, agg).aggregates == [agg]

    consumer = str(uuid.uuid4())
    placement.update_allocation(
        consumer, allocations={rp.id: {'resources': {'VCPU': 2}}},
        project_id='project-1', user_id='user-1', consumer_generation=None,
        consumer_type='INSTANCE')
    shown = placement.get_allocation(consumer)
    assert shown.allocations[rp.id]['resources'] == {'VCPU': 2}
    assert (shown.consumer_generation, shown.project_id,
            shown.consumer_type) == (1, 'project-1', 'INSTANCE')
    assert placement.fetch_resource_provider_usages(rp).usages == {'VCPU': 2}
    usages = [u.to_dict() for u in placement.usages('project-1')]
    assert [(u['consumer_type'], u['consumer_count'], u['resources'])
            for u in usages] == [('INSTANCE', 1, {'VCPU': 2})]
    assert [(a.consumer_id, a.resources) for a in
            placement.resource_provider_allocations(rp)] == [
        (consumer, {'VCPU': 2})]

    # 32 VCPU at ratio 4, 2 used: 30 fit, 31 do not.
    candidates = list(placement.allocation_candidates(resources='VCPU:30'))
    assert [c.allocations for c in candidates] == [
        {rp.id: {'resources': {'VCPU': 30}}}]
    assert list(placement.allocation_candidates(resources='VCPU:31')) == []

    placement.delete_allocation(consumer)
    assert placement.fetch_resource_provider_usages(rp).usages == {'VCPU': 0}
    placement.delete_resource_provider(child)
    placement.delete_resource_provider(rp)
    assert list(placement.resource_providers()) == []
