"""``tf.app``: ``run`` (absl's app.run, parsing only the flags it knows) and ``flags``."""

from __future__ import annotations

import sys
from collections.abc import Callable

from absl.app import run as _absl_run

from graph.platform import flags

__all__ = ["run", "flags"]


def _parse_flags_tolerate_undef(argv: list[str]) -> list[str]:
    """Parses the flags defined so far and leaves the others in the returned argv (absl would exit on them)."""
    return flags.FLAGS(sys.argv if argv is None else argv, known_only=True)


def run(main: Callable[[list[str]], object] | None = None, argv: list[str] | None = None) -> None:
    """Parses the flags in ``argv`` (default ``sys.argv``), calls ``main(remaining argv)`` and exits with its result.

    ``main`` defaults to the ``main`` function of the ``__main__`` module, as in TensorFlow.
    """
    main = main or sys.modules["__main__"].main
    _absl_run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
