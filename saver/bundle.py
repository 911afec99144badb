"""Tensor bundles (TF's V2 checkpoint): BundleWriter, BundleReader, merge_bundles, write_checkpoint.

Layout (tf-checkpoint-format.md §1-§4)::

    <prefix>.index                      SSTable: "" -> BundleHeaderProto, key -> BundleEntryProto
    <prefix>.data-%05d-of-%05d          tensors back to back, no header, no padding
    numeric tensor : raw little-endian row-major bytes; entry.crc32c = mask(crc32c(bytes))
    DT_STRING      : varint64 len * n, uint32 '<' mask(c1), bytes * n
                     c1 = crc32c(every len as uint32 '<' (uint64 '<' when >= 2**32))
                     entry.crc32c = mask(crc32c continued from c1 over mask(c1) and the bytes)
    DT_VARIANT     : per element: varint64 len, body, uint32 '<' mask(running crc); the running
                     crc takes len as uint64 '<', the body, then those 4 checksum bytes
    partitioned    : key name -> {dtype, full shape, slices}; each slice stored under the key
                     encode_tensor_name_slice(name, slice) as an ordinary entry

Writes are atomic: each file goes to ``<name>.tempstate<random uint64>`` and is renamed, data
first, then index (TensorFlow's order).  The reader reads only the index on open; tensor bytes
are read on demand straight into the destination array and their CRC checked.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import secrets
import struct
import sys
from typing import Iterator, Mapping, Sequence

import numpy as np

from graph import dtypes
from graph.errors import (DataLossError, InvalidArgumentError, NotFoundError,
                          UnimplementedError)
from saver import crc
from saver.coding import (TensorSlice, decode_varint64, encode_tensor_name_slice, encode_varint,
                          parse_shape_and_slice)
from saver.proto import (BundleEntryProto, BundleHeaderProto, Message, TensorShapeProto,
                         TensorSliceProto, VersionDef)
from saver.table import Table, TableWriter

__all__ = [
    "BundleWriter", "BundleReader", "Slice", "merge_bundles", "write_checkpoint",
    "data_filename", "index_filename", "temp_filename",
    "slice_to_proto", "slice_from_proto", "TENSOR_BUNDLE_VERSION",
]

HEADER_KEY = b""                # tensor_bundle.cc kHeaderEntryKey
TENSOR_BUNDLE_VERSION = 1       # tensor_bundle.h kTensorBundleVersion (producer written, consumer read)
TENSOR_BUNDLE_MIN_PRODUCER = 0  # tensor_bundle.h kTensorBundleMinProducer
TENSOR_BUNDLE_MIN_CONSUMER = 0  # tensor_bundle.h kTensorBundleMinConsumer (0 -> left out)
_MAX_RANK = 254                 # TensorShape::MaxDimensions()
_MAX_ELEMENTS = 1 << 62         # anything above cannot be a real tensor
_COPY_CHUNK = 1 << 26


def data_filename(prefix: str, shard_id: int, num_shards: int) -> str:
    """``<prefix>.data-%05d-of-%05d`` (tensor_bundle.cc DataFilename)."""
    return "%s.data-%05d-of-%05d" % (prefix, shard_id, num_shards)


def index_filename(prefix: str) -> str:
    """``<prefix>.index`` (tensor_bundle.cc MetaFilename)."""
    return f"{prefix}.index"


def temp_filename(filename: str) -> str:
    """``<filename>.tempstate<random uint64 in decimal>``, the name written before the rename."""
    return f"{filename}.tempstate{secrets.randbits(64)}"


def slice_to_proto(tensor_slice: TensorSlice) -> TensorSliceProto:
    """TensorSlice::AsProto: a whole dimension is an empty Extent; else start and length set."""
    extents = []
    for start, length in tensor_slice.extents:
        if length == -1:
            extents.append(TensorSliceProto.Extent())
        else:
            extents.append(TensorSliceProto.Extent(start=start, length=length))
    return TensorSliceProto(extent=extents)


def slice_from_proto(proto: TensorSliceProto) -> TensorSlice:
    """TensorSlice(proto): an Extent without length is a whole dimension."""
    return TensorSlice((e.start, -1) if e.length is None else (e.start, e.length) for e in proto.extent)


def _key_bytes(key) -> bytes:
    return key.encode("utf-8", "surrogateescape") if isinstance(key, str) else bytes(key)


def _key_str(key: bytes) -> str:
    return key.decode("utf-8", "surrogateescape")


@dataclasses.dataclass(frozen=True)
class Slice:
    """One stored part of a partitioned tensor: full shape, the slice, and the part's values.

    ``spec`` is a TensorSlice or its string (``"0,3:-"``);
    ``Slice.parse("7 2 0,3:0,2", value)`` takes a Saver shape-and-slice string.
    """

    full_shape: tuple
    spec: TensorSlice
    value: np.ndarray

    def __post_init__(self):
        spec = self.spec if isinstance(self.spec, TensorSlice) else TensorSlice.parse(self.spec)
        object.__setattr__(self, "spec", spec)
        object.__setattr__(self, "full_shape", tuple(int(d) for d in self.full_shape))

    @classmethod
    def parse(cls, shape_and_slice: str, value) -> "Slice":
        """A Slice from ``"7 2 0,3:0,2"`` and the part's values."""
        shape, spec = parse_shape_and_slice(shape_and_slice)
        return cls(tuple(shape), spec if spec is not None else TensorSlice.full(len(shape)), value)


