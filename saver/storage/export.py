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
import tokenize
import zipfile
import zlib
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy as np

from graph.base import dtypes
from graph.base.errors import DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError
from saver.format.bundle_files import atomic_file

__all__ = ["export_checkpoint", "import_checkpoint", "read_tensors", "write_tensors", "ExportedTensor",
           "checkpoint_tensors", "FORMATS", "format_of"]

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


class ExportedTensor:
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


def _encode(tensor: ExportedTensor, index: int, fmt: str) -> Tuple[dict, List[Tuple[str, np.ndarray]]]:
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


def _shape(value, where: str) -> Tuple[int, ...]:
    """A validated shape: a list of non-negative ints."""
    if not isinstance(value, list) or not all(type(d) is int and d >= 0 for d in value):
        raise DataLossError(f"{where}: shape {value!r} is not a list of non-negative integers")
    return tuple(value)


def _count(shape: Tuple[int, ...]) -> int:
    count = 1
    for dim in shape:
        count *= dim
    return count


def _same_dtype(found: np.dtype, expected: np.dtype) -> bool:
    return found.newbyteorder("=") == expected.newbyteorder("=")


def _decode(description, members: Callable[[str], np.ndarray], where: str, key: str
            ) -> Tuple[dtypes.DType, np.ndarray]:
    """(TF dtype, value) of one described tensor; every field checked before the data is read."""
    where = f"{where}: tensor {key!r}"
    if not isinstance(description, dict):
        raise DataLossError(f"{where}: its description is a {type(description).__name__}, not an object")
    for field in ("dtype", "shape", "stored"):
        if field not in description:
            raise DataLossError(f"{where}: its description has no {field!r}")
    name, encoding = description["dtype"], description.get("encoding", "array")
    if not isinstance(name, str):
        raise DataLossError(f"{where}: dtype {name!r} is not a string")
    try:
        dtype = dtypes.as_dtype(name)
    except (TypeError, ValueError) as error:
        raise DataLossError(f"{where}: unknown dtype {name!r}") from error
    if dtype._is_ref_dtype or dtype == dtypes.resource:  # noqa: SLF001 - TF's own attribute name
        raise DataLossError(f"{where}: dtype {name!r} cannot be stored in a file")
    shape = _shape(description["shape"], where)
    count = _count(shape)
    stored = description["stored"]
    if not isinstance(stored, str):
        raise DataLossError(f"{where}: member name {stored!r} is not a string")
    slices = description.get("slices", [])
    if not isinstance(slices, list) or not all(isinstance(s, str) for s in slices):
        raise DataLossError(f"{where}: slices {slices!r} are not a list of strings")
    is_string = dtype in (dtypes.string, dtypes.variant)
    if is_string != (encoding == "strings"):
        raise DataLossError(f"{where}: dtype {dtype.name} cannot use encoding {encoding!r}")
    if encoding == "strings":
        lengths_name = description.get("lengths")
        if not isinstance(lengths_name, str):
            raise DataLossError(f"{where}: member name of the string lengths {lengths_name!r} is not a string")
        lengths = members(lengths_name)
        if lengths.dtype.kind not in "iu" or lengths.ndim != 1 or lengths.size != count:
            raise DataLossError(f"{where}: string lengths are {lengths.dtype} of shape {list(lengths.shape)}, "
                                f"expected {count} integers")
        lengths = lengths.astype(np.int64)
        data = members(stored)
        raw = data.tobytes()
        if (lengths < 0).any() or int(lengths.sum(dtype=object)) != len(raw):
            raise DataLossError(f"{where}: string lengths do not match the {len(raw)} bytes of data")
        ends = np.cumsum(lengths)
        value = np.empty(lengths.size, dtype=object)
        value[:] = [raw[end - length:end] for end, length in zip(ends.tolist(), lengths.tolist())]
        return dtype, value.reshape(shape)
    numpy_dtype = dtype.numpy_dtype
    if encoding == "view":
        data = members(stored)
        if data.nbytes != count * numpy_dtype.itemsize:
            raise DataLossError(f"{where}: {data.nbytes} bytes stored for {count} elements of {dtype.name}")
        value = np.ascontiguousarray(data).reshape(-1).view(np.uint8).view(numpy_dtype)
        return dtype, value.reshape(shape)
    if encoding != "array":
        raise DataLossError(f"{where}: unknown encoding {encoding!r}")
    data = members(stored)
    if not _same_dtype(data.dtype, numpy_dtype) or data.size != count:
        raise DataLossError(f"{where}: member {stored!r} holds {data.dtype} of shape {list(data.shape)}, "
                            f"expected {numpy_dtype} of shape {list(shape)}")
    return dtype, np.asarray(data, dtype=numpy_dtype).reshape(shape)


