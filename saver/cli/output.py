"""Output of the command line: tables that fit the terminal, sizes, JSON values, progress bars.

Tables are trimmed to the terminal's width only when standard output is a terminal (long keys
lose their middle to ``…``); piped output keeps every character, for scripts.  Progress bars use
``tqdm`` when it is installed and standard error is a terminal, and appear only for work that
lasts longer than half a second.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import shutil
import sys
from typing import TextIO
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["one_line", "warn", "MAX_MESSAGE", "human_size", "fit", "table", "json_value", "dump_json", "progress",
           "shape_text", "CliError",
           "EXIT_OK", "EXIT_DIFFERENT", "EXIT_USAGE", "EXIT_NOT_FOUND", "EXIT_DAMAGED", "EXIT_MISSING_FEATURE",
           "EXIT_REFUSED", "EXIT_IO", "EXIT_INTERRUPTED", "real_file_name", "count_option"]

MAX_MESSAGE = 2000  # characters of an error or warning line; longer ones are cut


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` as one line: each run of whitespace (newlines too) becomes a space; cut at ``limit``."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 3].rstrip() + "..."


def warn(message: str) -> None:
    """Writes ``tf1-saver: warning: <message>`` as one line on standard error."""
    sys.stderr.write(f"tf1-saver: warning: {one_line(message)}\n")


# Exit codes (documented in README.md and `python -m saver --help`).
EXIT_OK = 0               # done
EXIT_DIFFERENT = 1        # `diff` found differences (as diff(1))
EXIT_USAGE = 2            # bad arguments or a bad value given on the command line (as argparse)
EXIT_NOT_FOUND = 3        # no such checkpoint, file, tensor key or object graph
EXIT_DAMAGED = 4          # the input exists but cannot be read (corrupt, truncated, wrong format)
EXIT_MISSING_FEATURE = 5  # an optional package or program is needed (fsspec backend, Graphviz)
EXIT_REFUSED = 6          # refused: the output exists (use --force) or two keys would get one name
EXIT_IO = 7               # the file system failed an operation: disk full, permission denied, read-only, EIO
EXIT_INTERRUPTED = 130    # Ctrl-C


# Our temporary names (file_io.temp_filename, the state file's .tmp<uuid>, an edit's .rewrite<hex>): an
# error about one of them names the file it stands for.
_TEMP_SUFFIX = re.compile(r"\.tempstate\d+|\.tmp[0-9a-f]{32}(?![0-9a-f])|\.rewrite[0-9a-f]{8}(?=\.(?:index|data-))")


def real_file_name(text: str) -> str:
    """``text`` with our temporary file names replaced by the names of the files they become."""
    return _TEMP_SUFFIX.sub("", text)


class CliError(Exception):
    """A user-facing error: one line, and the exit code to leave with."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


def count_option(text: str) -> int:
    """An integer option's value that must be >= 0 (argparse reports anything else as a usage error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def human_size(count: int) -> str:
    """1536 -> '1.5 KiB'."""
    size = float(count)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def shape_text(shape: Sequence[int]) -> str:
    """[2, 3] -> '[2,3]'."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _terminal_width(stream: TextIO) -> int | None:
    isatty = getattr(stream, "isatty", None)
    if isatty is None or not isatty():
        return None
    return shutil.get_terminal_size((100, 24)).columns


def fit(text: str, width: int) -> str:
    """``text`` shortened to ``width`` characters by replacing its middle with ``…``."""
    if len(text) <= width or width < 5:
        return text
    keep = width - 1
    return text[:keep - keep // 2] + "…" + text[len(text) - keep // 2:]


def table(rows: list[Sequence[str]], header: Sequence[str], stream: TextIO, flexible: int = 0,
          right: Iterable[int] = ()) -> None:
    """Prints aligned columns; column ``flexible`` shrinks (middle elided) to fit a terminal."""
    right = set(right)
    columns = len(header)
    widths = [max([len(header[i])] + [len(row[i]) for row in rows]) for i in range(columns)]
    terminal = _terminal_width(stream)
    if terminal is not None:
        others = sum(widths) - widths[flexible] + 2 * (columns - 1)
        widths[flexible] = max(12, min(widths[flexible], terminal - others - 1))
    for row in [header] + list(rows):
        cells = []
        for i, cell in enumerate(row):
            cell = fit(cell, widths[i]) if i == flexible else cell
            cells.append(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]))
        stream.write("  ".join(cells).rstrip() + "\n")


def json_value(value):
    """A JSON-able form of a tensor value: nested lists; bytes as text when UTF-8, else {"base64": ...}."""
    if isinstance(value, (bytes, np.bytes_)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return [json_value(v) for v in value] if value.ndim else json_value(value.item())
        if value.dtype.names is not None:  # quantized types: their integer field
            value = value[value.dtype.names[0]]
        if np.iscomplexobj(value):
            return json_value(np.stack([value.real, value.imag], axis=-1))
        if value.dtype.kind not in "biuf":  # bfloat16 and float8 (ml_dtypes) -> float
            value = value.astype(np.float64)
        return value.tolist()
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    return value


def _finite(value):
    """Replaces NaN and infinities (not JSON) by strings, recursively."""
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def dump_json(document, stream: TextIO) -> None:
    """Writes one JSON document (sorted keys, two-space indent) and a newline."""
    json.dump(_finite(document), stream, indent=2, sort_keys=True, allow_nan=False)
    stream.write("\n")


def progress(iterable, total: int | None = None, description: str = "", enabled: bool | None = None):
    """``iterable`` wrapped in a tqdm bar on stderr (when installed; ``enabled=None``: only on a terminal)."""
    if enabled is False:
        return iterable
    try:
        # Imported on first use: tqdm is optional, and takes ~50 ms to import.
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, desc=description, unit="tensor", file=sys.stderr, leave=False,
                delay=0.5, disable=None if enabled is None else False, dynamic_ncols=True)
