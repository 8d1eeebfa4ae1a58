"""The Chassis object: a group of nodes, as the API reads and writes it.

A chassis is not node state: the API changes it through this object
directly, as Ironic's API does, with no node lock and no conductor
(``allocsvc.db.baremetal.chassis`` makes each write one transaction).
A node names its chassis by ``chassis_uuid``; that write is the node's,
made by its conductor.
"""

from oslo_versionedobjects import fields

from allocsvc.db.baremetal import chassis as db_chassis
from allocsvc.objects import base
from allocsvc.objects import fields as object_fields


@base.AllocsvcObjectRegistry.register
class Chassis(base.AllocsvcObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    # The fields a list may be ordered by.
    SORTABLE = db_chassis.SORTABLE

    fields = dict(base.TimestampedObject.fields, **{
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'description': fields.StringField(nullable=True),
        'extra': object_fields.FlexibleDictField(),
    })

    @classmethod
    def get_by_id(cls, context, chassis_id):
        return cls.from_record(
            context, db_chassis.get_chassis(context, 'id', chassis_id))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls.from_record(
            context, db_chassis.get_chassis(context, 'uuid', uuid))

    @classmethod
    def list(cls, context, limit=None, marker=None, sort_key='id',
             sort_dir='asc'):
        """A page of chassis after the one whose UUID is ``marker``."""
        return cls.from_records(context, db_chassis.list_chassis(
            context, limit, marker, sort_key, sort_dir))

    def create(self, context=None):
        """Insert the fields set so far (a new UUID if none is)."""
        self._absorb(db_chassis.create_chassis(context or self._context,
                                               self.obj_get_changes()))

    def save(self, context=None, expected=None):
        """Write the changed fields, provided the columns of
        ``expected`` still hold those values (ChassisChanged, 409,
        otherwise). It always writes: with no change it stamps
        ``updated_at``, as Ironic's save of a chassis does."""
        self._absorb(db_chassis.update_chassis(
            context or self._context, self.id, self._changed_columns(),
            expected))

    def destroy(self, context=None):
        """Delete it; ChassisNotEmpty (400) while a node is in it."""
        db_chassis.destroy_chassis(context or self._context, self.id)
        self.obj_reset_changes()
