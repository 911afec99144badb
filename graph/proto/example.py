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
with protobuf's lazy sub-messages (graph/proto/python_api.py): reading an unset one gives an empty message
that joins its parent when first changed, and a missing map key reads as a new entry, so
``example.features.feature["x"].int64_list.value.append(1)`` builds an Example as it does in TensorFlow.

Map order: protobuf's default serialization writes map entries in its hash table's order; these write
them sorted by key, which is protobuf's ``SerializeToString(deterministic=True)`` (byte-identical to it).
Parsing either order gives the same message.
"""

from __future__ import annotations

from graph.proto.protobuf import BYTES, FLOAT, INT64, STRING
from graph.proto.python_api import Field, MapField, ProtoMessage

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList", "FeatureLists",
           "Example", "SequenceExample"]


class BytesList(ProtoMessage, full_name="tensorflow.BytesList"):
    """A list of byte strings."""
    value = Field(1, BYTES, repeated=True)


class FloatList(ProtoMessage, full_name="tensorflow.FloatList"):
    """A list of float32 values."""
    value = Field(1, FLOAT, repeated=True)


class Int64List(ProtoMessage, full_name="tensorflow.Int64List"):
    """A list of int64 values."""
    value = Field(1, INT64, repeated=True)


class Feature(ProtoMessage, full_name="tensorflow.Feature"):
    """One feature: a list of bytes, floats or int64s."""
    bytes_list = Field(1, BytesList, oneof="kind")
    float_list = Field(2, FloatList, oneof="kind")
    int64_list = Field(3, Int64List, oneof="kind")


class Features(ProtoMessage, full_name="tensorflow.Features"):
    """Named features."""
    feature = MapField(1, STRING, Feature)


class FeatureList(ProtoMessage, full_name="tensorflow.FeatureList"):
    """A sequence of features (one per step of a SequenceExample)."""
    feature = Field(1, Feature, repeated=True)


class FeatureLists(ProtoMessage, full_name="tensorflow.FeatureLists"):
    """Named feature sequences."""
    feature_list = MapField(1, STRING, FeatureList)


class Example(ProtoMessage, full_name="tensorflow.Example"):
    """A training example: named features (what ``tf.parse_example`` reads)."""
    features = Field(1, Features)


class SequenceExample(ProtoMessage, full_name="tensorflow.SequenceExample"):
    """Context features plus named feature sequences (what ``tf.parse_single_sequence_example`` reads)."""
    context = Field(1, Features)
    feature_lists = Field(2, FeatureLists)
