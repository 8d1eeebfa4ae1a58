"""Parsers of the query-string values Placement's read requests share.

GET /resource_providers and GET /allocation_candidates take the same
``resources``, ``required``, ``member_of`` and ``in_tree`` values (the
candidates request once per request group). Turning a query into what the
engine searches for is the engine's business, so the parsers live here
and the API handlers call them. Each returns plain data for the
microversion asked (``want``, a (major, minor) tuple) or raises
BadRequest with Placement's own text: clients match on it. Nothing here
touches the database or HTTP.
"""

from oslo_utils import uuidutils

from allocsvc.common import exception

MAX_AMOUNT = 2147483647

_RESOURCES_FORM = ('Badly formed resources parameter. Expected resources '
                   'query string parameter in form: '
                   '?resources=VCPU:2,MEMORY_MB:1024. Got: %s.')

# Microversions that widened the trait and aggregate syntax.
FORBIDDEN_TRAITS = (1, 22)
MULTIPLE_MEMBER_OF = (1, 24)
FORBIDDEN_AGGREGATES = (1, 32)
ANY_TRAITS = (1, 39)


def parse_resources(value):
    """``VCPU:4,DISK_GB:64`` -> {'VCPU': 4, 'DISK_GB': 64}."""
    if not value.strip():
        raise exception.BadRequest(_RESOURCES_FORM % 'empty string')
    result = {}
    for item in value.split(','):
        parts = item.split(':')
        name = parts[0].strip()
        if len(parts) != 2 or not name:
            # The item alone, as Placement shows it: a trailing comma
            # shows as "Got: ." (the empty item after it).
            raise exception.BadRequest(_RESOURCES_FORM % item)
        try:
            amount = int(parts[1])
        except ValueError:
            raise exception.BadRequest(
                'Requested resource %s expected positive integer amount. '
                'Got: %s.' % (name, parts[1]))
        if amount < 1:
            raise exception.BadRequest(
                'Requested resource %s requires amount >= 1. Got: %d.'
                % (name, amount))
        if amount > MAX_AMOUNT:
            # No inventory can serve it (max_unit is a 32-bit integer),
            # and the database could not compare it.
            raise exception.BadRequest(
                'Requested resource %s amount %d is larger than the largest '
                'possible amount, %d.' % (name, amount, MAX_AMOUNT))
        if name in result:
            raise exception.BadRequest(
                'Badly formed resources parameter. Resource class %s is '
                'requested more than once.' % name)
        result[name] = amount
    return result


class Limits:
    """How much one query may name (``[placement] max_*``): ``groups``
    request groups (and same_subtree parameters), ``member_of`` repeats
    of one member_of parameter, ``required_traits`` traits in the
    required parameter of one group (every repeat, forbidden and in:
    traits included), ``in_items`` items in one in: list. None: no
    bound (the engine's own callers)."""

    __slots__ = ('groups', 'member_of', 'required_traits', 'in_items')

    def __init__(self, groups=None, member_of=None, required_traits=None,
                 in_items=None):
        self.groups = groups
        self.member_of = member_of
        self.required_traits = required_traits
        self.in_items = in_items

    @classmethod
    def from_conf(cls, conf):
        opts = conf.placement
        return cls(groups=opts.max_request_groups,
                   member_of=opts.max_member_of,
                   required_traits=opts.max_required_traits,
                   in_items=opts.max_in_items)


NO_LIMITS = Limits()


def check_count(most, got, what):
    """BadRequest when ``got`` (a count) is over ``most`` (None: no
    bound); ``what`` names the counted things, plural."""
    if most is not None and got > most:
        raise exception.BadRequest(
            'Invalid query string parameters: Expected at most %d %s. '
            'Got: %d.' % (most, what, got),
            error_code=exception.QUERYPARAM_BAD_VALUE)


def _in_items(text, limits, name):
    """The items of the in: list ``text`` (after the prefix), refused
    when there are more than ``limits`` allow (counted before they are
    split, so a huge list costs no more than its length)."""
    check_count(limits.in_items, text.count(',') + 1,
                "items in an 'in:' list of '%s'" % name)
    return text.split(',')


def _bad_traits(detail):
    return exception.BadRequest('Invalid query string parameters: ' + detail)


