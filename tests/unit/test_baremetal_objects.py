"""The versioned objects crossing RPC (no database): registration,
field coercion and a serializer round trip."""

from oslo_utils import uuidutils

from allocsvc import objects
from allocsvc.objects import base
from allocsvc.objects import fields

objects.register_all()


def test_registry_exposes_classes():
    assert objects.Node.VERSION == '1.0'
    assert objects.Allocation.obj_name() == 'Allocation'
    assert objects.Conductor.fields['alive'] is not None


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
