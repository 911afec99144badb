"""Compatibility faces: ``graph.compat.v1`` mirrors ``tensorflow.compat.v1``."""
