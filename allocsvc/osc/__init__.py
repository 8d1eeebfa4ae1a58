"""allocsvc's commands for the OpenStack CLI (``openstack ...``).

Client side only: nothing here imports the service. The commands are
registered, by entry points in ``setup.cfg``, in the command groups of
the CLI plugins they extend (osc-placement's ``openstack.placement.v1``
and python-ironicclient's ``openstack.baremetal.v1``), so that they use
those plugins' clients: the same endpoint, authentication and
microversion options as the commands beside them.
"""
