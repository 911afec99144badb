"""The command line (``python -m saver`` / ``tf1-saver``): parsing, dispatch, exit codes, error lines.

Commands live one noun per module: ``listing`` (inspect, tree), ``diff``, ``edit`` (rename, drop,
keep), ``convert`` (export, import), ``draw`` (picture, meta).  Bad input ends with one line on
standard error naming the file or key and what is wrong, and an exit code from ``output``; set
``--debug`` (or ``TF1_SAVER_DEBUG=1``) to see the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from graph import errors
from graph.viz.figure import GraphvizNotFoundError
from saver.cli import convert, diff, draw, edit, listing
from saver.cli.output import (EXIT_DAMAGED, EXIT_DIFFERENT, EXIT_INTERRUPTED, EXIT_MISSING_FEATURE,
                              EXIT_NOT_FOUND, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, CliError, one_line)

__all__ = ["main", "build_parser", "EXIT_CODES"]

PROGRAM = "tf1-saver"
EXIT_CODES = {
    EXIT_OK: "success",
    EXIT_DIFFERENT: "diff: the checkpoints differ",
    EXIT_USAGE: "bad arguments or values (usage error)",
    EXIT_NOT_FOUND: "not found: checkpoint, file, tensor key, pattern match or object graph",
    EXIT_DAMAGED: "the input exists but cannot be read (corrupt, truncated, wrong format)",
    EXIT_MISSING_FEATURE: "an optional package or program is missing (fsspec backend, Graphviz)",
    EXIT_REFUSED: "refused: the output exists (use --force) or two keys would get the same name",
    EXIT_INTERRUPTED: "interrupted",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    codes = "\n".join(f"  {code:3d}  {meaning}" for code, meaning in EXIT_CODES.items())
    parser = argparse.ArgumentParser(
        prog=PROGRAM, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read, compare, edit, convert and draw TensorFlow checkpoints without TensorFlow.\n"
                    "Checkpoints are prefixes (model.ckpt-100), directories with a 'checkpoint' file, one of "
                    "their files, or fsspec URLs (memory://, s3://, ...).",
        epilog=f"exit codes:\n{codes}\n\nexample: {PROGRAM} inspect train_dir/ ; {PROGRAM} <command> --help")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="machine-readable output")
    bars = common.add_mutually_exclusive_group()
    bars.add_argument("--progress", dest="progress", action="store_const", const=True, default=None,
                      help="always show progress bars (needs tqdm)")
    bars.add_argument("--no-progress", dest="progress", action="store_const", const=False,
                      help="never show progress bars")
    common.add_argument("--debug", action="store_true", help="show tracebacks instead of one-line errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module in (listing, diff, edit, convert, draw):
        module.add_parsers(subparsers, common)
    return parser


def _exit_code(error: BaseException) -> int | None:
    """The exit code for an error caused by bad input, or None for a bug (traceback shown)."""
    if isinstance(error, CliError):
        return error.code
    if isinstance(error, (GraphvizNotFoundError, ImportError)):
        return EXIT_MISSING_FEATURE
    if isinstance(error, (errors.NotFoundError, FileNotFoundError, IsADirectoryError, NotADirectoryError)):
        return EXIT_NOT_FOUND
    if isinstance(error, (errors.DataLossError, errors.UnimplementedError, UnicodeDecodeError)):
        return EXIT_DAMAGED
    if isinstance(error, (errors.OpError, ValueError, PermissionError)):
        return EXIT_USAGE
    if isinstance(error, OSError):
        return EXIT_DAMAGED
    return None


def _message(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    if not isinstance(error, CliError):
        text = f"{type(error).__name__}: {text}"
    return one_line(text)


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Runs one command; returns the exit code (see EXIT_CODES)."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:  # --help or a usage error already printed by argparse
        return int(exit_request.code or 0)
    debug = args.debug or os.environ.get("TF1_SAVER_DEBUG") == "1"
    try:
        return args.run(args, out)
    except KeyboardInterrupt:
        err.write(f"{PROGRAM}: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `tf1-saver inspect ... | head`
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silences the flush at exit
        except OSError:
            pass
        return EXIT_OK
    except Exception as error:  # noqa: BLE001 - mapped to one line and an exit code below
        code = _exit_code(error)
        if code is None or debug:
            raise
        err.write(f"{PROGRAM} {args.command}: error: {_message(error)}\n")
        return code


__all__ += ["EXIT_OK", "EXIT_DIFFERENT", "EXIT_USAGE", "EXIT_NOT_FOUND", "EXIT_DAMAGED", "EXIT_MISSING_FEATURE",
            "EXIT_REFUSED", "EXIT_INTERRUPTED"]
