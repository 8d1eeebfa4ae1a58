#!/usr/bin/env bash
# Set up .venv (if needed) and run the whole test suite with pytest, one
# worker per core and one more (pytest-xdist; TEST_WORKERS sets another
# count, 0 runs in this process; a module whose tests share one service
# keeps to one worker). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
VENV=${VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install -q -r requirements.txt -r test-requirements.txt
"$VENV/bin/python" -m pip install -q --no-deps -e .
# The extra worker runs while others wait on the services and processes
# their tests start.
workers=${TEST_WORKERS:-$("$VENV/bin/python" -c 'import os; print((os.cpu_count() or 1) + 1)')}
exec "$VENV/bin/python" -m pytest -n "$workers" --dist loadgroup "$@"
