"""saver/graph_ops."""
