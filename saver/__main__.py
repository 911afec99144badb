"""``python -m saver`` and the ``tf1-saver`` console script: the command line (see saver/cli/)."""

from __future__ import annotations

import sys
from typing import List, Optional

__all__ = ["main"]


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line; returns the exit code."""
    from saver.cli import main as cli_main
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
