"""Protobuf codec (proto3): wire format and text format, for messages declared in Python.

Wire format (protobuf encoding guide; tf-checkpoint-format.md §0)::

    field     : varint tag = (number << 3) | wire_type, then the payload
    wire 0    : varint            int32/int64/uint32/uint64/bool/enum (negative ints: 10 bytes)
    wire 1    : 8 bytes '<'       fixed64, sfixed64, double
    wire 2    : varint len, bytes string, bytes, sub-message, packed repeated scalars, map entry
    wire 5    : 4 bytes '<'       fixed32, sfixed32, float

Output is byte-identical to protobuf's: fields in number order, proto3 zero values left out,
a set sub-message written even when empty, presence fields (oneof members, ``optional``)
written whenever set, repeated numbers packed, map entries ``{1: key, 2: value}`` with both
written, in insertion order (``to_bytes(deterministic=True)`` sorts the keys).  Unknown fields
are kept and written back after the known ones.

Text format (``to_text`` / ``from_text``, as protobuf's ``text_format``)::

    name: scalar            ints, floats (inf, nan), true/false, enum names, "C-escaped strings"
    name { fields }         a sub-message (``name: { }`` and ``name < >`` are accepted too)
    name: [v, v]            a repeated field as a list
    map { key: k value { } } one map entry;  # comments run to the end of the line

Declaring a message (from any module)::

    class VersionDef(Message):
        producer = Field(1, INT32)
        bad_consumers = Field(3, INT32, repeated=True)
        shape = Field(2, TensorShapeProto)          # sub-message: None until set
        length = Field(2, INT64, oneof="has_length") # presence: None until set, 0 is written
        attr = MapField(5, STRING, lambda: AttrValue)  # dict; a lambda breaks declaration cycles
        version = Field(7, enum("Version", {"LEGACY": 0, "V1": 1, "V2": 2}))  # named enum values

    VersionDef(producer=1).to_bytes(); VersionDef.from_bytes(data); VersionDef.from_text("producer: 1")
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any, Callable

from graph.errors import DataLossError

__all__ = [
    "Message", "Field", "MapField", "ScalarType", "enum", "TextFormatError",
    "INT32", "INT64", "UINT32", "UINT64", "SINT32", "SINT64", "BOOL", "ENUM", "STRING", "BYTES",
    "FIXED32", "FIXED64", "SFIXED32", "SFIXED64", "FLOAT", "DOUBLE",
    "encode_varint", "decode_varint64", "decode_varint32",
]

VARINT, I64, LEN, I32 = 0, 1, 2, 5  # wire types
_U64 = 1 << 64
_U32 = 1 << 32
_MAX_VARINT64_BYTES = 10  # protobuf's kMaxVarintBytes
_MAX_VARINT32_BYTES = 5  # protobuf's kMaxVarint32Bytes
_VARINT_1 = [bytes((i,)) for i in range(0x80)]  # the one-byte varints


def encode_varint(value: int) -> bytes:
    """Returns the protobuf varint of ``value`` (negative values as 64-bit two's complement)."""
    if value < 0:
        value += _U64
    if value < 0x80:
        return bytes((value,))
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
            raise DataLossError(f"truncated varint at byte {pos}")
        byte = buffer[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            if result >= limit:
                raise DataLossError(f"varint overflows {limit.bit_length() - 1} bits at byte {pos - count - 1}")
            return result, pos
        shift += 7
    raise DataLossError(f"varint longer than {max_bytes} bytes at byte {pos - max_bytes}")


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
        self.names = dict(names or {})  # enum value names (text format only)
        self.by_number = {number: label for label, number in self.names.items()}

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


def enum(name: str, names: dict[str, int]) -> ScalarType:
    """An enum kind whose values have names (encoded as ENUM; the names serve the text format)."""
    return ScalarType(name, VARINT, 0, int, _signed(32), names=names)


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
            elif not self.is_message and kind.wire_type == LEN:  # strings and bytes: no per-item dispatch
                key = _key(self.number, LEN)
                to_wire = kind.to_wire
                for item in value:
                    body = to_wire(item)
                    size = len(body)
                    out += (key, _VARINT_1[size] if size < 0x80 else encode_varint(size), body)
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

    def to_text(self) -> str:
        """This message in protobuf text format (text_format.MessageToString; map keys sorted)."""
        lines: list[str] = []
        _print_message(self, 0, lines)
        return "".join(lines)

    @classmethod
    def from_text(cls, text, allow_unknown_field: bool = False) -> "Message":
        """Parses protobuf text format (text_format.Parse); ``allow_unknown_field`` skips undeclared fields.

        Raises:
            TextFormatError: naming the line and column of the first problem.
        """
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = bytes(text).decode("utf-8")
        tokens = _Tokenizer(text)
        tokens.allow_unknown_field = allow_unknown_field
        message = cls()
        _parse_message(tokens, message, end=None)
        return message

    def __repr__(self) -> str:
        parts = [f"{f.name}={getattr(self, f.name)!r}" for f in self._fields if self.has(f.name)]
        return f"{type(self).__name__}({', '.join(parts)})"


# ------------------------------------------------------------------------------------- text format


class TextFormatError(ValueError):
    """A protobuf text-format document that does not parse (text_format.ParseError)."""


_PRINTABLE = {i: chr(i) for i in range(32, 127)}
_PRINTABLE.update({ord("\\"): "\\\\", ord('"'): '\\"', ord("'"): "\\'", 10: "\\n", 13: "\\r", 9: "\\t"})


def _escape(data: bytes) -> str:
    """C-escapes bytes as protobuf's text_format.CEscape(as_utf8=False) does (octal for the rest)."""
    return "".join(_PRINTABLE.get(byte) or "\\%03o" % byte for byte in data)


def _format_float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    single = struct.unpack("<f", struct.pack("<f", value))[0]
    for precision in range(6, 10):  # the shortest %g that survives a float32 round trip
        text = "%.*g" % (precision, single)
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == single:
            return text
    return repr(single)


def _format_scalar(kind: ScalarType, value) -> str:
    if kind is STRING:
        return '"' + _escape(value.encode("utf-8")) + '"'
    if kind is BYTES:
        return '"' + _escape(bytes(value)) + '"'
    if kind is BOOL:
        return "true" if value else "false"
    if kind.by_number and value in kind.by_number:
        return kind.by_number[value]
    if kind is FLOAT:
        return _format_float(value)
    if kind is DOUBLE:
        return "nan" if math.isnan(value) else ("inf" if value == math.inf else "-inf" if value == -math.inf
                                                else repr(float(value)))
    return str(int(value))


def _print_value(field: Field, name: str, value, indent: int, lines: list) -> None:
    pad = " " * indent
    if field.is_message:
        lines.append(f"{pad}{name} {{\n")
        _print_message(value, indent + 2, lines)
        lines.append(f"{pad}}}\n")
    else:
        lines.append(f"{pad}{name}: {_format_scalar(field.kind, value)}\n")


def _print_message(message: Message, indent: int, lines: list) -> None:
    pad = " " * indent
    for field in message._fields:
        value = message._values.get(field.name)
        if value is None:
            continue
        if isinstance(field, MapField):
            key_field = Field(1, field.key_kind)
            value_field = field._entry()
            for key in sorted(value):
                lines.append(f"{pad}{field.name} {{\n")
                _print_value(key_field, "key", key, indent + 2, lines)
                _print_value(value_field, "value", value[key], indent + 2, lines)
                lines.append(f"{pad}}}\n")
        elif field.repeated:
            for item in value:
                _print_value(field, field.name, item, indent, lines)
        elif field.presence or field.is_message or not _is_default(field.kind, value):
            _print_value(field, field.name, value, indent, lines)
    if message._unknown:
        raise TextFormatError(f"{type(message).__name__} holds unknown fields, which text format cannot show")


_TOKEN = re.compile(r"""
    (?P<space>\s+|\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fF]?)(?![\w.])
              |-?(?:inf(?:inity)?|nan)\b)
  | (?P<ident>[A-Za-z_][\w]*)
  | (?P<punct>[:{}<>\[\],;/.])
""", re.VERBOSE | re.IGNORECASE)

_UNESCAPE = {"n": b"\n", "r": b"\r", "t": b"\t", '"': b'"', "'": b"'", "\\": b"\\", "a": b"\a", "b": b"\b",
             "f": b"\f", "v": b"\v", "?": b"?"}
_ESCAPE_RE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.S)


def _unescape(body: str) -> bytes:
    out = bytearray()
    pos = 0
    for match in _ESCAPE_RE.finditer(body):
        out += body[pos:match.start()].encode("utf-8")
        octal, hexa, u4, u8, other = match.groups()
        if octal:
            out.append(int(octal, 8) & 0xFF)
        elif hexa:
            out.append(int(hexa, 16))
        elif u4 or u8:
            out += chr(int(u4 or u8, 16)).encode("utf-8")
        elif other in _UNESCAPE:
            out += _UNESCAPE[other]
        else:
            raise TextFormatError(f"invalid escape sequence \\{other}")
        pos = match.end()
    out += body[pos:].encode("utf-8")
    return bytes(out)


class _Tokenizer:
    """Splits text format into (kind, text, position) tokens."""

    def __init__(self, text: str):
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None:
                raise TextFormatError(f"{self.where(pos)}: unexpected character {text[pos]!r}")
            kind = match.lastgroup
            if kind != "space":
                self.tokens.append((kind, match.group(), pos))
            pos = match.end()
        self.index = 0
        self.allow_unknown_field = False

    def where(self, pos: int | None = None) -> str:
        if pos is None:
            pos = self.tokens[self.index][2] if self.index < len(self.tokens) else len(self.text)
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return f"line {line} column {column}"

    def peek(self) -> str | None:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else None

    def next(self) -> tuple[str, str]:
        if self.index >= len(self.tokens):
            raise TextFormatError(f"{self.where()}: unexpected end of text")
        kind, text, _ = self.tokens[self.index]
        self.index += 1
        return kind, text

    def accept(self, text: str) -> bool:
        if self.peek() == text:
            self.index += 1
            return True
        return False

    def expect(self, text: str) -> None:
        where = self.where()
        if not self.accept(text):
            raise TextFormatError(f"{where}: expected {text!r}, found {self.peek()!r}")


def _parse_scalar(tokens: _Tokenizer, field: Field, kind: ScalarType):
    where = tokens.where()
    token_kind, text = tokens.next()
    try:
        if kind in (STRING, BYTES):
            if token_kind != "string":
                raise TextFormatError(f"expected a string, found {text!r}")
            data = _unescape(text[1:-1])
            while tokens.tokens[tokens.index:tokens.index + 1] and tokens.tokens[tokens.index][0] == "string":
                data += _unescape(tokens.next()[1][1:-1])  # adjacent strings are joined
            return data.decode("utf-8") if kind is STRING else data
        if kind is BOOL:
            if text in ("true", "True", "t", "1"):
                return True
            if text in ("false", "False", "f", "0"):
                return False
            raise TextFormatError(f"expected a bool, found {text!r}")
        if token_kind == "ident" and kind.names:
            if text not in kind.names:
                raise TextFormatError(f"unknown {kind.name} value {text!r}")
            return kind.names[text]
        if token_kind != "number":
            raise TextFormatError(f"expected a number, found {text!r}")
        if kind in (FLOAT, DOUBLE):
            lowered = text.lower().rstrip("f") if not text.lower().endswith("inf") else text.lower()
            if lowered.lstrip("+-").startswith("0x"):
                return float(int(lowered, 16))
            return float(lowered.replace("infinity", "inf"))
        if "." in text or (("e" in text.lower()) and not text.lower().lstrip("+-").startswith("0x")):
            raise TextFormatError(f"expected an integer, found {text!r}")
        value = int(text, 0) if not re.match(r"[-+]?0\d", text) else int(text, 8)
        return kind.from_wire(kind.to_wire(value) & (_U64 - 1)) if kind.wire_type == VARINT else value
    except TextFormatError as error:
        raise TextFormatError(f"{where}: field {field.name}: {error}") from None
    except ValueError as error:
        raise TextFormatError(f"{where}: field {field.name}: bad value {text!r} ({error})") from None


def _parse_value(tokens: _Tokenizer, field: Field, kind, is_message: bool):
    if is_message:
        tokens.accept(":")
        where = tokens.where()
        if tokens.accept("{"):
            end = "}"
        elif tokens.accept("<"):
            end = ">"
        else:
            raise TextFormatError(f"{where}: field {field.name}: expected '{{' or '<', found {tokens.peek()!r}")
        message = kind()
        _parse_message(tokens, message, end)
        return message
    return _parse_scalar(tokens, field, kind)


def _parse_map_entry(tokens: _Tokenizer, field: "MapField", values: dict) -> None:
    tokens.accept(":")
    end = "}" if tokens.accept("{") else (tokens.expect("<") or ">")
    key_field = Field(1, field.key_kind)
    key_field.name = "key"
    value_field = field._entry()
    key, value = field.key_kind.default, None
    while not tokens.accept(end):
        where = tokens.where()
        _, name = tokens.next()
        if name == "key":
            tokens.expect(":")
            key = _parse_scalar(tokens, key_field, field.key_kind)
        elif name == "value":
            if not value_field.is_message:
                tokens.expect(":")
            value = _parse_value(tokens, value_field, value_field.kind, value_field.is_message)
        else:
            raise TextFormatError(f"{where}: map entry of {field.name} has no field {name!r}")
        tokens.accept(",") or tokens.accept(";")
    if value is None:
        value = value_field.kind() if value_field.is_message else value_field.kind.default
    values.setdefault(field.name, {})[key] = value


def _skip_value(tokens: _Tokenizer) -> None:
    """Consumes the value of an undeclared field: a scalar (adjacent strings too), a list or a block."""
    tokens.accept(":")
    depth = 0
    while True:
        token_kind, text = tokens.next()
        if text in ("{", "<", "["):
            depth += 1
        elif text in ("}", ">", "]"):
            depth -= 1
        if depth == 0:
            while token_kind == "string" and tokens.index < len(tokens.tokens) \
                    and tokens.tokens[tokens.index][0] == "string":
                tokens.next()
            if text == "-":
                continue
            return


def _parse_message(tokens: _Tokenizer, message: Message, end: str | None) -> None:
    cls = type(message)
    by_name = {f.name: f for f in cls._fields}
    values = message._values
    while True:
        if end is None and tokens.peek() is None:
            return
        if end is not None and tokens.accept(end):
            return
        where = tokens.where()
        token_kind, name = tokens.next()
        if name == "[":
            raise TextFormatError(f"{where}: extensions and expanded Any fields are not supported")
        if token_kind != "ident":
            raise TextFormatError(f"{where}: expected a field name, found {name!r}")
        field = by_name.get(name)
        if field is None:
            if not tokens.allow_unknown_field:
                raise TextFormatError(f"{where}: {cls.__name__} has no field named {name!r}")
            _skip_value(tokens)
            tokens.accept(",") or tokens.accept(";")
            continue
        if isinstance(field, MapField):
            _parse_map_entry(tokens, field, values)
        else:
            is_message = field.is_message
            if not is_message:
                tokens.expect(":")
            if field.repeated and tokens.accept("["):
                items = values.setdefault(field.name, [])
                while not tokens.accept("]"):
                    items.append(_parse_value(tokens, field, field.kind, is_message))
                    tokens.accept(",")
            else:
                value = _parse_value(tokens, field, field.kind, is_message)
                if field.repeated:
                    values.setdefault(field.name, []).append(value)
                else:
                    field._clear_oneof_siblings(values)
                    values[field.name] = value
        tokens.accept(",") or tokens.accept(";")


