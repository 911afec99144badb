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
(8-byte little-endian header length, JSON header, contiguous data) so tensors stream one at a
time; the ``safetensors`` package reads our files (checked in the tests).
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import zipfile
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy as np

from graph import dtypes
from graph.errors import DataLossError, InvalidArgumentError

__all__ = ["export_checkpoint", "import_checkpoint", "read_tensors", "write_tensors", "Tensor", "FORMATS",
           "format_of"]

FORMATS = ("npz", "safetensors")
METADATA_KEY = "__tf1_saver__"        # npz member / safetensors __metadata__ key holding the description
_METADATA_VERSION = 1
_SAFETENSORS_HEADER = struct.Struct("<Q")  # safetensors: u64 little-endian header length
_SAFETENSORS_MAX_HEADER = 100_000_000      # the reference implementation's limit
_SAFETENSORS_DTYPES = {                    # safetensors dtype code <-> numpy dtype name
    "BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "U16": "uint16", "F16": "float16",
    "BF16": "bfloat16", "I32": "int32", "U32": "uint32", "F32": "float32", "F64": "float64", "I64": "int64",
    "U64": "uint64", "F8_E5M2": "float8_e5m2", "F8_E4M3": "float8_e4m3fn", "C64": "complex64",
}
_NUMPY_TO_SAFETENSORS = {v: k for k, v in _SAFETENSORS_DTYPES.items()}
_NPZ_NATIVE = frozenset(("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                         "float16", "float32", "float64", "complex64", "complex128"))


class Tensor:
    """One tensor to export: key, TF dtype, value (numpy; object array of bytes for strings), slices."""

    __slots__ = ("key", "dtype", "value", "slices")

    def __init__(self, key: str, dtype: dtypes.DType, value: np.ndarray, slices: Optional[List[str]] = None):
        self.key, self.dtype, self.value, self.slices = key, dtype, value, slices or []


def format_of(path: str, fmt: Optional[str] = None) -> str:
    """"npz" or "safetensors", from ``fmt`` or the file's extension.

    Raises:
        InvalidArgumentError: for anything else.
    """
    fmt = fmt or os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    if fmt not in FORMATS:
        raise InvalidArgumentError(f"{path}: unknown export format {fmt!r}; use a .npz or .safetensors file "
                                   "name (or say the format)")
    return fmt


# ------------------------------------------------------------------------------------------ encoding


def _encode(tensor: Tensor, index: int, fmt: str) -> Tuple[dict, List[Tuple[str, np.ndarray]]]:
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
    array = np.ascontiguousarray(value)
    native = _NPZ_NATIVE if fmt == "npz" else set(_NUMPY_TO_SAFETENSORS) - {"bfloat16", "float8_e5m2",
                                                                           "float8_e4m3fn"}
    if fmt == "safetensors" and array.dtype.name in _NUMPY_TO_SAFETENSORS:
        return description, [(tensor.key, array)]
    if array.dtype.names is None and array.dtype.name in native:
        return description, [(tensor.key, array)]
    description["encoding"] = "view"  # bfloat16, float8, quantized, complex (safetensors)
    return description, [(tensor.key, array.reshape(-1).view(np.uint8))]


def _decode(description: dict, members: Callable[[str], np.ndarray], where: str) -> Tuple[dtypes.DType, np.ndarray]:
    try:
        dtype = dtypes.as_dtype(description["dtype"])
        shape = tuple(int(d) for d in description["shape"])
        encoding = description.get("encoding", "array")
        data = members(description["stored"])
    except (KeyError, TypeError, ValueError) as error:
        raise DataLossError(f"{where}: bad tensor description {description!r}: {error}") from error
    if encoding == "strings":
        lengths = members(description["lengths"]).astype(np.int64)
        raw = data.tobytes()
        if int(lengths.sum()) != len(raw) or int(np.prod(shape, dtype=np.int64)) != lengths.size:
            raise DataLossError(f"{where}: {description['stored']}: string lengths do not match the data")
        ends = np.cumsum(lengths)
        items = [raw[end - length:end] for end, length in zip(ends.tolist(), lengths.tolist())]
        value = np.empty(lengths.size, dtype=object)
        value[:] = items
        return dtype, value.reshape(shape)
    if encoding == "view":
        value = np.ascontiguousarray(data).reshape(-1).view(np.uint8).view(dtype.numpy_dtype)
        return dtype, value.reshape(shape)
    if encoding != "array":
        raise DataLossError(f"{where}: {description['stored']}: unknown encoding {encoding!r}")
    return dtype, np.asarray(data, dtype=dtype.numpy_dtype).reshape(shape)


# ------------------------------------------------------------------------------------------ files


def _atomic(path: str, write: Callable[[object], None]) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        with os.fdopen(handle, "wb") as file:
            write(file)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise


def write_tensors(tensors: Iterable[Tensor], path: str, fmt: Optional[str] = None, compress: bool = False) -> int:
    """Writes tensors to one .npz or .safetensors file atomically; returns how many.

    Raises:
        InvalidArgumentError: for an unknown format or a duplicate key.
    """
    path = os.fspath(path)
    fmt = format_of(path, fmt)
    described: Dict[str, dict] = {}
    if fmt == "npz":
        def write(file):
            mode = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
            with zipfile.ZipFile(file, "w", compression=mode, allowZip64=True) as archive:
                for index, tensor in enumerate(tensors):
                    if tensor.key in described:
                        raise InvalidArgumentError(f"{path}: duplicate tensor key {tensor.key!r}")
                    description, members = _encode(tensor, index, fmt)
                    described[tensor.key] = description
                    for name, array in members:
                        with archive.open(name + ".npy", "w", force_zip64=True) as member:
                            np.lib.format.write_array(member, array, allow_pickle=False)
                metadata = json.dumps({"format": _METADATA_VERSION, "tensors": described}, sort_keys=True)
                with archive.open(METADATA_KEY + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.frombuffer(metadata.encode("utf-8"), np.uint8),
                                              allow_pickle=False)
        _atomic(path, write)
        return len(described)
    members: List[Tuple[str, np.ndarray]] = []  # safetensors needs every size before the data
    for index, tensor in enumerate(tensors):
        if tensor.key in described:
            raise InvalidArgumentError(f"{path}: duplicate tensor key {tensor.key!r}")
        described[tensor.key], encoded = _encode(tensor, index, fmt)
        members.extend(encoded)
    header: Dict[str, object] = {"__metadata__": {
        METADATA_KEY: json.dumps({"format": _METADATA_VERSION, "tensors": described}, sort_keys=True)}}
    offset = 0
    for name, array in members:
        header[name] = {"dtype": _NUMPY_TO_SAFETENSORS[array.dtype.name], "shape": list(array.shape),
                        "data_offsets": [offset, offset + array.nbytes]}
        offset += array.nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the reference writer pads the header to 8 bytes

    def write_safetensors(file):
        file.write(_SAFETENSORS_HEADER.pack(len(text)))
        file.write(text)
        for _, array in members:
            file.write(np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False).tobytes())
    _atomic(path, write_safetensors)
    return len(described)


def _read_safetensors(path: str) -> Tuple[Dict[str, dict], Callable[[str], np.ndarray], Optional[dict]]:
    with open(path, "rb") as file:
        head = file.read(8)
        if len(head) != 8:
            raise DataLossError(f"{path}: too short for a safetensors file ({len(head)} bytes)")
        (length,) = _SAFETENSORS_HEADER.unpack(head)
        if length > _SAFETENSORS_MAX_HEADER:
            raise DataLossError(f"{path}: safetensors header length {length} is implausible")
        try:
            header = json.loads(file.read(length))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise DataLossError(f"{path}: the safetensors header is not JSON: {error}") from error
        base = 8 + length
        size = os.fstat(file.fileno()).st_size
    if not isinstance(header, dict):
        raise DataLossError(f"{path}: the safetensors header is not an object")
    metadata = header.pop("__metadata__", None) or {}

    def member(name: str) -> np.ndarray:
        entry = header.get(name)
        if not isinstance(entry, dict) or entry.get("dtype") not in _SAFETENSORS_DTYPES:
            raise DataLossError(f"{path}: tensor {name!r} is missing or has an unsupported dtype")
        numpy_dtype = dtypes.as_dtype(_SAFETENSORS_DTYPES[entry["dtype"]]).numpy_dtype
        start, end = (int(v) for v in entry["data_offsets"])
        count = int(np.prod(entry["shape"], dtype=np.int64))
        if not 0 <= start <= end or base + end > size or end - start != count * numpy_dtype.itemsize:
            raise DataLossError(f"{path}: tensor {name!r} has bad data_offsets {entry['data_offsets']}")
        array = np.fromfile(path, dtype=np.dtype(numpy_dtype).newbyteorder("<"), count=count, offset=base + start)
        return array.astype(numpy_dtype, copy=False).reshape(entry["shape"])
    description = json.loads(metadata[METADATA_KEY]) if METADATA_KEY in metadata else None
    return header, member, description


def read_tensors(path: str, fmt: Optional[str] = None) -> Iterator[Tensor]:
    """Yields the tensors of an exported file (ours: exact dtypes, strings, slices; others: as stored).

    Raises:
        NotFoundError-like OSError: if the file does not exist. DataLossError: if it is damaged.
    """
    path = os.fspath(path)
    fmt = format_of(path, fmt)
    if fmt == "npz":
        try:
            archive = np.load(path, allow_pickle=False)
        except (zipfile.BadZipFile, ValueError) as error:
            raise DataLossError(f"{path}: not a readable .npz file: {error}") from error
        with archive:
            names = list(archive.files)
            description = None
            if METADATA_KEY in names:
                description = json.loads(archive[METADATA_KEY].tobytes().decode("utf-8"))
            yield from _tensors(names, archive.__getitem__, description, path)
        return
    header, member, description = _read_safetensors(path)
    yield from _tensors(list(header), member, description, path)


def _tensors(names, member, description, path) -> Iterator[Tensor]:
    if description is None:  # a foreign file: every array as it is
        for name in names:
            array = member(name)
            yield Tensor(name, dtypes.as_dtype(array.dtype), array)
        return
    if description.get("format") != _METADATA_VERSION:
        raise DataLossError(f"{path}: description format {description.get('format')!r}, expected "
                            f"{_METADATA_VERSION}")
    for key, entry in description["tensors"].items():
        dtype, value = _decode(entry, member, path)
        yield Tensor(key, dtype, value, entry.get("slices"))


# ------------------------------------------------------------------------------------------ checkpoints


def checkpoint_tensors(reader, keys: Optional[Iterable[str]] = None) -> Iterator[Tensor]:
    """Yields the tensors of an open CheckpointReader (partitioned ones whole, with their slices)."""
    from saver.bundle import BundleReader
    dtype_map = reader.get_variable_to_dtype_map()
    bundle = BundleReader(reader.prefix) if getattr(reader, "format", "V2") == "V2" else None
    try:
        for key in sorted(dtype_map) if keys is None else keys:
            value = reader.get_tensor(key)
            if not isinstance(value, np.ndarray):
                value = np.array(value, dtype=object)
            slices = [str(s) for s in bundle.lookup_tensor_slices(key)] if bundle is not None else []
            yield Tensor(key, dtype_map[key], value, slices)
    finally:
        if bundle is not None:
            bundle.close()


def export_checkpoint(checkpoint, path: str, fmt: Optional[str] = None, keys: Optional[Iterable[str]] = None,
                      compress: bool = False, progress: Optional[Callable] = None) -> int:
    """Exports a checkpoint (path, directory or open reader) to .npz / .safetensors; returns the count.

    ``progress`` wraps the tensor iterator (e.g. a tqdm factory) when given.
    """
    from saver.reader import load_checkpoint
    reader = load_checkpoint(checkpoint) if isinstance(checkpoint, (str, os.PathLike)) else checkpoint
    try:
        tensors = checkpoint_tensors(reader, keys)
        if progress is not None:
            tensors = progress(tensors)
        return write_tensors(tensors, path, fmt, compress)
    finally:
        if reader is not checkpoint:
            reader.close()


def import_checkpoint(path: str, prefix: str, fmt: Optional[str] = None,
                      progress: Optional[Callable] = None) -> str:
    """Writes the tensors of an exported file as a V2 checkpoint at ``prefix``; returns the prefix."""
    from saver.bundle import BundleWriter
    from saver.coding import TensorSlice
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
