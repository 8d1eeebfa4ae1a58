#!/usr/bin/env bash
# Run openstacksdk's own functional bare-metal tests (the ones its
# developers run against Ironic) black-box against this checkout's
# allocsvc-all: see tools/baremetal_conformance.py. It takes a few
# minutes, so it is not part of ./run-tests.sh; run it before changing
# the /v1 API. Arguments go to the runner, e.g.
#
#   tools/baremetal-conformance.sh --only test_port.py -- -x -v
#
# Exit status 0 only when no test failed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
VENV=${VENV:-.venv}
if [ ! -x "$VENV/bin/allocsvc-all" ] || [ ! -x "$VENV/bin/pytest" ]; then
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q -r requirements.txt \
        -r test-requirements.txt
    "$VENV/bin/python" -m pip install -q --no-deps -e .
fi
export ALLOCSVC_ALL=${ALLOCSVC_ALL:-$top/$VENV/bin/allocsvc-all}
exec "$VENV/bin/python" tools/baremetal_conformance.py "$@"
