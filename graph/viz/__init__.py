"""graph/viz."""
