"""BundleWriter: writes one V2 tensor bundle (``.data-00000-of-00001`` + ``.index``) as TF does.

Layout written (tf-checkpoint-format.md §1, §2, §4)::

    <prefix>.data-00000-of-00001    tensors back to back in the order added, no padding
    numeric tensor : raw little-endian row-major bytes; entry.crc32c = mask(crc32c(bytes))
    DT_STRING      : varint64 len * n, uint32 '<' mask(c1), bytes * n
                     c1 = crc32c(every len as uint32 '<' (uint64 '<' when >= 2**32))
                     entry.crc32c = mask(crc32c continued from c1 over mask(c1) and the bytes)
    DT_VARIANT     : per element: varint64 len, body, uint32 '<' mask(running crc); the running
                     crc takes len as uint64 '<', the body, then those 4 checksum bytes
    partitioned    : key name -> {dtype, full shape, slices}; each slice stored under the key
                     encode_tensor_name_slice(name, slice) as an ordinary entry
    <prefix>.index                  SSTable: "" -> BundleHeaderProto, sorted key -> BundleEntryProto

Writes are atomic: each file goes to ``<name>.tempstate<random uint64>`` and is renamed.  Both are
written before either is renamed; then an older index of the prefix is removed, the data renamed,
the index renamed (TensorFlow renames the data before writing the index; that order can leave a
torn checkpoint when a save over an existing prefix is killed).

At an fsspec URL the data file is streamed to the store as tensors are added (no local copy):
where the store renames (memory, sftp, hdfs ...) the same protocol runs with fsspec moves; on an
object store (s3, gs, az ...: a move is a copy) the data goes straight to its final name and
becomes visible when its upload completes, after the older index is removed, and the index is
put last: a reader sees the old checkpoint, none, or the new one.  The ``checkpoint`` state file
comes after the index (saver/storage/remote.py).
"""

from __future__ import annotations

import io
import os
import posixpath
import sys
from collections.abc import Mapping, Sequence

import numpy as np

from graph.base import dtypes
from graph.errors import DataLossError, InvalidArgumentError
from graph.base import crc
from graph.platform.file_io import filesystem, intended_name, local_path, sync_directory, sync_file, temp_filename
from saver.format.bundle_entry import (HEADER_KEY, TENSOR_BUNDLE_VERSION, BundleEntry, Slice, encode_entry, key_bytes,
                                      key_str)
from saver.format.bundle_strings import encode_strings, encode_variants
from saver.format.bundle_files import (DataFileWriter, RemoteDataFileWriter, data_filename, has_atomic_rename,
                                      index_filename, make_parent_directory, remove_stranded)
from saver.format.coding import TensorSlice, encode_tensor_name_slice
from saver.format.proto import BundleHeaderProto, Message, VersionDef
from saver.format.table import TableWriter

__all__ = ["BundleWriter", "write_checkpoint", "write_index", "index_bytes", "TENSOR_BUNDLE_VERSION", "HEADER_KEY"]

TENSOR_BUNDLE_MIN_CONSUMER = 0  # tensor_bundle.h kTensorBundleMinConsumer (0 -> left out)
_STRING_TYPES = (dtypes.string, dtypes.variant)
_LITTLE_ENDIAN_HOST = sys.byteorder == "little"


