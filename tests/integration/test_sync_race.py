"""Several API workers starting together on a fresh database each load
the standard resource classes and traits: all of them must succeed, and
the catalogue must end complete. (In CI, gunicorn workers on MariaDB hit
a deadlock inside the per-row savepoints the sync used, and the failed
savepoint rollback stopped a worker from booting; eight threads here
did not reproduce that deadlock, but they check the retried, savepoint-
free sync on the three databases.)"""

import os_resource_classes
import os_traits
import sqlalchemy as sa

from allocsvc.db import models
from allocsvc.placement import sync
from tests.integration.racing import race


def test_concurrent_standard_sync(database):
    with database.engine.begin() as conn:
        conn.execute(models.resource_classes.delete())
        conn.execute(models.traits.delete())
    results = race(*[sync.ensure_standard] * 8)
    assert [r for r in results if isinstance(r, Exception)] == []
    with database.engine.connect() as conn:
        classes = set(conn.execute(
            sa.select(models.resource_classes.c.name)).scalars())
        traits = set(conn.execute(sa.select(models.traits.c.name)).scalars())
    assert classes == set(os_resource_classes.STANDARDS)
    assert traits == set(os_traits.get_traits())
