"""saver/storage."""
