"""Protobuf wire format: varints, field keys, the scalar kinds and the field-by-field reader.

Layout (protobuf encoding guide; tf-checkpoint-format.md §0)::

    field     : varint key = (number << 3) | wire_type, then the payload
    wire 0    : varint            int32/int64/uint32/uint64/bool/enum (negative ints: 10 bytes)
    wire 1    : 8 bytes '<'       fixed64, sfixed64, double
    wire 2    : varint len, bytes string, bytes, sub-message, packed repeated scalars, map entry
    wire 5    : 4 bytes '<'       fixed32, sfixed32, float

A :class:`ScalarType` is one scalar kind of the ``.proto`` language: its wire type, its proto3 zero value
and its value <-> payload conversions.  Messages built from these are declared in graph/proto/protobuf.py.
"""

from __future__ import annotations

import struct
from typing import Any
from collections.abc import Callable, Iterator

from graph.errors import DataLossError

__all__ = [
    "VARINT", "I64", "LEN", "I32", "ScalarType", "enum",
    "INT32", "INT64", "UINT32", "UINT64", "SINT32", "SINT64", "BOOL", "ENUM", "STRING", "BYTES",
    "FIXED32", "FIXED64", "SFIXED32", "SFIXED64", "FLOAT", "DOUBLE",
    "encode_varint", "decode_varint64", "decode_varint32", "field_key", "parse_fields", "raw_field",
]

VARINT, I64, LEN, I32 = 0, 1, 2, 5  # wire types
_U64 = 1 << 64
_U32 = 1 << 32
_MAX_VARINT64_BYTES = 10  # protobuf's kMaxVarintBytes
_MAX_VARINT32_BYTES = 5  # protobuf's kMaxVarint32Bytes
VARINT_1 = [bytes((i,)) for i in range(0x80)]  # the one-byte varints: most lengths and keys


