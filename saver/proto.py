"""Protobuf wire codec (proto3) and the checkpoint messages declared with it.

Wire format (protobuf encoding guide; tf-checkpoint-format.md §0)::

    field     : varint tag = (number << 3) | wire_type, then the payload
    wire 0    : varint            int32/int64/uint32/uint64/bool/enum (negative ints: 10 bytes)
    wire 1    : 8 bytes '<'       fixed64, sfixed64, double
    wire 2    : varint len, bytes string, bytes, sub-message, packed repeated scalars, map entry
    wire 5    : 4 bytes '<'       fixed32, sfixed32, float

Output is byte-identical to protobuf's: fields in number order, proto3 zero values left out,
a set sub-message written even when empty, presence fields (oneof members, ``optional``)
written whenever set, repeated numbers packed, map entries ``{1: key, 2: value}`` with both
written, in insertion order (upb writes maps in hash order, so only ``to_bytes(deterministic=True)``,
which sorts the keys, is comparable byte for byte).  Unknown fields are kept and written back
after the known ones.

Declaring a message (from any module)::

    class VersionDef(Message):
        producer = Field(1, INT32)
        bad_consumers = Field(3, INT32, repeated=True)
        shape = Field(2, TensorShapeProto)          # sub-message: None until set
        length = Field(2, INT64, oneof="has_length") # presence: None until set, 0 is written
        attr = MapField(5, STRING, lambda: AttrValue)  # dict; a lambda breaks declaration cycles

    VersionDef(producer=1).to_bytes(); VersionDef.from_bytes(data)
"""

from __future__ import annotations

import struct
from typing import Any, Callable

from graph.errors import DataLossError
from saver.coding import decode_varint64, encode_varint

__all__ = [
    "Message", "Field", "MapField", "ScalarType",
    "INT32", "INT64", "UINT32", "UINT64", "SINT32", "SINT64", "BOOL", "ENUM", "STRING", "BYTES",
    "FIXED32", "FIXED64", "SFIXED32", "SFIXED64", "FLOAT", "DOUBLE",
    "VersionDef", "TensorShapeProto", "TensorSliceProto", "BundleHeaderProto", "BundleEntryProto",
    "ResourceHandleProto", "TensorProto", "VariantTensorDataProto", "BoolValue", "RegisteredSaver",
    "TrackableObjectGraph", "SavedSliceMeta", "SavedTensorSliceMeta", "SavedSlice", "SavedTensorSlices",
]

VARINT, I64, LEN, I32 = 0, 1, 2, 5  # wire types
_U64 = 1 << 64


class ScalarType:
    """A protobuf scalar kind: its wire type, default, and value <-> payload conversions."""

    def __init__(self, name: str, wire_type: int, default: Any, to_wire: Callable, from_wire: Callable,
                 fmt: str | None = None):
        self.name = name
        self.wire_type = wire_type
        self.default = default
        self.to_wire = to_wire      # python value -> int (varint) or bytes (fixed / LEN)
        self.from_wire = from_wire  # int or bytes -> python value
        self.struct = struct.Struct(fmt) if fmt else None

    def __repr__(self) -> str:
        return self.name


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


def _is_default(kind: ScalarType, value) -> bool:
    if kind.struct is not None and isinstance(value, float):
        return kind.to_wire(value) == kind.to_wire(0.0)  # -0.0 is not the default (bit pattern differs)
    return value == kind.default


def _key(number: int, wire_type: int) -> bytes:
    return encode_varint((number << 3) | wire_type)


