"""Schemas for /resource_classes and /resource_classes/{name}."""

import copy

import jsonschema

# A custom class: CUSTOM_ then capitals, digits and underscores. \Z rather
# than $, which would accept a trailing newline (jsonschema uses re.search).
CUSTOM_NAME = {
    'type': 'string',
    'pattern': r'^CUSTOM_[A-Z0-9_]+\Z',
    'maxLength': 255,
}

POST_1_2 = {
    'type': 'object',
    'properties': {'name': CUSTOM_NAME},
    'required': ['name'],
    'additionalProperties': False,
}
# 1.2-1.6: PUT renames a custom class; the body is the new name.
PUT_1_2 = copy.deepcopy(POST_1_2)


def is_custom_name(name):
    """Whether ``name`` (from a URL) is a valid custom class name."""
    return jsonschema.Draft202012Validator(CUSTOM_NAME).is_valid(name)
