"""graph/base."""
