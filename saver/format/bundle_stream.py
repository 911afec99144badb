"""Tensors of a bundle streamed in chunks: checkpoints larger than memory, tensor larger than memory.

Two ways through one stored tensor without holding it whole (memory: a chunk or two)::

    raw_chunks(reader, key)        its stored bytes, CHUNK_SIZE at a time, for a byte-for-byte copy
                                   into another bundle (BundleWriter.add_stream re-checks the CRC;
                                   numeric tensors: a string entry's CRC also covers its lengths)
    element_chunks(reader, key, n) its values, n elements at a time (byte-swapped from a BIG-endian
                                   bundle), the CRC extended per chunk and checked after the last

A checksum mismatch surfaces as TF's DataLossError once the last chunk has been read, before the
iteration ends: a caller that consumes the iterator to the end never acts on damaged bytes silently.
Friend of bundle_reader.py: it uses the reader's entry lookup and file location helpers.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from graph.base import crc, dtypes
from saver.format.bundle_files import CHUNK_SIZE
from saver.format.bundle_reader import BundleReader
from saver.format.bundle_entry import BundleEntry, key_str

__all__ = ["raw_chunks", "element_chunks", "streamable", "stored_record", "StreamedArray"]

_STRING_TYPES = (dtypes.string, dtypes.variant)


def stored_record(reader: BundleReader, key: str) -> BundleEntry:
    """The entry record of ``key`` (dtype enum, shape, shard, offset, size, crc32c, slices)."""
    return reader._record(key)


def streamable(reader: BundleReader, key: str) -> bool:
    """True for a numeric tensor stored whole: element_chunks streams it, its CRC covers just its bytes."""
    record = reader._record(key)
    if record.slices:
        return False
    dtype, _ = reader._dtype_and_shape(key, record)
    return dtype.base_dtype not in _STRING_TYPES and dtype.is_numpy_compatible and not dtype.numpy_dtype.hasobject


def raw_chunks(reader: BundleReader, key: str, chunk_bytes: int = CHUNK_SIZE) -> Iterator[memoryview]:
    """Yields the stored bytes of ``key`` in pieces (one reused buffer: consume each before the next).

    Raises:
        NotFoundError / DataLossError: as BundleReader.lookup (a missing key, a range past the file's end).
    """
    record = reader._record(key)
    name = key if isinstance(key, str) else key_str(key)
    reader._dtype_and_shape(name, record)
    file = reader._locate(name, record)
    buffer = memoryview(bytearray(min(chunk_bytes, record.size)))
    for start in range(0, record.size, chunk_bytes):
        view = buffer[:min(chunk_bytes, record.size - start)]
        file.read_into(record.offset + start, view, name, None)
        yield view


def element_chunks(reader: BundleReader, key: str, elements: int) -> Iterator[np.ndarray]:
    """Yields the values of numeric tensor ``key``, flattened, ``elements`` at a time (fresh arrays).

    Raises:
        DataLossError: if the stored checksum does not match, after the last chunk was read.
    """
    record = reader._record(key)
    dtype, shape = reader._dtype_and_shape(key, record)
    numpy_dtype = dtype.numpy_dtype
    file = reader._locate(key, record)
    count = int(np.prod(shape, dtype=object))
    if record.size != count * numpy_dtype.itemsize:
        reader._read_entry(key, record, None)  # raises its DataLossError naming both sizes
    checksum = 0
    for start in range(0, count, elements):
        chunk = np.empty(min(elements, count - start), numpy_dtype)
        checksum = file.read_into(record.offset + start * numpy_dtype.itemsize,
                                  memoryview(chunk.view(np.uint8)), key, checksum)
        if start + elements >= count and crc.mask(checksum) != record.crc32c:
            raise reader._crc_error(file, key, record.crc32c, crc.mask(checksum))
        if reader.byteswap and numpy_dtype.itemsize > 1:
            chunk.byteswap(inplace=True)
        yield chunk
    if count == 0 and crc.mask(checksum) != record.crc32c:
        raise reader._crc_error(file, key, record.crc32c, crc.mask(checksum))


class StreamedArray:
    """A numeric tensor of a bundle not yet read: its shape and dtype, and its values chunk by chunk.

    Writers that can stream (npz and safetensors exports) call :meth:`chunks`; anything else gets
    the whole array through ``np.asarray`` (``__array__``).
    """

    def __init__(self, reader: BundleReader, key: str, as_bytes: bool = False):
        dtype, shape = reader.lookup_dtype_and_shape(key)
        self._reader, self._key, self._as_bytes = reader, key, as_bytes
        self._item = dtype.numpy_dtype
        self.nbytes = int(np.prod(shape, dtype=object)) * self._item.itemsize
        self.dtype = np.dtype(np.uint8) if as_bytes else self._item
        self.shape = (self.nbytes,) if as_bytes else tuple(shape)
        self.ndim, self.size = len(self.shape), int(np.prod(self.shape, dtype=object))

    def byte_view(self) -> StreamedArray:
        """The same tensor as a flat uint8 array of its native-order bytes."""
        return StreamedArray(self._reader, self._key, as_bytes=True)

    def chunks(self, chunk_bytes: int = CHUNK_SIZE) -> Iterator[np.ndarray]:
        """The flattened values (bytes for a byte view), about ``chunk_bytes`` at a time."""
        for chunk in element_chunks(self._reader, self._key, max(1, chunk_bytes // self._item.itemsize)):
            yield chunk.view(np.uint8) if self._as_bytes else chunk

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        value = self._reader.lookup(self._key)
        value = value.reshape(-1).view(np.uint8) if self._as_bytes else value
        return value if dtype is None else value.astype(dtype, copy=False)
