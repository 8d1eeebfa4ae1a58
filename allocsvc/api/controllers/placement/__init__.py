"""The Placement HTTP API: thin handlers over ``allocsvc.placement``."""
