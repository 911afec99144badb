"""Test package (named so that test modules in different folders may share a basename)."""

import os

TEST_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
