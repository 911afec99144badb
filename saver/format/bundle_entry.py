"""BundleEntry: the record behind every ``.index`` key, with a fast BundleEntryProto codec.

Layout of a BundleEntryProto value (tf-checkpoint-format.md §1; proto3, fields in number
order, zero values left out)::

    08 varint                 1 dtype     enum DataType
    12 len TensorShapeProto   2 shape     always written; per dim: 12 len [08 varint size]
                                          (size 0 -> 12 00; a scalar's shape is 12 00)
    18 varint                 3 shard_id  int32
    20 varint                 4 offset    int64
    28 varint                 5 size      int64
    35 uint32 '<'             6 crc32c    fixed32, masked crc32c of the tensor bytes
    3a len TensorSliceProto   7 slices    repeated; per extent: 0a len [08 varint start]
                                          [10 varint length] (length in a oneof: written when set)

``decode_entry`` reads the common shape of this message in one tight loop; anything unusual
(slices, dimension names, unknown_rank, unknown or repeated fields, malformed bytes) is handed
to the generic decoder of ``saver.format.proto`` and converted, so both agree on every input.
``encode_entry`` writes the bytes the generic encoder writes (checked in tests).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np

from graph.errors import InvalidArgumentError
from graph.proto.wire import encode_varint
from saver.format.coding import TensorSlice, parse_shape_and_slice
from saver.format.proto import BundleEntryProto, TensorShapeProto, TensorSliceProto, VersionDef

__all__ = ["HEADER_KEY", "TENSOR_BUNDLE_VERSION", "TENSOR_BUNDLE_MIN_PRODUCER", "check_versions",
           "BundleEntry", "CANONICAL_TAIL", "decode_entry", "decode_dtype_and_shape", "encode_entry", "Slice", "slice_to_proto",
           "slice_from_proto", "key_bytes", "key_str"]

HEADER_KEY = b""                # tensor_bundle.cc kHeaderEntryKey: the index key of BundleHeaderProto
TENSOR_BUNDLE_VERSION = 1       # tensor_bundle.h kTensorBundleVersion (producer written, consumer read)
TENSOR_BUNDLE_MIN_PRODUCER = 0  # tensor_bundle.h kTensorBundleMinProducer


def key_bytes(key) -> bytes:
    """A tensor name as its index key: a str as UTF-8 (lone surrogates kept), bytes as they are."""
    return key.encode("utf-8", "surrogateescape") if isinstance(key, str) else bytes(key)


def key_str(key: bytes) -> str:
    """An index key as a tensor name (the inverse of key_bytes)."""
    return key.decode("utf-8", "surrogateescape")


def check_versions(version: VersionDef | None, where: str) -> None:
    """tensorflow/core/framework/versions.cc CheckVersions for a bundle header's VersionDef.

    Raises:
        InvalidArgumentError: if this reader's version is below the producer's minimum or listed as bad.
    """
    if version is None:
        return
    if version.producer < TENSOR_BUNDLE_MIN_PRODUCER:
        raise InvalidArgumentError(None, None, f"Checkpoint producer version {version.producer} below min producer "
                                   f"{TENSOR_BUNDLE_MIN_PRODUCER} supported by checkpoint ({where}).")
    if version.min_consumer > TENSOR_BUNDLE_VERSION:
        raise InvalidArgumentError(None, None, f"Checkpoint min consumer version {version.min_consumer} above current "
                                   f"version {TENSOR_BUNDLE_VERSION} for checkpoint ({where}).  "
                                   "Please upgrade TensorFlow.")
    if TENSOR_BUNDLE_VERSION in version.bad_consumers:
        raise InvalidArgumentError(None, None, f"Checkpoint disallows consumer version {TENSOR_BUNDLE_VERSION} ({where}).  "
                                   "Please upgrade TensorFlow: this version is likely buggy.")

_U32 = (1 << 32) - 1
_U64 = 1 << 64
_SHAPES: dict[bytes, tuple[int, ...]] = {}  # shape bytes -> dims; bounded below
_MAX_CACHED_SHAPES = 4096


class BundleEntry:
    """Where one tensor's bytes are: dtype enum, shape, shard, offset, size, masked crc32c, slices.

    ``slices`` is a list of TensorSlice (non-empty only on a partitioned tensor's full entry).
    ``shape`` is None when the stored shape has unknown rank.
    """

    __slots__ = ("dtype", "shape", "shard_id", "offset", "size", "crc32c", "slices")

    def __init__(self, dtype: int = 0, shape: tuple | None = (), shard_id: int = 0, offset: int = 0,
                 size: int = 0, crc32c: int = 0, slices: list | None = None):
        self.dtype = dtype
        self.shape = shape
        self.shard_id = shard_id
        self.offset = offset
        self.size = size
        self.crc32c = crc32c
        self.slices = slices if slices is not None else []

    def to_proto(self) -> BundleEntryProto:
        """The generic BundleEntryProto of this entry."""
        proto = BundleEntryProto(dtype=self.dtype, shard_id=self.shard_id, offset=self.offset,
                                 size=self.size, crc32c=self.crc32c)
        proto.shape = (TensorShapeProto(unknown_rank=True) if self.shape is None
                       else TensorShapeProto.from_shape(self.shape))
        proto.slices = [slice_to_proto(s) for s in self.slices]
        return proto

    @classmethod
    def from_proto(cls, proto: BundleEntryProto) -> BundleEntry:
        """The record of a generic BundleEntryProto (dimension names are dropped, as TF does)."""
        shape_proto = proto.shape or TensorShapeProto()
        shape = None if shape_proto.unknown_rank else shape_proto.to_shape()
        return cls(proto.dtype, shape, proto.shard_id, proto.offset, proto.size, proto.crc32c,
                   [slice_from_proto(s) for s in proto.slices])

    def __eq__(self, other) -> bool:
        if not isinstance(other, BundleEntry):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"BundleEntry({fields})"


# -------------------------------------------------------------------------------------- decoding


class _Unusual(Exception):
    """Raised inside the fast decoder: let the generic decoder handle these bytes."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]  # IndexError past the end: handled by the caller
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise _Unusual


def _decode_shape(data: bytes) -> tuple[int, ...]:
    dims = []
    pos, end = 0, len(data)
    while pos < end:
        if data[pos] != 0x12:
            raise _Unusual
        length = data[pos + 1]
        if length == 0:
            dims.append(0)
            pos += 2
            continue
        if length >= 0x80 or data[pos + 2] != 0x08:
            raise _Unusual
        size, next_pos = _varint(data, pos + 3)
        if next_pos != pos + 2 + length or size >= _U64:
            raise _Unusual
        dims.append(size - _U64 if size >> 63 else size)
        pos = next_pos
    if pos != end:
        raise _Unusual
    return tuple(dims)


def _shape(data: bytes) -> tuple[int, ...]:
    shape = _SHAPES.get(data)
    if shape is None:
        shape = _decode_shape(data)
        if len(_SHAPES) >= _MAX_CACHED_SHAPES:
            _SHAPES.clear()
        _SHAPES[data] = shape
    return shape


def _signed32(value: int) -> int:
    value &= _U32
    return value - (1 << 32) if value >> 31 else value


def _signed64(value: int) -> int:
    value &= _U64 - 1
    return value - _U64 if value >> 63 else value


def _decode_fast(raw: bytes) -> BundleEntry:
    dtype = shard_id = offset = size = checksum = 0
    shape = None
    pos, end = 0, len(raw)
    while pos < end:
        tag = raw[pos]
        pos += 1
        if tag == 0x12:
            if shape is not None:
                raise _Unusual  # a repeated sub-message merges: leave that to the generic decoder
            length = raw[pos]
            if length < 0x80:
                pos += 1
            else:
                length, pos = _varint(raw, pos)
            if pos + length > end:
                raise _Unusual
            shape = _shape(raw[pos:pos + length])
            pos += length
        elif tag == 0x35:
            if pos + 4 > end:
                raise _Unusual
            checksum = int.from_bytes(raw[pos:pos + 4], "little")
            pos += 4
        elif tag in (0x08, 0x18, 0x20, 0x28):
            value = raw[pos]
            if value < 0x80:
                pos += 1
            else:
                value, pos = _varint(raw, pos)
                if value >= _U64:
                    raise _Unusual
            if tag == 0x20:
                offset = _signed64(value)
            elif tag == 0x28:
                size = _signed64(value)
            elif tag == 0x08:
                dtype = _signed32(value)
            else:
                shard_id = _signed32(value)
        else:
            raise _Unusual
    if pos != end:
        raise _Unusual
    return BundleEntry(dtype, () if shape is None else shape, shard_id, offset, size, checksum)


# What may follow dtype and shape in a canonical entry: shard_id, offset, size, crc32c, each at most
# once and in order (varints of at most 10 bytes).  Checked in C by one regular expression.
CANONICAL_TAIL = re.compile(rb"(?:\x18[\x80-\xff]{0,9}[\x00-\x7f])?(?:\x20[\x80-\xff]{0,9}[\x00-\x7f])?"
                             rb"(?:\x28[\x80-\xff]{0,9}[\x00-\x7f])?(?:\x35[\x00-\xff]{4})?")


def decode_dtype_and_shape(raw: bytes) -> tuple[int, tuple[int, ...] | None, bool]:
    """(dtype enum, shape, has slices) of a serialized entry, reading only what they need.

    A canonical entry (``08 dtype 12 len shape`` followed only by fields 3-6 in order, which a
    regular expression confirms) is read from its first bytes; anything else is fully decoded.

    Raises:
        DataLossError: if ``raw`` is not a valid BundleEntryProto.
    """
    if len(raw) > 3 and raw[0] == 0x08 and raw[2] == 0x12 and raw[1] < 0x80 and raw[3] < 0x80:
        end = 4 + raw[3]
        if end <= len(raw) and CANONICAL_TAIL.fullmatch(raw, end):
            try:
                return raw[1], _shape(raw[4:end]), False
            except (_Unusual, IndexError):
                pass
    entry = decode_entry(raw)
    return entry.dtype, entry.shape, bool(entry.slices)


def decode_entry(raw: bytes) -> BundleEntry:
    """Parses a serialized BundleEntryProto.

    Raises:
        DataLossError: if ``raw`` is not a valid BundleEntryProto.
    """
    try:
        return _decode_fast(raw)
    except (_Unusual, IndexError):
        return BundleEntry.from_proto(BundleEntryProto.from_bytes(raw))


# -------------------------------------------------------------------------------------- encoding


def _encode_shape(shape: Sequence[int]) -> bytes:
    parts = []
    for size in shape:
        if size:
            body = b"\x08" + encode_varint(int(size))
            parts.append(b"\x12" + bytes((len(body),)) + body)
        else:
            parts.append(b"\x12\x00")
    return b"".join(parts)


def encode_entry(entry: BundleEntry) -> bytes:
    """Serializes ``entry`` byte for byte as protobuf writes its BundleEntryProto."""
    if entry.shape is None:
        return entry.to_proto().to_bytes()
    out = []
    if entry.dtype:
        out.append(b"\x08" + encode_varint(entry.dtype))
    shape = _encode_shape(entry.shape)
    out.append(b"\x12" + encode_varint(len(shape)) + shape)
    if entry.shard_id:
        out.append(b"\x18" + encode_varint(entry.shard_id))
    if entry.offset:
        out.append(b"\x20" + encode_varint(entry.offset))
    if entry.size:
        out.append(b"\x28" + encode_varint(entry.size))
    if entry.crc32c:
        out.append(b"\x35" + entry.crc32c.to_bytes(4, "little"))
    for tensor_slice in entry.slices:
        body = slice_to_proto(tensor_slice).to_bytes()
        out.append(b"\x3a" + encode_varint(len(body)) + body)
    return b"".join(out)


# ---------------------------------------------------------------------------------------- slices


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
    def parse(cls, shape_and_slice: str, value) -> Slice:
        """A Slice from ``"7 2 0,3:0,2"`` and the part's values."""
        shape, spec = parse_shape_and_slice(shape_and_slice)
        return cls(tuple(shape), spec if spec is not None else TensorSlice.full(len(shape)), value)
