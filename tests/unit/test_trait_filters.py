"""Pure helpers of the trait and resource class APIs: the GET /traits
query parsers and the name checks."""

import pytest

from allocsvc.api.controllers.placement.schemas import resource_class \
    as rc_schema
from allocsvc.api.controllers.placement.schemas import trait as trait_schema
from allocsvc.api.controllers.placement import trait
from allocsvc.common import exception
from allocsvc.placement import resource_classes
from allocsvc.placement import traits


@pytest.mark.parametrize('value, expected', [
    ('in:A,B', {'names': ['A', 'B']}),
    ('in:A, B ,', {'names': ['A', 'B']}),
    ('in:', {'names': []}),
    ('in:A:B', {'names': ['A:B']}),
    ('startswith:CUSTOM_', {'prefix': 'CUSTOM_'}),
    ('startswith:', {'prefix': ''}),
])
def test_parse_name_filter(value, expected):
    assert trait.parse_name_filter(value) == expected


@pytest.mark.parametrize('value', [
    'in_abc', 'CUSTOM_A', '', 'endswith:A', 'IN:A', ':A'])
def test_parse_name_filter_refuses(value):
    with pytest.raises(exception.BadRequest) as info:
        trait.parse_name_filter(value)
    assert 'Badly formatted name parameter' in info.value.message
    assert value in info.value.message


@pytest.mark.parametrize('value, expected', [
    ('true', True), ('True', True), ('TRUE', True),
    ('false', False), ('False', False)])
def test_parse_associated(value, expected):
    assert trait.parse_associated(value) is expected


@pytest.mark.parametrize('value', ['', 'yes', '1', 'truex'])
def test_parse_associated_refuses(value):
    with pytest.raises(exception.BadRequest) as info:
        trait.parse_associated(value)
    assert '"associated" only accepts "true" or "false"' in \
        info.value.message


@pytest.mark.parametrize('check', [rc_schema.is_custom_name,
                                   trait_schema.is_custom_trait])
@pytest.mark.parametrize('name, valid', [
    ('CUSTOM_A', True),
    ('CUSTOM_A_1', True),
    ('CUSTOM__', True),
    ('CUSTOM_' + 'X' * 248, True),
    ('CUSTOM_' + 'X' * 249, False),
    ('CUSTOM_', False),
    ('CUSTOM_a', False),
    ('CUSTOM_A\n', False),
    ('CUSTOM_A B', False),
    ('VCPU', False),
    ('HW_CPU_X86_SSE', False),
    ('custom_a', False),
    ('', False),
])
def test_custom_names(check, name, valid):
    assert check(name) is valid


@pytest.mark.parametrize('check', [resource_classes.is_plausible_name,
                                   traits.is_plausible_name])
@pytest.mark.parametrize('name, plausible', [
    ('VCPU', True),
    ('HW_CPU_X86_SSE', True),
    ('CUSTOM_A', True),
    ('X' * 255, True),
    ('X' * 256, False),
    ('', False),
    ('vcpu', False),
    ('VCPU\n', False),
    ('VCPU\x00', False),
    ('VCPU ', False),
    (None, False),
])
def test_plausible_names(check, name, plausible):
    assert check(name) is plausible
