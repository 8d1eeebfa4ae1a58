"""The WSGI application as a module attribute, ``application``.

For WSGI servers that load a file or a module and look for an
``application`` in it rather than call a factory: uwsgi's ``wsgi-file``
or ``module`` (the devstack plugin runs it so), mod_wsgi. Importing this
module builds the application with ``allocsvc.api.wsgi.init_application``
(configuration file from ``ALLOCSVC_CONFIG_FILE``); nothing in allocsvc
imports it. pbr's ``allocsvc-wsgi`` script does the same, but only a
regular install writes that script, an editable one (``pip install -e``,
devstack's ``setup_develop``) does not.
"""

from allocsvc.api import wsgi

application = wsgi.init_application()
