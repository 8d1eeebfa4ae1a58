#!/usr/bin/env bash
# Set up .venv (if needed) and run the whole service on its embedded
# defaults: SQLite in the working directory, in-process RPC, no other
# services. Extra arguments go to allocsvc-all (e.g. --config-file F).
set -euo pipefail
cd "$(dirname "$0")"
VENV=${VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install -q -r requirements.txt
"$VENV/bin/python" -m pip install -q --no-deps -e .
exec "$VENV/bin/allocsvc-all" "$@"
