"""Field types the stock oslo.versionedobjects set lacks."""

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
