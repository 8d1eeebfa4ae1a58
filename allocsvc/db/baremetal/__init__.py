"""The bare-metal database layer: persistence only.

One module per resource, SQLAlchemy Core, records with ``__slots__``;
each public function is one transaction (``@reader`` / ``@writer`` of
``allocsvc.db.api``, which retry the outermost transaction on a deadlock
or a lost connection), except the ``*_in_transaction`` ones, which run
in their caller's. Nothing here imports the engine, the conductor or
the objects: the conductor composes these functions with the engine's
mirror of nodes (``allocsvc.conductor.mirror``) and applies the rules
of changing them (``allocsvc.conductor.provisioning`` and its
neighbours).

* ``nodes``        node CRUD, filtered/paged lists, traits, shards
* ``allocations``  allocation CRUD, state transitions, binding to a
                   node, take-over by compare-and-swap on
                   conductor_affinity
* ``candidates``   the nodes an allocation may take (traits in SQL), and
                   why none fits
* ``node_locks``   the node lock's compare-and-swap statements on
                   ``nodes.reservation``
* ``conductors``   registration, heartbeat, liveness
* ``ports``        ports and port groups: reads, lists, writes
* ``chassis``      chassis CRUD, paged lists; a chassis with nodes is
                   not deleted
* ``paging``       markers, limits and sort keys of the paged lists
"""
