"""The dependency rules of DESIGN.md, checked on the source:

* the Placement engine (allocsvc/placement) never imports the API
  (allocsvc/api): the engine is used by the conductor too, and an engine
  module reaching into a handler's helpers would tie it to HTTP;
* the API never imports the database layer (allocsvc/db): it reads
  through allocsvc.objects (or the Placement engine) and changes
  bare-metal nodes and allocations only through the conductor's RPC
  API, as Ironic's API does.
"""

import ast
import pathlib

import allocsvc.api
import allocsvc.placement

_FORBIDDEN = 'allocsvc.api'


def _modules(package=allocsvc.placement):
    root = pathlib.Path(package.__file__).parent
    for path in sorted(root.rglob('*.py')):
        parts = path.relative_to(root.parent.parent).with_suffix('').parts
        if parts[-1] == '__init__':
            parts = parts[:-1]
        yield path, '.'.join(parts), path.name == '__init__.py'


def _imported(tree, module, is_package):
    """Every module name ``tree`` imports (relative imports resolved),
    and for ``from X import Y`` also X.Y (Y may be a module)."""
    package = module if is_package else module.rpartition('.')[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                anchor = package.split('.')
                anchor = anchor[:len(anchor) - node.level + 1]
                base = '.'.join(anchor + ([base] if base else []))
            yield base
            for alias in node.names:
                yield '%s.%s' % (base, alias.name)


def _is_api(name):
    return name == _FORBIDDEN or name.startswith(_FORBIDDEN + '.')


def test_engine_modules_are_found():
    names = {name for _path, name, _pkg in _modules()}
    assert 'allocsvc.placement' in names
    assert 'allocsvc.placement.candidates.request' in names


def test_engine_never_imports_the_api():
    offenders = []
    for path, module, is_package in _modules():
        tree = ast.parse(path.read_text(), str(path))
        offenders.extend('%s imports %s' % (module, name)
                         for name in _imported(tree, module, is_package)
                         if _is_api(name))
    assert not offenders


def test_the_check_sees_every_import_form():
    source = ('import allocsvc.api.app\n'
              'from allocsvc import api\n'
              'from allocsvc.api.controllers import placement\n'
              'from ...api import wsgi\n')
    found = [name for name in _imported(
        ast.parse(source), 'allocsvc.placement.candidates.x', False)
        if _is_api(name)]
    assert found == ['allocsvc.api.app', 'allocsvc.api',
                     'allocsvc.api.controllers',
                     'allocsvc.api.controllers.placement',
                     'allocsvc.api', 'allocsvc.api.wsgi']


def test_api_never_imports_the_database_layer():
    offenders = []
    for path, module, is_package in _modules(allocsvc.api):
        tree = ast.parse(path.read_text(), str(path))
        offenders.extend('%s imports %s' % (module, name)
                         for name in _imported(tree, module, is_package)
                         if name == 'allocsvc.db' or
                         name.startswith('allocsvc.db.'))
    assert not offenders
