"""TensorFlow's Example messages (core/example/feature.proto, example.proto) for the codec, as ``tf.train`` has them.

Layout (field number, name, type)::

    BytesList       : 1 value bytes*
    FloatList       : 1 value float* (packed)
    Int64List       : 1 value int64* (packed)
    Feature         : oneof kind {1 bytes_list BytesList, 2 float_list FloatList, 3 int64_list Int64List}
    Features        : 1 feature map<string, Feature>
    FeatureList     : 1 feature Feature*
    FeatureLists    : 1 feature_list map<string, FeatureList>
    Example         : 1 features Features
    SequenceExample : 1 context Features, 2 feature_lists FeatureLists

The classes answer protobuf's Python API that TF1 programs use on them (``SerializeToString``,
``FromString``, ``ParseFromString``, ``HasField``, ``WhichOneof``, ``CopyFrom``, ``MergeFrom``, ``str()``),
and reading an unset sub-message or a missing map key gives a fresh message attached to its parent, so
``example.features.feature["x"].int64_list.value.append(1)`` builds an Example as it does in TensorFlow.

Map order: protobuf's default serialization writes map entries in its hash table's order; these write
them sorted by key, which is protobuf's ``SerializeToString(deterministic=True)`` (byte-identical to it).
Parsing either order gives the same message.
"""

from __future__ import annotations

from graph.proto import text_format
from graph.proto.protobuf import BYTES, FLOAT, INT64, STRING, Field, MapField, Message

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList", "FeatureLists",
           "Example", "SequenceExample"]


class _AttachedField(Field):
    """A sub-message field that, read while unset, creates its message in the parent (protobuf's lazy parent).

    A oneof member is created only while no member of its group is set; otherwise reading it gives a
    detached empty message, so looking at ``feature.bytes_list`` never clears ``feature.int64_list``.
    """

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance._values.get(self.name)
        if value is not None:
            return value
        if self.oneof is not None and instance.which_oneof(self.oneof) is not None:
            return self.kind()
        value = self.kind()
        self.__set__(instance, value)
        return value


class _MessageMap(dict):
    """A map field's dict whose missing keys read as a new message stored under the key (protobuf's map)."""

    def __init__(self, value_class, items=()):
        super().__init__(items)
        self._value_class = value_class

    def __missing__(self, key):
        value = self[key] = self._value_class()
        return value

    def get_or_create(self, key):
        """The message under ``key``, created when missing (protobuf's MessageMap.get_or_create)."""
        return self[key]


class _MessageMapField(MapField):
    """A ``map<string, Message>`` field held as a `_MessageMap`."""

    def default(self):
        return _MessageMap(self.kind)

    def __set__(self, instance, value) -> None:
        instance._values[self.name] = _MessageMap(self.kind, value)

    def decode(self, wire_type: int, payload, values: dict) -> None:
        if not isinstance(values.get(self.name), _MessageMap):
            values[self.name] = _MessageMap(self.kind, values.get(self.name, {}))
        super().decode(wire_type, payload, values)


class _PythonProtoAPI(Message):
    """protobuf's Python method names over the codec's Message."""

    def SerializeToString(self, deterministic: bool = True) -> bytes:  # noqa: N802 - protobuf's name
        """The message's wire bytes (map entries sorted by key, as protobuf's deterministic mode)."""
        del deterministic  # always deterministic: see the module docstring
        return self.to_bytes(deterministic=True)

    @classmethod
    def FromString(cls, data: bytes):  # noqa: N802 - protobuf's name
        """The message parsed from wire bytes."""
        return cls.from_bytes(bytes(data))

    def ParseFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf's name
        """Replaces this message's contents with the parsed ``data``; returns its length."""
        parsed = type(self).from_bytes(bytes(data))
        object.__setattr__(self, "_values", parsed._values)
        object.__setattr__(self, "_unknown", parsed._unknown)
        return len(data)

    def MergeFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf's name
        """Merges the parsed ``data`` into this message; returns its length."""
        return self.ParseFromString(self.to_bytes() + bytes(data))

    def CopyFrom(self, other: Message) -> None:  # noqa: N802 - protobuf's name
        """Makes this message a copy of ``other``."""
        self.ParseFromString(other.to_bytes())

    def MergeFrom(self, other: Message) -> None:  # noqa: N802 - protobuf's name
        """Merges ``other`` into this message (repeated fields append, sub-messages merge)."""
        self.ParseFromString(self.to_bytes() + other.to_bytes())

    def HasField(self, name: str) -> bool:  # noqa: N802 - protobuf's name
        """Whether sub-message or oneof member ``name`` is set."""
        return self.has(name)

    def WhichOneof(self, group: str):  # noqa: N802 - protobuf's name
        """The set member of oneof ``group``, or None."""
        return self.which_oneof(group)

    def ClearField(self, name: str) -> None:  # noqa: N802 - protobuf's name
        """Unsets field ``name``."""
        self.clear(name)

    def ByteSize(self) -> int:  # noqa: N802 - protobuf's name
        """The length of the serialized message."""
        return len(self.to_bytes())

    def __str__(self) -> str:
        return text_format.to_text(self)


class BytesList(_PythonProtoAPI, full_name="tensorflow.BytesList"):
    """A list of byte strings."""
    value = Field(1, BYTES, repeated=True)


class FloatList(_PythonProtoAPI, full_name="tensorflow.FloatList"):
    """A list of float32 values."""
    value = Field(1, FLOAT, repeated=True)


class Int64List(_PythonProtoAPI, full_name="tensorflow.Int64List"):
    """A list of int64 values."""
    value = Field(1, INT64, repeated=True)


class Feature(_PythonProtoAPI, full_name="tensorflow.Feature"):
    """One feature: a list of bytes, floats or int64s."""
    bytes_list = _AttachedField(1, BytesList, oneof="kind")
    float_list = _AttachedField(2, FloatList, oneof="kind")
    int64_list = _AttachedField(3, Int64List, oneof="kind")


class Features(_PythonProtoAPI, full_name="tensorflow.Features"):
    """Named features."""
    feature = _MessageMapField(1, STRING, Feature)


class FeatureList(_PythonProtoAPI, full_name="tensorflow.FeatureList"):
    """A sequence of features (one per step of a SequenceExample)."""
    feature = Field(1, Feature, repeated=True)


class FeatureLists(_PythonProtoAPI, full_name="tensorflow.FeatureLists"):
    """Named feature sequences."""
    feature_list = _MessageMapField(1, STRING, FeatureList)


class Example(_PythonProtoAPI, full_name="tensorflow.Example"):
    """A training example: named features (what ``tf.parse_example`` reads)."""
    features = _AttachedField(1, Features)


class SequenceExample(_PythonProtoAPI, full_name="tensorflow.SequenceExample"):
    """Context features plus named feature sequences (what ``tf.parse_single_sequence_example`` reads)."""
    context = _AttachedField(1, Features)
    feature_lists = _AttachedField(2, FeatureLists)
