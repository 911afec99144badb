"""BundleReader: reads a V2 tensor bundle (``<prefix>.index`` + ``.data-NNNNN-of-MMMMM``) as TF does.

Layout read (tf-checkpoint-format.md §1, §2, §4)::

    <prefix>.index             SSTable: "" -> BundleHeaderProto{num_shards, endianness, version},
                               key -> BundleEntryProto{dtype, shape, shard_id, offset, size, crc32c, slices}
    numeric tensor             raw row-major bytes at [offset, offset + size) of data file shard_id;
                               size == elements * itemsize; mask(crc32c(bytes)) == entry.crc32c
    DT_STRING / DT_VARIANT     see bundle_writer.py; both checksums verified
    partitioned                entry with slices; each slice under encode_tensor_name_slice(name, slice)

Opening reads the index (one read; the index block is parsed, data blocks when first used) and
opens the data files, then checks the index is still the file read (else opens again): a checkpoint
replaced or deleted meanwhile is seen whole, old or new, or not at all, and stays readable after.
Entries are decoded on first use and cached.  Numeric tensors are read straight into the
destination array with ``preadv`` and checksummed over that same memory; a BIG-endian bundle
is byte-swapped in place.  Every size, shape and offset is validated before anything is allocated.

A prefix at an fsspec URL is read in place by byte ranges (bundle_files.RemoteDataFileReader): the
index once, then each tensor's range.  Object stores have no inodes: the reopen check is local only.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator

import numpy as np

from graph.base import dtypes
from graph.errors import DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError
from graph.base import crc
from graph.platform.file_io import local_path, open_regular, read_open
from saver.format.bundle_entry import (CANONICAL_TAIL, HEADER_KEY, BundleEntry, check_versions, decode_dtype_and_shape,
                                      decode_entry, key_bytes, key_str)
from saver.format.bundle_files import (DataFileReader, RemoteDataFileReader, data_filename, file_id, index_filename,
                                      read_remote_index, stat_id)
from saver.format.bundle_strings import read_string_tensor
from saver.format.coding import TensorSlice, encode_tensor_name_slice
from saver.format.proto import BundleEntryProto, BundleHeaderProto, Message
from saver.format.table import Table

__all__ = ["BundleReader"]

_MAX_RANK = 254                 # TensorShape::MaxDimensions()
_MAX_NUMPY_RANK = 64            # numpy's NPY_MAXDIMS: higher ranks cannot be returned as arrays
_OPEN_ATTEMPTS = 20             # re-reads of an index replaced while it is being opened
_MAX_EAGER_SHARDS = 1024        # data files opened up front; the rest on demand
_MAX_ELEMENTS = 1 << 62         # anything above cannot be a real tensor
_STRING_TYPES = (dtypes.string, dtypes.variant)


class BundleReader:
    """Reads a tensor bundle (TF's BundleReader); opening reads the index and opens the data files.

    Raises:
        NotFoundError: if ``<prefix>.index`` does not exist.
        DataLossError: if the index is damaged.
        InvalidArgumentError: if the bundle's version is not readable.
    """

    def __init__(self, prefix: str):
        self.prefix = os.fspath(prefix)
        self.index_path = index_filename(self.prefix)
        self._files: dict[int, DataFileReader | RemoteDataFileReader] = {}
        self.remote = local_path(self.prefix) is None
        if self.remote:  # an fsspec URL: the index is read, data files are opened when a key needs them
            self._read_header(read_remote_index(self.index_path, self.prefix))
            return
        # A checkpoint replaced or deleted while we open it (BundleWriter removes the old index
        # before it replaces the data): open the index, then the data files, then check that the
        # index is still the file we read.  If so, the data files opened belong to it (the next
        # save cannot have replaced them without first removing that index); else start again.
        for _ in range(_OPEN_ATTEMPTS):
            index_file = self._open_index()
            try:  # the index stays open until the check, so its inode cannot be reused meanwhile
                self._open_data_files()
                unchanged = file_id(self.index_path) == stat_id(os.fstat(index_file.fileno()))
            finally:
                index_file.close()
            if unchanged:
                break
            self.close()
        else:
            raise NotFoundError(None, None, f"{self.index_path}: the checkpoint kept changing while it was opened "
                                f"({_OPEN_ATTEMPTS} attempts)")

    def _open_index(self):
        """Reads and checks the index and its header; returns the index file, still open."""
        try:
            file = open_regular(self.index_path)
        except NotFoundError as error:
            raise NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                                f"files for {self.prefix} ({self.index_path} does not exist)") from error
        try:
            self._read_header(read_open(file, self.index_path))
        except BaseException:
            file.close()
            raise
        return file

    def _read_header(self, data: bytes) -> None:
        self._table = Table(self.index_path, data)
        raw_header = self._table.get(HEADER_KEY)
        if raw_header is None:
            raise DataLossError(None, None, f"{self.index_path}: no bundle header entry (key '')")
        self.header = self._parse(BundleHeaderProto, raw_header, "header")
        check_versions(self.header.version, self.index_path)
        self.num_shards = self.header.num_shards
        if self.num_shards < 1:
            raise DataLossError(None, None, f"{self.index_path}: bundle header has num_shards = {self.num_shards}")
        if self.header.endianness not in (BundleHeaderProto.LITTLE, BundleHeaderProto.BIG):
            raise DataLossError(None, None, f"{self.index_path}: bad endianness {self.header.endianness} in the header")
        self.byteswap = self.header.endianness == BundleHeaderProto.BIG
        self._entries: dict[bytes, BundleEntryProto] = {}   # public protos, decoded on request
        self._records: dict[bytes, BundleEntry] = {}        # fast records, decoded on first use
        self._types: dict[tuple, tuple] = {}                # (dtype enum, shape) -> checked (DType, shape)

    def _open_data_files(self) -> None:
        """Opens the data files that exist, so the reader keeps them if the checkpoint is deleted.

        At most _MAX_EAGER_SHARDS up front (a damaged header may claim billions); the rest, and any
        missing one, are opened (or reported) when a key needs them.
        """
        for shard_id in range(min(self.num_shards, _MAX_EAGER_SHARDS)):
            try:
                self._data_file(shard_id, "")
            except NotFoundError:
                pass

    def __enter__(self) -> BundleReader:
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
            raise DataLossError(None, None, f"{self.index_path}: cannot parse the {cls.__name__} of key "
                                f"{key!r}: {error.message}") from error

    def _decode(self, key: bytes, raw: bytes) -> BundleEntry:
        try:
            return decode_entry(raw)
        except DataLossError as error:
            raise DataLossError(None, None, f"{self.index_path}: cannot parse the BundleEntryProto of key "
                                f"{key_str(key)!r}: {error.message}") from error

    # -- keys and entries ----------------------------------------------------------------------

    def raw_items(self) -> Iterator[tuple[bytes, BundleEntryProto]]:
        """Yields (raw key, entry proto) for every key but the header, slice keys included."""
        for key, raw in self._table.items():
            if key != HEADER_KEY:
                entry = self._entries.get(key)
                if entry is None:
                    entry = self._entries[key] = self._parse(BundleEntryProto, raw, key_str(key))
                yield key, entry

    def records(self) -> Iterator[tuple[bytes, BundleEntry]]:
        """Yields (raw key, BundleEntry record) for every key but the header, slice keys included."""
        cache = self._records
        for key, raw in self._table.items():
            if key:
                record = cache.get(key)
                if record is None:
                    record = cache[key] = self._decode(key, raw)
                yield key, record

    def keys(self) -> list[str]:
        """Every tensor name, sorted, without the header and the ``\\x00`` slice keys."""
        return [key_str(key) for key in self._table.keys() if key and key[0] != 0]

    def __contains__(self, key) -> bool:
        raw = key_bytes(key)
        return raw != HEADER_KEY and (raw in self._records or self._table.get(raw) is not None)

    def contains(self, key: str) -> bool:
        """True when ``key`` names a tensor (BundleReader::Contains)."""
        return key in self

    def _not_found(self, key: str) -> NotFoundError:
        names = self.keys()
        close = difflib.get_close_matches(key, names, n=5, cutoff=0.5)
        hint = f" Closest keys present: {', '.join(close)}." if close else ""
        return NotFoundError(None, None, f"Key {key} not found in checkpoint {self.prefix} ({len(names)} keys).{hint}")

    def _record(self, key) -> BundleEntry:
        raw_key = key_bytes(key)
        record = self._records.get(raw_key)
        if record is None:
            raw = self._table.get(raw_key) if raw_key != HEADER_KEY else None
            if raw is None:
                raise self._not_found(key_str(raw_key))
            record = self._records[raw_key] = self._decode(raw_key, raw)
        return record

    def lookup_entry(self, key: str | bytes) -> BundleEntryProto:
        """The BundleEntryProto of ``key``.

        Raises:
            NotFoundError: naming the closest keys present.
        """
        raw_key = key_bytes(key)
        entry = self._entries.get(raw_key)
        if entry is None:
            raw = self._table.get(raw_key) if raw_key != HEADER_KEY else None
            if raw is None:
                raise self._not_found(key_str(raw_key))
            entry = self._entries[raw_key] = self._parse(BundleEntryProto, raw, key_str(raw_key))
        return entry

    def _dtype_and_shape(self, key: str, record: BundleEntry) -> tuple[dtypes.DType, tuple[int, ...]]:
        checked = self._types.get((record.dtype, record.shape))
        if checked is not None:
            return checked
        try:
            dtype = dtypes.as_dtype(record.dtype)
        except TypeError as error:
            raise DataLossError(None, None, f"{self.index_path}: key {key} has unknown dtype enum {record.dtype}") from error
        shape = record.shape
        if shape is None or len(shape) > _MAX_RANK:
            raise DataLossError(None, None, f"{self.index_path}: key {key} has an unknown or absurd rank")
        if len(shape) > _MAX_NUMPY_RANK:
            raise UnimplementedError(None, None, f"{self.index_path}: key {key} has rank {len(shape)}; numpy arrays have at "
                                     f"most {_MAX_NUMPY_RANK} dimensions")
        count = 1
        for size in shape:
            if size < 0:
                raise DataLossError(None, None, f"{self.index_path}: key {key} has negative dimension in shape {list(shape)}")
            count *= size
        if count > _MAX_ELEMENTS:
            raise DataLossError(None, None, f"{self.index_path}: key {key} has an absurd shape {list(shape)}")
        checked = self._types[(record.dtype, shape)] = (dtype, shape)
        return checked

    def lookup_dtype_and_shape(self, key: str) -> tuple[dtypes.DType, tuple[int, ...]]:
        """(DType, shape) of ``key`` without reading its data."""
        return self._dtype_and_shape(key, self._record(key))

    def lookup_tensor_slices(self, key: str) -> list[TensorSlice]:
        """The stored slices of a partitioned tensor ([] for a plain one)."""
        return list(self._record(key).slices)

    def variables(self) -> list[tuple[str, dtypes.DType, tuple[int, ...]]]:
        """(name, DType, shape) of every tensor in key order; slice keys listed by a full entry hidden."""
        blocks = list(self._table.blocks())
        hidden = set()
        if blocks and any(key[:1] == b"\x00" for key in blocks[0][0][:2]):  # slice keys sort first (after "")
            for keys, _ in blocks:
                for key in keys:
                    if key:
                        for stored in self._record(key).slices:
                            hidden.add(encode_tensor_name_slice(key, stored))
        out = []
        add = out.append
        heads: dict[bytes, tuple] = {}  # the entry's first bytes (dtype, shape) -> checked (DType, shape)
        canonical = CANONICAL_TAIL.fullmatch
        for keys, values in blocks:
            for key, raw in zip(keys, values):
                if not key or (hidden and key in hidden):
                    continue
                checked = None
                if len(raw) > 3 and raw[0] == 0x08 and raw[2] == 0x12 and raw[1] < 0x80 and raw[3] < 0x80:
                    end = 4 + raw[3]
                    if canonical(raw, end):  # fullmatch from `end` also proves end <= len(raw)
                        checked = heads.get(raw[:end])
                name = key.decode("utf-8", "surrogateescape")
                if checked is None:
                    checked = self._checked_head(name, raw)
                    if checked[2] is not None:
                        heads[checked[2]] = checked
                add((name, checked[0], checked[1]))
        return out

    def _checked_head(self, name: str, raw: bytes) -> tuple:
        try:
            dtype_enum, shape, _ = decode_dtype_and_shape(raw)
        except DataLossError as error:
            raise DataLossError(None, None, f"{self.index_path}: cannot parse the BundleEntryProto of key "
                                f"{name!r}: {error.message}") from error
        dtype, shape = self._dtype_and_shape(name, BundleEntry(dtype_enum, shape))
        head = None
        if len(raw) > 3 and raw[0] == 0x08 and raw[2] == 0x12 and raw[1] < 0x80 and raw[3] < 0x80:
            head = raw[:4 + raw[3]]
        return dtype, shape, head

    # -- data ---------------------------------------------------------------------------------

    def _data_file(self, shard_id: int, key: str) -> DataFileReader:
        file = self._files.get(shard_id)
        if file is None:
            if not 0 <= shard_id < self.num_shards:
                raise DataLossError(None, None, f"{self.index_path}: key {key} names shard {shard_id} but the bundle has "
                                    f"{self.num_shards} shard(s)")
            path = data_filename(self.prefix, shard_id, self.num_shards)
            opener = RemoteDataFileReader if self.remote else DataFileReader
            file = self._files[shard_id] = opener(path, f" (data file of checkpoint {self.prefix}, needed for key {key})")
        return file

    def _locate(self, key: str, record: BundleEntry) -> DataFileReader:
        file = self._data_file(record.shard_id, key)
        if record.offset < 0 or record.size < 0 or record.offset + record.size > file.size:
            raise DataLossError(None, None, f"{file.name}: entry for key {key} (offset {record.offset}, size {record.size}) "
                                f"runs past the end of the data file ({file.size} bytes)")
        return file

    def _crc_error(self, file, key: str, stored: int, computed: int) -> DataLossError:
        return DataLossError(None, None, f"{file.name}: Checksum does not match for key {key}: stored {stored} vs. "
                             f"calculated on the restored bytes {computed}")

    def lookup(self, key: str, out: np.ndarray | None = None) -> np.ndarray:
        """The value of tensor ``key`` (a partitioned tensor is reassembled).

        Args:
            key: the checkpoint key.
            out: optional C-contiguous array of the right dtype and shape to read into.

        Raises:
            NotFoundError: if the key is missing. DataLossError: on any damage.
        """
        record = self._record(key)
        name = key if isinstance(key, str) else key_str(key)
        if record.slices:
            _, shape = self._dtype_and_shape(name, record)
            return self.lookup_slice(name, TensorSlice.full(len(shape)), out=out)
        return self._read_entry(name, record, out)

    get_tensor = lookup

    def _read_entry(self, key: str, record: BundleEntry, out: np.ndarray | None) -> np.ndarray:
        dtype, shape = self._dtype_and_shape(key, record)
        file = self._locate(key, record)
        if dtype.base_dtype in _STRING_TYPES:  # DT_STRING_REF too
            result = self._read_strings(file, key, record, dtype.base_dtype, shape)
            if out is not None:
                out[...] = result
                return out
            return result
        if not dtype.is_numpy_compatible or dtype.numpy_dtype.hasobject:
            raise UnimplementedError(None, None, f"Cannot read key {key} of dtype {dtype.name}")
        numpy_dtype = dtype.numpy_dtype
        count = 1
        for size in shape:
            count *= size
        expected = count * numpy_dtype.itemsize
        if record.size != expected:
            raise DataLossError(None, None, f"{file.name}: key {key} has {record.size} bytes but shape {list(shape)} of "
                                f"{dtype.name} needs {expected}")
        if out is None:
            out = np.empty(shape, numpy_dtype)
        elif (out.shape != shape or out.dtype != numpy_dtype or not out.flags.c_contiguous
              or not out.flags.writeable):
            raise InvalidArgumentError(None, None, f"Cannot read key {key} ({dtype.name} {list(shape)}) into an array of "
                                       f"{out.dtype} {list(out.shape)}")
        checksum = file.read_into(record.offset, memoryview(out.reshape(-1).view(np.uint8)), key)
        computed = crc.mask(checksum)
        if computed != record.crc32c:
            raise self._crc_error(file, key, record.crc32c, computed)
        if self.byteswap and numpy_dtype.itemsize > 1:
            out.byteswap(inplace=True)
        return out

    def _read_strings(self, file, key: str, record: BundleEntry, dtype, shape) -> np.ndarray:
        values, running = read_string_tensor(file, key, record.offset, record.size, dtype == dtypes.variant, shape)
        if crc.mask(running) != record.crc32c:
            raise self._crc_error(file, key, record.crc32c, crc.mask(running))
        return values

    def lookup_slice(self, full_tensor_key: str, slice_spec: TensorSlice | str,
                     out: np.ndarray | None = None) -> np.ndarray:
        """The requested slice of a tensor, copied from whichever stored slices overlap it.

        Args:
            full_tensor_key: the tensor's name.
            slice_spec: a TensorSlice or its string (``"0,3:-"``) of the full tensor.
            out: optional array of the slice's shape to fill.

        Raises:
            NotFoundError: if the stored slices do not cover the request.
        """
        spec = slice_spec if isinstance(slice_spec, TensorSlice) else TensorSlice.parse(slice_spec)
        record = self._record(full_tensor_key)
        dtype, full_shape = self._dtype_and_shape(full_tensor_key, record)
        wanted_shape = spec.slice_shape(full_shape)
        if out is not None and tuple(out.shape) != wanted_shape:
            raise InvalidArgumentError(None, None, f"out has shape {list(out.shape)}, slice {spec} of {full_tensor_key} "
                                       f"needs {list(wanted_shape)}")
        if not record.slices:  # a whole stored tensor restored as any slice
            if spec.covers(full_shape):
                if out is None:
                    return self._read_entry(full_tensor_key, record, None)
                if (dtype not in _STRING_TYPES and out.dtype == dtype.numpy_dtype and out.flags.c_contiguous
                        and out.flags.writeable):
                    self._read_entry(full_tensor_key, record, out.reshape(full_shape))
                    return out
            whole = self._read_entry(full_tensor_key, record, None)
            result = out if out is not None else np.empty(wanted_shape, whole.dtype)
            result[...] = whole[spec.index(full_shape)]
            return result
        parts, covered = [], 0
        for stored in record.slices:  # everything checked against the files before any allocation
            overlap = stored.intersect(spec, full_shape)
            if overlap is None:
                continue
            slice_key = encode_tensor_name_slice(key_bytes(full_tensor_key), stored)
            try:
                slice_record = self._record(slice_key)
            except NotFoundError as error:
                raise DataLossError(None, None, f"{self.index_path}: slice {stored} of {full_tensor_key} is listed but its "
                                    "entry is missing") from error
            _, stored_shape = self._dtype_and_shape(full_tensor_key, slice_record)
            if stored_shape != stored.slice_shape(full_shape) or slice_record.dtype != record.dtype:
                raise DataLossError(None, None, f"{self.index_path}: slice {stored} of {full_tensor_key} is stored with "
                                    f"shape {list(stored_shape)}, expected {list(stored.slice_shape(full_shape))}")
            self._locate(full_tensor_key, slice_record)
            parts.append((stored, overlap, slice_record))
            covered += int(np.prod(overlap.slice_shape(full_shape), dtype=object))
        if covered != int(np.prod(wanted_shape, dtype=object)):
            raise NotFoundError(None, None, f"Does not have sufficient slices for partitioned tensor {full_tensor_key} "
                                f"to restore in slice_spec: {spec}")
        result = out if out is not None else np.empty(wanted_shape, dtype.numpy_dtype)
        for stored, overlap, slice_record in parts:
            target = result[overlap.relative_to(spec, full_shape)]
            label = full_tensor_key + f" (slice {stored})"
            if (dtype not in _STRING_TYPES and target.dtype == dtype.numpy_dtype and target.flags.c_contiguous
                    and target.flags.writeable and overlap.bounds(full_shape) == stored.bounds(full_shape)):
                self._read_entry(label, slice_record, target)  # straight into the destination
            else:
                part = self._read_entry(label, slice_record, None)
                target[...] = part[overlap.relative_to(stored, full_shape)]
        return result
