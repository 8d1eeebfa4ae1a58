"""The Node object: a node as it crosses RPC."""

from oslo_utils import uuidutils
from oslo_utils import versionutils
from oslo_versionedobjects import fields

from allocsvc.db.baremetal import nodes as db_nodes
from allocsvc.db import models as db_models
from allocsvc.objects import base
from allocsvc.objects import fields as object_fields


# The fields of Node 1.3.
_NEW_IN_1_3 = {
    '%s_interface' % kind: fields.StringField(nullable=True)
    for kind in db_models.NODE_INTERFACE_TYPES}
_NEW_IN_1_3.update({
    'console_enabled': fields.BooleanField(),
    'driver_internal_info': object_fields.FlexibleDictField(),
    'clean_step': object_fields.FlexibleDictField(),
    'deploy_step': object_fields.FlexibleDictField(),
    'service_step': object_fields.FlexibleDictField(),
    'raid_config': object_fields.FlexibleDictField(),
    'target_raid_config': object_fields.FlexibleDictField(),
    'network_data': object_fields.FlexibleDictField(),
    'inspection_started_at': object_fields.PreciseDateTimeField(
        nullable=True),
    'inspection_finished_at': object_fields.PreciseDateTimeField(
        nullable=True),
    'fault': fields.StringField(nullable=True),
    'protected': fields.BooleanField(),
    'protected_reason': fields.StringField(nullable=True),
    'retired': fields.BooleanField(),
    'retired_reason': fields.StringField(nullable=True),
    'instance_name': fields.StringField(nullable=True),
    'boot_mode': fields.StringField(nullable=True),
    'secure_boot': fields.BooleanField(nullable=True),
    'shard': fields.StringField(nullable=True),
    'parent_node': fields.StringField(nullable=True),
    'disable_power_off': fields.BooleanField(),
    'health': fields.StringField(nullable=True),
})

# The fields of Node 1.4: its chassis.
_NEW_IN_1_4 = {
    'chassis_id': fields.IntegerField(nullable=True),
    'chassis_uuid': fields.UUIDField(nullable=True),
}


@base.AllocsvcObjectRegistry.register
class Node(base.AllocsvcObject):
    # Version 1.0: Initial version
    # Version 1.1: conductor (host name of the node's conductor)
    # Version 1.2: timestamps keep their microseconds
    # Version 1.3: the rest of Ironic's node (NEW_IN_1_3): interfaces,
    #              console, steps, RAID, network data, inspection, fault,
    #              protection, retirement, instance name, boot mode,
    #              shard, parent node, disable_power_off, health
    # Version 1.4: chassis_id and chassis_uuid (NEW_IN_1_4)
    VERSION = '1.4'

    _derived = ('allocation_uuid', 'conductor', 'traits', 'chassis_uuid')

    # The fields a list may be ordered by.
    SORTABLE = db_nodes.SORTABLE

    fields = dict(base.TimestampedObject.fields, **{
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'driver': fields.StringField(),
        'driver_info': object_fields.FlexibleDictField(),
        'resource_class': fields.StringField(nullable=True),
        'provision_state': fields.StringField(),
        'target_provision_state': fields.StringField(nullable=True),
        'provision_updated_at': object_fields.PreciseDateTimeField(
            nullable=True),
        'power_state': fields.StringField(nullable=True),
        'target_power_state': fields.StringField(nullable=True),
        'maintenance': fields.BooleanField(),
        'maintenance_reason': fields.StringField(nullable=True),
        'instance_uuid': fields.StringField(nullable=True),
        'allocation_id': fields.IntegerField(nullable=True),
        'allocation_uuid': fields.UUIDField(nullable=True),
        'reservation': fields.StringField(nullable=True),
        'conductor_affinity': fields.IntegerField(nullable=True),
        'conductor': fields.StringField(nullable=True),
        'conductor_group': fields.StringField(),
        'owner': fields.StringField(nullable=True),
        'lessee': fields.StringField(nullable=True),
        'description': fields.StringField(nullable=True),
        'automated_clean': fields.BooleanField(nullable=True),
        'properties': object_fields.FlexibleDictField(),
        'extra': object_fields.FlexibleDictField(),
        'instance_info': object_fields.FlexibleDictField(),
        'last_error': fields.StringField(nullable=True),
        'traits': fields.ListOfStringsField(),
    })
    fields.update(_NEW_IN_1_3)
    NEW_IN_1_3 = tuple(sorted(_NEW_IN_1_3))
    fields.update(_NEW_IN_1_4)
    NEW_IN_1_4 = tuple(sorted(_NEW_IN_1_4))

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = versionutils.convert_version_to_tuple(target_version)
        if target < (1, 4):
            for name in self.NEW_IN_1_4:
                primitive.pop(name, None)
        if target < (1, 3):
            for name in self.NEW_IN_1_3:
                primitive.pop(name, None)
        if target < (1, 1):
            primitive.pop('conductor', None)

    @classmethod
    def get(cls, context, ident):
        """By id (an int), UUID or name."""
        if isinstance(ident, int):
            return cls.get_by_id(context, ident)
        if uuidutils.is_uuid_like(ident):
            return cls.get_by_uuid(context, ident)
        return cls.get_by_name(context, ident)

    @classmethod
    def get_by_id(cls, context, node_id):
        return cls.from_record(context, db_nodes.get_by_id(context, node_id))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls.from_record(context, db_nodes.get_by_uuid(context, uuid))

    @classmethod
    def get_by_name(cls, context, name):
        return cls.from_record(context, db_nodes.get_by_name(context, name))

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        return cls.from_record(
            context, db_nodes.get_by_instance_uuid(context, instance_uuid))

    @classmethod
    def list(cls, context, filters=None, limit=None, marker=None,
             sort_key='id', sort_dir='asc'):
        return cls.from_records(context, db_nodes.list_nodes(
            context, filters, limit, marker, sort_key, sort_dir))

    @classmethod
    def shard_counts(cls, context):
        """``[(shard, number of nodes)]``, most populated first; the
        nodes without a shard count under None."""
        return db_nodes.shard_counts(context)

    def refresh(self, context=None):
        self._absorb(db_nodes.get_by_id(context or self._context, self.id))
