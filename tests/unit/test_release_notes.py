"""The release notes pass ``reno lint``: known section names, no two
notes with one UID, each note a YAML mapping of strings (reno reads the
notes of the working tree and the git history, so this needs a git
checkout)."""

import os
import pathlib
import subprocess
import sys

import pytest

_ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_reno_lint_is_clean():
    if not (_ROOT / '.git').exists():
        pytest.skip('reno reads the git history: %s is not a git checkout'
                    % _ROOT)
    reno = os.path.join(os.path.dirname(sys.executable), 'reno')
    # -q: only reno's complaints (warnings) are printed.
    result = subprocess.run([reno, '-q', 'lint'], cwd=_ROOT,
                            capture_output=True, text=True, timeout=300)
    complaints = (result.stdout + result.stderr).strip()
    assert result.returncode == 0 and not complaints, (
        'reno lint (exit %d):\n%s' % (result.returncode, complaints))
