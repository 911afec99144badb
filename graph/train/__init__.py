"""graph/train."""
