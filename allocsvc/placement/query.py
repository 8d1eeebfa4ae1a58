"""Parsers of the query-string values Placement's read requests share.

GET /resource_providers and GET /allocation_candidates take the same
``resources``, ``required`` and ``member_of`` values. Turning a query into
what the engine searches for is the engine's business, so the parsers
live here and the API handlers call them. Each returns plain data or
raises BadRequest with the message Placement gives; nothing here touches
the database or HTTP."""

from oslo_utils import uuidutils

from allocsvc.common import exception

MAX_AMOUNT = 2147483647


def parse_resources(value, param='resources'):
    """``VCPU:4,DISK_GB:64`` -> {'VCPU': 4, 'DISK_GB': 64}."""
    result = {}
    for item in value.split(','):
        name, sep, amount = item.strip().partition(':')
        if not sep or not name:
            raise exception.BadRequest(
                'Badly formed %(param)s parameter. Expected %(param)s query '
                'string parameter in form: ?%(param)s=VCPU:2,MEMORY_MB:1024. '
                'Got: %(value)s.' % {'param': param, 'value': value})
        try:
            amount = int(amount)
        except ValueError:
            amount = None
        if amount is None or amount < 1:
            raise exception.BadRequest(
                'Requested resource %s expected positive integer amount. '
                'Got: %s.' % (name, item.partition(':')[2]))
        if amount > MAX_AMOUNT:
            # No inventory can serve it (max_unit is a 32-bit integer),
            # and the database could not compare it.
            raise exception.BadRequest(
                'Requested resource %s amount %d is larger than the largest '
                'possible amount, %d.' % (name, amount, MAX_AMOUNT))
        if name in result:
            raise exception.BadRequest(
                'Badly formed %s parameter. Resource class %s is requested '
                'more than once.' % (param, name))
        result[name] = amount
    return result


def parse_required(values, allow_forbidden, allow_any_of, param='required'):
    """Values of ``required`` -> (list of any-of sets, forbidden set).

    ``T1,!T2`` requires T1 and forbids T2 (``!`` from microversion 1.22);
    ``in:T3,T4`` requires T3 or T4 (from 1.39, as is repeating the
    parameter). Plain traits become one-element sets.
    """
    required, forbidden = [], set()
    form = ('HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
            else 'HW_CPU_X86_VMX,CUSTOM_MAGIC')
    for value in values:
        any_of = allow_any_of and value.startswith('in:')
        names = [t.strip() for t in (value[3:] if any_of else value)
                 .split(',')]
        if not all(names) or (not allow_forbidden and any(
                n.startswith('!') for n in names)):
            raise exception.BadRequest(
                "Invalid query string parameters: Expected '%s' parameter "
                "value of the form: %s. Got: %s" % (param, form, value))
        if any_of:
            if any(n.startswith('!') for n in names):
                raise exception.BadRequest(
                    "Invalid query string parameters: Expected '%s' "
                    "parameter value of the form: in:HW_CPU_X86_VMX,"
                    "CUSTOM_MAGIC. Forbidden traits cannot be mixed into an "
                    "'in:' list. Got: %s" % (param, value))
            required.append(frozenset(names))
            continue
        for name in names:
            if name.startswith('!'):
                forbidden.add(name[1:])
            else:
                required.append(frozenset([name]))
    return required, forbidden


def all_trait_names(required, forbidden):
    names = set(forbidden)
    for any_of in required:
        names |= any_of
    return names


def _uuids(text, original, allow_list):
    uuids = [u.strip() for u in text.split(',')] if allow_list else [text]
    if not all(uuidutils.is_uuid_like(u) for u in uuids):
        raise exception.BadRequest(
            "Invalid query string parameters: Expected 'member_of' "
            "parameter to contain valid UUID(s). Got: %s" % original)
    return frozenset(uuids)


def parse_member_of(values, allow_forbidden):
    """Values of ``member_of`` -> (list of any-of sets, forbidden set).

    ``in:A,B`` is A or B; from microversion 1.32 ``!A`` and ``!in:A,B``
    forbid aggregates. ``in:!A`` is refused: forbidding goes outside in:.
    """
    member_of, forbidden = [], set()
    for value in values:
        negate = allow_forbidden and value.startswith('!')
        text = value[1:] if negate else value
        if text.startswith('in:'):
            text = text[3:]
            if allow_forbidden and '!' in text:
                raise exception.BadRequest(
                    "Invalid query string parameters: Forbidden aggregates "
                    "are expressed with '!in:', not inside the 'in:' list. "
                    "Got: %s" % value)
            uuids = _uuids(text, value, allow_list=True)
        else:
            uuids = _uuids(text, value, allow_list=False)
        if negate:
            forbidden |= uuids
        else:
            member_of.append(uuids)
    return member_of, forbidden
