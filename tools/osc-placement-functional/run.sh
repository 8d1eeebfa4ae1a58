#!/usr/bin/env bash
# Run osc-placement's own functional tests (about 160, each against a
# fresh allocsvc-all on an empty SQLite database) unchanged: they import
# Placement's server fixture, which placement/ here stands in for. A few
# minutes; not part of ./run-tests.sh.
#
#   tools/osc-placement-functional/run.sh [pytest arguments]
#
# Env: ALLOCSVC_ALL (default: .venv/bin/allocsvc-all of this checkout),
#      WORK (scratch folder with the client's virtualenv).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export ALLOCSVC_ALL=${ALLOCSVC_ALL:-$top/.venv/bin/allocsvc-all}
[ -x "$ALLOCSVC_ALL" ] || { echo "no allocsvc-all at $ALLOCSVC_ALL (run ./run-tests.sh first)" >&2; exit 2; }
work=${WORK:-${TMPDIR:-/tmp}/osc-placement-functional}
venv=$work/venv
if [ ! -f "$venv/.ok" ]; then
    rm -rf "$venv"; python3 -m venv "$venv"
    "$venv/bin/pip" install -q osc-placement python-openstackclient oslotest pytest
    touch "$venv/.ok"
fi
tests=$("$venv/bin/python" -c 'import os, osc_placement; print(os.path.join(os.path.dirname(osc_placement.__file__), "tests", "functional"))')
# test_plugin runs `openstack --help` from PATH.
cd "$work"
PATH=$venv/bin:$PATH PYTHONPATH=$here exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$tests" "$@"
