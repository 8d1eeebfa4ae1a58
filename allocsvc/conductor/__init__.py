"""The bare-metal conductor: it makes every change of a node, port and
allocation the API asks for, and finishes the allocations the API
writes.

* ``rpcapi``        the client the API uses (pick a conductor, cast an
                    allocation, call every node, port and allocation
                    change); it imports nothing else of the conductor
                    but ``hash_ring``
* ``manager``       the RPC endpoint and the worker pool; resume and
                    take-over of allocations
* ``node_actions``  the endpoint's console, RAID, boot mode and virtual
                    media methods
* ``allocations``   the allocation algorithm, in named stages, and
                    backfill
* ``backends``      where the algorithm finds nodes: the nodes table or
                    the Placement engine
* ``provisioning``  the rules of creating, updating and deleting nodes,
                    maintenance, power, traits, deleting allocations
* ``verbs``         the provisioning verbs on the node state machine
* ``node_fields``   the rules of a node's own fields
* ``port_rules``    the rules of changing ports and port groups
* ``vifs``          VIFs attached to a node's ports and port groups
* ``management``    what fake-hardware's management, console and RAID
                    interfaces change
* ``locking``       holding a node's lock around a change, and waiting
                    for it
* ``mirror``        the writes that change a node row and its resource
                    provider in one transaction
* ``service``       the oslo.service service: registration, RPC server,
                    heartbeat and the periodic check
* ``coordination``  tooz group membership, a second source of liveness
* ``hash_ring``     which conductor serves a node

Nothing here reads configuration at import time; ``allocsvc-conductor``
(``allocsvc.cmd.conductor``) and ``allocsvc-all`` pass it in.
"""