def parse_traits(value, allow_forbidden, allow_any_of, limits=NO_LIMITS,
                 name='required'):
    """One trait value -> (list of any-of sets, forbidden set).

    ``T1,!T2`` requires T1 and forbids T2 (``!`` only when
    ``allow_forbidden``); ``in:T3,T4`` requires T3 or T4 (only when
    ``allow_any_of``). Plain traits become one-element sets. Placement
    names the parameter 'required' in its messages, whichever it was
    (``name`` is only for the messages about ``limits``).
    """
    if value.startswith('in:'):
        if not allow_any_of:
            raise _bad_traits(
                "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported "
                "since microversion 1.39. Got: %s" % value)
        names = {n.strip() for n in _in_items(value[3:], limits, name)}
        if not all(names):
            raise _bad_traits(
                "Expected 'required' parameter value of the form: "
                "in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: %s"
                % value)
        if any(n.startswith('!') for n in names):
            raise _bad_traits(
                "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not "
                "support forbidden traits. Got: %s" % value)
        return [frozenset(names)], set()
    names = [n.strip() for n in value.split(',')]
    # Any run of '!' forbids, as in Placement ('!!T' forbids T).
    forbidden = {n.lstrip('!') for n in names if n.startswith('!')}
    if not all(names) or not all(forbidden):
        raise _bad_traits(
            "Expected 'required' parameter value of the form: %s. Got an "
            "empty trait in: %s" % (
                'HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
                else 'HW_CPU_X86_VMX,CUSTOM_MAGIC', value))
    if forbidden and not allow_forbidden:
        raise _bad_traits(
            "Expected 'required' parameter value of the form: "
            "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: %s" % value)
    return [frozenset([n]) for n in names if not n.startswith('!')], forbidden


def parse_required(values, want, limits=NO_LIMITS, suffix=''):
    """The values of one ``required<suffix>`` parameter (all its
    repeats, in order) -> (list of any-of sets, forbidden set).

    Forbidden traits from microversion 1.22; from 1.39 the ``in:`` form,
    and every repeat counts (before, only the last one does). At most
    ``limits.required_traits`` traits in all.
    """
    if want < ANY_TRAITS:
        values = values[-1:]
    name = 'required' + suffix
    check_count(limits.required_traits,
                sum(value.count(',') + 1 for value in values),
                "traits in '%s'" % name)
    required, forbidden = [], set()
    for value in values:
        more, less = parse_traits(value, want >= FORBIDDEN_TRAITS,
                                  want >= ANY_TRAITS, limits, name)
        required.extend(more)
        forbidden |= less
    return required, forbidden


def all_trait_names(required, forbidden):
    names = set(forbidden)
    for any_of in required:
        names |= any_of
    return names


def unknown_traits(names):
    """The BadRequest for a query naming traits that do not exist."""
    return exception.BadRequest(
        'No such trait(s): %s.' % ', '.join(sorted(names)))


def _member_of_value(value, limits, name):
    """One member_of value -> (required uuids, forbidden uuids)."""
    if ',' in value and not value.startswith(('in:', '!in:')):
        raise exception.BadRequest(
            "Multiple values for 'member_of' must be prefixed with the "
            "'in:' or '!in:' keyword using the valid microversion. "
            "Got: %s" % value)
    negate = value.startswith('!')
    text = value[1:] if negate else value
    if text.startswith('in:'):
        uuids = [u.strip() for u in _in_items(text[3:], limits, name)]
    else:
        uuids = [text.strip()]
    for uuid in uuids:
        if not uuidutils.is_uuid_like(uuid):
            raise exception.BadRequest(
                "Invalid query string parameters: Expected 'member_of' "
                "parameter to contain valid UUID(s). Got: %s" % uuid)
    if negate:
        return frozenset(), frozenset(uuids)
    return frozenset(uuids), frozenset()


def parse_member_of(values, want, suffix='', limits=NO_LIMITS):
    """The values of one ``member_of<suffix>`` parameter (all its
    repeats) -> (list of any-of uuid sets, forbidden uuid set).

    ``A`` or ``in:A,B`` needs A (or B); ``!A`` and ``!in:A,B`` forbid
    them (microversion 1.32 on). Repeating the parameter ANDs the values
    (1.24 on; before, it is refused), at most ``limits.member_of``
    times (every repeat counts; identical sets are kept once).
    """
    if want < MULTIPLE_MEMBER_OF and len(values) > 1:
        raise exception.BadRequest(
            'Multiple member_of%s parameters are not supported' % suffix)
    name = 'member_of' + suffix
    check_count(limits.member_of, len(values), "'%s' parameters" % name)
    member_of, forbidden = [], set()
    seen = set()
    for value in values:
        required, refused = _member_of_value(value, limits, name)
        if refused and want < FORBIDDEN_AGGREGATES:
            raise exception.BadRequest(
                'Forbidden member_of%s parameters are not supported in the '
                'specified microversion' % suffix)
        if required and required not in seen:
            seen.add(required)
            member_of.append(required)
        forbidden |= refused
    return member_of, forbidden


def parse_in_tree(value):
    """An ``in_tree`` value -> the provider uuid it names."""
    uuid = value.strip()
    if not uuidutils.is_uuid_like(uuid):
        raise exception.BadRequest(
            "Invalid query string parameters: Expected 'in_tree' parameter "
            "to be a format of uuid. Got: %s" % value)
    return uuid
