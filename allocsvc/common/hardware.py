"""Hardware types and their driver interfaces, as Ironic describes them.

A node's ``driver`` is a hardware type; for each interface type
(``INTERFACE_TYPES``: bios, boot, ..., vendor) the node names one
implementation in its ``<type>_interface`` field. allocsvc serves one
hardware type, ``fake-hardware``, which finishes every step at once;
this module says which interface names it supports, which ones the
operator enabled, which one a node gets when it names none, and refuses
the others with Ironic's messages (400s).

Configuration (``[DEFAULT]``, Ironic's option names; see ``OPTS``):

* ``enabled_hardware_types``: the hardware types nodes may use;
* ``enabled_<type>_interfaces``: the implementations of ``<type>``
  nodes may name (in this order they are listed to clients);
* ``default_<type>_interface``: the implementation a node gets when it
  names none; unset, the first implementation the hardware type
  supports that is also enabled.

The defaults enable every implementation ``fake-hardware`` supports, so
a fake node body of any client (gophercloud, openstacksdk, Metal3) is
accepted, and a node naming none gets what Ironic gives a
``fake-hardware`` node: ``fake`` where there is a fake implementation,
``flat`` networking and ``noop`` storage (Ironic's configured default).

API (every function takes the ``conf`` to read, or None for the
defaults; configuration is read at call time, never at import):

* ``register_opts(conf)`` / ``list_opts()``: the options;
* ``enabled_hardware_types(conf)``, ``enabled_interfaces(conf, type)``;
* ``supported_interfaces(hardware_type, type)``: what the hardware type
  supports, in its order of preference (``HARDWARE_TYPES``);
* ``default_interface(conf, hardware_type, type, node=None)``: the
  default, or NoValidDefaultForInterface;
* ``check_hardware_type(conf, name, conductor_group='')``: NoValidHost
  (400, as Ironic's API answers) unless ``name`` is enabled;
* ``check_interface(conf, hardware_type, type, name)``:
  InterfaceNotFoundInEntrypoint / IncompatibleInterface;
* ``node_interfaces(conf, hardware_type, given, node=None)``: every
  ``<type>_interface`` field of a node, from the ones ``given`` (checked)
  and the defaults for the others.
"""

import copy

from oslo_config import cfg

from allocsvc.common import exception

# Ironic's interface types, in the order Ironic lists them.
INTERFACE_TYPES = ('bios', 'boot', 'console', 'deploy', 'firmware',
                   'inspect', 'management', 'network', 'power', 'raid',
                   'rescue', 'storage', 'vendor')

# The node field holding each interface type's implementation.
FIELDS = tuple('%s_interface' % kind for kind in INTERFACE_TYPES)

# What Ironic's generic hardware supports, preferred first (Ironic's
# GenericHardware, and AbstractHardwareType for the types it leaves).
_GENERIC = {
    'bios': ('no-bios',),
    'boot': ('ipxe', 'pxe', 'http-ipxe', 'http'),
    'console': ('no-console', 'fake-graphical'),
    'deploy': ('autodetect', 'direct', 'ansible', 'ramdisk', 'anaconda',
               'bootc', 'custom-agent'),
    'firmware': ('no-firmware',),
    'inspect': ('agent', 'no-inspect'),
    'management': (),
    'network': ('flat', 'neutron', 'ironic-networking', 'noop'),
    'power': (),
    'raid': ('no-raid', 'agent'),
    'rescue': ('no-rescue', 'agent'),
    'storage': ('noop', 'cinder', 'external'),
    'vendor': ('no-vendor',),
}

# fake-hardware: its fake implementation first (every type but network
# has one), then the generic ones it inherits; management and power are
# fake only.
FAKE_HARDWARE = {
    kind: ('fake',) + (() if kind in ('management', 'power')
                       else _GENERIC[kind])
    for kind in INTERFACE_TYPES if kind != 'network'
}
FAKE_HARDWARE['network'] = _GENERIC['network']

# hardware type -> interface type -> supported implementations.
HARDWARE_TYPES = {'fake-hardware': FAKE_HARDWARE}

# Where Ironic registers the implementations of each interface type (its
# messages name it).
ENTRYPOINT = 'ironic.hardware.interfaces.%s'

# Ironic sets a default storage interface in its configuration.
_CONFIGURED_DEFAULTS = {'storage': 'noop'}

_ENABLED_HELP = (
    'The {0} interfaces nodes may use, in the order they are listed to '
    'clients. A node naming another {0} interface is refused. '
    'Implementations allocsvc knows: {1}.')
_DEFAULT_HELP = (
    'The {0} interface of a node that names none. Unset, it is the first '
    'one the node\'s hardware type supports that is also enabled.')


