"""graph/io."""
