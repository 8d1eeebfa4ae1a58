"""Gabbi fixtures: data a YAML file needs before its first request.

Each YAML file starts on a clean database (see test_gabbi.py). Fixtures
put the uuids they make into the environment for ``$ENVIRON[...]``.
"""

import os

from gabbi import fixture
from oslo_utils import uuidutils


class APIFixture(fixture.GabbiFixture):
    """Fresh uuids for the resources a file creates over HTTP."""

    def start_fixture(self):
        for name in ('RP_UUID', 'RP_NAME', 'PARENT_PROVIDER_UUID',
                     'ALT_PARENT_PROVIDER_UUID', 'CHILD_UUID',
                     'GRANDCHILD_UUID', 'ALT_RP_UUID', 'AGGA_UUID',
                     'AGGB_UUID', 'AGGC_UUID', 'CONSUMER_UUID',
                     'ALT_CONSUMER_UUID', 'PROJECT_ID', 'USER_ID',
                     'ALT_PROJECT_ID', 'ALT_USER_ID'):
            os.environ[name] = uuidutils.generate_uuid()

    def stop_fixture(self):
        pass
