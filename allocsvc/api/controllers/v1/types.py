"""What is left of the WSME types of the ``/v1`` handlers: no handler
uses them any more (see ``dispatch``); they go with ``base.expose`` and
``dispatch.Legacy``.
"""

from wsme import types as wtypes


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