class Field:
    """One declared field: number, kind (ScalarType or Message class), repeated / presence flags.

    Args:
        number: the field number.
        kind: a ScalarType constant, a Message subclass, or a zero-argument callable returning
            one (to refer to a message declared later).
        repeated: a list-valued field (numbers are packed unless ``packed=False``).
        oneof: name of the oneof group; members have presence and setting one clears the others.
        optional: proto3 ``optional``: presence without a oneof.
        packed: pack repeated numbers (proto3 default True).
    """

    def __init__(self, number: int, kind, *, repeated: bool = False, oneof: str | None = None,
                 optional: bool = False, packed: bool = True):
        self.number = number
        self._kind = kind
        self.repeated = repeated
        self.oneof = oneof
        self.presence = bool(oneof or optional)
        self.packed = packed
        self.name = ""
        self.owner: type | None = None

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def _resolve(self) -> None:
        kind = self._kind
        if not isinstance(kind, (ScalarType, type)):
            kind = self._kind = kind()
        is_message = isinstance(kind, type) and issubclass(kind, Message)
        self._resolved = (kind, is_message)
        if not (is_message or self.repeated or self.oneof):  # plain singular scalar: decoded inline
            self._fast = (self.name, kind.wire_type, kind.from_wire)

    _resolved: tuple | None = None
    _fast: tuple | None = None

    @property
    def kind(self):
        """The ScalarType or Message class (lazy references resolved on first use)."""
        if self._resolved is None:
            self._resolve()
        return self._resolved[0]

    @property
    def is_message(self) -> bool:
        """True for a sub-message field."""
        if self._resolved is None:
            self._resolve()
        return self._resolved[1]

    def default(self):
        """The value of an unset field."""
        if self.repeated:
            return []
        if self.presence or self.is_message:
            return None
        return self.kind.default

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        values = instance._values
        if self.name in values:
            return values[self.name]
        value = self.default()
        if self.repeated:
            values[self.name] = value
        return value

    def __set__(self, instance, value) -> None:
        if self.repeated:
            value = list(value)
        elif value is not None and self.is_message and not isinstance(value, self.kind):
            raise TypeError(f"{type(instance).__name__}.{self.name} expects {self.kind.__name__}, "
                            f"got {type(value).__name__}")
        if self.oneof is not None and value is not None:
            for other in type(instance)._oneofs[self.oneof]:
                instance._values.pop(other.name, None)
        instance._values[self.name] = value

    # -- encoding --------------------------------------------------------------------------

    def _encode_one(self, value, out: list, deterministic: bool) -> None:
        kind = self.kind
        if self.is_message:
            body = value.to_bytes(deterministic)
            out += (_key(self.number, LEN), encode_varint(len(body)), body)
        elif kind.wire_type == VARINT:
            out += (_key(self.number, VARINT), encode_varint(kind.to_wire(value)))
        elif kind.wire_type == LEN:
            body = kind.to_wire(value)
            out += (_key(self.number, LEN), encode_varint(len(body)), body)
        else:
            out += (_key(self.number, kind.wire_type), kind.to_wire(value))

    def encode(self, value, out: list, deterministic: bool = False) -> None:
        """Appends the wire bytes of ``value`` (this field's value) to ``out``."""
        if self.repeated:
            if not value:
                return
            kind = self.kind
            if not self.is_message and kind.wire_type != LEN and self.packed:
                if kind.wire_type == VARINT:
                    body = b"".join(encode_varint(kind.to_wire(v)) for v in value)
                else:
                    body = struct.pack("<%d%s" % (len(value), kind.struct.format[-1]), *value)
                out += (_key(self.number, LEN), encode_varint(len(body)), body)
            else:
                for item in value:
                    self._encode_one(item, out, deterministic)
        elif value is None:
            return
        elif self.presence or self.is_message or not _is_default(self.kind, value):
            self._encode_one(value, out, deterministic)

    # -- decoding --------------------------------------------------------------------------

    def decode(self, wire_type: int, payload, values: dict) -> None:
        """Merges one parsed occurrence (int for varints, bytes otherwise) into ``values``."""
        if self._resolved is None:
            self._resolve()
        kind, is_message = self._resolved
        if is_message:
            if wire_type != LEN:
                raise DataLossError(f"field {self.name} ({self.number}) has wire type {wire_type}, expected 2")
            item = kind.from_bytes(payload)
            if self.repeated:
                values.setdefault(self.name, []).append(item)
            else:
                self._clear_oneof_siblings(values)
                existing = values.get(self.name)
                values[self.name] = item if existing is None else existing.merge(item)
            return
        if self.repeated and wire_type == LEN and kind.wire_type != LEN:  # packed
            items = values.setdefault(self.name, [])
            if kind.wire_type == VARINT:
                pos, end = 0, len(payload)
                while pos < end:
                    raw, pos = decode_varint64(payload, pos)
                    items.append(kind.from_wire(raw))
            else:
                size = kind.struct.size
                if len(payload) % size:
                    raise DataLossError(f"packed field {self.name} ({self.number}) has {len(payload)} bytes, "
                                        f"not a multiple of {size}")
                items.extend(struct.unpack("<%d%s" % (len(payload) // size, kind.struct.format[-1]), payload))
            return
        if wire_type != kind.wire_type:
            raise DataLossError(f"field {self.name} ({self.number}) has wire type {wire_type}, "
                                f"expected {kind.wire_type}")
        try:
            value = kind.from_wire(payload)
        except (UnicodeDecodeError, struct.error) as error:
            raise DataLossError(f"bad value for field {self.name} ({self.number}): {error}") from error
        if self.repeated:
            values.setdefault(self.name, []).append(value)
        else:
            self._clear_oneof_siblings(values)
            values[self.name] = value

    def _clear_oneof_siblings(self, values: dict) -> None:
        if self.oneof is not None:
            for other in self.owner._oneofs[self.oneof]:
                if other is not self:
                    values.pop(other.name, None)


class MapField(Field):
    """A ``map<key, value>`` field, held as a dict (entries are ``{1: key, 2: value}`` messages)."""

    def __init__(self, number: int, key_kind: ScalarType, value_kind):
        super().__init__(number, value_kind, repeated=True)
        self.key_kind = key_kind

    def default(self):
        return {}

    def __set__(self, instance, value) -> None:
        instance._values[self.name] = dict(value)

    def _entry(self) -> Field:
        value_field = Field(2, self._kind)
        value_field.name = "value"
        return value_field

    def encode(self, value, out: list, deterministic: bool = False) -> None:
        if not value:
            return
        key_field = Field(1, self.key_kind)
        value_field = self._entry()
        items = sorted(value.items()) if deterministic else value.items()
        for key, item in items:
            body: list = []
            key_field._encode_one(key, body, deterministic)
            value_field._encode_one(item, body, deterministic)
            entry = b"".join(body)
            out += (_key(self.number, LEN), encode_varint(len(entry)), entry)

    def decode(self, wire_type: int, payload, values: dict) -> None:
        if wire_type != LEN:
            raise DataLossError(f"map field {self.name} ({self.number}) has wire type {wire_type}")
        key_field = Field(1, self.key_kind)
        key_field.name = "key"
        value_field = self._entry()
        entry: dict = {}
        for number, entry_wire, entry_payload in _parse_fields(payload):
            if number == 1:
                key_field.decode(entry_wire, entry_payload, entry)
            elif number == 2:
                value_field.decode(entry_wire, entry_payload, entry)
        key = entry.get("key", self.key_kind.default)
        value = entry.get("value")
        if value is None:
            value = self.kind() if value_field.is_message else self.kind.default
        values.setdefault(self.name, {})[key] = value


def _parse_fields(buffer):
    """Yields (field number, wire type, payload) for each field in ``buffer``."""
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
            raise DataLossError(f"field number 0 at byte {pos}")
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
                raise DataLossError(f"field {number} wants {length} bytes at byte {pos}, only {end - pos} left")
            payload = data[pos:pos + length]
            pos += length
        elif wire_type in (I32, I64):
            size = 4 if wire_type == I32 else 8
            if pos + size > end:
                raise DataLossError(f"truncated fixed-width field {number} at byte {pos}")
            payload = data[pos:pos + size]
            pos += size
        else:
            raise DataLossError(f"unsupported wire type {wire_type} for field {number} at byte {pos}")
        yield number, wire_type, payload


def _raw_field(number: int, wire_type: int, payload) -> bytes:
    if wire_type == VARINT:
        return _key(number, VARINT) + encode_varint(payload)
    if wire_type == LEN:
        return _key(number, LEN) + encode_varint(len(payload)) + payload
    return _key(number, wire_type) + payload


class Message:
    """Base of declared messages: keyword construction, to_bytes / from_bytes, equality."""

    _fields: tuple[Field, ...] = ()
    _by_number: dict[int, Field] = {}
    _oneofs: dict[str, list[Field]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fields = {}
        for base in reversed(cls.__mro__[1:]):
            for field in getattr(base, "_fields", ()):
                fields[field.name] = field
        for name, value in vars(cls).items():
            if isinstance(value, Field):
                value.owner = cls
                fields[name] = value
        cls._fields = tuple(sorted(fields.values(), key=lambda f: f.number))
        cls._by_number = {f.number: f for f in cls._fields}
        if len(cls._by_number) != len(cls._fields):
            raise TypeError(f"{cls.__name__} declares a field number twice")
        cls._oneofs = {}
        for field in cls._fields:
            if field.oneof:
                cls._oneofs.setdefault(field.oneof, []).append(field)

    def __init__(self, **kwargs):
        self._values: dict[str, Any] = {}
        self._unknown: list[bytes] = []
        for name, value in kwargs.items():
            if not isinstance(getattr(type(self), name, None), Field):
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            setattr(self, name, value)

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("_") or isinstance(getattr(type(self), name, None), Field):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def has(self, name: str) -> bool:
        """True when the field is set (HasField); repeated/map fields: non-empty."""
        value = self._values.get(name)
        field = getattr(type(self), name)
        if field.repeated:
            return bool(value)
        if field.presence or field.is_message:
            return value is not None
        return value is not None and not _is_default(field.kind, value)

    def which_oneof(self, group: str) -> str | None:
        """The name of the set member of oneof ``group`` (WhichOneof)."""
        for field in self._oneofs[group]:
            if self._values.get(field.name) is not None:
                return field.name
        return None

    def clear(self, name: str) -> None:
        """Unsets field ``name`` (ClearField)."""
        self._values.pop(name, None)

    def to_bytes(self, deterministic: bool = False) -> bytes:
        """Serializes this message (SerializeToString)."""
        out: list = []
        values = self._values
        for field in self._fields:
            value = values.get(field.name)
            if value is not None:
                field.encode(value, out, deterministic)
        out.extend(self._unknown)
        return b"".join(out)

    @classmethod
    def from_bytes(cls, data) -> "Message":
        """Parses a serialized message (ParseFromString).

        Raises:
            DataLossError: if ``data`` is not a valid encoding of this message.
        """
        message = cls.__new__(cls)
        values: dict[str, Any] = {}
        object.__setattr__(message, "_values", values)
        object.__setattr__(message, "_unknown", [])
        by_number = cls._by_number
        for number, wire_type, payload in _parse_fields(data):
            field = by_number.get(number)
            if field is None:
                message._unknown.append(_raw_field(number, wire_type, payload))
                continue
            fast = field._fast
            if fast is not None and fast[1] == wire_type and wire_type != LEN:
                values[fast[0]] = fast[2](payload)
            else:
                field.decode(wire_type, payload, values)
        return message

    def merge(self, other: "Message") -> "Message":
        """Merges ``other`` into this message as protobuf's MergeFrom does; returns self."""
        return type(self).from_bytes(self.to_bytes() + other.to_bytes())

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in self._fields) and \
            self._unknown == other._unknown

    def __repr__(self) -> str:
        parts = [f"{f.name}={getattr(self, f.name)!r}" for f in self._fields if self.has(f.name)]
        return f"{type(self).__name__}({', '.join(parts)})"


# ------------------------------------------------------------------------------------- messages


class VersionDef(Message):
    """tensorflow/core/framework/versions.proto."""
    producer = Field(1, INT32)
    min_consumer = Field(2, INT32)
    bad_consumers = Field(3, INT32, repeated=True)


class TensorShapeProto(Message):
    """tensorflow/core/framework/tensor_shape.proto."""

    class Dim(Message):
        """One dimension: size (-1 = unknown) and an optional name."""
        size = Field(1, INT64)
        name = Field(2, STRING)

    dim = Field(2, Dim, repeated=True)
    unknown_rank = Field(3, BOOL)

    @classmethod
    def from_shape(cls, shape) -> "TensorShapeProto":
        """The proto of a fully known shape (a sequence of ints)."""
        return cls(dim=[cls.Dim(size=int(d)) for d in shape])

    def to_shape(self) -> tuple[int, ...]:
        """The dimension sizes as a tuple."""
        return tuple(d.size for d in self.dim)


class TensorSliceProto(Message):
    """tensorflow/core/framework/tensor_slice.proto; an Extent without length = whole dimension."""

    class Extent(Message):
        """start and (in oneof has_length) length of one dimension."""
        start = Field(1, INT64)
        length = Field(2, INT64, oneof="has_length")

    extent = Field(1, Extent, repeated=True)


class BundleHeaderProto(Message):
    """tensorflow/core/protobuf/tensor_bundle.proto: the value under key ''."""
    LITTLE, BIG = 0, 1
    num_shards = Field(1, INT32)
    endianness = Field(2, ENUM)
    version = Field(3, VersionDef)


class BundleEntryProto(Message):
    """tensorflow/core/protobuf/tensor_bundle.proto: where one tensor's bytes are."""
    dtype = Field(1, ENUM)
    shape = Field(2, TensorShapeProto)
    shard_id = Field(3, INT32)
    offset = Field(4, INT64)
    size = Field(5, INT64)
    crc32c = Field(6, FIXED32)
    slices = Field(7, TensorSliceProto, repeated=True)


class ResourceHandleProto(Message):
    """tensorflow/core/framework/resource_handle.proto."""

    class DtypeAndShape(Message):
        """dtype and shape of one resource component."""
        dtype = Field(1, ENUM)
        shape = Field(2, TensorShapeProto)

    device = Field(1, STRING)
    container = Field(2, STRING)
    name = Field(3, STRING)
    hash_code = Field(4, UINT64)
    maybe_type_name = Field(5, STRING)
    dtypes_and_shapes = Field(6, DtypeAndShape, repeated=True)


class TensorProto(Message):
    """tensorflow/core/framework/tensor.proto."""
    dtype = Field(1, ENUM)
    tensor_shape = Field(2, TensorShapeProto)
    version_number = Field(3, INT32)
    tensor_content = Field(4, BYTES)
    float_val = Field(5, FLOAT, repeated=True)
    double_val = Field(6, DOUBLE, repeated=True)
    int_val = Field(7, INT32, repeated=True)
    string_val = Field(8, BYTES, repeated=True)
    scomplex_val = Field(9, FLOAT, repeated=True)
    int64_val = Field(10, INT64, repeated=True)
    bool_val = Field(11, BOOL, repeated=True)
    dcomplex_val = Field(12, DOUBLE, repeated=True)
    half_val = Field(13, INT32, repeated=True)
    resource_handle_val = Field(14, ResourceHandleProto, repeated=True)
    variant_val = Field(15, lambda: VariantTensorDataProto, repeated=True)
    uint32_val = Field(16, UINT32, repeated=True)
    uint64_val = Field(17, UINT64, repeated=True)
    float8_val = Field(18, BYTES)


class VariantTensorDataProto(Message):
    """tensorflow/core/framework/tensor.proto: the serialized body of one DT_VARIANT element."""
    type_name = Field(1, STRING)
    metadata = Field(2, BYTES)
    tensors = Field(3, TensorProto, repeated=True)


class BoolValue(Message):
    """google/protobuf/wrappers.proto BoolValue."""
    value = Field(1, BOOL)


class RegisteredSaver(Message):
    """tensorflow/core/protobuf/trackable_object_graph.proto RegisteredSaver."""
    name = Field(1, STRING)
    object_name = Field(2, STRING)


class TrackableObjectGraph(Message):
    """tensorflow/core/protobuf/trackable_object_graph.proto (tf-checkpoint-format.md §8)."""

    class TrackableObject(Message):
        """One node: children, saved attributes, slot variables."""

        class ObjectReference(Message):
            """An edge to a child node."""
            node_id = Field(1, INT32)
            local_name = Field(2, STRING)

        class SerializedTensor(Message):
            """A saved attribute and its checkpoint key."""
            name = Field(1, STRING)
            full_name = Field(2, STRING)
            checkpoint_key = Field(3, STRING)

        class SlotVariableReference(Message):
            """An optimizer slot of a variable."""
            original_variable_node_id = Field(1, INT32)
            slot_name = Field(2, STRING)
            slot_variable_node_id = Field(3, INT32)

        children = Field(1, ObjectReference, repeated=True)
        attributes = Field(2, SerializedTensor, repeated=True)
        slot_variables = Field(3, SlotVariableReference, repeated=True)
        registered_saver = Field(4, RegisteredSaver)
        has_checkpoint_values = Field(5, BoolValue)

    nodes = Field(1, TrackableObject, repeated=True)


class SavedSliceMeta(Message):
    """tensorflow/core/util/saved_tensor_slice.proto: one tensor of a V1 checkpoint."""
    name = Field(1, STRING)
    shape = Field(2, TensorShapeProto)
    type = Field(3, ENUM)
    slice = Field(4, TensorSliceProto, repeated=True)


class SavedTensorSliceMeta(Message):
    """tensorflow/core/util/saved_tensor_slice.proto: the V1 header."""
    tensor = Field(1, SavedSliceMeta, repeated=True)
    versions = Field(2, VersionDef)


class SavedSlice(Message):
    """tensorflow/core/util/saved_tensor_slice.proto: one stored V1 slice."""
    name = Field(1, STRING)
    slice = Field(2, TensorSliceProto)
    data = Field(3, TensorProto)


class SavedTensorSlices(Message):
    """tensorflow/core/util/saved_tensor_slice.proto: the value of every V1 table entry."""
    meta = Field(1, SavedTensorSliceMeta)
    data = Field(2, SavedSlice)