# ------------------------------------------------------------------------------------------ writing


def _as_array(value, dtype: dtypes.DType | None) -> tuple[np.ndarray, dtypes.DType]:
    """Converts a value to (C-contiguous little-endian array, DType)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    array = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=(
        None if dtype is None or dtype in (dtypes.string, dtypes.variant) else dtype.numpy_dtype))
    if dtype is None:
        dtype = dtypes.as_dtype(array.dtype)
    if dtype in (dtypes.string, dtypes.variant):
        if array.dtype != object:
            array = array.astype(object)
        return np.asarray(array, order="C"), dtype
    if dtype == dtypes.resource:
        raise InvalidArgumentError("A resource handle cannot be saved in a checkpoint (TensorFlow aborts on it)")
    array = np.asarray(array, dtype=dtype.numpy_dtype, order="C")  # keeps 0-d shape
    if sys.byteorder == "big" and array.dtype.itemsize > 1:  # files are little-endian
        array = array.byteswap()
    return array, dtype


def _string_elements(array: np.ndarray) -> list[bytes]:
    out = []
    for item in array.reshape(-1):
        if isinstance(item, str):
            item = item.encode("utf-8")
        elif isinstance(item, Message):
            item = item.to_bytes()
        elif not isinstance(item, (bytes, bytearray, memoryview, np.bytes_)):
            raise InvalidArgumentError(f"string tensor element {item!r} is not bytes or str")
        out.append(bytes(item))
    return out


def _encode_strings(items: list[bytes]) -> tuple[list, int, int]:
    """DT_STRING layout; returns (chunks, size, raw crc)."""
    lengths = [len(s) for s in items]
    header = b"".join(encode_varint(n) for n in lengths)
    if all(n < (1 << 32) for n in lengths):
        length_bytes = struct.pack("<%dI" % len(lengths), *lengths)
    else:  # tensor_bundle.cc WriteStringTensor: uint64 for lengths >= 2**32 (source only)
        length_bytes = b"".join(struct.pack("<I" if n < (1 << 32) else "<Q", n) for n in lengths)
    length_crc = crc.crc32c(length_bytes)
    masked = struct.pack("<I", crc.mask(length_crc))
    running = crc.extend(length_crc, masked)
    for item in items:
        running = crc.extend(running, item)
    chunks = [header, masked, *items]
    return chunks, len(header) + 4 + sum(lengths), running


def _encode_variants(items: list[bytes]) -> tuple[list, int, int]:
    """DT_VARIANT layout; returns (chunks, size, raw crc)."""
    chunks, size, running = [], 0, 0
    for body in items:
        length = encode_varint(len(body))
        running = crc.extend(running, struct.pack("<Q", len(body)))
        running = crc.extend(running, body)
        checksum = struct.pack("<I", crc.mask(running))
        running = crc.extend(running, checksum)
        chunks += (length, body, checksum)
        size += len(length) + len(body) + 4
    return chunks, size, running


class BundleWriter:
    """Writes one tensor bundle (TF's BundleWriter): ``add`` / ``add_slice`` then ``finish``.

    Tensor bytes stream into ``<prefix>.data-00000-of-00001.tempstate<u64>`` as they are
    added; ``finish`` renames it and writes the index the same way.  Use as a context manager
    to remove the temporary files if anything fails.

    Raises:
        NotFoundError: if the parent of the prefix's directory does not exist (one level is created).
    """

    def __init__(self, prefix: str):
        self.prefix = os.fspath(prefix)
        directory = os.path.dirname(self.prefix)
        if directory:
            try:
                os.mkdir(directory)
            except FileExistsError:
                pass
            except FileNotFoundError as error:
                raise NotFoundError(f"Failed to create a directory: {directory}; "
                                    "No such file or directory") from error
        self._entries: dict[bytes, BundleEntryProto] = {}
        self._data_path = data_filename(self.prefix, 0, 1)
        self._temp_data_path = temp_filename(self._data_path)
        self._temp_index_path: str | None = None
        self._file = open(self._temp_data_path, "wb")
        self._size = 0
        self._finished = False

    def __enter__(self) -> "BundleWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            if not self._finished:
                self.finish()
        else:
            self.abort()

    def abort(self) -> None:
        """Closes and removes the temporary files."""
        self._finished = True
        if not self._file.closed:
            self._file.close()
        for path in (self._temp_data_path, self._temp_index_path):
            if path and os.path.exists(path):
                os.remove(path)

    def _write(self, chunk) -> None:
        self._file.write(chunk)

    def add(self, key: str | bytes, value, dtype=None) -> BundleEntryProto:
        """Appends one tensor under ``key``; returns its entry.

        Args:
            key: the checkpoint key.
            value: a numpy array (or anything np.asarray takes); strings as bytes/str objects;
                DT_VARIANT elements as serialized VariantTensorDataProto bytes (pass ``dtype``).
            dtype: the DType to store (default: from the array's numpy dtype).

        Raises:
            InvalidArgumentError: for a duplicate key or an unsaveable value.
        """
        assert not self._finished, "BundleWriter already finished"
        raw_key = _key_bytes(key)
        if raw_key in self._entries:
            raise InvalidArgumentError(f"Adding duplicate key: {_key_str(raw_key)}")
        array, dtype = _as_array(value, dtype)
        entry = BundleEntryProto(dtype=dtype.as_datatype_enum, shape=TensorShapeProto.from_shape(array.shape),
                                 shard_id=0, offset=self._size)
        if dtype in (dtypes.string, dtypes.variant):
            items = _string_elements(array)
            encode = _encode_strings if dtype == dtypes.string else _encode_variants
            chunks, size, checksum = encode(items)
            for chunk in chunks:
                self._write(chunk)
        else:
            flat = array.reshape(-1).view(np.uint8)
            self._write(flat)
            size, checksum = flat.size, crc.crc32c(flat)
        entry.size = size
        entry.crc32c = crc.mask(checksum)
        self._size += size
        self._entries[raw_key] = entry
        return entry

    def add_slice(self, full_tensor_key: str | bytes, full_tensor_shape: Sequence[int],
                  slice_spec: TensorSlice | str, slice_tensor, dtype=None) -> None:
        """Appends one slice of a partitioned tensor (TF's BundleWriter::AddSlice).

        A slice covering the whole tensor is stored as a plain entry.

        Raises:
            InvalidArgumentError: if the slice does not fit the shape or disagrees with earlier slices.
        """
        spec = slice_spec if isinstance(slice_spec, TensorSlice) else TensorSlice.parse(slice_spec)
        full_shape = tuple(int(d) for d in full_tensor_shape)
        array, dtype = _as_array(slice_tensor, dtype)
        expected = spec.slice_shape(full_shape)
        if tuple(array.shape) != expected:
            raise InvalidArgumentError(f"Slice {spec} of {_key_str(_key_bytes(full_tensor_key))} with shape "
                                       f"{list(full_shape)} needs a value of shape {list(expected)}, "
                                       f"got {list(array.shape)}")
        if spec.is_full() or expected == full_shape:
            self.add(full_tensor_key, array, dtype)
            return
        raw_key = _key_bytes(full_tensor_key)
        full = self._entries.get(raw_key)
        if full is None:
            full = self._entries[raw_key] = BundleEntryProto()
        elif full.dtype != dtype.as_datatype_enum or full.shape.to_shape() != full_shape:
            raise InvalidArgumentError(f"Slice {spec} of {_key_str(raw_key)} has dtype {dtype.name} and full "
                                       f"shape {list(full_shape)} but an earlier slice had dtype "
                                       f"{dtypes.as_dtype(full.dtype).name} and full shape "
                                       f"{list(full.shape.to_shape())}")
        elif not full.slices:
            raise InvalidArgumentError(f"Adding duplicate key: {_key_str(raw_key)}")
        full.dtype = dtype.as_datatype_enum
        full.shape = TensorShapeProto.from_shape(full_shape)
        full.slices.append(slice_to_proto(spec))
        self.add(encode_tensor_name_slice(raw_key, spec), array, dtype)

    def finish(self) -> None:
        """Renames the data file into place, then writes the index (temp name, rename)."""
        assert not self._finished, "BundleWriter already finished"
        self._finished = True
        try:
            self._file.close()
            os.replace(self._temp_data_path, self._data_path)
            header = BundleHeaderProto(num_shards=1, endianness=BundleHeaderProto.LITTLE,
                                       version=VersionDef(producer=TENSOR_BUNDLE_VERSION,
                                                          min_consumer=TENSOR_BUNDLE_MIN_CONSUMER))
            index_path = index_filename(self.prefix)
            self._temp_index_path = temp_filename(index_path)
            _write_index(self._temp_index_path, header, self._entries)
            os.replace(self._temp_index_path, index_path)
        except BaseException:
            self.abort()
            raise


def _write_index(path: str, header: BundleHeaderProto, entries: Mapping[bytes, BundleEntryProto]) -> None:
    with open(path, "wb") as file:
        table = TableWriter(file)
        table.add(HEADER_KEY, header.to_bytes())
        for key in sorted(entries):
            table.add(key, entries[key].to_bytes())
        table.finish()


def write_checkpoint(prefix: str, tensors: Mapping[str, object]) -> str:
    """Writes a V2 checkpoint as TF1's Saver does; returns ``prefix``.

    Args:
        prefix: the checkpoint prefix (``dir/model.ckpt-10``).
        tensors: name -> array, or name -> a Slice / list of Slices for a partitioned variable.
            Names are written in sorted order, slices of one name in the order given.
    """
    with BundleWriter(prefix) as writer:
        for name in sorted(tensors):
            value = tensors[name]
            if isinstance(value, Slice):
                value = [value]
            if isinstance(value, (list, tuple)) and value and all(isinstance(v, Slice) for v in value):
                for part in value:
                    writer.add_slice(name, part.full_shape, part.spec, part.value)
            else:
                writer.add(name, value)
    return prefix


# ------------------------------------------------------------------------------------------ reading


def _check_versions(version: VersionDef | None, where: str) -> None:
    """tensorflow/core/framework/versions.cc CheckVersions for bundles."""
    if version is None:
        return
    if version.producer < TENSOR_BUNDLE_MIN_PRODUCER:
        raise InvalidArgumentError(f"Checkpoint producer version {version.producer} below min producer "
                                   f"{TENSOR_BUNDLE_MIN_PRODUCER} supported by checkpoint ({where}).")
    if version.min_consumer > TENSOR_BUNDLE_VERSION:
        raise InvalidArgumentError(f"Checkpoint min consumer version {version.min_consumer} above current "
                                   f"version {TENSOR_BUNDLE_VERSION} for checkpoint ({where}).  "
                                   "Please upgrade TensorFlow.")
    if TENSOR_BUNDLE_VERSION in version.bad_consumers:
        raise InvalidArgumentError(f"Checkpoint disallows consumer version {TENSOR_BUNDLE_VERSION} ({where}).  "
                                   "Please upgrade TensorFlow: this version is likely buggy.")


class BundleReader:
    """Reads a tensor bundle (TF's BundleReader); opening reads only ``<prefix>.index``.

    Raises:
        NotFoundError: if ``<prefix>.index`` does not exist.
        DataLossError: if the index is damaged.
        InvalidArgumentError: if the bundle's version is not readable.
    """

    def __init__(self, prefix: str):
        self.prefix = os.fspath(prefix)
        self.index_path = index_filename(self.prefix)
        if not os.path.exists(self.index_path):
            raise NotFoundError(f"Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                                f"files for {self.prefix} ({self.index_path} does not exist)")
        self._table = Table(self.index_path)
        raw_header = self._table.get(HEADER_KEY)
        if raw_header is None:
            raise DataLossError(f"{self.index_path}: no bundle header entry (key '')")
        self.header = self._parse(BundleHeaderProto, raw_header, "header")
        _check_versions(self.header.version, self.index_path)
        self.num_shards = self.header.num_shards
        if self.num_shards < 1:
            raise DataLossError(f"{self.index_path}: bundle header has num_shards = {self.num_shards}")
        if self.header.endianness not in (BundleHeaderProto.LITTLE, BundleHeaderProto.BIG):
            raise DataLossError(f"{self.index_path}: bad endianness {self.header.endianness} in the header")
        self.byteswap = self.header.endianness == BundleHeaderProto.BIG
        self._entries: dict[bytes, BundleEntryProto] = {}
        self._files: dict[int, object] = {}

    def __enter__(self) -> "BundleReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Closes the open data files."""
        for file in self._files.values():
            file.close()
        self._files.clear()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _parse(self, cls, raw: bytes, key) -> Message:
        try:
            return cls.from_bytes(raw)
        except DataLossError as error:
            raise DataLossError(f"{self.index_path}: cannot parse the {cls.__name__} of key "
                                f"{key!r}: {error.message}") from error

    # -- keys and entries ----------------------------------------------------------------------

    def raw_items(self) -> Iterator[tuple[bytes, BundleEntryProto]]:
        """Yields (raw key, entry) for every key but the header, slice keys included."""
        for key, raw in self._table.items():
            if key != HEADER_KEY:
                entry = self._entries.get(key)
                if entry is None:
                    entry = self._entries[key] = self._parse(BundleEntryProto, raw, _key_str(key))
                yield key, entry

    def keys(self) -> list[str]:
        """Every tensor name, sorted, without the header and the ``\\x00`` slice keys."""
        return [_key_str(key) for key, _ in self._table.items() if key and key[0] != 0]

    def __contains__(self, key) -> bool:
        raw = _key_bytes(key)
        return raw != HEADER_KEY and self._table.get(raw) is not None

    def contains(self, key: str) -> bool:
        """True when ``key`` names a tensor (BundleReader::Contains)."""
        return key in self

    def _not_found(self, key: str) -> NotFoundError:
        names = self.keys()
        close = difflib.get_close_matches(key, names, n=5, cutoff=0.5)
        hint = f" Closest keys present: {', '.join(close)}." if close else ""
        return NotFoundError(f"Key {key} not found in checkpoint {self.prefix} ({len(names)} keys).{hint}")

    def lookup_entry(self, key: str | bytes) -> BundleEntryProto:
        """The BundleEntryProto of ``key``.

        Raises:
            NotFoundError: naming the closest keys present.
        """
        raw_key = _key_bytes(key)
        entry = self._entries.get(raw_key)
        if entry is None:
            raw = self._table.get(raw_key) if raw_key != HEADER_KEY else None
            if raw is None:
                raise self._not_found(_key_str(raw_key))
            entry = self._entries[raw_key] = self._parse(BundleEntryProto, raw, _key_str(raw_key))
        return entry

    def _dtype_and_shape(self, key: str, entry: BundleEntryProto) -> tuple[dtypes.DType, tuple[int, ...]]:
        try:
            dtype = dtypes.as_dtype(entry.dtype)
        except TypeError as error:
            raise DataLossError(f"{self.index_path}: key {key} has unknown dtype enum {entry.dtype}") from error
        shape_proto = entry.shape or TensorShapeProto()
        if shape_proto.unknown_rank or len(shape_proto.dim) > _MAX_RANK:
            raise DataLossError(f"{self.index_path}: key {key} has an unknown or absurd rank")
        shape = shape_proto.to_shape()
        count = 1
        for size in shape:
            if size < 0:
                raise DataLossError(f"{self.index_path}: key {key} has negative dimension in shape {list(shape)}")
            count *= size
        if count > _MAX_ELEMENTS:
            raise DataLossError(f"{self.index_path}: key {key} has an absurd shape {list(shape)}")
        return dtype, shape

    def lookup_dtype_and_shape(self, key: str) -> tuple[dtypes.DType, tuple[int, ...]]:
        """(DType, shape) of ``key`` without reading its data."""
        return self._dtype_and_shape(key, self.lookup_entry(key))

    def lookup_tensor_slices(self, key: str) -> list[TensorSlice]:
        """The stored slices of a partitioned tensor ([] for a plain one)."""
        return [slice_from_proto(s) for s in self.lookup_entry(key).slices]

    # -- data ---------------------------------------------------------------------------------

    def _data_file(self, shard_id: int, key: str):
        if not 0 <= shard_id < self.num_shards:
            raise DataLossError(f"{self.index_path}: key {key} names shard {shard_id} but the bundle has "
                                f"{self.num_shards} shard(s)")
        file = self._files.get(shard_id)
        if file is None:
            path = data_filename(self.prefix, shard_id, self.num_shards)
            try:
                file = open(path, "rb", buffering=0)
            except FileNotFoundError as error:
                raise NotFoundError(f"{path}: data file of checkpoint {self.prefix} not found "
                                    f"(needed for key {key})") from error
            file.size = os.fstat(file.fileno()).st_size
            self._files[shard_id] = file
        return file

    def _locate(self, key: str, entry: BundleEntryProto):
        file = self._data_file(entry.shard_id, key)
        if entry.offset < 0 or entry.size < 0 or entry.offset + entry.size > file.size:
            raise DataLossError(f"{file.name}: entry for key {key} (offset {entry.offset}, size {entry.size}) "
                                f"runs past the end of the data file ({file.size} bytes)")
        return file

    def _read_exact(self, file, offset: int, view: memoryview, key: str) -> None:
        file.seek(offset)
        done = 0
        while done < len(view):
            count = file.readinto(view[done:])
            if not count:
                raise DataLossError(f"{file.name}: short read for key {key} at offset {offset + done}")
            done += count

    def _crc_error(self, file, key: str, stored: int, computed: int) -> DataLossError:
        return DataLossError(f"{file.name}: Checksum does not match for key {key}: stored {stored} vs. "
                             f"calculated on the restored bytes {computed}")

    def lookup(self, key: str, out: np.ndarray | None = None) -> np.ndarray:
        """The value of tensor ``key`` (a partitioned tensor is reassembled).

        Args:
            key: the checkpoint key.
            out: optional C-contiguous array of the right dtype and shape to read into.

        Raises:
            NotFoundError: if the key is missing. DataLossError: on any damage.
        """
        entry = self.lookup_entry(key)
        if entry.slices:
            dtype, shape = self._dtype_and_shape(key, entry)
            return self.lookup_slice(key, TensorSlice.full(len(shape)), out=out)
        return self._read_entry(_key_str(_key_bytes(key)), entry, out)

    get_tensor = lookup

    def _read_entry(self, key: str, entry: BundleEntryProto, out: np.ndarray | None) -> np.ndarray:
        dtype, shape = self._dtype_and_shape(key, entry)
        count = int(np.prod(shape, dtype=object)) if shape else 1
        file = self._locate(key, entry)
        if dtype in (dtypes.string, dtypes.variant):
            result = self._read_strings(file, key, entry, dtype, shape, count)
            if out is not None:
                out[...] = result
                return out
            return result
        if not dtype.is_numpy_compatible:
            raise UnimplementedError(f"Cannot read key {key} of dtype {dtype.name}")
        numpy_dtype = dtype.numpy_dtype
        expected = count * numpy_dtype.itemsize
        if entry.size != expected:
            raise DataLossError(f"{file.name}: key {key} has {entry.size} bytes but shape {list(shape)} of "
                                f"{dtype.name} needs {expected}")
        if out is None:
            out = np.empty(shape, numpy_dtype)
        elif (out.shape != shape or out.dtype != numpy_dtype or not out.flags.c_contiguous
              or not out.flags.writeable):
            raise InvalidArgumentError(f"Cannot read key {key} ({dtype.name} {list(shape)}) into an array of "
                                       f"{out.dtype} {list(out.shape)}")
        flat = out.reshape(-1).view(np.uint8)
        self._read_exact(file, entry.offset, memoryview(flat), key)
        computed = crc.mask(crc.crc32c(flat))
        if computed != entry.crc32c:
            raise self._crc_error(file, key, entry.crc32c, computed)
        if self.byteswap and numpy_dtype.itemsize > 1:
            out.byteswap(inplace=True)
        return out

    def _read_strings(self, file, key, entry, dtype, shape, count) -> np.ndarray:
        per_element = 5 if dtype == dtypes.variant else 1
        if entry.size < count * per_element + (4 if dtype == dtypes.string else 0):
            raise DataLossError(f"{file.name}: key {key} has {entry.size} bytes, too few for {count} "
                                f"{dtype.name} elements of shape {list(shape)}")
        blob = bytearray(entry.size)
        self._read_exact(file, entry.offset, memoryview(blob), key)
        items = []
        try:
            if dtype == dtypes.string:
                running, pos = self._parse_strings(file, key, blob, count, items)
            else:
                running, pos = self._parse_variants(file, key, blob, count, items)
        except (DataLossError, IndexError) as error:
            raise DataLossError(f"{file.name}: damaged {dtype.name} tensor for key {key}: {error}") from error
        if pos != len(blob):
            raise DataLossError(f"{file.name}: key {key} has {len(blob) - pos} unexpected trailing bytes")
        if crc.mask(running) != entry.crc32c:
            raise self._crc_error(file, key, entry.crc32c, crc.mask(running))
        result = np.empty(count, dtype=object)
        result[:] = items
        return result.reshape(shape)

    def _parse_strings(self, file, key, blob, count, items):
        lengths, pos = [], 0
        for _ in range(count):
            length, pos = decode_varint64(blob, pos)
            lengths.append(length)
        if pos + 4 + sum(lengths) != len(blob):
            raise DataLossError(f"string lengths add up to {sum(lengths)} bytes, entry has {len(blob) - pos - 4}")
        length_bytes = b"".join(struct.pack("<I" if n < (1 << 32) else "<Q", n) for n in lengths)
        length_crc = crc.crc32c(length_bytes)
        stored = struct.unpack_from("<I", blob, pos)[0]
        if stored != crc.mask(length_crc):
            raise DataLossError(f"The length checksum does not match: expected {stored:#010x} but actual "
                                f"is {crc.mask(length_crc):#010x}")
        running = crc.extend(length_crc, blob[pos:pos + 4])
        pos += 4
        view = memoryview(blob)
        running = crc.extend(running, view[pos:])
        for length in lengths:
            items.append(bytes(view[pos:pos + length]))
            pos += length
        return running, pos

    def _parse_variants(self, file, key, blob, count, items):
        running, pos = 0, 0
        for _ in range(count):
            length, pos = decode_varint64(blob, pos)
            if pos + length + 4 > len(blob):
                raise DataLossError(f"variant element of {length} bytes runs past the entry")
            running = crc.extend(running, struct.pack("<Q", length))
            body = bytes(blob[pos:pos + length])
            running = crc.extend(running, body)
            pos += length
            stored = struct.unpack_from("<I", blob, pos)[0]
            if stored != crc.mask(running):
                raise DataLossError("variant element checksum does not match")
            running = crc.extend(running, blob[pos:pos + 4])
            pos += 4
            items.append(body)
        return running, pos

    def lookup_slice(self, full_tensor_key: str, slice_spec: TensorSlice | str,
                     out: np.ndarray | None = None) -> np.ndarray:
        """The requested slice of a tensor, copied from whichever stored slices overlap it.

        Raises:
            NotFoundError: if the stored slices do not cover the request.
        """
        spec = slice_spec if isinstance(slice_spec, TensorSlice) else TensorSlice.parse(slice_spec)
        entry = self.lookup_entry(full_tensor_key)
        dtype, full_shape = self._dtype_and_shape(full_tensor_key, entry)
        wanted_shape = spec.slice_shape(full_shape)
        if not entry.slices:  # a whole stored tensor restored as any slice
            whole = self._read_entry(full_tensor_key, entry, None)
            if spec.covers(full_shape) and out is None:
                return whole
            result = out if out is not None else np.empty(wanted_shape, whole.dtype)
            result[...] = whole[spec.index(full_shape)]
            return result
        numpy_dtype = dtype.numpy_dtype
        result = out if out is not None else np.empty(wanted_shape, numpy_dtype)
        if tuple(result.shape) != wanted_shape:
            raise InvalidArgumentError(f"out has shape {list(result.shape)}, slice {spec} needs {list(wanted_shape)}")
        covered = 0
        for stored_proto in entry.slices:
            stored = slice_from_proto(stored_proto)
            overlap = stored.intersect(spec, full_shape)
            if overlap is None:
                continue
            slice_key = encode_tensor_name_slice(_key_bytes(full_tensor_key), stored)
            try:
                slice_entry = self.lookup_entry(slice_key)
            except NotFoundError as error:
                raise DataLossError(f"{self.index_path}: slice {stored} of {full_tensor_key} is listed but its "
                                    "entry is missing") from error
            _, stored_shape = self._dtype_and_shape(full_tensor_key, slice_entry)
            if stored_shape != stored.slice_shape(full_shape) or slice_entry.dtype != entry.dtype:
                raise DataLossError(f"{self.index_path}: slice {stored} of {full_tensor_key} is stored with "
                                    f"shape {list(stored_shape)}, expected {list(stored.slice_shape(full_shape))}")
            part = self._read_entry(full_tensor_key + f" (slice {stored})", slice_entry, None)
            result[overlap.relative_to(spec, full_shape)] = part[overlap.relative_to(stored, full_shape)]
            covered += int(np.prod(overlap.slice_shape(full_shape), dtype=object))
        if covered != int(np.prod(wanted_shape, dtype=object)):
            raise NotFoundError(f"Does not have sufficient slices for partitioned tensor {full_tensor_key} "
                                f"to restore in slice_spec: {spec}")
        return result


# ------------------------------------------------------------------------------------------ merging


def merge_bundles(prefixes: Sequence[str], merged_prefix: str, delete_old_dirs: bool = True,
                  allow_missing_files: bool = False) -> None:
    """Merges shard bundles into one (TF's MergeV2Checkpoints / MergeBundles).

    Reads the shard indexes in order, renames each data file to
    ``<merged_prefix>.data-%05d-of-%05d``, writes ``<merged_prefix>.index`` directly, deletes
    the shard indexes and (``delete_old_dirs``) removes the shards' directories when empty.

    Raises:
        NotFoundError: if a shard index is missing (unless ``allow_missing_files``).
        InvalidArgumentError: for duplicate keys or conflicting headers.
    """
    merged_prefix = os.fspath(merged_prefix)
    directory = os.path.dirname(merged_prefix)
    if directory:
        try:
            os.mkdir(directory)
        except FileExistsError:
            pass
        except FileNotFoundError as error:
            raise NotFoundError(f"Failed to create a directory: {directory}; No such file or directory") from error
    num_shards = 0
    first_header: BundleHeaderProto | None = None
    shard_ids: dict[str, int] = {}
    entries: dict[bytes, BundleEntryProto] = {}
    present = []
    for prefix in prefixes:
        prefix = os.fspath(prefix)
        if not os.path.exists(index_filename(prefix)):
            if allow_missing_files:
                continue
            raise NotFoundError(f"Can't find the merge input bundle {index_filename(prefix)}")
        present.append(prefix)
        with BundleReader(prefix) as reader:
            header = reader.header
            num_shards += header.num_shards
            if first_header is None:
                first_header = header
            elif header.endianness != first_header.endianness:
                raise InvalidArgumentError("Merging bundles with conflicting endianness; inputs corrupted?")
            elif (header.version or VersionDef()) != (first_header.version or VersionDef()):
                raise InvalidArgumentError(f"Merging bundles with different format versions: merged "
                                           f"{first_header.version} vs. curr {header.version}")
            for key, entry in reader.raw_items():
                existing = entries.get(key)
                if existing is not None:
                    if not existing.slices or not entry.slices:
                        raise InvalidArgumentError(f"Duplicate tensor keyed by {_key_str(key)} encountered, "
                                                   f"when merging prefix: {prefix}")
                    if existing.dtype != entry.dtype or existing.shape != entry.shape:
                        raise InvalidArgumentError(f"Partitioned tensor {_key_str(key)} has different dtype "
                                                   f"or shape in {prefix}")
                    existing.slices.extend(entry.slices)
                    continue
                path = data_filename(prefix, entry.shard_id, header.num_shards)
                entry.shard_id = shard_ids.setdefault(path, len(shard_ids))
                entries[key] = entry
    if first_header is None:
        raise NotFoundError(f"None of the merge input bundles exist: {list(prefixes)}")
    for path, shard_id in shard_ids.items():
        os.replace(path, data_filename(merged_prefix, shard_id, len(shard_ids)))
    merged_header = BundleHeaderProto(num_shards=num_shards, endianness=first_header.endianness,
                                      version=first_header.version)
    _write_index(index_filename(merged_prefix), merged_header, entries)
    for prefix in present:
        try:
            os.remove(index_filename(prefix))
        except OSError:  # best effort, as TensorFlow
            pass
    if delete_old_dirs:
        merged_dir = os.path.dirname(merged_prefix)
        for prefix in present:
            shard_dir = os.path.dirname(os.fspath(prefix))
            if shard_dir != merged_dir:
                try:
                    os.rmdir(shard_dir)
                except OSError:  # later shards find it gone; a non-empty dir stays
                    pass
