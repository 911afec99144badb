"""String and variant tensor bodies in a bundle's data file: encode, decode, checksum.

Layout (tf-checkpoint-format.md §2)::

    DT_STRING  (n elements) : varint64 len[0] ... varint64 len[n-1]
                              uint32 '<' L = mask(c1), c1 = crc32c(every len as uint32 '<'
                                                     (uint64 '<' when len >= 2**32))
                              bytes[0] ... bytes[n-1]
               entry.crc32c = mask(crc32c continued from c1 over the 4 bytes of L, then the bytes)
    DT_VARIANT (per element): varint64 len, serialized VariantTensorDataProto (len bytes),
                              uint32 '<' mask(running crc); the running crc takes len as
                              uint64 '<', the body, then those 4 checksum bytes
               entry.crc32c = mask(final running crc)

Example: ``["ab", "xyz"]`` -> ``02 03 bd e3 7d 26 61 62 78 79 7a`` (size 11).
"""

from __future__ import annotations

import math
import struct

import numpy as np

from graph.errors import DataLossError
from graph.base import crc
from graph.proto.wire import decode_varint64, encode_varint

__all__ = ["encode_strings", "encode_variants", "read_strings", "read_string_tensor"]

_U32_LIMIT = 1 << 32


def _length_bytes(lengths: list[int]) -> bytes:
    if all(n < _U32_LIMIT for n in lengths):
        return struct.pack("<%dI" % len(lengths), *lengths)
    # tensor_bundle.cc WriteStringTensor: uint64 for lengths >= 2**32 (source only)
    return b"".join(struct.pack("<I" if n < _U32_LIMIT else "<Q", n) for n in lengths)


def encode_strings(items: list[bytes]) -> tuple[list, int, int]:
    """DT_STRING layout of ``items``; returns (chunks to write, size, raw crc)."""
    lengths = [len(s) for s in items]
    header = b"".join(encode_varint(n) for n in lengths)
    length_crc = crc.crc32c(_length_bytes(lengths))
    masked = struct.pack("<I", crc.mask(length_crc))
    body = b"".join(items)
    running = crc.extend(crc.extend(length_crc, masked), body)
    return [header, masked, body], len(header) + 4 + len(body), running


def encode_variants(items: list[bytes]) -> tuple[list, int, int]:
    """DT_VARIANT layout of serialized elements; returns (chunks to write, size, raw crc)."""
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


def _parse_strings(blob: bytearray, count: int, items: list) -> tuple[int, int]:
    lengths, pos = [], 0
    for _ in range(count):
        length, pos = decode_varint64(blob, pos)
        lengths.append(length)
    if pos + 4 + sum(lengths) != len(blob):
        raise DataLossError(None, None, f"string lengths add up to {sum(lengths)} bytes, entry has {len(blob) - pos - 4}")
    length_crc = crc.crc32c(_length_bytes(lengths))
    stored = struct.unpack_from("<I", blob, pos)[0]
    if stored != crc.mask(length_crc):
        raise DataLossError(None, None, f"The length checksum does not match: expected {stored:#010x} but actual "
                            f"is {crc.mask(length_crc):#010x}")
    running = crc.extend(length_crc, blob[pos:pos + 4])
    pos += 4
    view = memoryview(blob)
    running = crc.extend(running, view[pos:])
    for length in lengths:
        items.append(bytes(view[pos:pos + length]))
        pos += length
    return running, pos


def _parse_variants(blob: bytearray, count: int, items: list) -> tuple[int, int]:
    running, pos = 0, 0
    for _ in range(count):
        length, pos = decode_varint64(blob, pos)
        if pos + length + 4 > len(blob):
            raise DataLossError(None, None, f"variant element of {length} bytes runs past the entry")
        running = crc.extend(running, struct.pack("<Q", length))
        body = bytes(blob[pos:pos + length])
        running = crc.extend(running, body)
        pos += length
        stored = struct.unpack_from("<I", blob, pos)[0]
        if stored != crc.mask(running):
            raise DataLossError(None, None, "variant element checksum does not match")
        running = crc.extend(running, blob[pos:pos + 4])
        pos += 4
        items.append(body)
    return running, pos


def read_strings(blob: bytearray, count: int, variant: bool, where: str) -> tuple[list[bytes], int]:
    """Parses ``count`` string (or variant) elements from an entry's bytes; returns (items, raw crc).

    Raises:
        DataLossError: naming ``where`` if the bytes are damaged (the element checksums are verified).
    """
    items: list[bytes] = []
    try:
        if variant:
            running, pos = _parse_variants(blob, count, items)
        else:
            running, pos = _parse_strings(blob, count, items)
    except (DataLossError, IndexError, struct.error) as error:
        kind = "variant" if variant else "string"
        raise DataLossError(None, None, f"{where}: damaged {kind} tensor: {error}") from error
    if pos != len(blob):
        raise DataLossError(None, None, f"{where}: {len(blob) - pos} unexpected trailing bytes")
    return items, running


def read_string_tensor(file, key: str, offset: int, size: int, variant: bool,
                       shape: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """Reads a string (or variant) tensor's ``size`` bytes at ``offset`` of a DataFileReader; returns
    (object array of bytes of ``shape``, raw crc over the entry, to compare with the entry's).

    Raises:
        DataLossError: if the entry is too small for its elements, or its lengths or checksums are wrong.
    """
    count = math.prod(shape)
    per_element = 5 if variant else 1
    if size < count * per_element + (0 if variant else 4):
        raise DataLossError(None, None, f"{file.name}: key {key} has {size} bytes, too few for {count} "
                            f"{'variant' if variant else 'string'} elements of shape {list(shape)}")
    blob = bytearray(size)
    file.read_into(offset, memoryview(blob), key, None)
    items, running = read_strings(blob, count, variant, f"{file.name}: key {key}")
    result = np.empty(count, dtype=object)
    result[:] = items
    return result.reshape(shape), running
