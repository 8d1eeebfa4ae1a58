"""Conductor group membership through tooz (Redis, etcd, ...).

Liveness has two sources: the heartbeat a conductor writes to its
database row, and, when ``[conductor] coordination_backend_url`` is set,
its membership in the tooz group ``allocsvc.conductors`` (named by its
host). A member that stops heart-beating drops out of the group after
the backend's membership timeout, and the others then take it for dead
even if its database row still looks fresh.

A conductor joins the group before it registers its row, and leaves
after it unregisters, so a live, registered conductor is always a
member; that is what makes "registered but not a member" mean dead. It
also means every conductor must use the same backend.
"""

from oslo_log import log as logging
from tooz import coordination

LOG = logging.getLogger(__name__)

GROUP = b'allocsvc.conductors'


class Membership:
    """This conductor's membership of the group; with no backend URL,
    every call is a no-op and ``members()`` answers None (unknown)."""

    def __init__(self, backend_url, host):
        self.backend_url = backend_url or ''
        self.host = host
        self._coordinator = None

    @property
    def enabled(self):
        return bool(self.backend_url)

    def join(self):
        """Connect to the backend (with tooz's own heartbeat thread) and
        join the group, creating it if needed."""
        if not self.enabled:
            return
        self._coordinator = coordination.get_coordinator(
            self.backend_url, self.host.encode())
        self._coordinator.start(start_heart=True)
        self._join_group()
        LOG.info('Conductor %s joined the coordination group', self.host)

    def _join_group(self):
        try:
            self._coordinator.create_group(GROUP).get()
        except coordination.GroupAlreadyExist:
            pass
        try:
            self._coordinator.join_group(GROUP).get()
        except coordination.MemberAlreadyExist:
            pass

    def ensure_member(self):
        """Join again if the group lost this member (the backend
        restarted, or a pause outlived the membership timeout and
        another member cleaned it out)."""
        if self._coordinator is None:
            return
        members = self._members()
        if members is not None and self.host not in members:
            LOG.warning('Conductor %s was no longer in the coordination '
                        'group; joining it again', self.host)
            self._join_group()

    def members(self):
        """The host names in the group, or None when they cannot be
        trusted: no backend, the backend cannot be asked right now, or
        this conductor is not in the group itself (the backend lost its
        state, or this member expired). Liveness then comes from the
        database heartbeats alone, rather than every other conductor
        being taken for dead at once."""
        members = self._members()
        if members is None or self.host not in members:
            return None
        return members

    def _members(self):
        if self._coordinator is None:
            return None
        try:
            members = self._coordinator.get_members(GROUP).get()
        except coordination.GroupNotCreated:
            return set()
        except coordination.ToozError as exc:
            LOG.warning('Cannot list the coordination group: %s', exc)
            return None
        return {member.decode() for member in members}

    def leave(self):
        if self._coordinator is None:
            return
        try:
            self._coordinator.leave_group(GROUP).get()
        except (coordination.GroupNotCreated, coordination.MemberNotJoined):
            pass
        except coordination.ToozError as exc:
            LOG.warning('Cannot leave the coordination group: %s', exc)
        try:
            self._coordinator.stop()
        except coordination.ToozError as exc:
            LOG.warning('Cannot stop the coordinator cleanly: %s', exc)
        self._coordinator = None