def encode_varint(value: int) -> bytes:
    """Returns the protobuf varint of ``value`` (negative values as 64-bit two's complement)."""
    if value < 0:
        value += _U64
    if value < 0x80:
        return VARINT_1[value]
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _decode_varint(buffer, pos: int, max_bytes: int, limit: int) -> tuple[int, int]:
    """The bounded varint decoder shared by decode_varint64 and decode_varint32."""
    result = 0
    shift = 0
    end = len(buffer)
    for count in range(max_bytes):
        if pos >= end:
            raise DataLossError(None, None, f"truncated varint at byte {pos}")
        byte = buffer[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            if result >= limit:
                raise DataLossError(None, None, f"varint overflows {limit.bit_length() - 1} bits at byte {pos - count - 1}")
            return result, pos
        shift += 7
    raise DataLossError(None, None, f"varint longer than {max_bytes} bytes at byte {pos - max_bytes}")


def decode_varint64(buffer, pos: int = 0) -> tuple[int, int]:
    """Decodes an unsigned 64-bit varint at ``pos``; returns (value, next position).

    Raises:
        DataLossError: on truncation, more than 10 bytes or a value >= 2**64.
    """
    byte = buffer[pos] if pos < len(buffer) else 0x80
    if byte < 0x80:  # fast path: one byte
        return byte, pos + 1
    return _decode_varint(buffer, pos, _MAX_VARINT64_BYTES, _U64)


def decode_varint32(buffer, pos: int = 0) -> tuple[int, int]:
    """Decodes an unsigned 32-bit varint at ``pos``; returns (value, next position).

    Raises:
        DataLossError: on truncation, more than 5 bytes or a value >= 2**32.
    """
    return _decode_varint(buffer, pos, _MAX_VARINT32_BYTES, _U32)


def field_key(number: int, wire_type: int) -> bytes:
    """The varint key that opens field ``number`` of ``wire_type``."""
    return encode_varint((number << 3) | wire_type)


def parse_fields(buffer) -> Iterator[tuple[int, int, Any]]:
    """Yields (field number, wire type, payload) for each field in ``buffer``: an int for varints, else bytes.

    Raises:
        DataLossError: naming the field and byte offset of a truncated or malformed field.
    """
    data = buffer if isinstance(buffer, bytes) else bytes(buffer)
    pos, end = 0, len(data)
    while pos < end:
        tag = data[pos]
        if tag < 0x80:
            pos += 1
        else:
            tag, pos = decode_varint64(data, pos)
        number, wire_type = tag >> 3, tag & 7
        if number == 0:
            raise DataLossError(None, None, f"field number 0 at byte {pos}")
        if wire_type == VARINT:
            payload = data[pos] if pos < end else 0x80
            if payload < 0x80:
                pos += 1
            else:
                payload, pos = decode_varint64(data, pos)
        elif wire_type == LEN:
            length = data[pos] if pos < end else 0x80
            if length < 0x80:
                pos += 1
            else:
                length, pos = decode_varint64(data, pos)
            if pos + length > end:
                raise DataLossError(None, None, f"field {number} wants {length} bytes at byte {pos}, only {end - pos} left")
            payload = data[pos:pos + length]
            pos += length
        elif wire_type in (I32, I64):
            size = 4 if wire_type == I32 else 8
            if pos + size > end:
                raise DataLossError(None, None, f"truncated fixed-width field {number} at byte {pos}")
            payload = data[pos:pos + size]
            pos += size
        else:
            raise DataLossError(None, None, f"unsupported wire type {wire_type} for field {number} at byte {pos}")
        yield number, wire_type, payload


def raw_field(number: int, wire_type: int, payload) -> bytes:
    """The wire bytes of one field as parse_fields yields it (unknown fields are written back so)."""
    if wire_type == VARINT:
        return field_key(number, VARINT) + encode_varint(payload)
    if wire_type == LEN:
        return field_key(number, LEN) + encode_varint(len(payload)) + payload
    return field_key(number, wire_type) + payload


class ScalarType:
    """A protobuf scalar kind: its wire type, default, and value <-> payload conversions."""

    def __init__(self, name: str, wire_type: int, default: Any, to_wire: Callable, from_wire: Callable,
                 fmt: str | None = None, names: dict[str, int] | None = None):
        self.name = name
        self.wire_type = wire_type
        self.default = default
        self.to_wire = to_wire      # python value -> int (varint) or bytes (fixed / LEN)
        self.from_wire = from_wire  # int or bytes -> python value
        self.struct = struct.Struct(fmt) if fmt else None
        self.names = dict(names or {})  # enum value names, as an EnumDescriptor holds them
        self.by_number = {number: label for label, number in self.names.items()}

    def __repr__(self) -> str:
        return self.name

    def is_default(self, value) -> bool:
        """True for this kind's proto3 zero value, which is left out (floats by bit pattern: -0.0 is not)."""
        if self.struct is not None and isinstance(value, float):
            return self.to_wire(value) == self.to_wire(0.0)  # -0.0 is not the default (bit pattern differs)
        return value == self.default


def _signed(bits: int) -> Callable[[int], int]:
    def convert(raw: int) -> int:
        raw &= (1 << bits) - 1
        return raw - (1 << bits) if raw >> (bits - 1) else raw
    return convert


def _fixed(name: str, fmt: str, default) -> ScalarType:
    packer = struct.Struct(fmt)
    wire = I32 if packer.size == 4 else I64
    return ScalarType(name, wire, default, packer.pack, lambda raw: packer.unpack(raw)[0], fmt)


INT32 = ScalarType("int32", VARINT, 0, int, _signed(32))
INT64 = ScalarType("int64", VARINT, 0, int, _signed(64))
UINT32 = ScalarType("uint32", VARINT, 0, int, lambda raw: raw & 0xFFFFFFFF)
UINT64 = ScalarType("uint64", VARINT, 0, int, int)
SINT32 = ScalarType("sint32", VARINT, 0, lambda v: (v << 1) ^ (v >> 31), lambda r: (r >> 1) ^ -(r & 1))
SINT64 = ScalarType("sint64", VARINT, 0, lambda v: (v << 1) ^ (v >> 63), lambda r: (r >> 1) ^ -(r & 1))
BOOL = ScalarType("bool", VARINT, False, int, bool)
ENUM = ScalarType("enum", VARINT, 0, int, _signed(32))
STRING = ScalarType("string", LEN, "", lambda v: v.encode("utf-8"), lambda raw: bytes(raw).decode("utf-8"))
BYTES = ScalarType("bytes", LEN, b"", bytes, bytes)
FIXED32 = _fixed("fixed32", "<I", 0)
FIXED64 = _fixed("fixed64", "<Q", 0)
SFIXED32 = _fixed("sfixed32", "<i", 0)
SFIXED64 = _fixed("sfixed64", "<q", 0)
FLOAT = _fixed("float", "<f", 0.0)
DOUBLE = _fixed("double", "<d", 0.0)


def enum(name: str, names: dict[str, int]) -> ScalarType:
    """An enum kind whose values have names (encoded as ENUM; text format reads and writes the names)."""
    return ScalarType(name, VARINT, 0, int, _signed(32), names=names)
