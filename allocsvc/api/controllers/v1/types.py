"""The WSME types of the ``/v1`` handlers not converted yet (see
``dispatch``): what they accept and return.

The resource still served through WSME (Node), its collection and
links are WSME complex types, rendered by ``wsmeext.pecan.wsexpose``. A
field a response leaves out (newer than the request's microversion, or
not in ``?fields=``) stays ``Unset``, which WSME does not render.

Request bodies are taken as ``jsontype`` (any JSON value) and checked by
the JSON schemas of ``node_schema``, which carry Ironic's error
messages.
"""

from wsme import types as wtypes

from allocsvc.api.controllers.v1 import node_schema


class JsonType(wtypes.UserType):
    """Any JSON value: an object, array, string, number, boolean or
    null, passed through as parsed."""

    basetype = wtypes.text
    name = 'json'

    def validate(self, value):
        return value

    def frombasetype(self, value):
        return value

    def tobasetype(self, value):
        return value


jsontype = JsonType()


def _convert(datatype, value):
    """``value`` (rendered as plain JSON) as ``datatype`` expects it:
    complex types (and lists of them) built from their documents."""
    if value is None:
        return None
    if isinstance(datatype, wtypes.ArrayType) and \
            wtypes.iscomplex(datatype.item_type):
        return [datatype.item_type.from_document(item) for item in value]
    if wtypes.iscomplex(datatype):
        return datatype.from_document(value)
    return value


class Base(wtypes.Base):
    """A resource document: built from the dict a controller rendered,
    every attribute that dict lacks left ``Unset``."""

    @classmethod
    def from_document(cls, document):
        obj = cls()
        for attribute in wtypes.list_attributes(cls):
            if attribute.name in document:
                setattr(obj, attribute.key, _convert(
                    attribute.datatype, document[attribute.name]))
        return obj


class Link(Base):
    """A link to a resource: ``href``, ``rel`` and, for the links of the
    version document, ``type``."""

    href = wtypes.text
    rel = wtypes.text
    type = wtypes.text


# The type of each node field on the wire; any field not named here is a
# string (or null).
_NODE_FIELD_TYPES = {
    'driver_info': {wtypes.text: jsontype},
    'properties': {wtypes.text: jsontype},
    'extra': {wtypes.text: jsontype},
    'instance_info': {wtypes.text: jsontype},
    'driver_internal_info': {wtypes.text: jsontype},
    'clean_step': {wtypes.text: jsontype},
    'deploy_step': {wtypes.text: jsontype},
    'service_step': {wtypes.text: jsontype},
    'raid_config': {wtypes.text: jsontype},
    'target_raid_config': {wtypes.text: jsontype},
    'network_data': {wtypes.text: jsontype},
    'maintenance': bool,
    'console_enabled': bool,
    'protected': bool,
    'retired': bool,
    'secure_boot': bool,
    'disable_power_off': bool,
    'traits': [wtypes.text],
    # A string or a boolean, as Ironic's schema allows it.
    'automated_clean': jsontype,
}


def _node_attributes():
    attributes = {name: _NODE_FIELD_TYPES.get(name, wtypes.text)
                  for name, _since in node_schema.FIELDS}
    for name in ('links', 'ports', 'states', 'portgroups'):
        attributes[name] = [Link]
    return attributes


# A node: every field of ``node_schema.FIELDS`` (only those of the
# request's version are set), its links and those to its ports, states
# (1.14) and port groups (1.24).
Node = type('Node', (Base,), dict(
    _node_attributes(),
    __doc__='A node as Ironic shows it, at the request\'s version.'))


class NodeCollection(Base):
    nodes = [Node]
    next = wtypes.text
