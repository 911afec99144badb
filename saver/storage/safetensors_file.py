"""The safetensors container, written and read here so tensors stream one at a time.

Layout (the reference implementation's)::

    u64 little-endian header length N
    N bytes of UTF-8 JSON, padded with spaces to a multiple of 8:
        {"__metadata__": {str: str}, "<name>": {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, ...}
    the arrays' bytes back to back, little-endian, offsets relative to the end of the header

Reading checks the whole header (length against the file size, every dtype, shape and offset range)
before any array is read.  This module knows names, arrays and string metadata only; what the
arrays mean is saver/storage/export.py's.  The ``safetensors`` package reads our files (tests).
"""

from __future__ import annotations

import json
import math
import os
import struct
from typing import BinaryIO
from collections.abc import Callable, Sequence

import numpy as np

from graph.base import dtypes
from graph.errors import DataLossError
from graph.platform import file_io
from saver.format.bundle_stream import StreamedArray

__all__ = ["DTYPES", "NUMPY_TO_SAFETENSORS", "checked_shape", "write", "read"]

_HEADER = struct.Struct("<Q")    # u64 little-endian header length
_MAX_HEADER = 100_000_000        # the reference implementation's limit
DTYPES = {                       # safetensors dtype code <-> numpy dtype name
    "BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "U16": "uint16", "F16": "float16",
    "BF16": "bfloat16", "I32": "int32", "U32": "uint32", "F32": "float32", "F64": "float64", "I64": "int64",
    "U64": "uint64", "F8_E5M2": "float8_e5m2", "F8_E4M3": "float8_e4m3fn", "C64": "complex64",
}
NUMPY_TO_SAFETENSORS = {v: k for k, v in DTYPES.items()}


def checked_shape(value, where: str) -> tuple[int, ...]:
    """A validated shape: a list of non-negative ints.

    Raises:
        DataLossError: naming ``where``.
    """
    if not isinstance(value, list) or not all(type(d) is int and d >= 0 for d in value):
        raise DataLossError(None, None, f"{where}: shape {value!r} is not a list of non-negative integers")
    return tuple(value)


class _DuplicateKey(ValueError):
    """A JSON object naming one key twice (args[0] is the key)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """json object_pairs_hook: a dict, refusing a key that appears twice (json.loads keeps the last one)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _check_contiguous(spans: list[tuple[int, int, str]], data_size: int, path: str) -> None:
    """The safetensors library's rule: tensors tile the data back to back, no overlap, gap or tail.

    Raises:
        DataLossError: naming the first tensor that overlaps or leaves a gap, or the trailing bytes.
    """
    position, previous = 0, None
    for start, end, name in sorted(spans):
        if start != position:
            what = f"overlaps {previous!r}" if start < position else f"leaves a gap of {start - position} bytes"
            raise DataLossError(None, None, f"{path}: tensor {name!r} at data_offsets [{start}, {end}] {what} "
                                "(the safetensors library refuses overlapping or non-contiguous tensors)")
        position, previous = end, name
    if position != data_size:
        raise DataLossError(None, None, f"{path}: the tensors cover {position} of the {data_size} data bytes "
                            "after the header (the safetensors library refuses trailing bytes)")


def write(file: BinaryIO, members: Sequence[tuple[str, np.ndarray]], metadata: dict[str, str]) -> None:
    """Writes ``members`` (dtypes in NUMPY_TO_SAFETENSORS) and ``metadata`` to an open binary file."""
    header: dict[str, object] = {"__metadata__": metadata}
    offset = 0
    for name, array in members:
        header[name] = {"dtype": NUMPY_TO_SAFETENSORS[array.dtype.name], "shape": list(array.shape),
                        "data_offsets": [offset, offset + array.nbytes]}
        offset += array.nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the reference writer pads the header to 8 bytes
    file.write(_HEADER.pack(len(text)))
    file.write(text)
    for _, array in members:  # written from the array's memory: no bytes copy of a large tensor
        if isinstance(array, StreamedArray):  # a stored tensor (little-endian): chunk by chunk
            for chunk in array.chunks():
                file.write(chunk.astype(chunk.dtype.newbyteorder("<"), copy=False).view(np.uint8).data)
            continue
        little = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False)
        file.write(little.reshape(-1).view(np.uint8).data)


def read(path: str) -> tuple[list[str], Callable[[str], np.ndarray], dict[str, str]]:
    """(member names, member reader, metadata) of a safetensors file; the whole header checked first.

    Raises:
        NotFoundError: if there is no such file. DataLossError: naming the file and what is wrong.
    """
    file = file_io.open_regular(path)  # NotFoundError; a FIFO or device refused without blocking
    with file:
        head = file.read(8)
        if len(head) != 8:
            raise DataLossError(None, None, f"{path}: too short for a safetensors file ({len(head)} bytes)")
        (length,) = _HEADER.unpack(head)
        size = os.fstat(file.fileno()).st_size
        if length > _MAX_HEADER or 8 + length > size:
            raise DataLossError(None, None, f"{path}: safetensors header length {length} is implausible for a "
                                f"{size}-byte file")
        raw = file.read(length)
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_keys)
    except _DuplicateKey as error:
        raise DataLossError(None, None, f"{path}: the safetensors header names {error.args[0]!r} twice (the "
                            "safetensors library refuses duplicate keys)") from error
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise DataLossError(None, None, f"{path}: the safetensors header is not JSON (UTF-8): {error}") from error
    if not isinstance(header, dict):
        raise DataLossError(None, None, f"{path}: the safetensors header is a {type(header).__name__}, not an object")
    base = 8 + length
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise DataLossError(None, None, f"{path}: the safetensors __metadata__ is not an object of strings")
    entries: dict[str, tuple[np.dtype, tuple[int, ...], int]] = {}
    spans: list[tuple[int, int, str]] = []
    for name, entry in header.items():
        where = f"{path}: tensor {name!r}"
        if not isinstance(entry, dict):
            raise DataLossError(None, None, f"{where}: its header entry is not an object")
        if entry.get("dtype") not in DTYPES:
            raise DataLossError(None, None, f"{where}: unsupported safetensors dtype {entry.get('dtype')!r}")
        numpy_dtype = dtypes.as_dtype(DTYPES[entry["dtype"]]).numpy_dtype
        shape = checked_shape(entry.get("shape"), where)
        offsets = entry.get("data_offsets")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(type(v) is int for v in offsets)):
            raise DataLossError(None, None, f"{where}: data_offsets {offsets!r} is not a pair of integers")
        start, end = offsets
        if not 0 <= start <= end or base + end > size or end - start != math.prod(shape) * numpy_dtype.itemsize:
            raise DataLossError(None, None, f"{where}: bad data_offsets {offsets} for shape {list(shape)} of "
                                f"{entry['dtype']} in a file of {size} bytes")
        entries[name] = (numpy_dtype, shape, base + start)
        spans.append((start, end, name))
    _check_contiguous(spans, size - base, path)

    def member(name: str) -> np.ndarray:
        if name not in entries:
            raise DataLossError(None, None, f"{path}: the description names tensor {name!r}, which the file lacks")
        numpy_dtype, shape, offset = entries[name]
        array = np.fromfile(path, dtype=np.dtype(numpy_dtype).newbyteorder("<"), count=math.prod(shape),
                            offset=offset)
        return array.astype(numpy_dtype, copy=False).reshape(shape)
    return list(entries), member, metadata
