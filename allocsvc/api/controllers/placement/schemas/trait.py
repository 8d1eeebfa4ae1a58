"""Schemas for /traits and /resource_providers/{uuid}/traits."""

import copy

import jsonschema

TRAIT = {'type': 'string', 'minLength': 1, 'maxLength': 255}

# A custom trait: CUSTOM_ then capitals, digits and underscores. \Z rather
# than $, which would accept a trailing newline (jsonschema uses re.search).
CUSTOM_TRAIT = copy.deepcopy(TRAIT)
CUSTOM_TRAIT['pattern'] = r'^CUSTOM_[A-Z0-9_]+\Z'


def is_custom_trait(name):
    """Whether ``name`` (from a URL) is a valid custom trait name."""
    return jsonschema.Draft202012Validator(CUSTOM_TRAIT).is_valid(name)


# PUT /resource_providers/{uuid}/traits: the whole new set, guarded by the
# provider generation. Unknown names are a 400 found after validation.
SET_PROVIDER_TRAITS = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': TRAIT, 'uniqueItems': True},
        'resource_provider_generation': {'type': 'integer'},
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}

# GET /traits query string; the values are parsed by the handler.
LIST_QUERY = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string'},
        'associated': {'type': 'string'},
    },
    'additionalProperties': False,
}
