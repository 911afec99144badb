"""CheckpointReader: TF's checkpoint reading API over V2 bundles and V1 tables.

Path resolution (what ``load_checkpoint`` accepts)::

    directory                    -> model_checkpoint_path of its ``checkpoint`` state file
                                    (relative paths are joined with the directory)
    <prefix>.index / .data-NNNNN-of-MMMMM / .meta
                                 -> <prefix>
    <prefix> with <prefix>.index -> V2 bundle (bundle.py)
    anything else                -> V1 file, glob pattern or ``-NNNNN-of-MMMMM`` shards (v1.py)

The chosen prefix is ``reader.prefix``; ``reader.resolved_from`` says how it was found.
Shape and dtype maps hide the ``\\x00`` slice keys of partitioned tensors, as TF's do.
"""

from __future__ import annotations

import os
import re

import numpy as np

from graph import dtypes
from graph.errors import NotFoundError
from saver.bundle import BundleReader, index_filename, slice_from_proto
from saver.coding import encode_tensor_name_slice
from saver.v1 import V1Reader, v1_files

__all__ = ["CheckpointReader", "NewCheckpointReader", "load_checkpoint", "list_variables", "load_variable",
           "resolve_checkpoint_path"]

_DATA_SUFFIX = re.compile(r"\.data-\d{5}-of-\d{5}$")
_STATE_LINE = re.compile(r'^model_checkpoint_path:\s*"((?:[^"\\]|\\.)*)"\s*$', re.M)
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text: str) -> str:
    """Undoes text_format's C escaping of a string (\\n, \\", \\\\, octal \\ooo as UTF-8 bytes)."""
    out = bytearray()
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in _ESCAPES:
                out += _ESCAPES[nxt].encode()
                i += 2
                continue
            octal = re.match(r"[0-7]{1,3}", text[i + 1:])
            if octal:
                out.append(int(octal.group(), 8) & 0xFF)
                i += 1 + len(octal.group())
                continue
        out += char.encode("utf-8")
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _latest_in_directory(directory: str, latest_filename: str = "checkpoint") -> str | None:
    """model_checkpoint_path from ``<directory>/checkpoint``, joined with the directory if relative."""
    path = os.path.join(directory, latest_filename)
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as file:
            text = file.read()
    except FileNotFoundError:
        return None
    match = _STATE_LINE.search(text)
    if match is None:
        return None
    prefix = _unescape(match.group(1))
    return prefix if os.path.isabs(prefix) else os.path.join(directory, prefix)


def resolve_checkpoint_path(ckpt_dir_or_file: str) -> tuple[str, str]:
    """Returns (prefix or V1 pattern, how it was found) for a directory, prefix or checkpoint file.

    Raises:
        ValueError: for a directory without a usable ``checkpoint`` state file (TF's wording).
    """
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        prefix = _latest_in_directory(path)
        if prefix is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return prefix, f"model_checkpoint_path in {os.path.join(path, 'checkpoint')}"
    if path.endswith(".index") and not os.path.exists(path + ".index"):
        return path[:-len(".index")], f"index file {path}"
    if path.endswith(".meta") and not os.path.exists(path + ".index"):
        return path[:-len(".meta")], f"meta graph file {path}"
    if _DATA_SUFFIX.search(path) and not os.path.exists(path + ".index") and not _is_v1_table(path):
        return _DATA_SUFFIX.sub("", path), f"data file {path}"
    return path, "prefix as given"


def _is_v1_table(path: str) -> bool:
    return os.path.isfile(path) and not os.path.exists(_DATA_SUFFIX.sub("", path) + ".index")


