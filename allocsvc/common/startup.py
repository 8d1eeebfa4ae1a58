"""What a long-running process does once it has started.

An API worker or a conductor builds hundreds of thousands of objects
while it starts (modules, configuration, the WSGI pipeline, SQLAlchemy
tables, policy rules) and keeps all of them for its whole life. Left in
the collector's generations, every full collection walks them again;
under load, collections triggered by request work took a sizeable share
of the API's CPU. ``gc.freeze`` moves them to the permanent generation,
which the collector never scans. Objects made later are collected as
usual.
"""

import gc


def freeze_startup_objects():
    """Collect once, then exclude every surviving object from later
    collections. Call it when start-up is over (it may be called again;
    each call freezes what exists by then)."""
    gc.collect()
    gc.freeze()
