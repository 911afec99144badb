"""graph/variables."""