def _as_array(value, dtype) -> tuple[np.ndarray, dtypes.DType]:
    """Converts a value to (C-contiguous little-endian array, DType)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    array = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=(
        None if dtype is None or dtype in _STRING_TYPES else dtype.numpy_dtype))
    if dtype is None:
        dtype = dtypes.as_dtype(array.dtype)
    if dtype in _STRING_TYPES:
        if array.dtype != object:
            array = array.astype(object)
        return np.asarray(array, order="C"), dtype
    if dtype == dtypes.resource:
        raise InvalidArgumentError(None, None, "A resource handle cannot be saved in a checkpoint (TensorFlow aborts on it)")
    array = np.asarray(array, dtype=dtype.numpy_dtype, order="C")  # no copy when already right; keeps 0-d
    if not _LITTLE_ENDIAN_HOST and array.dtype.itemsize > 1:  # files are little-endian
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
            raise InvalidArgumentError(None, None, f"string tensor element {item!r} is not bytes or str")
        out.append(bytes(item))
    return out


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
        self._entries: dict[bytes, BundleEntry] = {}
        self._data_path = data_filename(self.prefix, 0, 1)
        self._temp_index_path: str | None = None
        self._finished = False
        self._fs = None
        if local_path(self.prefix) is not None:
            make_parent_directory(self.prefix)
            remove_stranded(self.prefix)  # temp files of an earlier save of this prefix that was killed
            self._temp_data_path = temp_filename(self._data_path)
            self._file = DataFileWriter(self._temp_data_path)
            return
        self._fs, inner = filesystem(self.prefix)
        if posixpath.dirname(inner):
            self._fs.makedirs(posixpath.dirname(inner), exist_ok=True)
        self._renames = has_atomic_rename(self._fs)  # else: final names, data then index
        self._temp_data_path = temp_filename(self._data_path) if self._renames else None
        self._file = RemoteDataFileWriter(self._temp_data_path or self._data_path)

    def __enter__(self) -> BundleWriter:
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
        if self._fs is not None:
            self._file.discard()  # an object store's unfinished upload never becomes visible
            for path in (self._temp_data_path, self._temp_index_path):
                inner = path and filesystem(path)[1]
                if inner and self._fs.exists(inner):
                    self._fs.rm_file(inner)
            return
        if not self._file.closed:
            self._file.close()
        for path in (self._temp_data_path, self._temp_index_path):
            if path and os.path.exists(path):
                os.remove(path)

    def add(self, key: str | bytes, value, dtype=None) -> BundleEntry:
        """Appends one tensor under ``key``; returns its entry (offset, size, crc32c, ...).

        Args:
            key: the checkpoint key.
            value: a numpy array (or anything np.asarray takes); strings as bytes/str objects;
                DT_VARIANT elements as serialized VariantTensorDataProto bytes (pass ``dtype``).
            dtype: the DType to store (default: from the array's numpy dtype).

        Raises:
            InvalidArgumentError: for a duplicate key or an unsaveable value.
        """
        assert not self._finished, "BundleWriter already finished"
        raw_key = key_bytes(key)
        if raw_key in self._entries:
            raise InvalidArgumentError(None, None, f"Adding duplicate key: {key_str(raw_key)}")
        array, dtype = _as_array(value, dtype)
        offset = self._file.size
        if dtype in _STRING_TYPES:
            encode = encode_strings if dtype == dtypes.string else encode_variants
            chunks, size, checksum = encode(_string_elements(array))
            for chunk in chunks:
                self._file.write(chunk, None)
        else:
            flat = array.reshape(-1).view(np.uint8)  # a view: C-contiguous already
            size = flat.size
            checksum = self._file.write(flat)
        entry = BundleEntry(dtype.as_datatype_enum, tuple(int(d) for d in array.shape), 0, offset, size,
                            crc.mask(checksum))
        self._entries[raw_key] = entry
        return entry

    def add_stream(self, key: str | bytes, record: BundleEntry, chunks) -> BundleEntry:
        """Appends a tensor's stored bytes given in pieces (a byte-for-byte copy from another bundle).

        ``record`` gives the dtype, shape, size and the stored crc32c; the checksum is extended over
        each piece as it is written and must match at the end, so damaged source bytes are not copied
        silently.  Memory: one piece at a time.

        Raises:
            InvalidArgumentError: for a duplicate key.
            DataLossError: if the bytes' size or checksum differ from ``record``'s.
        """
        assert not self._finished, "BundleWriter already finished"
        raw_key = key_bytes(key)
        if raw_key in self._entries:
            raise InvalidArgumentError(None, None, f"Adding duplicate key: {key_str(raw_key)}")
        offset, checksum = self._file.size, 0
        for chunk in chunks:
            checksum = self._file.write(chunk, checksum)
        size = self._file.size - offset
        if size != record.size or crc.mask(checksum) != record.crc32c:
            raise DataLossError(None, None, f"Copying {key_str(raw_key)}: {size} bytes with checksum "
                                f"{crc.mask(checksum)}, the entry says {record.size} bytes with {record.crc32c}")
        entry = self._entries[raw_key] = BundleEntry(record.dtype, tuple(record.shape), 0, offset, size, record.crc32c)
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
            raise InvalidArgumentError(None, None, f"Slice {spec} of {key_str(key_bytes(full_tensor_key))} with shape "
                                       f"{list(full_shape)} needs a value of shape {list(expected)}, "
                                       f"got {list(array.shape)}")
        if spec.is_full() or expected == full_shape:
            self.add(full_tensor_key, array, dtype)
            return
        raw_key = key_bytes(full_tensor_key)
        full = self._entries.get(raw_key)
        if full is None:
            full = self._entries[raw_key] = BundleEntry(dtype.as_datatype_enum, full_shape)
        elif full.dtype != dtype.as_datatype_enum or full.shape != full_shape:
            raise InvalidArgumentError(None, None, f"Slice {spec} of {key_str(raw_key)} has dtype {dtype.name} and full "
                                       f"shape {list(full_shape)} but an earlier slice had dtype "
                                       f"{dtypes.as_dtype(full.dtype).name} and full shape {list(full.shape)}")
        elif not full.slices:
            raise InvalidArgumentError(None, None, f"Adding duplicate key: {key_str(raw_key)}")
        full.slices.append(spec)
        self.add(encode_tensor_name_slice(raw_key, spec), array, dtype)

    def finish(self) -> None:
        """Writes the index under a temp name, then renames the data file and the index into place.

        Both files are complete under temp names before anything visible changes, and an older
        index of the same prefix is removed before its data file is replaced (see
        ``remove_stale_index``), so a crash leaves the old checkpoint, the new one, or none.
        """
        assert not self._finished, "BundleWriter already finished"
        self._finished = True
        try:
            if self._fs is None:  # a remote data file is completed in _finish_remote, in its store's order
                self._file.close()
            header = BundleHeaderProto(num_shards=1, endianness=BundleHeaderProto.LITTLE,
                                       version=VersionDef(producer=TENSOR_BUNDLE_VERSION,
                                                          min_consumer=TENSOR_BUNDLE_MIN_CONSUMER))
            index_path = index_filename(self.prefix)
            if self._fs is not None:
                self._finish_remote(header, index_path)
                return
            self._temp_index_path = temp_filename(index_path)
            write_index(self._temp_index_path, header, self._entries)
            remove_stale_index(index_path)
            os.replace(self._temp_data_path, self._data_path)
            os.replace(self._temp_index_path, index_path)
            sync_directory(index_path)  # durable mode: the renames reach the disk before a state file names them
        except BaseException:
            self.abort()
            raise

    def _finish_remote(self, header: BundleHeaderProto, index_path: str) -> None:
        fs, inner = self._fs, filesystem(index_path)[1]
        index = index_bytes(header, self._entries)
        if not self._renames:  # object store: older index out, data upload completed, index put last
            if fs.exists(inner):
                fs.rm_file(inner)
            self._file.close()
            fs.pipe_file(inner, index)
            return
        self._file.close()
        self._temp_index_path = temp_filename(index_path)
        fs.pipe_file(filesystem(self._temp_index_path)[1], index)
        if fs.exists(inner):
            fs.rm_file(inner)
        fs.mv(filesystem(self._temp_data_path)[1], filesystem(self._data_path)[1])
        fs.mv(filesystem(self._temp_index_path)[1], inner)


def remove_stale_index(index_path: str) -> None:
    """Removes an older ``<prefix>.index`` before the prefix's data files are replaced.

    TensorFlow renames the new data file over the old one first; a crash (or a reader opening the
    checkpoint) between that and the index rename meets the old index over the new data: a torn
    checkpoint whose checksums fail.  With the old index gone first, the prefix is briefly absent
    instead, never torn (tests/safety/test_crash_safety.py).
    """
    try:
        os.remove(index_path)
    except FileNotFoundError:
        pass


def write_index(path: str, header: BundleHeaderProto, entries: Mapping[bytes, object]) -> None:
    """Writes ``<prefix>.index``: the header under "" and the entries in key order.

    ``entries`` maps raw keys to BundleEntry records, BundleEntryProto messages or their bytes.
    """
    try:
        _write_table(path, header, entries)
    except OSError as error:  # a failed write names no file: name the index (disk full, EIO)
        if error.filename is not None:
            raise
        raise OSError(error.errno, error.strerror, intended_name(path)) from error


def index_bytes(header: BundleHeaderProto, entries: Mapping[bytes, object]) -> bytes:
    """The bytes write_index writes, for a store that takes whole objects (an index at a URL)."""
    buffer = io.BytesIO()
    _write_table_to(buffer, header, entries)
    return buffer.getvalue()


def _write_table(path: str, header: BundleHeaderProto, entries: Mapping[bytes, object]) -> None:
    with open(path, "wb") as file:
        _write_table_to(file, header, entries)
        file.flush()
        sync_file(file.fileno())


def _write_table_to(file, header: BundleHeaderProto, entries: Mapping[bytes, object]) -> None:
    table = TableWriter(file)
    table.add(HEADER_KEY, header.to_bytes())
    for key in sorted(entries):
        entry = entries[key]
        if isinstance(entry, BundleEntry):
            entry = encode_entry(entry)
        elif isinstance(entry, Message):
            entry = entry.to_bytes()
        table.add(key, entry)
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
