"""``python -m saver`` and the ``tf1-saver`` console script: the command line (see saver/cli/)."""

from __future__ import annotations

import sys
from saver.cli import main as cli_main

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns the exit code."""
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
