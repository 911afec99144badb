"""graph/proto."""
