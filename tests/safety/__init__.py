"""Test package (named so that test modules in different folders may share a basename)."""
