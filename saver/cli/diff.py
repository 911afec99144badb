"""``diff A B``: keys only in one checkpoint, dtype or shape changes, and value changes."""

from __future__ import annotations

import argparse
import math
from typing import TextIO

import numpy as np

from graph.base import dtypes
from saver.cli.output import EXIT_DIFFERENT, EXIT_OK, dump_json, progress, shape_text
from saver.cli.sources import open_reader
from saver.format.bundle_files import CHUNK_SIZE

__all__ = ["add_parsers", "compare_values", "compare_tensors", "tolerance"]


def tolerance(text: str) -> float:
    """A tolerance option's value: a finite number >= 0 (argparse reports anything else as a usage error)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number >= 0")
    return value


def add_parsers(subparsers, common: argparse.ArgumentParser) -> None:
    """Adds ``diff``."""
    parser = subparsers.add_parser(
        "diff", parents=[common], help="compare two checkpoints (exit 1 when they differ)",
        description="Compare two checkpoints key by key: keys only in one, dtype/shape changes, value "
                    "changes. Exit status 0 when identical, 1 when different.")
    parser.add_argument("a", help="first checkpoint")
    parser.add_argument("b", help="second checkpoint")
    parser.add_argument("--keys-only", action="store_true", help="compare keys, dtypes and shapes, not values")
    parser.add_argument("--atol", type=tolerance, default=0.0, help="absolute tolerance for float values (default 0)")
    parser.add_argument("--rtol", type=tolerance, default=0.0, help="relative tolerance for float values (default 0)")
    parser.set_defaults(run=run)


def compare_values(a, b, atol: float = 0.0, rtol: float = 0.0):
    """None when equal (within tolerances), else a short description of the difference."""
    a = a if isinstance(a, np.ndarray) else np.array(a, dtype=object)
    b = b if isinstance(b, np.ndarray) else np.array(b, dtype=object)
    if a.dtype == object or a.dtype.names is not None:
        left, right = a.reshape(-1), b.reshape(-1)
        if a.dtype.names is not None:
            left, right = left.view(np.uint8), right.view(np.uint8)
        differing = int(sum(x != y for x, y in zip(left.tolist(), right.tolist())))
        return None if differing == 0 else f"{differing} of {a.size} elements differ"
    differing, largest = _numeric_difference(a, b, atol, rtol)
    return _describe(differing, largest, a.size)


def _numeric_difference(a, b, atol: float, rtol: float) -> tuple[int, float]:
    """(elements differing, max |a-b| over them; nan when none) of two numeric arrays."""
    if a.dtype.kind not in "biufc":  # bfloat16, float8
        a, b = a.astype(np.float64), b.astype(np.float64)
    if a.dtype.kind in "fc":
        close = np.isclose(a, b, atol=atol, rtol=rtol, equal_nan=True)
    else:
        close = a == b
    differing = int(close.size - np.count_nonzero(close))
    if differing == 0:
        return 0, float("nan")
    with np.errstate(invalid="ignore", over="ignore"):
        largest = np.nanmax(np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
                                   - b.astype(np.complex128 if b.dtype.kind == "c" else np.float64)))
    return differing, float(largest)


def _describe(differing: int, largest: float, size: int):
    if differing == 0:
        return None
    return f"{differing} of {size} elements differ, max |a-b| = {largest:.6g}"


def compare_tensors(reader_a, reader_b, key: str, atol: float = 0.0, rtol: float = 0.0):
    """compare_values of tensor ``key`` in two readers; numeric tensors chunk by chunk (memory: two chunks)."""
    dtype = reader_a.get_variable_to_dtype_map()[key]
    if dtype in (dtypes.string, dtypes.variant) or not dtype.is_numpy_compatible:
        return compare_values(reader_a.get_tensor(key), reader_b.get_tensor(key), atol, rtol)
    # a quarter chunk per side: np.isclose's temporaries are several times the chunk
    elements = max(1, CHUNK_SIZE // 4 // dtype.numpy_dtype.itemsize)
    differing, largest, size = 0, float("nan"), 0
    for a, b in zip(reader_a.tensor_chunks(key, elements), reader_b.tensor_chunks(key, elements)):
        count, most = _numeric_difference(a, b, atol, rtol)
        differing, size = differing + count, size + a.size
        largest = most if largest != largest or most > largest else largest  # nan: none yet
    return _describe(differing, largest, size)


def run(args, out: TextIO) -> int:
    """The ``diff`` command."""
    with open_reader(args.a) as reader_a, open_reader(args.b) as reader_b:
        types_a, shapes_a = reader_a.get_variable_to_dtype_map(), reader_a.get_variable_to_shape_map()
        types_b, shapes_b = reader_b.get_variable_to_dtype_map(), reader_b.get_variable_to_shape_map()
        only_a = sorted(set(types_a) - set(types_b))
        only_b = sorted(set(types_b) - set(types_a))
        common = sorted(set(types_a) & set(types_b))
        changed_type, changed_value, same = [], [], 0
        to_compare = []
        for key in common:
            if types_a[key] != types_b[key] or list(shapes_a[key]) != list(shapes_b[key]):
                changed_type.append((key, f"{types_a[key].name}{shape_text(shapes_a[key])}",
                                     f"{types_b[key].name}{shape_text(shapes_b[key])}"))
            else:
                to_compare.append(key)
        if args.keys_only:
            same = len(to_compare)
        else:
            for key in progress(to_compare, len(to_compare), "comparing", args.progress):
                difference = compare_tensors(reader_a, reader_b, key, args.atol, args.rtol)
                if difference is None:
                    same += 1
                else:
                    changed_value.append((key, difference))
        different = bool(only_a or only_b or changed_type or changed_value)
        if args.json:
            dump_json({"a": reader_a.prefix, "b": reader_b.prefix, "only_in_a": only_a, "only_in_b": only_b,
                       "changed_dtype_or_shape": [{"key": k, "a": x, "b": y} for k, x, y in changed_type],
                       "changed_value": [{"key": k, "difference": d} for k, d in changed_value],
                       "identical": same, "values_compared": not args.keys_only, "different": different}, out)
            return EXIT_DIFFERENT if different else EXIT_OK
        out.write(f"--- {reader_a.prefix}\n+++ {reader_b.prefix}\n")
        for key in only_a:
            out.write(f"- {key}  {types_a[key].name}{shape_text(shapes_a[key])}\n")
        for key in only_b:
            out.write(f"+ {key}  {types_b[key].name}{shape_text(shapes_b[key])}\n")
        for key, before, after in changed_type:
            out.write(f"! {key}  {before} -> {after}\n")
        for key, difference in changed_value:
            out.write(f"~ {key}  {difference}\n")
        what = "same dtype and shape" if args.keys_only else "identical"
        out.write(f"{len(only_a)} only in A, {len(only_b)} only in B, {len(changed_type)} dtype/shape changed, "
                  f"{len(changed_value)} values changed, {same} {what}\n")
    return EXIT_DIFFERENT if different else EXIT_OK
