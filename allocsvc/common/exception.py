"""Exceptions the engines raise and the APIs turn into error responses.

Each exception carries the HTTP status it maps to and, for the Placement
API, a frozen error code (``placement.*``). Codes are wire contract: never
change or reuse one.
"""

# Placement error codes, as documented by the Placement API reference.
DEFAULT = 'placement.undefined_code'
INVENTORY_INUSE = 'placement.inventory.inuse'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = (
    'placement.resource_provider.cannot_delete_parent')
RESOURCE_PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
QUERYPARAM_DUPLICATE_KEY = 'placement.query.duplicate_key'
QUERYPARAM_BAD_VALUE = 'placement.query.bad_value'
QUERYPARAM_MISSING_VALUE = 'placement.query.missing_value'


class AllocsvcException(Exception):
    """Base of every error a user can cause; ``status`` is the HTTP code."""

    status = 500
    code = DEFAULT

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class BadRequest(AllocsvcException):
    status = 400


class InvalidInventory(BadRequest):
    """An inventory whose values contradict each other (reserved above
    total); the API says which write it refused."""


class NotFound(AllocsvcException):
    status = 404


class Conflict(AllocsvcException):
    status = 409


class ConcurrentUpdate(Conflict):
    code = CONCURRENT_UPDATE


class InventoryInUse(Conflict):
    code = INVENTORY_INUSE


class DuplicateName(Conflict):
    code = DUPLICATE_NAME


class ProviderInUse(Conflict):
    code = PROVIDER_IN_USE


class CannotDeleteParent(Conflict):
    code = PROVIDER_CANNOT_DELETE_PARENT
