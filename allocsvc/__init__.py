"""allocsvc: a Placement-compatible API and a bare-metal allocation
service.

Importing the package selects oslo.service's threading backend.
oslo.messaging imports ``oslo_service.service``, and that import fixes
oslo.service's backend for the life of the process (eventlet unless told
otherwise), so the choice must come before anything loads either
library. allocsvc runs on native threads and never monkey-patches.
"""

import logging as _logging
import os as _os

# eventlet is installed (oslo.service requires it) and futurist imports
# it when it can; allocsvc never uses it, so its green DNS resolver, whose
# import takes a third of a second of every process's start, stays
# unloaded (eventlet's own switch; must precede that import).
_os.environ.setdefault('EVENTLET_NO_GREENDNS', 'yes')

from oslo_service import backend as _service_backend  # noqa: E402

try:
    _service_backend.init_backend(_service_backend.BackendType.THREADING)
except _service_backend.exceptions.BackendAlreadySelected:
    # A tool that loaded oslo.messaging before allocsvc (the sample
    # config generator, say). allocsvc's own commands and WSGI entry
    # point import this package first, so its services never get here.
    _logging.getLogger(__name__).warning(
        'oslo.service backend already selected (%s); allocsvc expects '
        'the threading backend', _service_backend.get_backend_type())
