"""Runs every gabbi YAML file in gabbits/ against the Placement API, once
per database backend, each file on a clean database.

One pytest test per (file, backend); a failure lists the failing gabbi
requests with their errors.
"""

import os
import unittest

from gabbi import handlers
from gabbi import suitemaker
from gabbi import utils as gabbi_utils
import pytest

from tests import backends
from tests import conftest
from tests.functional import fixtures
from tests.helpers import apps

GABBITS = os.path.join(os.path.dirname(__file__), 'gabbits')
FILES = sorted(f[:-5] for f in os.listdir(GABBITS) if f.endswith('.yaml'))


def _run_file(name):
    # gabbi asks for the application once per request: one for the file,
    # as one server answers a client's requests.
    app = apps.placement(conftest.make_conf())

    def intercept():
        return app

    suite_dict = gabbi_utils.load_yaml(
        yaml_file=os.path.join(GABBITS, name + '.yaml'))
    suite = suitemaker.test_suite_from_dict(
        unittest.TestLoader(), name.replace('-', '_'), suite_dict, GABBITS,
        'placement.test', None, fixtures, intercept,
        handlers=[handler() for handler in handlers.RESPONSE_HANDLERS])
    result = unittest.TestResult()
    suite.run(result)
    return result


@pytest.mark.parametrize('backend', backends.BACKENDS)
@pytest.mark.parametrize('name', FILES)
def test_gabbi(name, backend):
    db = conftest.get_database(backend)
    db.clean()
    result = _run_file(name)
    problems = ['%s\n%s' % (test.id(), trace)
                for test, trace in result.failures + result.errors]
    assert not problems, '\n\n'.join(problems)
    assert result.testsRun > 0
