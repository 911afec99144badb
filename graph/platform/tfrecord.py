"""TFRecord framing: the record layout of TFRecord files and TensorBoard event files.

Layout of one record (core/lib/io/record_writer.cc, RecordWriter::WriteRecord), all little-endian::

    length      : uint64 '<Q'   the number of data bytes
    length_crc  : uint32 '<I'   mask(crc32c(length's 8 bytes))
    data        : bytes[length]
    data_crc    : uint32 '<I'   mask(crc32c(data))

A file is records back to back with nothing before, between or after them (no compression here).
The CRC and its mask are LevelDB's (graph/platform/crc.py).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import BinaryIO

from graph import errors
from graph.base import crc
from graph.platform import file_io

__all__ = ["HEADER_SIZE", "FOOTER_SIZE", "encode_record", "iterate_records", "read_records", "RecordWriter"]

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
HEADER_SIZE = _LENGTH.size + _CRC.size  # record_writer.h kHeaderSize: length and its masked CRC
FOOTER_SIZE = _CRC.size  # record_writer.h kFooterSize: the data's masked CRC


def _masked_crc(data) -> bytes:
    return _CRC.pack(crc.mask(crc.crc32c(data)))


def encode_record(data: bytes) -> bytes:
    """One framed record holding ``data``."""
    length = _LENGTH.pack(len(data))
    return b"".join((length, _masked_crc(length), data, _masked_crc(data)))


def iterate_records(data: bytes, name: str = "<bytes>") -> Iterator[bytes]:
    """The data of each record in ``data``, the contents of a TFRecord file called ``name``.

    Raises:
        DataLossError: for a truncated record or a CRC mismatch, naming ``name`` and the record's offset
            (TensorFlow's RecordReader words these "truncated record at N" / "corrupted record at N").
    """
    view = memoryview(data)
    offset, end = 0, len(view)
    while offset < end:
        if end - offset < HEADER_SIZE:
            raise errors.DataLossError(None, None, f"truncated record at {offset} in {name}: "
                                       f"{end - offset} bytes left, a record header needs {HEADER_SIZE}")
        length_bytes = view[offset:offset + _LENGTH.size]
        (stored_length_crc,) = _CRC.unpack_from(view, offset + _LENGTH.size)
        if crc.mask(crc.crc32c(length_bytes)) != stored_length_crc:
            raise errors.DataLossError(None, None, f"corrupted record at {offset} in {name}: length CRC mismatch")
        (length,) = _LENGTH.unpack(length_bytes)
        start = offset + HEADER_SIZE
        if end - start < length + FOOTER_SIZE:
            raise errors.DataLossError(None, None, f"truncated record at {offset} in {name}: the record holds "
                                       f"{length} bytes, {max(end - start - FOOTER_SIZE, 0)} are present")
        body = view[start:start + length]
        (stored_data_crc,) = _CRC.unpack_from(view, start + length)
        if crc.mask(crc.crc32c(body)) != stored_data_crc:
            raise errors.DataLossError(None, None, f"corrupted record at {offset} in {name}: data CRC mismatch")
        yield bytes(body)
        offset = start + length + FOOTER_SIZE


def read_records(path: str) -> Iterator[bytes]:
    """The data of each record of the TFRecord file at a path or URL.

    Raises:
        OpError: NotFoundError and the like for the file; DataLossError for a damaged record.
    """
    return iterate_records(file_io.read_bytes(path), path)


class RecordWriter:
    """Appends framed records to an open binary file (TensorFlow's io::RecordWriter, uncompressed)."""

    def __init__(self, file: BinaryIO):
        """Writes into ``file``, which stays owned by the caller until :meth:`close`."""
        self._file = file

    def write(self, data: bytes) -> None:
        """Appends one record holding ``data``."""
        self._file.write(encode_record(data))

    def flush(self) -> None:
        """Pushes buffered records to the file system."""
        self._file.flush()

    def fileno(self) -> int:
        """The file's descriptor (local files), for syncing it to disk."""
        return self._file.fileno()

    def close(self) -> None:
        """Flushes and closes the file."""
        self._file.close()
