"""The engine's query-string parsers (allocsvc.placement.query): what
they accept, for which microversion, and Placement's texts for what they
refuse (clients match on them)."""

import pytest

from allocsvc.common import exception
from allocsvc.placement import query

AGG_A = '9ca3a5a6-2bd2-44ba-a0e5-33ad10bd5e6d'
AGG_B = '1d6e8d5a-05a9-4b8f-8e4f-2e5e1c2e6c11'


def _refused(func, *args):
    with pytest.raises(exception.BadRequest) as info:
        func(*args)
    return info.value.message


@pytest.mark.parametrize('value, expected', [
    ('VCPU:1', {'VCPU': 1}),
    ('VCPU:4,DISK_GB:64', {'VCPU': 4, 'DISK_GB': 64}),
    (' VCPU: 2 ', {'VCPU': 2}),
])
def test_parse_resources(value, expected):
    assert query.parse_resources(value) == expected


@pytest.mark.parametrize('value, text', [
    ('', 'Got: empty string.'),
    ('  ', 'Got: empty string.'),
    ('VCPU', 'Got: VCPU.'),
    ('DISK_GB:500,', 'Got: .'),
    ('VCPU:1:2', 'Got: VCPU:1:2.'),
    (':3', 'Got: :3.'),
])
def test_parse_resources_badly_formed(value, text):
    message = _refused(query.parse_resources, value)
    assert message.startswith(
        'Badly formed resources parameter. Expected resources query string '
        'parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. ')
    assert message.endswith(text)


@pytest.mark.parametrize('value, text', [
    ('VCPU:fred',
     'Requested resource VCPU expected positive integer amount. Got: fred.'),
    ('VCPU:0', 'Requested resource VCPU requires amount >= 1. Got: 0.'),
    ('VCPU:-2', 'Requested resource VCPU requires amount >= 1. Got: -2.'),
    ('VCPU:2147483648', 'larger than the largest possible amount'),
    ('VCPU:1,VCPU:2', 'Resource class VCPU is requested more than once.'),
])
def test_parse_resources_bad_amounts(value, text):
    assert text in _refused(query.parse_resources, value)


@pytest.mark.parametrize('values, want, required, forbidden', [
    (['A,B'], (1, 18), [{'A'}, {'B'}], set()),
    (['A,!B'], (1, 22), [{'A'}], {'B'}),
    (['A,!!B'], (1, 22), [{'A'}], {'B'}),
    (['A', 'B'], (1, 38), [{'B'}], set()),
    (['in:A,B', 'C,!D'], (1, 39), [{'A', 'B'}, {'C'}], {'D'}),
    # Only the last value counts before 1.39: an earlier in: is ignored.
    (['in:A,B', 'C'], (1, 38), [{'C'}], set()),
])
def test_parse_required(values, want, required, forbidden):
    found, refused = query.parse_required(values, want)
    assert [set(s) for s in found] == required
    assert refused == forbidden


@pytest.mark.parametrize('values, want, text', [
    ([''], (1, 21), "Invalid query string parameters: Expected 'required' "
     "parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty "
     "trait in: "),
    (['A,,B'], (1, 22), "Invalid query string parameters: Expected "
     "'required' parameter value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. "
     "Got an empty trait in: A,,B"),
    (['A,!'], (1, 22), 'Got an empty trait in: A,!'),
    (['!A'], (1, 21), "Invalid query string parameters: Expected 'required' "
     "parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !A"),
    (['in:A,B'], (1, 38), "Invalid query string parameters: The format "
     "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since microversion "
     "1.39. Got: in:A,B"),
    (['in:A,!B'], (1, 39), "Invalid query string parameters: The format "
     "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support forbidden traits. "
     "Got: in:A,!B"),
    (['in:A,'], (1, 39), "Invalid query string parameters: Expected "
     "'required' parameter value of the form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC."
     " Got an empty trait in: in:A,"),
])
def test_parse_required_refuses(values, want, text):
    assert _refused(query.parse_required, values, want).endswith(text)


def test_parse_traits_without_any_of_refuses_in():
    message = _refused(query.parse_traits, 'in:A', True, False)
    assert 'only supported since microversion 1.39' in message


def test_all_trait_names():
    assert query.all_trait_names([{'A', 'B'}, {'C'}], {'D'}) == {
        'A', 'B', 'C', 'D'}


def test_unknown_traits():
    error = query.unknown_traits({'B', 'A'})
    assert isinstance(error, exception.BadRequest)
    assert error.message == 'No such trait(s): A, B.'


