"""The command line (``python -m saver`` / ``tf1-saver``): parsing, dispatch, exit codes, error lines.

Commands live one noun per module: ``listing`` (inspect, tree), ``diff``, ``edit`` (rename, drop,
keep), ``convert`` (export, import), ``draw`` (picture, meta).  Bad input ends with one line on
standard error naming the file or key and what is wrong, and an exit code from ``output``; set
``--debug`` (or ``TF1_SAVER_DEBUG=1``) to see the traceback instead.

Every command maps errors to exit codes by their class, in one place (:func:`exit_code`)::

    CliError                                       its own code
    NotFoundError, FileNotFoundError               3 not found
    DataLossError, UnimplementedError,             4 the input exists but cannot be read
      FailedPreconditionError, UnicodeDecodeError    (corrupt, wrong format, a directory / FIFO / device)
    ImportError, GraphvizNotFoundError             5 missing optional feature
    PermissionDeniedError, ResourceExhaustedError, 7 I/O failure (disk full, permission denied,
      OutOfRangeError, UnknownError, OSError         read-only file system, EIO), naming the real file
    other OpError, ValueError                      2 usage
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import TextIO

from graph import errors
from graph.platform import file_io
from graph.viz.figure import GraphvizNotFoundError
from saver.cli import convert, diff, draw, edit, listing, object_based
from saver.cli.output import (EXIT_DAMAGED, EXIT_DIFFERENT, EXIT_INTERRUPTED, EXIT_IO, EXIT_MISSING_FEATURE,
                              EXIT_NOT_FOUND, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, CliError, one_line, real_file_name)

__all__ = ["main", "build_parser", "exit_code", "EXIT_CODES"]

PROGRAM = "tf1-saver"
EXIT_CODES = {
    EXIT_OK: "success",
    EXIT_DIFFERENT: "diff: the checkpoints differ",
    EXIT_USAGE: "bad arguments or values (usage error)",
    EXIT_NOT_FOUND: "not found: checkpoint, file, tensor key, pattern match or object graph",
    EXIT_DAMAGED: "the input exists but cannot be read (corrupt, truncated, wrong format, not a regular file)",
    EXIT_MISSING_FEATURE: "an optional package or program is missing (fsspec backend, Graphviz)",
    EXIT_REFUSED: "refused: the output exists (use --force) or two keys would get the same name",
    EXIT_IO: "I/O failure: disk full, permission denied, read-only file system, device error (names the file)",
    EXIT_INTERRUPTED: "interrupted",
}


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line (the usage is one ``--help`` away)."""

    def error(self, message: str):
        """Prints ``PROG: error: MESSAGE (see PROG --help)`` and exits with EXIT_USAGE."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    codes = "\n".join(f"  {code:3d}  {meaning}" for code, meaning in EXIT_CODES.items())
    parser = _Parser(
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
    common.add_argument("--durable", action="store_true",
                        help="fsync what is written (data, index, directory, then state file) before it is named, "
                             "so a power cut keeps the previous checkpoint (also TF1_SAVER_DURABLE=1)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for module in (listing, diff, edit, convert, draw, object_based):
        module.add_parsers(subparsers, common)
    return parser


_IO_ERRORS = (errors.PermissionDeniedError, errors.ResourceExhaustedError, errors.OutOfRangeError,
              errors.UnknownError, errors.UnavailableError, errors.AbortedError, PermissionError)


def exit_code(error: BaseException) -> int | None:
    """The exit code for an error caused by bad input or the file system, None for a bug (traceback shown)."""
    if isinstance(error, CliError):
        return error.code
    if isinstance(error, (GraphvizNotFoundError, ImportError)):
        return EXIT_MISSING_FEATURE
    if isinstance(error, (errors.NotFoundError, FileNotFoundError)):
        return EXIT_NOT_FOUND
    if isinstance(error, (errors.DataLossError, errors.UnimplementedError, errors.FailedPreconditionError,
                          UnicodeDecodeError, IsADirectoryError, NotADirectoryError)):
        return EXIT_DAMAGED
    if isinstance(error, _IO_ERRORS):
        return EXIT_IO
    if isinstance(error, (errors.OpError, ValueError)):
        return EXIT_USAGE
    if isinstance(error, OSError):
        return EXIT_IO
    return None


def _message(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename is not None:  # "[Errno 28] ..." -> "FILE: No space left"
        text = f"{error.filename}: {error.strerror or error}"
    else:
        text = str(error).strip() or type(error).__name__
    if not isinstance(error, CliError):
        text = f"{type(error).__name__}: {text}"
    return one_line(real_file_name(text))


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
    if not debug:  # library warnings (TF's "Checkpoint ignored" lines) would break the one-line rule
        logging.disable(logging.WARNING)
    was_durable = file_io.set_durable(args.durable or file_io.durable())
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
        code = exit_code(error)
        if code is None or debug:
            raise
        err.write(f"{PROGRAM} {args.command}: error: {_message(error)}\n")
        return code
    finally:
        file_io.set_durable(was_durable)
        if not debug:
            logging.disable(logging.NOTSET)


__all__ += ["EXIT_OK", "EXIT_DIFFERENT", "EXIT_USAGE", "EXIT_NOT_FOUND", "EXIT_DAMAGED", "EXIT_MISSING_FEATURE",
            "EXIT_REFUSED", "EXIT_IO", "EXIT_INTERRUPTED"]
