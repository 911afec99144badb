"""graph/ops."""