def _options():
    opts = [cfg.ListOpt(
        'enabled_hardware_types', default=sorted(HARDWARE_TYPES),
        help='The hardware types (node drivers) nodes may use. Known: %s.'
             % ', '.join(sorted(HARDWARE_TYPES)))]
    for kind in INTERFACE_TYPES:
        known = _known(kind)
        opts.append(cfg.ListOpt(
            'enabled_%s_interfaces' % kind, default=list(known),
            help=_ENABLED_HELP.format(kind, ', '.join(known))))
        opts.append(cfg.StrOpt(
            'default_%s_interface' % kind,
            default=_CONFIGURED_DEFAULTS.get(kind),
            help=_DEFAULT_HELP.format(kind)))
    return opts


def _known(kind):
    """Every implementation of ``kind`` some hardware type supports."""
    names = []
    for interfaces in HARDWARE_TYPES.values():
        names.extend(name for name in interfaces[kind] if name not in names)
    return names


OPTS = _options()

_DEFAULT_CONF = None


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [('DEFAULT', copy.deepcopy(OPTS))]


def _conf(conf):
    global _DEFAULT_CONF
    if conf is not None:
        return conf
    if _DEFAULT_CONF is None:
        defaults = cfg.ConfigOpts()
        register_opts(defaults)
        defaults([], project='allocsvc', default_config_files=[])
        _DEFAULT_CONF = defaults
    return _DEFAULT_CONF


def _unique(names):
    seen = []
    for name in names:
        if name and name not in seen:
            seen.append(name)
    return seen


def enabled_hardware_types(conf=None):
    """The enabled hardware types allocsvc knows, in configured order."""
    return [name for name in _unique(_conf(conf).enabled_hardware_types)
            if name in HARDWARE_TYPES]


def enabled_interfaces(conf, kind):
    """The enabled implementations of interface type ``kind`` that
    allocsvc knows, in configured order."""
    known = _known(kind)
    return [name for name in _unique(
        getattr(_conf(conf), 'enabled_%s_interfaces' % kind))
        if name in known]


def supported_interfaces(hardware_type, kind):
    """What ``hardware_type`` supports of ``kind``, preferred first."""
    return list(HARDWARE_TYPES[hardware_type][kind])


def check_hardware_type(conf, name, conductor_group=''):
    """NoValidHost (400) unless ``name`` is an enabled hardware type:
    Ironic's API finds no conductor for the node's driver and group."""
    if name not in enabled_hardware_types(conf):
        raise exception.NoValidHost(name, conductor_group)


def check_interface(conf, hardware_type, kind, name):
    """400 unless nodes of ``hardware_type`` may use implementation
    ``name`` of interface type ``kind``: InterfaceNotFoundInEntrypoint if
    it is not enabled, IncompatibleInterface if the hardware type does
    not support it (fake-hardware takes every enabled one, as Ironic's
    does)."""
    enabled = enabled_interfaces(conf, kind)
    if name not in enabled:
        raise exception.InterfaceNotFoundInEntrypoint(
            name, ENTRYPOINT % kind, enabled)
    if hardware_type != 'fake-hardware' and \
            name not in supported_interfaces(hardware_type, kind):
        raise exception.IncompatibleInterface(kind, name, hardware_type)


def default_interface(conf, hardware_type, kind, node=None):
    """The implementation of ``kind`` a node of ``hardware_type`` gets
    when it names none: the configured default, or the first supported
    one that is enabled. NoValidDefaultForInterface (400) if there is
    none (``node``, a UUID, is named in the message)."""
    configured = getattr(_conf(conf), 'default_%s_interface' % kind)
    if configured is not None:
        try:
            check_interface(conf, hardware_type, kind, configured)
        except exception.IncompatibleInterface:
            raise exception.NoValidDefaultForInterface(kind, hardware_type,
                                                       node)
        return configured
    enabled = enabled_interfaces(conf, kind)
    for name in supported_interfaces(hardware_type, kind):
        if name in enabled:
            return name
    raise exception.NoValidDefaultForInterface(kind, hardware_type, node)


def node_interfaces(conf, hardware_type, given, node=None):
    """Every ``<type>_interface`` field of a node of ``hardware_type``:
    the non-null ones of ``given`` (a mapping of field names), checked
    (``check_interface``), and the defaults for the others
    (``default_interface``)."""
    result = {}
    for kind, field in zip(INTERFACE_TYPES, FIELDS):
        name = given.get(field)
        if name is not None:
            check_interface(conf, hardware_type, kind, name)
        else:
            name = default_interface(conf, hardware_type, kind, node)
        result[field] = name
    return result
