"""Byte coding primitives: fixed-width ints, OrderedCode slice keys and TensorSlice (varints: graph/proto/wire.py).

Layouts (tf-checkpoint-format.md §0 and §4)::

    fixed32       : uint32, little-endian ('<I')
    fixed64       : uint64, little-endian ('<Q')
    NumInc(v)     : uint8 n, then v as n big-endian bytes with leading zeros dropped (0 -> 00)
    Str(s)        : s with 00 -> 00 ff and ff -> ff 00, then terminator 00 01
    SignedInc(v)  : L = bit_length(v if v >= 0 else ~v) // 7 + 1 bytes of big-endian two's
                    complement whose first L bits are flipped
    slice key     : NumInc(0) Str(name) NumInc(rank) {SignedInc(start) SignedInc(length)}*rank

A slice spec string is ``"start,length:..."`` per dimension with ``-`` for a whole
dimension; a Saver's shape-and-slice string prefixes the full shape: ``"7 2 0,3:0,2"``.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Sequence

from graph.errors import DataLossError, InvalidArgumentError

__all__ = [
    "encode_fixed32", "decode_fixed32", "encode_fixed64", "decode_fixed64",
    "write_num_increasing", "read_num_increasing", "write_string", "read_string",
    "write_signed_num_increasing", "read_signed_num_increasing",
    "encode_tensor_name_slice", "decode_tensor_name_slice",
    "TensorSlice", "parse_shape_and_slice", "format_shape_and_slice", "FULL_EXTENT",
]

FULL_EXTENT = -1  # tensor_slice.h kFullExtent: length of a whole dimension
_FIXED32 = struct.Struct("<I")
_FIXED64 = struct.Struct("<Q")
_U64 = 1 << 64
_SPECIAL_BYTES = re.compile(b"[\\x00\\xff]")
_ESCAPES = {b"\x00": b"\x00\xff", b"\xff": b"\xff\x00"}

# ------------------------------------------------------------------------------------- fixed ints


def encode_fixed32(value: int) -> bytes:
    """Returns ``value`` as 4 little-endian bytes."""
    return _FIXED32.pack(value)


def decode_fixed32(buffer, pos: int = 0) -> int:
    """Reads 4 little-endian bytes at ``pos``."""
    if pos + 4 > len(buffer):
        raise DataLossError(None, None, f"truncated fixed32 at byte {pos}")
    return _FIXED32.unpack_from(buffer, pos)[0]


def encode_fixed64(value: int) -> bytes:
    """Returns ``value`` as 8 little-endian bytes."""
    return _FIXED64.pack(value)


def decode_fixed64(buffer, pos: int = 0) -> int:
    """Reads 8 little-endian bytes at ``pos``."""
    if pos + 8 > len(buffer):
        raise DataLossError(None, None, f"truncated fixed64 at byte {pos}")
    return _FIXED64.unpack_from(buffer, pos)[0]


# ------------------------------------------------------------------------------------ OrderedCode


def write_num_increasing(value: int) -> bytes:
    """OrderedCode NumInc: a length byte then the big-endian bytes without leading zeros."""
    if not 0 <= value < _U64:
        raise ValueError(f"NumInc needs an unsigned 64-bit value, got {value}")
    length = (value.bit_length() + 7) // 8
    return bytes((length,)) + value.to_bytes(length, "big")


def read_num_increasing(buffer, pos: int = 0) -> tuple[int, int]:
    """Decodes NumInc at ``pos``; returns (value, next position)."""
    if pos >= len(buffer):
        raise DataLossError(None, None, f"truncated OrderedCode number at byte {pos}")
    length = buffer[pos]
    if length > 8 or pos + 1 + length > len(buffer):
        raise DataLossError(None, None, f"bad OrderedCode number length {length} at byte {pos}")
    return int.from_bytes(bytes(buffer[pos + 1:pos + 1 + length]), "big"), pos + 1 + length


def write_string(value: bytes) -> bytes:
    """OrderedCode Str: escaped bytes then the terminator ``00 01``."""
    return _SPECIAL_BYTES.sub(lambda match: _ESCAPES[match.group()], bytes(value)) + b"\x00\x01"


def read_string(buffer, pos: int = 0) -> tuple[bytes, int]:
    """Decodes OrderedCode Str at ``pos``; returns (bytes, next position)."""
    out = bytearray()
    data = bytes(buffer)
    end = len(data)
    while True:
        special = min((i for i in (data.find(b"\x00", pos), data.find(b"\xff", pos)) if i >= 0), default=-1)
        if special < 0 or special + 1 >= end:
            raise DataLossError(None, None, f"unterminated OrderedCode string at byte {pos}")
        out += data[pos:special]
        pair = data[special:special + 2]
        if pair == b"\x00\x01":
            return bytes(out), special + 2
        if pair == b"\x00\xff":
            out.append(0)
        elif pair == b"\xff\x00":
            out.append(0xFF)
        else:
            raise DataLossError(None, None, f"bad OrderedCode string escape {pair.hex()} at byte {special}")
        pos = special + 2


def write_signed_num_increasing(value: int) -> bytes:
    """OrderedCode SignedInc: order-preserving signed 64-bit encoding (1..10 bytes)."""
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError(f"SignedInc needs a signed 64-bit value, got {value}")
    magnitude = value if value >= 0 else ~value
    length = magnitude.bit_length() // 7 + 1
    bits = 8 * length
    raw = value & ((1 << bits) - 1)  # two's complement in `length` bytes
    header = ((1 << length) - 1) << (bits - length)
    return (raw ^ header).to_bytes(length, "big")


def read_signed_num_increasing(buffer, pos: int = 0) -> tuple[int, int]:
    """Decodes SignedInc at ``pos``; returns (value, next position)."""
    if pos >= len(buffer):
        raise DataLossError(None, None, f"truncated OrderedCode signed number at byte {pos}")
    first = buffer[pos]
    negative = not first & 0x80
    # Length = count of leading header bits (ones for v >= 0, zeros for v < 0), up to 10 bits.
    second = buffer[pos + 1] if pos + 1 < len(buffer) else (0xFF if negative else 0x00)
    bits16 = (first << 8) | second
    if negative:
        bits16 ^= 0xFFFF
    length = 16 - (~bits16 & 0xFFFF).bit_length()
    if length > 10 or pos + length > len(buffer):
        raise DataLossError(None, None, f"bad OrderedCode signed number at byte {pos}")
    total_bits = 8 * length
    raw = int.from_bytes(bytes(buffer[pos:pos + length]), "big")
    raw ^= ((1 << length) - 1) << (total_bits - length)
    if raw >> (total_bits - 1):
        raw -= 1 << total_bits
    return raw, pos + length


# ------------------------------------------------------------------------------------ TensorSlice


class TensorSlice:
    """A hyper-rectangle of a tensor: one (start, length) per dimension, length -1 = whole."""

    __slots__ = ("extents",)

    def __init__(self, extents: Iterable[tuple[int, int]] = ()):
        self.extents: list[tuple[int, int]] = [(int(s), int(n)) for s, n in extents]
        for start, length in self.extents:
            if start < 0 or length < FULL_EXTENT or (length == FULL_EXTENT and start != 0):
                raise InvalidArgumentError(None, None, f"Invalid slice extent ({start}, {length}) in {self.extents}")

    @classmethod
    def full(cls, rank: int) -> TensorSlice:
        """The slice covering every dimension of a rank-``rank`` tensor."""
        return cls([(0, FULL_EXTENT)] * rank)

    @classmethod
    def parse(cls, spec: str) -> TensorSlice:
        """Parses ``"0,3:-"`` (TensorSlice::Parse); the empty string is rank 0."""
        if spec == "":
            return cls()
        extents = []
        for part in spec.split(":"):
            if part == "-":
                extents.append((0, FULL_EXTENT))
                continue
            pieces = part.split(",")
            try:
                start, length = (int(p) for p in pieces)
            except ValueError as error:
                raise InvalidArgumentError(
                    None, None, f"Expected a pair of numbers or '-' but got '{part}': string = {spec}") from error
            if start < 0 or length < 0:
                raise InvalidArgumentError(
                    None, None, f"Expected non-negative start and length but got '{part}': string = {spec}")
            extents.append((start, length))
        return cls(extents)

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.extents)

    def is_full(self) -> bool:
        """True when every dimension is a whole-dimension extent."""
        return all(length == FULL_EXTENT for _, length in self.extents)

    def covers(self, shape: Sequence[int]) -> bool:
        """True when this slice of a tensor of ``shape`` is the whole tensor."""
        return self.slice_shape(shape) == tuple(int(d) for d in shape)

    def bounds(self, shape: Sequence[int]) -> list[tuple[int, int]]:
        """(start, end) per dimension, resolving whole dimensions against ``shape``."""
        if len(shape) != self.rank:
            raise InvalidArgumentError(None, None, f"Slice {self} has rank {self.rank} but the tensor shape {list(shape)} "
                                       f"has rank {len(shape)}")
        out = []
        for (start, length), dim in zip(self.extents, shape):
            end = int(dim) if length == FULL_EXTENT else start + length
            if end > dim:
                raise InvalidArgumentError(None, None, f"Extent in dimension {len(out)} of slice {self} is out of bounds "
                                           f"of shape {list(shape)}")
            out.append((start if length != FULL_EXTENT else 0, end))
        return out

    def slice_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        """The shape of this slice of a tensor of ``shape``."""
        return tuple(end - start for start, end in self.bounds(shape))

    def index(self, shape: Sequence[int]) -> tuple[slice, ...]:
        """A numpy index selecting this slice out of an array of ``shape``."""
        return tuple(slice(start, end) for start, end in self.bounds(shape))

    def intersect(self, other: TensorSlice, shape: Sequence[int]) -> TensorSlice | None:
        """The overlap of two slices of a tensor of ``shape`` (None when they do not overlap)."""
        extents = []
        for (a0, a1), (b0, b1) in zip(self.bounds(shape), other.bounds(shape)):
            start, end = max(a0, b0), min(a1, b1)
            if start >= end:
                return None
            extents.append((start, end - start))
        return TensorSlice(extents)

    def relative_to(self, outer: TensorSlice, shape: Sequence[int]) -> tuple[slice, ...]:
        """A numpy index for this slice inside the array holding the slice ``outer``."""
        return tuple(slice(s0 - o0, e0 - o0)
                     for (s0, e0), (o0, _) in zip(self.bounds(shape), outer.bounds(shape)))

    def __str__(self) -> str:
        return ":".join("-" if length == FULL_EXTENT else f"{start},{length}" for start, length in self.extents)

    def __repr__(self) -> str:
        return f"TensorSlice({str(self)!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorSlice) and self.extents == other.extents

    def __hash__(self) -> int:
        return hash(tuple(self.extents))


def parse_shape_and_slice(spec: str) -> tuple[list[int], TensorSlice | None]:
    """Parses a Saver shape-and-slice string ``"7 2 0,3:0,2"`` into (full shape, slice).

    The empty string means "the whole tensor" and returns ([], None).
    """
    if spec == "":
        return [], None
    pieces = spec.split(" ")
    try:
        shape = [int(p) for p in pieces[:-1]]
    except ValueError as error:
        raise InvalidArgumentError(None, None, f"Invalid shape-and-slice string: '{spec}'") from error
    tensor_slice = TensorSlice.parse(pieces[-1])
    if tensor_slice.rank != len(shape):
        raise InvalidArgumentError(None, None, f"Expected {len(shape)} dimensions in the slice of '{spec}'")
    tensor_slice.bounds(shape)
    return shape, tensor_slice


def format_shape_and_slice(shape: Sequence[int], tensor_slice: TensorSlice) -> str:
    """Formats (full shape, slice) as ``"7 2 0,3:0,2"``."""
    return " ".join([str(int(d)) for d in shape] + [str(tensor_slice)])


def encode_tensor_name_slice(name: str | bytes, tensor_slice: TensorSlice) -> bytes:
    """The table key of one stored slice of tensor ``name`` (checkpoint::EncodeTensorNameSlice)."""
    raw = name.encode("utf-8", "surrogateescape") if isinstance(name, str) else bytes(name)
    parts = [write_num_increasing(0), write_string(raw), write_num_increasing(tensor_slice.rank)]
    for start, length in tensor_slice.extents:
        parts.append(write_signed_num_increasing(start))
        parts.append(write_signed_num_increasing(length))
    return b"".join(parts)


def decode_tensor_name_slice(key: bytes) -> tuple[str, TensorSlice]:
    """Inverts :func:`encode_tensor_name_slice`; returns (name, slice)."""
    tag, pos = read_num_increasing(key, 0)
    if tag != 0:
        raise DataLossError(None, None, f"slice key {bytes(key)!r} does not start with NumInc(0)")
    name, pos = read_string(key, pos)
    rank, pos = read_num_increasing(key, pos)
    extents = []
    for _ in range(rank):
        start, pos = read_signed_num_increasing(key, pos)
        length, pos = read_signed_num_increasing(key, pos)
        extents.append((start, length))
    if pos != len(key):
        raise DataLossError(None, None, f"{len(key) - pos} trailing bytes in slice key {bytes(key)!r}")
    try:
        return name.decode("utf-8", "surrogateescape"), TensorSlice(extents)
    except InvalidArgumentError as error:
        raise DataLossError(None, None, f"bad extent in slice key {bytes(key)!r}: {error}") from error
