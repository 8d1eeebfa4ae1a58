"""The Allocation object: an allocation as it crosses RPC.

Writes that depend on which conductor owns the allocation take that
conductor's id (``conductor_id``); see
``allocsvc.db.baremetal.allocations``.
"""

from oslo_utils import uuidutils
from oslo_versionedobjects import fields

from allocsvc.db.baremetal import allocations as db_allocations
from allocsvc.objects import base
from allocsvc.objects import fields as object_fields

ANY = db_allocations.ANY


@base.AllocsvcObjectRegistry.register
class Allocation(base.AllocsvcObject):
    # Version 1.0: Initial version
    # Version 1.1: timestamps keep their microseconds
    VERSION = '1.1'

    _derived = ('node_uuid',)

    # The fields a list may be ordered by.
    SORTABLE = db_allocations.SORTABLE

    fields = dict(base.TimestampedObject.fields, **{
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'node_id': fields.IntegerField(nullable=True),
        'node_uuid': fields.UUIDField(nullable=True),
        'state': fields.StringField(),
        'last_error': fields.StringField(nullable=True),
        'resource_class': fields.StringField(nullable=True),
        'traits': fields.ListOfStringsField(),
        'candidate_nodes': fields.ListOfStringsField(),
        'extra': object_fields.FlexibleDictField(),
        'owner': fields.StringField(nullable=True),
        'conductor_affinity': fields.IntegerField(nullable=True),
    })

    @classmethod
    def get(cls, context, ident):
        """By id (an int), UUID or name."""
        if isinstance(ident, int):
            return cls.get_by_id(context, ident)
        if uuidutils.is_uuid_like(ident):
            return cls.get_by_uuid(context, ident)
        return cls.get_by_name(context, ident)

    @classmethod
    def get_by_id(cls, context, allocation_id):
        return cls.from_record(
            context, db_allocations.get_by_id(context, allocation_id))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls.from_record(
            context, db_allocations.get_by_uuid(context, uuid))

    @classmethod
    def get_by_name(cls, context, name):
        return cls.from_record(
            context, db_allocations.get_by_name(context, name))

    @classmethod
    def list(cls, context, filters=None, limit=None, marker=None,
             sort_key='id', sort_dir='asc'):
        return cls.from_records(context, db_allocations.list_allocations(
            context, filters, limit, marker, sort_key, sort_dir))

    def create(self, context=None):
        """Insert the fields set so far; the state is the initial one."""
        values = self.obj_get_changes()
        for name in ('node_uuid', 'state'):
            values.pop(name, None)
        self._absorb(db_allocations.create_allocation(
            context or self._context, values))

    def save(self, context=None, conductor_id=ANY):
        """Write the changed fields (never ``state``)."""
        changes = self._changed_columns()
        if changes:
            self._absorb(db_allocations.update_allocation(
                context or self._context, self.id, changes, conductor_id))

    def refresh(self, context=None):
        self._absorb(db_allocations.get_by_id(context or self._context,
                                              self.id))

    def withdraw(self, context=None):
        """Delete this allocation while no node has taken it; False if
        one has meanwhile (deleting a bound allocation frees its node,
        a conductor's work: ``allocsvc.conductor.mirror``)."""
        return db_allocations.withdraw_allocation(context or self._context,
                                                  self.id)

    def fail(self, conductor_id, last_error, context=None):
        self._absorb(db_allocations.fail_allocation(
            context or self._context, self.id, conductor_id, last_error))

    def take_over(self, old_conductor_id, new_conductor_id, context=None):
        """True if this conductor won the allocation (then refreshed)."""
        won = db_allocations.take_over(context or self._context, self.id,
                                       old_conductor_id, new_conductor_id)
        if won:
            self.refresh(context)
        return won
