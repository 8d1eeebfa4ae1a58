"""The Placement engine: plain Python and SQLAlchemy Core, no HTTP.

One function per operation, each one transaction (``@db_api.reader`` or
``@db_api.writer``), raising ``allocsvc.common.exception`` errors.
"""
