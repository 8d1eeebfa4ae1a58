"""The versioned objects crossing RPC (no database): registration,
fingerprints (a change of fields needs a new version), field coercion,
a serializer round trip, and a Node for older readers."""

import datetime

from oslo_utils import uuidutils
from oslo_versionedobjects import fixture

from allocsvc import objects
from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.db.baremetal import chassis as db_chassis
from allocsvc.db.baremetal import nodes as db_nodes
from allocsvc.objects import base
from allocsvc.objects import fields

objects.register_all()


def test_registry_exposes_classes():
    assert objects.Node.VERSION == '1.4'
    assert objects.Chassis.VERSION == '1.0'
    assert objects.Allocation.obj_name() == 'Allocation'
    assert objects.Conductor.fields['alive'] is not None


# Fingerprints of the objects' fields and remotable methods. One that
# changes needs a new VERSION of its object (with its comment, and
# obj_make_compatible for the older readers), then its new hash here.
EXPECTED_HASHES = {
    'Allocation': '1.1-43ce488033c4a4ecb3fb67ebbd1662b5',
    'Chassis': '1.0-302691bd24d766da42310822b920a79b',
    'Conductor': '1.1-d262b362324ad508c8ca8f03b0dce1a6',
    'Node': '1.4-88bdc0681db98b2d6897a114fd6d1b03',
    'Port': '1.1-f7030da1dc8559129e53c53d4e44c14e',
    'Portgroup': '1.1-a597172b319cd7c69f7c88870725b1dc',
}


def test_object_versions_match_their_fields():
    checker = fixture.ObjectVersionChecker(
        base.AllocsvcObjectRegistry.obj_classes())
    expected, actual = checker.test_hashes(EXPECTED_HASHES)
    assert expected == actual


def test_node_for_a_1_0_reader_has_no_conductor():
    node = objects.Node(None, id=1, uuid=uuidutils.generate_uuid(),
                        conductor='c1', conductor_affinity=1)
    assert node.obj_to_primitive()['allocsvc_object.data']['conductor'] \
        == 'c1'
    old = node.obj_to_primitive(target_version='1.0')
    assert old['allocsvc_object.version'] == '1.0'
    assert 'conductor' not in old['allocsvc_object.data']
    assert old['allocsvc_object.data']['conductor_affinity'] == 1


def test_node_for_a_1_2_reader_has_no_new_fields():
    node = objects.Node(None, id=1, uuid=uuidutils.generate_uuid(),
                        conductor='c1', retired=True, boot_interface='fake',
                        network_data={'links': []})
    data = node.obj_to_primitive()['allocsvc_object.data']
    assert data['retired'] is True and data['boot_interface'] == 'fake'
    old = node.obj_to_primitive(target_version='1.2')
    assert old['allocsvc_object.version'] == '1.2'
    data = old['allocsvc_object.data']
    assert data['conductor'] == 'c1'
    for name in ('retired', 'boot_interface', 'network_data'):
        assert name not in data
    assert set(objects.Node.NEW_IN_1_3) >= {'retired', 'boot_interface',
                                            'network_data', 'shard'}


def test_node_for_a_1_3_reader_has_no_chassis():
    chassis_uuid = uuidutils.generate_uuid()
    node = objects.Node(None, id=1, uuid=uuidutils.generate_uuid(),
                        chassis_id=7, chassis_uuid=chassis_uuid,
                        retired=False)
    data = node.obj_to_primitive()['allocsvc_object.data']
    assert data['chassis_id'] == 7 and data['chassis_uuid'] == chassis_uuid
    old = node.obj_to_primitive(target_version='1.3')
    assert old['allocsvc_object.version'] == '1.3'
    data = old['allocsvc_object.data']
    assert 'chassis_id' not in data and 'chassis_uuid' not in data
    assert data['retired'] is False
    assert set(objects.Node.NEW_IN_1_4) == {'chassis_id', 'chassis_uuid'}


def test_node_interfaces_are_the_hardware_types():
    from allocsvc.common import hardware
    from allocsvc.db import models
    assert models.NODE_INTERFACE_TYPES == hardware.INTERFACE_TYPES


def test_sortable_fields_are_the_databases():
    assert objects.Node.SORTABLE == db_nodes.SORTABLE
    assert objects.Allocation.SORTABLE == db_allocations.SORTABLE
    assert objects.Chassis.SORTABLE == db_chassis.SORTABLE
    assert 'extra' not in objects.Chassis.SORTABLE
    assert 'chassis_id' in objects.Node.SORTABLE
    assert 'name' in objects.Node.SORTABLE
    assert 'extra' not in objects.Allocation.SORTABLE


def test_flexible_dict():
    coerce = fields.FlexibleDict.coerce
    assert coerce(None, 'extra', None) == {}
    assert coerce(None, 'extra', '{"a": [1]}') == {'a': [1]}
    try:
        coerce(None, 'extra', [1])
    except ValueError as exc:
        assert 'extra' in str(exc)
    else:
        raise AssertionError('a list is not a dict')


def test_serializer_round_trip():
    serializer = base.AllocsvcObjectSerializer()
    alloc = objects.Allocation(
        None, id=1, uuid=uuidutils.generate_uuid(), name='a',
        state='allocating', traits=['CUSTOM_A'], candidate_nodes=[],
        extra={'k': {'nested': 1}}, resource_class='gold',
        conductor_affinity=3)
    primitive = serializer.serialize_entity(None, alloc)
    assert primitive['allocsvc_object.name'] == 'Allocation'
    back = serializer.deserialize_entity(None, primitive)
    assert isinstance(back, objects.Allocation)
    assert back.uuid == alloc.uuid and back.extra == alloc.extra
    assert back.traits == ['CUSTOM_A'] and back.conductor_affinity == 3


def test_timestamps_keep_their_microseconds_across_rpc():
    stamp = datetime.datetime(2026, 1, 2, 3, 4, 5, 678901)
    node = objects.Node(created_at=stamp, provision_updated_at=stamp)
    serializer = base.AllocsvcObjectSerializer()
    back = serializer.deserialize_entity(
        None, serializer.serialize_entity(None, node))
    assert back.created_at.replace(tzinfo=None) == stamp
    assert back.provision_updated_at.replace(tzinfo=None) == stamp
    # What an older peer sends (whole seconds, 'Z') still reads.
    field = fields.PreciseDateTimeField()
    assert field.from_primitive(node, 'created_at', '2026-01-02T03:04:05Z') \
        == datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)


def test_ports_for_a_1_0_reader_have_no_new_fields():
    port = objects.Port(None, id=1, available_for_dynamic_portgroup=False)
    old = port.obj_to_primitive(target_version='1.0')
    assert 'available_for_dynamic_portgroup' not in \
        old['allocsvc_object.data']
    group = objects.Portgroup(None, id=1, physical_network='p',
                              dynamic_portgroup=False)
    data = group.obj_to_primitive(
        target_version='1.0')['allocsvc_object.data']
    assert data == {'id': 1}
