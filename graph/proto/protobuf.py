"""Protobuf messages declared in Python (proto3): fields, map fields and the Message base.

Encoding follows the wire layout drawn in graph/proto/wire.py.  Output is byte-identical to protobuf's:
fields in number order, proto3 zero values left out, a set sub-message written even when empty, presence
fields (oneof members, ``optional``) written whenever set, repeated numbers packed, map entries
``{1: key, 2: value}`` with both written, in insertion order (``to_bytes(deterministic=True)`` sorts the
keys).  Unknown fields are kept and written back after the known ones.  Text format is a separate codec
over these messages (graph/proto/text_format.py); this module knows nothing of it.

Declaring a message (from any module)::

    class VersionDef(Message, full_name="tensorflow.VersionDef"):  # full_name: protobuf's type name
        producer = Field(1, INT32)
        bad_consumers = Field(3, INT32, repeated=True)
        shape = Field(2, TensorShapeProto)          # sub-message: None until set
        length = Field(2, INT64, oneof="has_length") # presence: None until set, 0 is written
        attr = MapField(5, STRING, lambda: AttrValue)  # dict; a lambda breaks declaration cycles
        version = Field(7, enum("Version", {"LEGACY": 0, "V1": 1, "V2": 2}))  # named enum values

    VersionDef(producer=1).to_bytes(); VersionDef.from_bytes(data)
"""

from __future__ import annotations

import struct
from typing import Any

from graph.errors import DataLossError
# The field kinds a declaration names, re-exported so that a module declaring messages imports one place.
from graph.proto.wire import (BOOL, BYTES, DOUBLE, ENUM, FIXED32, FIXED64, FLOAT, INT32, INT64, LEN, SFIXED32,
                              SFIXED64, SINT32, SINT64, STRING, UINT32, UINT64, VARINT, VARINT_1, ScalarType,
                              decode_varint64, encode_varint, enum, field_key, parse_fields, raw_field)

