"""WSGI middleware of the bare-metal (``/v1``) pipeline.

The layers are put together, with a comment each, in
``allocsvc.api.app.baremetal_app``.
"""
