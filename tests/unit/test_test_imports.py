"""No test module imports another test module.

What tests share (request helpers, application factories, server
processes, waits) lives in ``tests/helpers``; fixtures live in a
``conftest.py``. A test module imported as a library runs its module
code twice under another name, drags its fixtures into the importer's
namespace and hides what the two really share.
"""

import ast
import pathlib

import tests

_TESTS = pathlib.Path(tests.__file__).parent


def _is_test_module(dotted):
    parts = dotted.split('.')
    return parts[0] == 'tests' and parts[-1].startswith('test_')


def _imported_test_modules(tree):
    """The ``tests...test_*`` modules ``tree`` imports, with lines."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_test_module(alias.name):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 \
                and node.module:
            if _is_test_module(node.module):
                yield node.lineno, node.module
            for alias in node.names:
                dotted = '%s.%s' % (node.module, alias.name)
                if _is_test_module(dotted):
                    yield node.lineno, dotted


def _offences(root):
    found = []
    for path in sorted(root.rglob('*.py')):
        tree = ast.parse(path.read_text(), str(path))
        for line, name in _imported_test_modules(tree):
            found.append('%s:%d imports %s'
                         % (path.relative_to(root.parent), line, name))
    return found


def test_no_test_module_imports_another():
    assert _offences(_TESTS) == []


def test_the_check_sees_each_form_of_import(tmp_path):
    root = tmp_path / 'tests'
    root.mkdir()
    (root / 'test_a.py').write_text(
        'from tests.functional import test_v1_nodes as api\n'
        'from tests.functional.test_v1_ports import call\n'
        'import tests.unit.test_query\n'
        'from tests.helpers import v1\n'
        'from tests.functional import conductor_harness\n')
    assert _offences(root) == [
        'tests/test_a.py:1 imports tests.functional.test_v1_nodes',
        'tests/test_a.py:2 imports tests.functional.test_v1_ports',
        'tests/test_a.py:3 imports tests.unit.test_query']
