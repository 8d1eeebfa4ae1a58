"""oslo.versionedobjects for what crosses RPC: Node, Allocation,
Conductor, Port, Portgroup; and Chassis, which the API writes itself
(it is not node state).

Thin wrappers over ``allocsvc.db.baremetal``: they carry fields and
versions across oslo.messaging and hold no business logic (that lives in
the conductor). ``register_all()`` imports them; the registry then
exposes each class here, as ``objects.Node`` and so on.
"""


def register_all():
    __import__('allocsvc.objects.allocation')
    __import__('allocsvc.objects.chassis')
    __import__('allocsvc.objects.conductor')
    __import__('allocsvc.objects.node')
    __import__('allocsvc.objects.port')
