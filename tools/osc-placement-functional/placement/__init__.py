"""A stand-in for the few modules of OpenStack Placement that
osc-placement's functional tests import (its in-process server fixture
and log capture), so that those tests run unchanged against
allocsvc-all. Used by ../run.sh only; not part of allocsvc."""
