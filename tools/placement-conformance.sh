#!/usr/bin/env bash
# Run upstream OpenStack Placement's own gabbi API tests (79 files, about
# 1,300 requests) black-box against this checkout's allocsvc-all, a fresh
# server and SQLite database per file, with the policy, RBAC or CORS
# profile each file needs. It takes a few minutes, so it is not part of
# ./run-tests.sh; run it before changing the Placement API or engine.
#
#   tools/placement-conformance.sh                      # every file
#   tools/placement-conformance.sh --only 'inventory*.yaml' -v
#
# The runner is the workplace's shared one (it downloads gabbi and the
# openstack-placement release with pip at run time); set
# PLACEMENT_CONFORMANCE to its run.sh if it is not at
# ../shared/tools/placement-conformance/run.sh beside this checkout.
# Exit status 0 only when no test failed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
runner=${PLACEMENT_CONFORMANCE:-$top/../shared/tools/placement-conformance/run.sh}
if [ ! -x "$runner" ] && [ ! -f "$runner" ]; then
    echo "no conformance runner at $runner (set PLACEMENT_CONFORMANCE)" >&2
    exit 2
fi
# The server under test is this checkout, installed as run-tests.sh does.
if [ -z "${ALLOCSVC_ALL:-}" ]; then
    VENV=${VENV:-.venv}
    if [ ! -x "$VENV/bin/allocsvc-all" ]; then
        [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
        "$VENV/bin/python" -m pip install -q -r requirements.txt
        "$VENV/bin/python" -m pip install -q --no-deps -e .
    fi
    export ALLOCSVC_ALL=$top/$VENV/bin/allocsvc-all
fi
exec bash "$runner" "$@"
