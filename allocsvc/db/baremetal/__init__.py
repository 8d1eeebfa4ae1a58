"""The bare-metal DB API: nodes, allocations, conductors, node locks,
ports and chassis.

One module per resource, each function one transaction (``@reader`` /
``@writer`` of ``allocsvc.db.api``), SQLAlchemy Core, records with
``__slots__``:

* ``nodes``        node CRUD, filtered/paged lists, traits
* ``allocations``  allocation CRUD, state transitions, bind to a node,
                   take-over by compare-and-swap on conductor_affinity
* ``candidates``   the nodes an allocation may take (traits in SQL)
* ``locking``      node reservation lock (compare-and-swap) and
                   its context manager
* ``conductors``   registration, heartbeat, liveness
* ``ports``        ports and port groups: reads, lists, writes
* ``port_rules``   Ironic's rules of changing them, under the node lock
* ``chassis``      chassis CRUD (no node lock: not node state), paged
                   lists; a chassis with nodes is not deleted
* ``exception``    the errors, with Ironic's messages
"""
