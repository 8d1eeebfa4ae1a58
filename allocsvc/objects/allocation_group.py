"""Allocation groups, as the API reads and creates them (an allocsvc
extension). Nothing of a group crosses RPC but its id, so these are
plain records of ``allocsvc.db.baremetal.allocation_groups`` (``Group``,
with its ``members``), not versioned objects: the conductor reads the
group itself.
"""

from allocsvc.db.baremetal import allocation_groups as db_groups


def get(context, ident):
    """By UUID or name; AllocationGroupNotFound."""
    return db_groups.get(context, ident)


def list_groups(context, owner=None, limit=None, marker=None):
    return db_groups.list_groups(context, owner, limit, marker)


def create(context, values, member_names=()):
    """The group and its members, ``allocating``, in one transaction
    (``db_groups.create_group``)."""
    return db_groups.create_group(context, values, member_names)


def withdraw(context, group):
    """Delete a group that no conductor started (its hand-over failed):
    its members while no node has taken them, then the group."""
    return db_groups.withdraw_group(context, group.id)
