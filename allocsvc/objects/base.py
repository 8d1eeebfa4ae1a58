"""The registry, base class and RPC serializer of allocsvc's objects."""

from oslo_versionedobjects import base as ovo_base

from allocsvc.common import rpc
from allocsvc.objects import fields as object_fields


class AllocsvcObjectRegistry(ovo_base.VersionedObjectRegistry):
    def registration_hook(self, cls, index):
        # Make the newest version of each class reachable as
        # ``allocsvc.objects.<Name>``.
        from allocsvc import objects
        current = getattr(objects, cls.obj_name(), None)
        if current is None or _version(cls) >= _version(current):
            setattr(objects, cls.obj_name(), cls)


def _version(cls):
    return tuple(int(part) for part in cls.VERSION.split('.'))


class AllocsvcObject(ovo_base.VersionedObject):
    """Base of every allocsvc object: one namespace on the wire."""

    OBJ_SERIAL_NAMESPACE = 'allocsvc_object'
    OBJ_PROJECT_NAMESPACE = 'allocsvc'

    # Fields not stored as columns (computed by joins, or other tables);
    # ``save`` never writes them.
    _derived = ()

    def _absorb(self, record):
        """Take every field's value from a DB record; no pending changes
        are left."""
        for name in self.fields:
            setattr(self, name, getattr(record, name))
        self.obj_reset_changes()
        return self

    @classmethod
    def from_record(cls, context, record):
        """The object of a record of ``allocsvc.db.baremetal`` (what its
        functions return), with no pending changes."""
        obj = cls(context)
        return obj._absorb(record)

    @classmethod
    def from_records(cls, context, records):
        return [cls.from_record(context, record) for record in records]

    def _changed_columns(self):
        return {name: getattr(self, name)
                for name in self.obj_what_changed()
                if name not in self._derived}


class TimestampedObject:
    fields = {
        'created_at': object_fields.PreciseDateTimeField(nullable=True),
        'updated_at': object_fields.PreciseDateTimeField(nullable=True),
    }


class AllocsvcObjectSerializer(ovo_base.VersionedObjectSerializer):
    """Turns objects into primitives and back for oslo.messaging."""

    OBJ_BASE_CLASS = AllocsvcObject


def rpc_serializer():
    """The serializer of the conductors' RPC (``allocsvc.common.rpc``):
    these objects as primitives, the context as a dict."""
    return rpc.Serializer(AllocsvcObjectSerializer())
