"""Field types the stock oslo.versionedobjects set lacks."""

import datetime

from oslo_serialization import jsonutils
from oslo_versionedobjects import fields as ovo_fields


class FlexibleDict(ovo_fields.FieldType):
    """A JSON object with values of any JSON type (node properties,
    extra, instance_info); a JSON string is parsed, None is {}."""

    @staticmethod
    def coerce(obj, attr, value):
        if value is None:
            return {}
        if isinstance(value, str):
            value = jsonutils.loads(value)
        if not isinstance(value, dict):
            raise ValueError('A dict is required for %s, not %r'
                             % (attr, value))
        return dict(value)


class FlexibleDictField(ovo_fields.AutoTypedField):
    AUTO_TYPE = FlexibleDict()

    def __init__(self, nullable=False, **kwargs):
        super().__init__(nullable=nullable, **kwargs)


class PreciseDateTime(ovo_fields.DateTime):
    """A timestamp that crosses RPC with its microseconds (the stock
    DateTime drops them, so a node the conductor returned would show
    other timestamps than the same node read from the database)."""

    def to_primitive(self, obj, attr, value):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.astimezone(datetime.timezone.utc).isoformat()


class PreciseDateTimeField(ovo_fields.AutoTypedField):
    AUTO_TYPE = PreciseDateTime()
