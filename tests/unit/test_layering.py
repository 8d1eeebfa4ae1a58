"""The dependency rules of DESIGN.md, checked on the source.

The layers, bottom up: ``common`` (a leaf: options, exceptions, states,
policy, RPC set-up), ``db`` (persistence only), the Placement engine
(``placement``, on ``db``), ``objects`` (on ``db``), the ``conductor``
(which composes them: a node row and its resource provider in one
transaction, the node lock, the rules of changing nodes), and the
``api`` on top, which changes bare-metal nodes and allocations only
through the conductor's RPC client, as Ironic's API does. Nothing
imports ``api`` or ``cmd``. The migrations carry frozen copies of what
they need rather than importing live code. The ``openstack`` commands
(``osc``) are a client of the service and import none of it.
"""

import ast
import pathlib
import sys

import pytest

import allocsvc

_ROOT = pathlib.Path(allocsvc.__file__).parent

# (package, the allocsvc modules it may not import, why)
RULES = [
    ('allocsvc.common',
     ('allocsvc.api', 'allocsvc.cmd', 'allocsvc.conductor', 'allocsvc.db',
      'allocsvc.objects', 'allocsvc.placement'),
     'common is a leaf'),
    ('allocsvc.db',
     ('allocsvc.api', 'allocsvc.cmd', 'allocsvc.conductor',
      'allocsvc.objects', 'allocsvc.placement'),
     'the database layer is persistence only'),
    ('allocsvc.db.migrations',
     ('allocsvc',),
     'a migration carries a frozen copy of what it needs'),
    ('allocsvc.placement',
     ('allocsvc.api', 'allocsvc.cmd', 'allocsvc.conductor',
      'allocsvc.objects'),
     'the engine sits on the database, under the API and the conductor'),
    ('allocsvc.objects',
     ('allocsvc.api', 'allocsvc.cmd', 'allocsvc.conductor',
      'allocsvc.placement'),
     'objects carry records across RPC'),
    ('allocsvc.conductor',
     ('allocsvc.api', 'allocsvc.cmd'),
     'the conductor serves the API, never the other way round'),
    ('allocsvc.api',
     ('allocsvc.cmd', 'allocsvc.db'),
     'the API reads through objects and the engine'),
    ('allocsvc.osc',
     ('allocsvc.api', 'allocsvc.cmd', 'allocsvc.common',
      'allocsvc.conductor', 'allocsvc.db', 'allocsvc.objects',
      'allocsvc.placement'),
     'the CLI commands are a client: they talk to the service over HTTP'),
]

# What the API may import of the conductor: its RPC client (the
# package's own name comes with ``from allocsvc.conductor import x``);
# and what the client may import of the rest of the conductor: the hash
# ring and its guard against peers that do not answer.
API_CONDUCTOR_MODULES = {'allocsvc.conductor', 'allocsvc.conductor.rpcapi'}
CLIENT_CONDUCTOR_MODULES = {'allocsvc.conductor',
                            'allocsvc.conductor.hash_ring',
                            'allocsvc.conductor.call_guard'}


def _modules(package):
    root = _ROOT.parent.joinpath(*package.split('.'))
    for path in sorted(root.rglob('*.py')):
        parts = path.relative_to(_ROOT.parent).with_suffix('').parts
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


def _within(name, package):
    return name == package or name.startswith(package + '.')


def _offences(package, forbidden, own=None):
    """``module imports name`` for each import of a module of
    ``package`` that falls under one of ``forbidden`` (other than
    ``package`` itself and ``own``: a rule on ``allocsvc`` as a whole
    does not forbid the package its own modules)."""
    found = []
    for path, module, is_package in _modules(package):
        tree = ast.parse(path.read_text(), str(path))
        for name in _imported(tree, module, is_package):
            if _within(name, package) or (own and _within(name, own)):
                continue
            if name == 'allocsvc' and 'allocsvc' not in forbidden:
                # ``from allocsvc import x``: judged as allocsvc.x.
                continue
            if any(_within(name, bad) for bad in forbidden):
                found.append('%s imports %s' % (module, name))
    return found


@pytest.mark.parametrize('package,forbidden,why', RULES,
                         ids=[rule[0] for rule in RULES])
def test_layer_rule(package, forbidden, why):
    assert not _offences(package, forbidden), why


def test_the_api_uses_only_the_conductors_rpc_client():
    used = set()
    for path, module, is_package in _modules('allocsvc.api'):
        tree = ast.parse(path.read_text(), str(path))
        used.update(name for name in _imported(tree, module, is_package)
                    if _within(name, 'allocsvc.conductor'))
    assert used <= API_CONDUCTOR_MODULES
    # And the client brings in nothing more of the conductor.
    client = [name for name in _imports_of('allocsvc.conductor.rpcapi')
              if _within(name, 'allocsvc.conductor')]
    assert set(client) <= CLIENT_CONDUCTOR_MODULES


def _imports_of(module):
    path = _ROOT.parent.joinpath(*module.split('.')).with_suffix('.py')
    return list(_imported(ast.parse(path.read_text()), module, False))


def test_modules_are_found():
    names = {name for _path, name, _pkg in _modules('allocsvc.placement')}
    assert 'allocsvc.placement' in names
    assert 'allocsvc.placement.candidates.request' in names
    assert any(name.startswith('allocsvc.db.migrations.versions.')
               for _path, name, _pkg in _modules('allocsvc.db.migrations'))


def test_the_check_sees_every_import_form():
    source = ('import allocsvc.api.app\n'
              'from allocsvc import api\n'
              'from allocsvc.api.controllers import placement\n'
              'from ...api import wsgi\n')
    found = [name for name in _imported(
        ast.parse(source), 'allocsvc.placement.candidates.x', False)
        if _within(name, 'allocsvc.api')]
    assert found == ['allocsvc.api.app', 'allocsvc.api',
                     'allocsvc.api.controllers',
                     'allocsvc.api.controllers.placement',
                     'allocsvc.api', 'allocsvc.api.wsgi']


@pytest.mark.parametrize('package,forbidden,source', [
    # The database layer reaching up to the engine, as it once did to
    # mirror node writes.
    ('allocsvc.db', RULES[1][1],
     'from allocsvc.placement import node_providers\n'),
    ('allocsvc.common', RULES[0][1],
     'from allocsvc.objects import base\n'),
    ('allocsvc.db.migrations', RULES[2][1],
     '    from allocsvc.db import models\n'),
])
def test_a_violation_is_caught(tmp_path, monkeypatch, package, forbidden,
                               source):
    """Each rule fails on a deliberate violation: a module of ``package``
    with ``source`` in a copy of the tree."""
    copy = tmp_path / 'allocsvc'
    root = copy.joinpath(*package.split('.')[1:])
    root.mkdir(parents=True)
    (root / '__init__.py').write_text('')
    (root / 'offender.py').write_text('def f():\n' + (
        source if source.startswith(' ') else '    ' + source))
    monkeypatch.setattr(sys.modules[__name__], '_ROOT', copy)
    assert _offences(package, forbidden) == [
        '%s.offender imports %s' % (package, name)
        for name in _expected_names(source)]


def _expected_names(source):
    tree = ast.parse('def f():\n' + (
        source if source.startswith(' ') else '    ' + source))
    return list(_imported(tree, 'x.y', False))