def _parse_description(raw, path: str) -> dict:
    """The JSON description (bytes or str), checked to be ``{"format": 1, "tensors": {key: {...}}}``."""
    try:
        description = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise DataLossError(f"{path}: the {METADATA_KEY} description is not JSON (UTF-8): {error}") from error
    if not isinstance(description, dict):
        raise DataLossError(f"{path}: the {METADATA_KEY} description is a {type(description).__name__}, "
                            "not an object")
    if description.get("format") != _METADATA_VERSION:
        raise DataLossError(f"{path}: description format {description.get('format')!r}, expected "
                            f"{_METADATA_VERSION}")
    if not isinstance(description.get("tensors"), dict):
        raise DataLossError(f"{path}: the {METADATA_KEY} description has no \"tensors\" object")
    return description


# ------------------------------------------------------------------------------------------ files


def write_tensors(tensors: Iterable[ExportedTensor], path: str, fmt: Optional[str] = None, compress: bool = False) -> int:
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
        with atomic_file(path) as file:
            write(file)
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
    with atomic_file(path) as file:
        write_safetensors(file)
    return len(described)


def _read_safetensors(path: str) -> Tuple[List[str], Callable[[str], np.ndarray], Optional[dict]]:
    """(member names, member reader, description or None); the whole header checked first."""
    try:
        file = open(path, "rb")
    except FileNotFoundError as error:
        raise NotFoundError(f"{path}: No such file or directory") from error
    with file:
        head = file.read(8)
        if len(head) != 8:
            raise DataLossError(f"{path}: too short for a safetensors file ({len(head)} bytes)")
        (length,) = _SAFETENSORS_HEADER.unpack(head)
        size = os.fstat(file.fileno()).st_size
        if length > _SAFETENSORS_MAX_HEADER or 8 + length > size:
            raise DataLossError(f"{path}: safetensors header length {length} is implausible for a "
                                f"{size}-byte file")
        raw = file.read(length)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise DataLossError(f"{path}: the safetensors header is not JSON (UTF-8): {error}") from error
    if not isinstance(header, dict):
        raise DataLossError(f"{path}: the safetensors header is a {type(header).__name__}, not an object")
    base = 8 + length
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise DataLossError(f"{path}: the safetensors __metadata__ is not an object of strings")
    entries: Dict[str, Tuple[np.dtype, Tuple[int, ...], int]] = {}
    for name, entry in header.items():
        where = f"{path}: tensor {name!r}"
        if not isinstance(entry, dict):
            raise DataLossError(f"{where}: its header entry is not an object")
        if entry.get("dtype") not in _SAFETENSORS_DTYPES:
            raise DataLossError(f"{where}: unsupported safetensors dtype {entry.get('dtype')!r}")
        numpy_dtype = dtypes.as_dtype(_SAFETENSORS_DTYPES[entry["dtype"]]).numpy_dtype
        shape = _shape(entry.get("shape"), where)
        offsets = entry.get("data_offsets")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(type(v) is int for v in offsets)):
            raise DataLossError(f"{where}: data_offsets {offsets!r} is not a pair of integers")
        start, end = offsets
        if not 0 <= start <= end or base + end > size or end - start != _count(shape) * numpy_dtype.itemsize:
            raise DataLossError(f"{where}: bad data_offsets {offsets} for shape {list(shape)} of "
                                f"{entry['dtype']} in a file of {size} bytes")
        entries[name] = (numpy_dtype, shape, base + start)

    def member(name: str) -> np.ndarray:
        if name not in entries:
            raise DataLossError(f"{path}: the description names tensor {name!r}, which the file lacks")
        numpy_dtype, shape, offset = entries[name]
        array = np.fromfile(path, dtype=np.dtype(numpy_dtype).newbyteorder("<"), count=_count(shape),
                            offset=offset)
        return array.astype(numpy_dtype, copy=False).reshape(shape)
    description = None
    if METADATA_KEY in metadata:
        description = _parse_description(metadata[METADATA_KEY], path)
    return list(entries), member, description


# Errors zipfile, zlib and numpy's .npy header parser raise for a damaged archive (the file itself is
# already open, so OSError here is a bad seek or read inside it).
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError,
               ValueError, struct.error, OSError, tokenize.TokenError, SyntaxError)
