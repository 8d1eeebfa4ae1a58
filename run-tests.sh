#!/usr/bin/env bash
# Set up .venv (if needed) and run the whole test suite with pytest, one
# worker per core and one more (pytest-xdist; TEST_WORKERS sets another
# count, 0 runs in this process; a module whose tests share one service
# keeps to one worker), then the fault-injection scenarios alone. Extra
# arguments go to pytest (given paths, only those tests run).
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
# Given paths: those tests, as asked.
for arg in "$@"; do
    if [ -e "$arg" ]; then
        exec "$VENV/bin/python" -m pytest -n "$workers" --dist loadgroup "$@"
    fi
done
# The fault-injection scenarios bound every request's latency at the
# client: they run alone, after the rest, so that the bound measures the
# service and not the other tests' load on the machine (under the whole
# suite, requests queued seconds for the CPU).
faults=tests/integration/test_fault_injection.py
status=0
"$VENV/bin/python" -m pytest -n "$workers" --dist loadgroup \
    --ignore="$faults" "$@" || status=$?
alone=0
"$VENV/bin/python" -m pytest "$@" "$faults" || alone=$?
# 5: nothing selected (e.g. -m "not slow").
if [ "$alone" -ne 0 ] && [ "$alone" -ne 5 ] && [ "$status" -eq 0 ]; then
    status=$alone
fi
exit "$status"
