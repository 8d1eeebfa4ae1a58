"""JSON Schemas of Placement request bodies and query strings, one module
per resource, each microversion's schema derived from the previous one."""