_NPY_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def _npz_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: str) -> np.ndarray:
    """One ``.npy`` member, its header checked against the member's size before anything is allocated."""
    where = f"{path}: member {info.filename!r}"
    try:
        with archive.open(info) as member:
            version = np.lib.format.read_magic(member)
            if version not in _NPY_HEADER_READERS:
                raise UnimplementedError(f"{where}: .npy format version {version} is not supported")
            shape, fortran_order, dtype = _NPY_HEADER_READERS[version](member)
            if dtype.hasobject:
                raise DataLossError(f"{where}: holds Python objects, which are never unpickled")
            nbytes = _count(shape) * dtype.itemsize
            available = info.file_size - member.tell()
            if nbytes != available:
                raise DataLossError(f"{where}: shape {list(shape)} of {dtype} needs {nbytes} bytes, "
                                    f"the member holds {available}")
            buffer = bytearray(nbytes)
            view, done = memoryview(buffer), 0
            while done < nbytes:
                got = member.readinto(view[done:])
                if not got:
                    raise DataLossError(f"{where}: ends after {done} of {nbytes} bytes")
                done += got
    except _ZIP_ERRORS as error:
        raise DataLossError(f"{where}: cannot be read: {error}") from error
    array = np.frombuffer(buffer, dtype=dtype)
    return array.reshape(shape[::-1]).transpose() if fortran_order else array.reshape(shape)


def _read_npz(path: str) -> Iterator[ExportedTensor]:
    try:
        file = open(path, "rb")
    except FileNotFoundError as error:
        raise NotFoundError(f"{path}: No such file or directory") from error
    with file:
        try:
            archive = zipfile.ZipFile(file)
        except _ZIP_ERRORS as error:
            raise DataLossError(f"{path}: not a readable .npz file: {error}") from error
        with archive:
            infos: Dict[str, zipfile.ZipInfo] = {}
            for info in archive.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                if name in infos:
                    raise DataLossError(f"{path}: member {info.filename!r} appears twice")
                infos[name] = info

            def member(name: str) -> np.ndarray:
                if name not in infos:
                    raise DataLossError(f"{path}: the description names member {name!r}, which the file lacks")
                return _npz_member(archive, infos[name], path)
            description = None
            if METADATA_KEY in infos:
                description = _parse_description(member(METADATA_KEY).tobytes(), path)
            yield from _tensors([n for n in infos if n != METADATA_KEY], member, description, path)


def read_tensors(path: str, fmt: Optional[str] = None) -> Iterator[ExportedTensor]:
    """Yields the tensors of an exported file (ours: exact dtypes, strings, slices; others: as stored).

    Raises:
        NotFoundError: if the file does not exist. DataLossError: if it is damaged (naming the file and
        what is wrong). UnimplementedError: for a .npy member version this reader does not know.
    """
    path = os.fspath(path)
    fmt = format_of(path, fmt)
    if fmt == "npz":
        yield from _read_npz(path)
        return
    names, member, description = _read_safetensors(path)
    yield from _tensors(names, member, description, path)


def _tensors(names, member, description, path) -> Iterator[ExportedTensor]:
    if description is None:  # a foreign file: every array as it is
        for name in names:
            array = member(name)
            try:
                dtype = dtypes.as_dtype(array.dtype)
            except TypeError as error:
                raise DataLossError(f"{path}: member {name!r} has dtype {array.dtype}, which has no TF "
                                    "dtype") from error
            yield ExportedTensor(name, dtype, array)
        return
    for key, entry in description["tensors"].items():
        dtype, value = _decode(entry, member, path, key)
        yield ExportedTensor(key, dtype, value, entry.get("slices"))


# ------------------------------------------------------------------------------------------ checkpoints


def checkpoint_tensors(reader, keys: Optional[Iterable[str]] = None) -> Iterator[ExportedTensor]:
    """Yields the tensors of an open CheckpointReader (partitioned ones whole, with their slices)."""
    from saver.format.bundle import BundleReader
    dtype_map = reader.get_variable_to_dtype_map()
    bundle = BundleReader(reader.prefix) if getattr(reader, "format", "V2") == "V2" else None
    try:
        for key in sorted(dtype_map) if keys is None else keys:
            value = reader.get_tensor(key)
            if not isinstance(value, np.ndarray):
                value = np.array(value, dtype=object)
            slices = [str(s) for s in bundle.lookup_tensor_slices(key)] if bundle is not None else []
            yield ExportedTensor(key, dtype_map[key], value, slices)
    finally:
        if bundle is not None:
            bundle.close()


def export_checkpoint(checkpoint, path: str, fmt: Optional[str] = None, keys: Optional[Iterable[str]] = None,
                      compress: bool = False, progress: Optional[Callable] = None) -> int:
    """Exports a checkpoint (path, directory or open reader) to .npz / .safetensors; returns the count.

    ``progress`` wraps the tensor iterator (e.g. a tqdm factory) when given.
    """
    from saver.storage.reader import load_checkpoint
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
    from saver.format.bundle import BundleWriter
    from saver.format.coding import TensorSlice
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
