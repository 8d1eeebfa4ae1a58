"""The Conductor object: a conductor service and whether it is alive."""

from oslo_versionedobjects import fields

from allocsvc.db.baremetal import conductors as db_conductors
from allocsvc.objects import base
from allocsvc.objects import fields as object_fields


@base.AllocsvcObjectRegistry.register
class Conductor(base.AllocsvcObject):
    # Version 1.0: Initial version
    # Version 1.1: timestamps keep their microseconds
    VERSION = '1.1'

    fields = dict(base.TimestampedObject.fields, **{
        'id': fields.IntegerField(),
        'hostname': fields.StringField(),
        'drivers': fields.ListOfStringsField(),
        'conductor_group': fields.StringField(),
        'online': fields.BooleanField(),
        'heartbeat_at': object_fields.PreciseDateTimeField(nullable=True),
        'alive': fields.BooleanField(),
    })

    @classmethod
    def register(cls, context, hostname, drivers=None, conductor_group='',
                 online=True):
        return cls.from_record(context, db_conductors.register(
            context, hostname, drivers, conductor_group, online=online))

    @classmethod
    def get(cls, context, hostname, heartbeat_timeout=None):
        return cls.from_record(context, db_conductors.get(
            context, hostname, heartbeat_timeout))

    @classmethod
    def get_by_id(cls, context, conductor_id, heartbeat_timeout=None):
        return cls.from_record(context, db_conductors.get_by_id(
            context, conductor_id, heartbeat_timeout))

    @classmethod
    def list(cls, context, heartbeat_timeout):
        return cls.from_records(context, db_conductors.list_conductors(
            context, heartbeat_timeout))

    def heartbeat(self, context=None):
        db_conductors.heartbeat(context or self._context, self.hostname)

    def unregister(self, context=None):
        db_conductors.unregister(context or self._context, self.hostname)
        self.online = False
        self.alive = False
        self.obj_reset_changes(['online', 'alive'])
