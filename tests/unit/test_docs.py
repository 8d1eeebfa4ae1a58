"""The operator documentation (doc/source) builds without a warning.

Its configuration and policy references are generated from the options
and rules in the code, so a help text or rule description that is not
valid reStructuredText, an option renamed under a page that names it, or
a page left out of the table of contents fails here rather than in a
later documentation build.

oslo's Sphinx extensions ask Sphinx not to turn the warnings of help
texts into errors under ``-W`` (not every Sphinx version obeys), so the
test also requires the warning log to be empty. It runs ``sphinx-build`` as
``tox -e docs`` does, from the top of the checkout, into a temporary
directory; it is skipped when Sphinx is not installed.
"""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))


def test_docs_build_without_warnings(tmp_path):
    pytest.importorskip('sphinx')
    warnings = tmp_path / 'warnings.txt'
    result = subprocess.run(
        [sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-q',
         '-b', 'html', '-w', str(warnings),
         '-d', str(tmp_path / 'doctrees'),
         os.path.join('doc', 'source'), str(tmp_path / 'html')],
        cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert warnings.read_text() == '', warnings.read_text()
