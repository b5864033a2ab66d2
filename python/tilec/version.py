"""tilec's version: one place, read by the package, the cache keys and the AOT metadata."""
__version__ = "0.1.0"
