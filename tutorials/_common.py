"""Shared by the tutorials: the working directory (``--dir`` or a temporary one) and section headings."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # run from a checkout without installing: `python tutorials/01_variables.py`
    sys.path.insert(0, ROOT)
TF2_GUIDE_CHECKPOINT = os.path.join(ROOT, "tests", "data", "tf2_guide")


@contextlib.contextmanager
def workdir(description: str):
    """Parses ``--dir``; yields that directory, or a temporary one removed at the end."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--dir", help="write files here (default: a temporary directory, removed at the end)")
    args = parser.parse_args()
    if args.dir:
        os.makedirs(args.dir, exist_ok=True)
        yield os.path.abspath(args.dir)
        return
    with tempfile.TemporaryDirectory(prefix="tf1-tutorial-") as directory:
        yield directory


def section(title: str) -> None:
    """Prints a heading."""
    print(f"\n== {title} ==")
