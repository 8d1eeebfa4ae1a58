"""What the tests share: ports, waits, server processes, applications
and request helpers. Test modules import from here, never from each
other (tests/unit/test_test_imports.py checks)."""
