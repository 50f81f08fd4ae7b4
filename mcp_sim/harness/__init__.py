"""Harness shims: Python source, written from a world's tools and JSON Schemas, that plugs
the world into a harness library (``mcp-sim harness``)."""
