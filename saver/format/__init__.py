"""saver/format."""