@pytest.mark.parametrize('values, want, member_of, forbidden', [
    ([AGG_A], (1, 3), [{AGG_A}], set()),
    (['in:%s,%s' % (AGG_A, AGG_B)], (1, 3), [{AGG_A, AGG_B}], set()),
    ([AGG_A, AGG_B], (1, 24), [{AGG_A}, {AGG_B}], set()),
    (['!' + AGG_A], (1, 32), [], {AGG_A}),
    (['!in:%s,%s' % (AGG_A, AGG_B), AGG_A], (1, 32), [{AGG_A}],
     {AGG_A, AGG_B}),
])
def test_parse_member_of(values, want, member_of, forbidden):
    found, refused = query.parse_member_of(values, want)
    assert [set(s) for s in found] == member_of
    assert refused == forbidden


@pytest.mark.parametrize('values, want, suffix, text', [
    ([AGG_A, AGG_B], (1, 23), '',
     'Multiple member_of parameters are not supported'),
    ([AGG_A, AGG_B], (1, 23), '1',
     'Multiple member_of1 parameters are not supported'),
    (['%s,%s' % (AGG_A, AGG_B)], (1, 24), '',
     "Multiple values for 'member_of' must be prefixed with the 'in:' or "
     "'!in:' keyword using the valid microversion. Got: %s,%s"
     % (AGG_A, AGG_B)),
    (['!' + AGG_A], (1, 31), '',
     'Forbidden member_of parameters are not supported in the specified '
     'microversion'),
    (['!in:' + AGG_A], (1, 31), '_X',
     'Forbidden member_of_X parameters are not supported in the specified '
     'microversion'),
    (['in:%s,!%s' % (AGG_A, AGG_B)], (1, 32), '',
     "Invalid query string parameters: Expected 'member_of' parameter to "
     "contain valid UUID(s). Got: !" + AGG_B),
    (['in:'], (1, 32), '',
     "Invalid query string parameters: Expected 'member_of' parameter to "
     "contain valid UUID(s). Got: "),
    (['nope'], (1, 32), '', 'Got: nope'),
])
def test_parse_member_of_refuses(values, want, suffix, text):
    message = _refused(query.parse_member_of, values, want, suffix)
    assert message.endswith(text)


def test_parse_in_tree():
    assert query.parse_in_tree(' %s ' % AGG_A) == AGG_A
    assert _refused(query.parse_in_tree, 'nope') == (
        "Invalid query string parameters: Expected 'in_tree' parameter to "
        "be a format of uuid. Got: nope")


LIMITS = query.Limits(groups=2, member_of=2, required_traits=3, in_items=2)


@pytest.mark.parametrize('func, args, text', [
    (query.parse_member_of, ([AGG_A, AGG_B, AGG_A], (1, 39), '1', LIMITS),
     "Expected at most 2 'member_of1' parameters. Got: 3."),
    (query.parse_member_of,
     (['in:%s,%s,%s' % (AGG_A, AGG_B, AGG_A)], (1, 39), '', LIMITS),
     "Expected at most 2 items in an 'in:' list of 'member_of'. Got: 3."),
    (query.parse_member_of,
     (['!in:%s,%s,%s' % (AGG_A, AGG_B, AGG_A)], (1, 39), '', LIMITS),
     "Expected at most 2 items in an 'in:' list of 'member_of'. Got: 3."),
    (query.parse_required, (['A,!B', 'C,D'], (1, 39), LIMITS, '_x'),
     "Expected at most 3 traits in 'required_x'. Got: 4."),
    (query.parse_required, (['in:A,B,C'], (1, 39), LIMITS),
     "Expected at most 2 items in an 'in:' list of 'required'. Got: 3."),
])
def test_limits_refuse(func, args, text):
    with pytest.raises(exception.BadRequest) as info:
        func(*args)
    assert info.value.message == 'Invalid query string parameters: ' + text
    assert info.value.error_code == exception.QUERYPARAM_BAD_VALUE


def test_limits_allow_up_to_the_bound():
    assert query.parse_member_of(
        ['in:%s,%s' % (AGG_A, AGG_B), AGG_A], (1, 39), '', LIMITS) == (
        [frozenset([AGG_A, AGG_B]), frozenset([AGG_A])], set())
    # Before 1.39 only the last required counts, so only it is bounded.
    assert query.parse_required(['A,B,C,D', 'E,F,G'], (1, 38), LIMITS) == (
        [frozenset('E'), frozenset('F'), frozenset('G')], set())
    # Identical member_of values are kept once.
    assert query.parse_member_of([AGG_A, AGG_A], (1, 39), '', LIMITS) == (
        [frozenset([AGG_A])], set())