class CheckpointReader:
    """TF's CheckpointReader (``tf.train.load_checkpoint``): V2 and V1 checkpoints alike.

    Raises:
        NotFoundError: if no checkpoint is found at ``filepattern``.
        DataLossError: if the checkpoint's index is damaged.
    """

    def __init__(self, filepattern: str):
        self.prefix, self.resolved_from = resolve_checkpoint_path(filepattern)
        if os.path.exists(index_filename(self.prefix)):
            self.format = "V2"
            self._bundle: BundleReader | None = BundleReader(self.prefix)
            self._v1: V1Reader | None = None
        elif v1_files(self.prefix):
            self.format = "V1"
            self._bundle = None
            self._v1 = V1Reader(self.prefix)
        else:
            raise NotFoundError(f"Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                                f"files for {self.prefix}")
        self._shapes: dict[str, list[int]] | None = None
        self._dtypes: dict[str, dtypes.DType] | None = None

    def __enter__(self) -> "CheckpointReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Closes open data files."""
        if self._bundle is not None:
            self._bundle.close()

    def _build_maps(self) -> None:
        shapes: dict[str, list[int]] = {}
        types: dict[str, dtypes.DType] = {}
        if self._bundle is not None:
            items = list(self._bundle.raw_items())
            hidden = set()
            for key, entry in items:
                for slice_proto in entry.slices:
                    hidden.add(encode_tensor_name_slice(key, slice_from_proto(slice_proto)))
            for key, entry in items:
                if key in hidden:
                    continue
                name = key.decode("utf-8", "surrogateescape")
                dtype, shape = self._bundle.lookup_dtype_and_shape(name)
                shapes[name], types[name] = list(shape), dtype
        else:
            for name in self._v1.keys():
                dtype, shape = self._v1.dtype_and_shape(name)
                shapes[name], types[name] = list(shape), dtype
        self._shapes, self._dtypes = shapes, types

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """name -> shape (list of ints) of every tensor; slice keys hidden."""
        if self._shapes is None:
            self._build_maps()
        return dict(self._shapes)

    def get_variable_to_dtype_map(self) -> dict[str, dtypes.DType]:
        """name -> DType of every tensor; slice keys hidden."""
        if self._dtypes is None:
            self._build_maps()
        return dict(self._dtypes)

    def has_tensor(self, tensor_str: str) -> bool:
        """True when the checkpoint holds a tensor of that name."""
        if self._bundle is not None:
            return tensor_str in self._bundle
        return tensor_str in self._v1

    def get_tensor(self, tensor_str: str) -> np.ndarray:
        """The value of a tensor (partitioned tensors reassembled); strings as bytes objects.

        Raises:
            NotFoundError: naming the closest keys present.
        """
        if self._bundle is not None:
            value = self._bundle.lookup(tensor_str)
        else:
            if tensor_str not in self._v1:
                raise NotFoundError(f"Key {tensor_str} not found in checkpoint")
            value = self._v1.get_tensor(tensor_str)
        return value[()] if value.ndim == 0 and value.dtype == object else value

    def debug_string(self) -> bytes:
        """One ``name (DT_TYPE) [dims]`` line per entry, as TF's DebugString."""
        lines = []
        if self._bundle is not None:  # BundleReader::DebugString: skips full entries, lists slice keys
            for key, entry in self._bundle.raw_items():
                if entry.slices:
                    continue
                dtype = dtypes.as_dtype(entry.dtype)
                dims = ",".join(str(d.size) for d in entry.shape.dim) if entry.shape else ""
                lines.append(key + f" ({dtype.proto_name}) [{dims}]\n".encode())
        else:  # TensorSliceReader::DebugString
            for name in self._v1.keys():
                dtype, shape = self._v1.dtype_and_shape(name)
                line = f"{name} ({dtype.proto_name}) [{','.join(map(str, shape))}]"
                count = self._v1.num_slices(name)
                lines.append((line + (f", {count} slices" if count > 1 else "") + "\n").encode())
        return b"".join(lines)


def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802 - TensorFlow's name
    """TF's ``tf.compat.v1.train.NewCheckpointReader``."""
    return CheckpointReader(filepattern)


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """TF's ``tf.train.load_checkpoint``: a reader for a directory, prefix or checkpoint file."""
    return CheckpointReader(ckpt_dir_or_file)


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """Sorted (name, shape) of every variable in the checkpoint."""
    with load_checkpoint(ckpt_dir_or_file) as reader:
        shapes = reader.get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """The value of variable ``name`` (a trailing ``:0`` is dropped, as TF does)."""
    if name.endswith(":0"):
        name = name[:-2]
    with load_checkpoint(ckpt_dir_or_file) as reader:
        return reader.get_tensor(name)
