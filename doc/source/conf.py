"""Sphinx configuration of allocsvc's operator documentation.

Build it from the top of the checkout (``tox -e docs``), where the
option reference finds ``etc/allocsvc/allocsvc-config-generator.conf``:

    sphinx-build -W --keep-going -b html -d doc/build/doctrees \
        doc/source doc/build/html
"""

project = 'allocsvc'
copyright = 'allocsvc developers'
author = 'allocsvc developers'

extensions = [
    # ``show-options``: the configuration reference, from the options
    # themselves (the ``oslo.config.opts`` entry points).
    'oslo_config.sphinxext',
    # ``show-policy``: the policy reference, from the rules
    # (the ``oslo.policy.policies`` entry point).
    'oslo_policy.sphinxext',
]

# The sample files are the committed ones (etc/allocsvc/*.sample, kept
# current by a unit test), included as they are: oslo's sample
# generators for Sphinx would write new files into this directory on
# every build.

exclude_patterns = ['_build']
nitpicky = True
html_theme = 'alabaster'
html_theme_options = {
    'description': 'Placement and bare-metal allocation service',
}
