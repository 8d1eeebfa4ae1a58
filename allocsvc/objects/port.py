"""The Port and Portgroup objects: a node's network interfaces as they
cross RPC."""

from oslo_utils import uuidutils
from oslo_utils import versionutils
from oslo_versionedobjects import fields

from allocsvc.db.baremetal import ports as db_ports
from allocsvc.objects import base
from allocsvc.objects import fields as object_fields


def _column(ident):
    """The column an ident (a UUID or a name) is looked up by."""
    return 'uuid' if uuidutils.is_uuid_like(ident) else 'name'


@base.AllocsvcObjectRegistry.register
class Port(base.AllocsvcObject):
    # Version 1.0: Initial version
    # Version 1.1: available_for_dynamic_portgroup
    VERSION = '1.1'

    _derived = ('node_uuid', 'portgroup_uuid')

    # The fields a list may be ordered by.
    SORTABLE = db_ports.PORT_SORTABLE

    fields = dict(base.TimestampedObject.fields, **{
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'address': fields.StringField(),
        'node_id': fields.IntegerField(),
        'node_uuid': fields.UUIDField(),
        'portgroup_id': fields.IntegerField(nullable=True),
        'portgroup_uuid': fields.UUIDField(nullable=True),
        'extra': object_fields.FlexibleDictField(),
        'internal_info': object_fields.FlexibleDictField(),
        'local_link_connection': object_fields.FlexibleDictField(),
        'pxe_enabled': fields.BooleanField(),
        'physical_network': fields.StringField(nullable=True),
        'is_smartnic': fields.BooleanField(),
        'description': fields.StringField(nullable=True),
        'vendor': fields.StringField(nullable=True),
        'category': fields.StringField(nullable=True),
        'available_for_dynamic_portgroup': fields.BooleanField(),
    })

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = versionutils.convert_version_to_tuple(target_version)
        if target < (1, 1):
            primitive.pop('available_for_dynamic_portgroup', None)

    @classmethod
    def get(cls, context, ident):
        """By UUID or name."""
        return cls.from_record(context, db_ports.get_port(
            context, _column(ident), ident))

    @classmethod
    def get_by_id(cls, context, port_id):
        return cls.from_record(context,
                               db_ports.get_port(context, 'id', port_id))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls.from_record(context,
                               db_ports.get_port(context, 'uuid', uuid))

    @classmethod
    def get_by_address(cls, context, address):
        return cls.from_record(
            context, db_ports.get_port(context, 'address', address))

    @classmethod
    def list(cls, context, filters=None, limit=None, marker=None,
             sort_key='id', sort_dir='asc'):
        return cls.from_records(context, db_ports.list_ports(
            context, filters, limit, marker, sort_key, sort_dir))


@base.AllocsvcObjectRegistry.register
class Portgroup(base.AllocsvcObject):
    # Version 1.0: Initial version
    # Version 1.1: physical_network, dynamic_portgroup (NEW_IN_1_1)
    VERSION = '1.1'
    NEW_IN_1_1 = ('dynamic_portgroup', 'physical_network')

    _derived = ('node_uuid',)

    SORTABLE = db_ports.PORTGROUP_SORTABLE

    fields = dict(base.TimestampedObject.fields, **{
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'address': fields.StringField(nullable=True),
        'node_id': fields.IntegerField(),
        'node_uuid': fields.UUIDField(),
        'extra': object_fields.FlexibleDictField(),
        'internal_info': object_fields.FlexibleDictField(),
        'standalone_ports_supported': fields.BooleanField(),
        'mode': fields.StringField(nullable=True),
        'properties': object_fields.FlexibleDictField(),
        'category': fields.StringField(nullable=True),
        'physical_network': fields.StringField(nullable=True),
        'dynamic_portgroup': fields.BooleanField(),
    })

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = versionutils.convert_version_to_tuple(target_version)
        if target < (1, 1):
            for name in self.NEW_IN_1_1:
                primitive.pop(name, None)

    @classmethod
    def get(cls, context, ident):
        """By UUID or name."""
        return cls.from_record(context, db_ports.get_portgroup(
            context, _column(ident), ident))

    @classmethod
    def get_by_id(cls, context, portgroup_id):
        return cls.from_record(
            context, db_ports.get_portgroup(context, 'id', portgroup_id))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls.from_record(
            context, db_ports.get_portgroup(context, 'uuid', uuid))

    @classmethod
    def get_by_address(cls, context, address):
        return cls.from_record(
            context, db_ports.get_portgroup(context, 'address', address))

    @classmethod
    def list(cls, context, filters=None, limit=None, marker=None,
             sort_key='id', sort_dir='asc'):
        return cls.from_records(context, db_ports.list_portgroups(
            context, filters, limit, marker, sort_key, sort_dir))
