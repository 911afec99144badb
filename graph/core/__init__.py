"""graph/core."""
