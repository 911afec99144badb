"""Export: a checkpoint's tensors to ``.npz`` or ``.safetensors`` files, and import them back.

Both formats hold plain arrays; what they cannot say is kept in a JSON description stored with the
arrays (npz: the member ``__tf1_saver__`` as UTF-8 bytes; safetensors: ``__metadata__["tf1_saver"]``)::

    {"format": 1, "tensors": {checkpoint key: {"dtype": TF dtype name, "shape": [...],
                                               "stored": member name, "encoding": "array" | "view" | "strings",
                                               "lengths": member name (strings), "slices": ["0,2:-", ...]}}}

    array    the member is the tensor itself
    view     the member holds the tensor's bytes as an integer array (bfloat16, float8, quantized
             types, complex128 in safetensors): reinterpreted with the TF dtype on import
    strings  DT_STRING / DT_VARIANT: the member is every element's bytes concatenated (uint8),
             ``lengths`` an int64 array of element lengths
    slices   the save-slices of a partitioned variable, so import writes the same partitions

Files without the description (written by other tools) import too, each array under its own name
with the TF dtype of its numpy dtype.  Nothing is ever pickled: npz members are written with
``allow_pickle=False`` and read the same way.  The safetensors file is written and read here
(saver/storage/safetensors_file.py) so tensors stream one at a time, as the npz container is
(saver/storage/npz_file.py); the ``safetensors`` package reads our files (checked in the tests).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from graph.base import dtypes
from graph.errors import DataLossError, InvalidArgumentError
from graph.platform import file_io
from saver.format.bundle_reader import BundleReader
from saver.format.bundle_writer import BundleWriter
from saver.format.coding import TensorSlice
from saver.storage import npz_file, safetensors_file
from saver.storage.reader import load_checkpoint
from saver.format.bundle_stream import StreamedArray, streamable

__all__ = ["export_checkpoint", "import_checkpoint", "read_tensors", "write_tensors", "ExportedTensor",
           "checkpoint_tensors", "FORMATS", "format_of"]

FORMATS = ("npz", "safetensors")
METADATA_KEY = "__tf1_saver__"        # npz member / safetensors __metadata__ key holding the description
_METADATA_VERSION = 1


class ExportedTensor:
    """One tensor to export: key, TF dtype, value (numpy; object array of bytes for strings), slices."""

    __slots__ = ("key", "dtype", "value", "slices")

    def __init__(self, key: str, dtype: dtypes.DType, value: np.ndarray, slices: list[str] | None = None):
        self.key, self.dtype, self.value, self.slices = key, dtype, value, slices or []


def format_of(path: str, fmt: str | None = None) -> str:
    """"npz" or "safetensors", from ``fmt`` or the file's extension.

    Raises:
        InvalidArgumentError: for anything else.
    """
    fmt = fmt or os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    if fmt not in FORMATS:
        raise InvalidArgumentError(None, None, f"{path}: unknown export format {fmt!r}; use a .npz or .safetensors file "
                                   "name (or say the format)")
    return fmt


# ------------------------------------------------------------------------------------------ encoding


def _encode(tensor: ExportedTensor, index: int, fmt: str) -> tuple[dict, list[tuple[str, np.ndarray]]]:
    """(description, [(member name, array)]) of one tensor."""
    value, dtype = tensor.value, tensor.dtype
    description = {"dtype": dtype.name, "shape": list(np.shape(value)), "stored": tensor.key, "encoding": "array"}
    if tensor.slices:
        description["slices"] = list(tensor.slices)
    if dtype in (dtypes.string, dtypes.variant):
        items = [bytes(item) if not isinstance(item, str) else item.encode("utf-8")
                 for item in np.asarray(value, dtype=object).reshape(-1)]
        lengths_name = f"{METADATA_KEY}/lengths/{index}"
        description.update(encoding="strings", lengths=lengths_name)
        data = np.frombuffer(b"".join(items), dtype=np.uint8)
        return description, [(tensor.key, data), (lengths_name, np.array([len(i) for i in items], dtype=np.int64))]
    if isinstance(value, StreamedArray):  # a large stored tensor: its writer streams it chunk by chunk
        if fmt == "safetensors" and value.dtype.name in safetensors_file.NUMPY_TO_SAFETENSORS or (
                fmt == "npz" and value.dtype.name in npz_file.NATIVE):
            return description, [(tensor.key, value)]
        description["encoding"] = "view"
        return description, [(tensor.key, value.byte_view())]
    array = np.ascontiguousarray(value)
    native = npz_file.NATIVE if fmt == "npz" else set(safetensors_file.NUMPY_TO_SAFETENSORS) - {
        "bfloat16", "float8_e5m2", "float8_e4m3fn"}
    if fmt == "safetensors" and array.dtype.name in safetensors_file.NUMPY_TO_SAFETENSORS:
        return description, [(tensor.key, array)]
    if array.dtype.names is None and array.dtype.name in native:
        return description, [(tensor.key, array)]
    description["encoding"] = "view"  # bfloat16, float8, quantized, complex (safetensors)
    return description, [(tensor.key, array.reshape(-1).view(np.uint8))]


def _same_dtype(found: np.dtype, expected: np.dtype) -> bool:
    return found.newbyteorder("=") == expected.newbyteorder("=")


def _decode(description, members: Callable[[str], np.ndarray], where: str, key: str
            ) -> tuple[dtypes.DType, np.ndarray]:
    """(TF dtype, value) of one described tensor; every field checked before the data is read."""
    where = f"{where}: tensor {key!r}"
    if not isinstance(description, dict):
        raise DataLossError(None, None, f"{where}: its description is a {type(description).__name__}, not an object")
    for field in ("dtype", "shape", "stored"):
        if field not in description:
            raise DataLossError(None, None, f"{where}: its description has no {field!r}")
    name, encoding = description["dtype"], description.get("encoding", "array")
    if not isinstance(name, str):
        raise DataLossError(None, None, f"{where}: dtype {name!r} is not a string")
    try:
        dtype = dtypes.as_dtype(name)
    except (TypeError, ValueError) as error:
        raise DataLossError(None, None, f"{where}: unknown dtype {name!r}") from error
    if dtype._is_ref_dtype or dtype == dtypes.resource:  # noqa: SLF001 - TF's own attribute name
        raise DataLossError(None, None, f"{where}: dtype {name!r} cannot be stored in a file")
    shape = safetensors_file.checked_shape(description["shape"], where)
    count = math.prod(shape)
    stored = description["stored"]
    if not isinstance(stored, str):
        raise DataLossError(None, None, f"{where}: member name {stored!r} is not a string")
    slices = description.get("slices", [])
    if not isinstance(slices, list) or not all(isinstance(s, str) for s in slices):
        raise DataLossError(None, None, f"{where}: slices {slices!r} are not a list of strings")
    is_string = dtype in (dtypes.string, dtypes.variant)
    if is_string != (encoding == "strings"):
        raise DataLossError(None, None, f"{where}: dtype {dtype.name} cannot use encoding {encoding!r}")
    if encoding == "strings":
        lengths_name = description.get("lengths")
        if not isinstance(lengths_name, str):
            raise DataLossError(None, None, f"{where}: member name of the string lengths {lengths_name!r} is not a string")
        lengths = members(lengths_name)
        if lengths.dtype.kind not in "iu" or lengths.ndim != 1 or lengths.size != count:
            raise DataLossError(None, None, f"{where}: string lengths are {lengths.dtype} of shape {list(lengths.shape)}, "
                                f"expected {count} integers")
        lengths = lengths.astype(np.int64)
        data = members(stored)
        raw = data.tobytes()
        if (lengths < 0).any() or int(lengths.sum(dtype=object)) != len(raw):
            raise DataLossError(None, None, f"{where}: string lengths do not match the {len(raw)} bytes of data")
        ends = np.cumsum(lengths)
        value = np.empty(lengths.size, dtype=object)
        value[:] = [raw[end - length:end] for end, length in zip(ends.tolist(), lengths.tolist())]
        return dtype, value.reshape(shape)
    numpy_dtype = dtype.numpy_dtype
    if encoding == "view":
        data = members(stored)
        if data.nbytes != count * numpy_dtype.itemsize:
            raise DataLossError(None, None, f"{where}: {data.nbytes} bytes stored for {count} elements of {dtype.name}")
        value = np.ascontiguousarray(data).reshape(-1).view(np.uint8).view(numpy_dtype)
        return dtype, value.reshape(shape)
    if encoding != "array":
        raise DataLossError(None, None, f"{where}: unknown encoding {encoding!r}")
    data = members(stored)
    if not _same_dtype(data.dtype, numpy_dtype) or data.size != count:
        raise DataLossError(None, None, f"{where}: member {stored!r} holds {data.dtype} of shape {list(data.shape)}, "
                            f"expected {numpy_dtype} of shape {list(shape)}")
    return dtype, np.asarray(data, dtype=numpy_dtype).reshape(shape)


def _parse_description(raw, path: str) -> dict:
    """The JSON description (bytes or str), checked to be ``{"format": 1, "tensors": {key: {...}}}``."""
    try:
        description = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise DataLossError(None, None, f"{path}: the {METADATA_KEY} description is not JSON (UTF-8): {error}") from error
    if not isinstance(description, dict):
        raise DataLossError(None, None, f"{path}: the {METADATA_KEY} description is a {type(description).__name__}, "
                            "not an object")
    if description.get("format") != _METADATA_VERSION:
        raise DataLossError(None, None, f"{path}: description format {description.get('format')!r}, expected "
                            f"{_METADATA_VERSION}")
    if not isinstance(description.get("tensors"), dict):
        raise DataLossError(None, None, f"{path}: the {METADATA_KEY} description has no \"tensors\" object")
    return description


# ------------------------------------------------------------------------------------------ files


def write_tensors(tensors: Iterable[ExportedTensor], path: str, fmt: str | None = None, compress: bool = False) -> int:
    """Writes tensors to one .npz or .safetensors file atomically; returns how many.

    Raises:
        InvalidArgumentError: for an unknown format or a duplicate key.
    """
    path = os.fspath(path)
    fmt = format_of(path, fmt)
    described: dict[str, dict] = {}

    def encoded() -> Iterator[tuple[str, np.ndarray]]:
        for index, tensor in enumerate(tensors):
            if tensor.key in described:
                raise InvalidArgumentError(None, None, f"{path}: duplicate tensor key {tensor.key!r}")
            described[tensor.key], arrays = _encode(tensor, index, fmt)
            yield from arrays

    def metadata() -> str:
        return json.dumps({"format": _METADATA_VERSION, "tensors": described}, sort_keys=True)

    if fmt == "npz":  # streamed: each tensor is written as it comes, the description last
        def with_description() -> Iterator[tuple[str, np.ndarray]]:
            yield from encoded()
            yield METADATA_KEY, np.frombuffer(metadata().encode("utf-8"), np.uint8)
        with file_io.atomic_file(path) as file:
            npz_file.write(file, with_description(), compress)
        return len(described)
    members = list(encoded())  # safetensors needs every size before the data
    with file_io.atomic_file(path) as file:
        safetensors_file.write(file, members, {METADATA_KEY: metadata()})
    return len(described)


def read_tensors(path: str, fmt: str | None = None) -> Iterator[ExportedTensor]:
    """Yields the tensors of an exported file (ours: exact dtypes, strings, slices; others: as stored).

    Raises:
        NotFoundError: if the file does not exist. DataLossError: if it is damaged (naming the file and
        what is wrong). UnimplementedError: for a .npy member version this reader does not know.
    """
    path = os.fspath(path)
    fmt = format_of(path, fmt)
    if fmt == "npz":
        with npz_file.members(path) as (names, member):
            description = None
            if METADATA_KEY in names:
                description = _parse_description(member(METADATA_KEY).tobytes(), path)
            yield from _tensors([n for n in names if n != METADATA_KEY], member, description, path)
        return
    names, member, metadata = safetensors_file.read(path)
    description = _parse_description(metadata[METADATA_KEY], path) if METADATA_KEY in metadata else None
    yield from _tensors(names, member, description, path)


def _tensors(names, member, description, path) -> Iterator[ExportedTensor]:
    if description is None:  # a foreign file: every array as it is
        for name in names:
            array = member(name)
            try:
                dtype = dtypes.as_dtype(array.dtype)
            except TypeError as error:
                raise DataLossError(None, None, f"{path}: member {name!r} has dtype {array.dtype}, which has no TF "
                                    "dtype") from error
            yield ExportedTensor(name, dtype, array)
        return
    for key, entry in description["tensors"].items():
        dtype, value = _decode(entry, member, path, key)
        yield ExportedTensor(key, dtype, value, entry.get("slices"))


# ------------------------------------------------------------------------------------------ checkpoints


def checkpoint_tensors(reader, keys: Iterable[str] | None = None) -> Iterator[ExportedTensor]:
    """Yields the tensors of an open CheckpointReader (partitioned ones whole, with their slices)."""
    dtype_map = reader.get_variable_to_dtype_map()
    bundle = BundleReader(reader.prefix) if getattr(reader, "format", "V2") == "V2" else None
    try:
        for key in sorted(dtype_map) if keys is None else keys:
            if bundle is not None and streamable(bundle, key) and not bundle.byteswap:
                yield ExportedTensor(key, dtype_map[key], StreamedArray(bundle, key))  # read when written
                continue
            value = reader.get_tensor(key)
            if not isinstance(value, np.ndarray):
                value = np.array(value, dtype=object)
            slices = [str(s) for s in bundle.lookup_tensor_slices(key)] if bundle is not None else []
            yield ExportedTensor(key, dtype_map[key], value, slices)
    finally:
        if bundle is not None:
            bundle.close()


def export_checkpoint(checkpoint, path: str, fmt: str | None = None, keys: Iterable[str] | None = None,
                      compress: bool = False, progress: Callable | None = None) -> int:
    """Exports a checkpoint (path, directory or open reader) to .npz / .safetensors; returns the count.

    ``progress`` wraps the tensor iterator (e.g. a tqdm factory) when given.
    """
    reader = load_checkpoint(checkpoint) if isinstance(checkpoint, (str, os.PathLike)) else checkpoint
    try:
        tensors = checkpoint_tensors(reader, keys)
        if progress is not None:
            tensors = progress(tensors)
        return write_tensors(tensors, path, fmt, compress)
    finally:
        if reader is not checkpoint:
            reader.close()


def import_checkpoint(path: str, prefix: str, fmt: str | None = None,
                      progress: Callable | None = None) -> str:
    """Writes the tensors of an exported file as a V2 checkpoint at ``prefix``; returns the prefix."""
    tensors = read_tensors(path, fmt)
    if progress is not None:
        tensors = progress(tensors)
    with BundleWriter(prefix) as writer:
        for tensor in tensors:
            if not tensor.slices:
                writer.add(tensor.key, tensor.value, tensor.dtype)
                continue
            shape = tensor.value.shape
            for spec in tensor.slices:
                part = TensorSlice.parse(spec)
                writer.add_slice(tensor.key, shape, part, tensor.value[part.index(shape)], tensor.dtype)
    return prefix
