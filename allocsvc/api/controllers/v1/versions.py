"""The microversions of the bare-metal API (``/v1``) and their negotiation.

``VERSIONS`` is the one ordered list of every version we accept, with a
line of comment on each version whose change matters to what allocsvc
serves. The others change parts of Ironic allocsvc does not serve
(drivers, deploy steps, ...); they are accepted so that Ironic clients,
which negotiate up to the newest version they know, work unchanged.
``negotiate(headers)`` turns the request headers into an ``APIVersion``
or raises ``NotAcceptable`` with Ironic's message.
"""

import collections
import re

SERVICE_TYPE = 'baremetal'
# Request and response: the version asked for / answered (Ironic's own).
VERSION_HEADER = 'X-OpenStack-Ironic-API-Version'
# Response only: the supported range.
MIN_VERSION_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version'
MAX_VERSION_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version'
# Request and response: the standard header, ``baremetal 1.N``; it wins
# over VERSION_HEADER when a request carries both.
STANDARD_HEADER = 'OpenStack-API-Version'

VERSIONS = [
    '1.1',    # the first versioned API (Kilo): the minimum, and the default
    '1.2',    # the provision state NOSTATE is called 'available'
    '1.3',    # node.driver_internal_info
    '1.4',
    '1.5',    # nodes have logical names
    '1.6',    # node.inspection_started_at and inspection_finished_at
    '1.7',    # node.clean_step
    '1.8',    # 'fields' selects the fields of a resource
    '1.9',    # nodes can be filtered by provision state
    '1.10',   # logical names may use every RFC 3986 unreserved character
    '1.11',   # new nodes start in 'enroll' instead of 'available'
    '1.12',   # node.raid_config and target_raid_config
    '1.13',
    '1.14',
    '1.15',
    '1.16',
    '1.17',
    '1.18',   # port.internal_info
    '1.19',   # port.local_link_connection and port.pxe_enabled
    '1.20',   # node.network_interface
    '1.21',   # node.resource_class
    '1.22',
    '1.23',  # port groups (/v1/portgroups)
    '1.24',  # node and port group sub-lists; port.portgroup_uuid
    '1.25',
    '1.26',  # portgroup.mode and portgroup.properties
    '1.27',
    '1.28',
    '1.29',
    '1.30',
    '1.31',   # node.boot/console/deploy/.../vendor_interface
    '1.32',
    '1.33',   # node.storage_interface
    '1.34',   # port.physical_network
    '1.35',
    '1.36',
    '1.37',   # node traits (/v1/nodes/{n}/traits)
    '1.38',   # node.rescue_interface
    '1.39',
    '1.40',   # node.bios_interface
    '1.41',
    '1.42',   # node.fault and the fault filter
    '1.43',   # 'detail' query parameter on lists
    '1.44',   # node.deploy_step
    '1.45',   # PATCH /v1/nodes/{n}?reset_interfaces
    '1.46',   # node.conductor_group
    '1.47',
    '1.48',   # node.protected and protected_reason
    '1.49',   # node.conductor and /v1/conductors
    '1.50',   # node.owner
    '1.51',   # node.description
    '1.52',   # the allocation API; node.allocation_uuid
    '1.53',  # port.is_smartnic
    '1.54',
    '1.55',
    '1.56',
    '1.57',   # PATCH /v1/allocations/{a} (name and extra)
    '1.58',   # backfill: POST /v1/allocations with 'node' (an active node)
    '1.59',
    '1.60',   # allocation.owner (body, response, ?owner= filter)
    '1.61',   # node.retired and node.retired_reason
    '1.62',
    '1.63',
    '1.64',
    '1.65',   # node.lessee
    '1.66',   # node.network_data
    '1.67',
    '1.68',
    '1.69',
    '1.70',
    '1.71',
    '1.72',
    '1.73',
    '1.74',
    '1.75',   # node.boot_mode and secure_boot
    '1.76',
    '1.77',
    '1.78',
    '1.79',   # a node named like the allocation is tried first (not gated)
    '1.80',
    '1.81',
    '1.82',   # node.shard, the shard/sharded filters, /v1/shards
    '1.83',   # node.parent_node, /v1/nodes/{n}/children; children hidden
    '1.84',
    '1.85',
    '1.86',   # node.firmware_interface
    '1.87',   # node.service_step
    '1.88',   # port.name
    '1.89',
    '1.90',
    '1.91',   # an ident with a '.json' suffix is no longer stripped (404)
    '1.92',
    '1.93',
    '1.94',
    '1.95',   # node.disable_power_off
    '1.96',
    '1.97',  # port.description
    '1.98',
    '1.99',  # ports can be filtered by conductor_groups
    '1.100',  # port.vendor
    '1.101',  # port.category and portgroup.category
    '1.102',
    '1.103',
    '1.104',  # node.instance_name and its filter
    '1.105',
    '1.106',
    '1.107',
    '1.108',
    '1.109',  # node.health
    '1.110',
    '1.111',
    '1.112',
    '1.113',
    '1.114',
    '1.115',  # the maximum of Ironic 39.0
]

_VERSION_RE = re.compile(r'^([0-9]+)\.([0-9]+)$')


class APIVersion(collections.namedtuple('APIVersion', 'major minor')):
    """A negotiated version; compare it with tuples: ``want >= (1, 52)``."""

    __slots__ = ()

    def __str__(self):
        return '%d.%d' % self

    @classmethod
    def parse(cls, text):
        """The version ``text`` names (``1.52``), or None if malformed."""
        match = _VERSION_RE.match(text.strip())
        if match is None:
            return None
        return cls(int(match.group(1)), int(match.group(2)))


MIN_VERSION = APIVersion.parse(VERSIONS[0])
MAX_VERSION = APIVersion.parse(VERSIONS[-1])
BASE_VERSION = MIN_VERSION.major


class NotAcceptable(Exception):
    """The request asks for a version this service does not serve."""


def requested(headers):
    """The version string a request asks for, or None if it names none.

    The standard header (``OpenStack-API-Version: baremetal 1.N``, the last
    ``baremetal`` entry if several) comes first; Ironic's own header is the
    fallback. ``baremetal`` without a version is an empty, invalid one.
    """
    found = None
    for item in (headers.get(STANDARD_HEADER) or '').split(','):
        words = item.split(None, 1)
        if words and words[0].lower() == SERVICE_TYPE:
            found = words[1] if len(words) > 1 else ''
    if found is not None:
        return found
    return headers.get(VERSION_HEADER)


def negotiate(headers):
    """The ``APIVersion`` a request gets; NotAcceptable if it cannot.

    No header means the minimum (Ironic treats such a client as older than
    versioning), ``latest`` the maximum. A malformed value is a 406 with
    Ironic's message, not a 400, because that is what Ironic answers and
    what its clients expect (a 406 carries the supported range).
    """
    text = requested(headers)
    if text is None:
        return MIN_VERSION
    if text.strip().lower() == 'latest':
        return MAX_VERSION
    version = APIVersion.parse(text)
    if version is None:
        raise NotAcceptable('Invalid value for %s header' % VERSION_HEADER)
    if version.major != BASE_VERSION:
        raise NotAcceptable(
            'Mutually exclusive versions requested. Version %s requested but '
            'not supported by this service. The supported version range is: '
            '[%s, %s].' % (version, MIN_VERSION, MAX_VERSION))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise NotAcceptable(
            'Version %s was requested but the minor version is not supported '
            'by this service. The supported version range is: [%s, %s].'
            % (version, MIN_VERSION, MAX_VERSION))
    return version
