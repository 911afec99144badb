"""graph/runtime."""
