"""The bare-metal conductor: it finishes the allocations the API writes.

* ``rpcapi``        the client the API uses (pick a conductor, cast an
                    allocation, call a backfill)
* ``manager``       the RPC endpoint and the worker pool; resume and
                    take-over of allocations
* ``allocations``   the allocation algorithm, in named stages, and
                    backfill
* ``service``       the oslo.service service: registration, RPC server,
                    heartbeat and the periodic check
* ``coordination``  tooz group membership, a second source of liveness

Nothing here reads configuration at import time; ``allocsvc-conductor``
(``allocsvc.cmd.conductor``) and ``allocsvc-all`` pass it in.
"""