__all__ = [
    "Message", "Field", "MapField", "ScalarType", "enum",
    "INT32", "INT64", "UINT32", "UINT64", "SINT32", "SINT64", "BOOL", "ENUM", "STRING", "BYTES",
    "FIXED32", "FIXED64", "SFIXED32", "SFIXED64", "FLOAT", "DOUBLE",
]


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
            out += (field_key(self.number, LEN), encode_varint(len(body)), body)
        elif kind.wire_type == VARINT:
            out += (field_key(self.number, VARINT), encode_varint(kind.to_wire(value)))
        elif kind.wire_type == LEN:
            body = kind.to_wire(value)
            out += (field_key(self.number, LEN), encode_varint(len(body)), body)
        else:
            out += (field_key(self.number, kind.wire_type), kind.to_wire(value))

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
                out += (field_key(self.number, LEN), encode_varint(len(body)), body)
            elif not self.is_message and kind.wire_type == LEN:  # strings and bytes: no per-item dispatch
                key = field_key(self.number, LEN)
                to_wire = kind.to_wire
                for item in value:
                    body = to_wire(item)
                    size = len(body)
                    out += (key, VARINT_1[size] if size < 0x80 else encode_varint(size), body)
            else:
                for item in value:
                    self._encode_one(item, out, deterministic)
        elif value is None:
            return
        elif self.presence or self.is_message or not self.kind.is_default(value):
            self._encode_one(value, out, deterministic)

    # -- decoding --------------------------------------------------------------------------

    def decode(self, wire_type: int, payload, values: dict) -> None:
        """Merges one parsed occurrence (int for varints, bytes otherwise) into ``values``."""
        if self._resolved is None:
            self._resolve()
        kind, is_message = self._resolved
        if is_message:
            if wire_type != LEN:
                raise DataLossError(None, None, f"field {self.name} ({self.number}) has wire type {wire_type}, expected 2")
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
                    raise DataLossError(None, None, f"packed field {self.name} ({self.number}) has {len(payload)} bytes, "
                                        f"not a multiple of {size}")
                items.extend(struct.unpack("<%d%s" % (len(payload) // size, kind.struct.format[-1]), payload))
            return
        if wire_type != kind.wire_type:
            raise DataLossError(None, None, f"field {self.name} ({self.number}) has wire type {wire_type}, "
                                f"expected {kind.wire_type}")
        try:
            value = kind.from_wire(payload)
        except (UnicodeDecodeError, struct.error) as error:
            raise DataLossError(None, None, f"bad value for field {self.name} ({self.number}): {error}") from error
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

    _entry_class: type | None = None

    def entry_class(self) -> type:
        """The map entry as a message class, ``{1: key, 2: value}`` (as protobuf declares map entries)."""
        if self._entry_class is None:
            owner = self.owner.__qualname__ if self.owner is not None else "Map"
            name = "".join(part.capitalize() for part in self.name.split("_")) + "Entry"
            self._entry_class = type(name, (Message,), {
                "__qualname__": f"{owner}.{name}", "__module__": __name__,
                "key": Field(1, self.key_kind), "value": Field(2, self._kind)}, full_name=f"{owner}.{name}")
        return self._entry_class

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
            out += (field_key(self.number, LEN), encode_varint(len(entry)), entry)

    def decode(self, wire_type: int, payload, values: dict) -> None:
        if wire_type != LEN:
            raise DataLossError(None, None, f"map field {self.name} ({self.number}) has wire type {wire_type}")
        key_field = Field(1, self.key_kind)
        key_field.name = "key"
        value_field = self._entry()
        entry: dict = {}
        for number, entry_wire, entry_payload in parse_fields(payload):
            if number == 1:
                key_field.decode(entry_wire, entry_payload, entry)
            elif number == 2:
                value_field.decode(entry_wire, entry_payload, entry)
        key = entry.get("key", self.key_kind.default)
        value = entry.get("value")
        if value is None:
            value = self.kind() if value_field.is_message else self.kind.default
        values.setdefault(self.name, {})[key] = value


class Message:
    """Base of declared messages: keyword construction, to_bytes / from_bytes, equality."""

    _fields: tuple[Field, ...] = ()
    _by_number: dict[int, Field] = {}
    _by_name: dict[str, Field] = {}
    _oneofs: dict[str, list[Field]] = {}
    _full_name = "Message"  # the protobuf type name, e.g. "tensorflow.CheckpointState" (DESCRIPTOR.full_name)

    def __init_subclass__(cls, full_name: str | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._full_name = full_name or cls.__qualname__
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
        cls._by_name = {f.name: f for f in cls._fields}
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
        return value is not None and not field.kind.is_default(value)

    def which_oneof(self, group: str) -> str | None:
        """The name of the set member of oneof ``group`` (WhichOneof)."""
        for field in self._oneofs[group]:
            if self._values.get(field.name) is not None:
                return field.name
        return None

    def clear(self, name: str) -> None:
        """Unsets field ``name`` (ClearField)."""
        self._values.pop(name, None)

    # protobuf's generated-class spellings, for scripts written against TensorFlow's *_pb2 messages.
    def HasField(self, field_name: str) -> bool:  # noqa: N802
        """protobuf's HasField: whether a singular field is set (ValueError for repeated or unknown names)."""
        field = type(self)._by_name.get(field_name)
        if field is None or field.repeated:
            raise ValueError(f'Protocol message {type(self).__name__} has no singular "{field_name}" field.')
        return self.has(field_name)

    def ClearField(self, field_name: str) -> None:  # noqa: N802
        """protobuf's ClearField (ValueError for a name the message does not declare)."""
        if field_name not in type(self)._by_name:
            raise ValueError(f'Protocol message {type(self).__name__} has no "{field_name}" field.')
        self.clear(field_name)

    def WhichOneof(self, oneof_group: str) -> str | None:  # noqa: N802
        """protobuf's WhichOneof."""
        return self.which_oneof(oneof_group)

    def SerializeToString(self, deterministic: bool = False) -> bytes:  # noqa: N802
        """protobuf's SerializeToString."""
        return self.to_bytes(deterministic)

    @classmethod
    def FromString(cls, data) -> Message:  # noqa: N802
        """protobuf's FromString."""
        return cls.from_bytes(data)

    def ParseFromString(self, serialized) -> int:  # noqa: N802
        """protobuf's ParseFromString: this message becomes the parsed one; returns the bytes read."""
        parsed = type(self).from_bytes(serialized)
        object.__setattr__(self, "_values", parsed._values)
        object.__setattr__(self, "_unknown", parsed._unknown)
        return len(serialized)

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
    def from_bytes(cls, data) -> Message:
        """Parses a serialized message (ParseFromString).

        Raises:
            DataLossError: if ``data`` is not a valid encoding of this message.
        """
        message = cls.__new__(cls)
        values: dict[str, Any] = {}
        object.__setattr__(message, "_values", values)
        object.__setattr__(message, "_unknown", [])
        by_number = cls._by_number
        for number, wire_type, payload in parse_fields(data):
            field = by_number.get(number)
            if field is None:
                message._unknown.append(raw_field(number, wire_type, payload))
                continue
            fast = field._fast
            if fast is not None and fast[1] == wire_type and wire_type != LEN:
                values[fast[0]] = fast[2](payload)
            else:
                field.decode(wire_type, payload, values)
        return message

    def merge(self, other: Message) -> Message:
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
