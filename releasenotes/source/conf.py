# Sphinx configuration of allocsvc's release notes, which reno assembles
# from releasenotes/notes and the git history (tox -e releasenotes).

extensions = [
    'reno.sphinxext',
]

project = 'allocsvc Release Notes'
copyright = 'allocsvc developers'
author = 'allocsvc developers'

# The notes carry their own versions (from git tags); the book has none.
version = ''
release = ''

root_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
language = 'en'
templates_path = ['_templates']
exclude_patterns = []
pygments_style = 'sphinx'

html_theme = 'alabaster'
html_static_path = ['_static']
htmlhelp_basename = 'allocsvcReleaseNotesdoc'
