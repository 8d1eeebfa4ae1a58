"""Building blocks of ``placement_bench.py``: an HTTP client, the servers
and databases it starts, the four scenarios, and the report."""
