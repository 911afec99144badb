"""The checkpoint messages (bundle, slices, object graph, V1 format), declared with graph.proto.protobuf.

The wire codec (Message, Field, MapField, the scalar kinds; layout in ``graph/proto/wire.py``) and the
framework messages shared with GraphDef (VersionDef, TensorShapeProto, TensorProto, ResourceHandleProto,
VariantTensorDataProto; ``graph/proto/framework.py``) live in ``graph``, because ``graph`` never imports
``saver``; they are re-exported here so checkpoint code imports every message from one module.
"""

from __future__ import annotations

from graph.proto.framework import ResourceHandleProto, TensorProto, TensorShapeProto, VariantTensorDataProto, VersionDef
from graph.proto.protobuf import (BOOL, BYTES, DOUBLE, ENUM, FIXED32, FIXED64, FLOAT, INT32, INT64, SFIXED32, SFIXED64,
                                  SINT32, SINT64, STRING, UINT32, UINT64, Field, MapField, Message, ScalarType)

__all__ = [
    "Message", "Field", "MapField", "ScalarType",
    "INT32", "INT64", "UINT32", "UINT64", "SINT32", "SINT64", "BOOL", "ENUM", "STRING", "BYTES",
    "FIXED32", "FIXED64", "SFIXED32", "SFIXED64", "FLOAT", "DOUBLE",
    "VersionDef", "TensorShapeProto", "TensorSliceProto", "BundleHeaderProto", "BundleEntryProto",
    "ResourceHandleProto", "TensorProto", "VariantTensorDataProto", "BoolValue", "RegisteredSaver",
    "TrackableObjectGraph", "SavedSliceMeta", "SavedTensorSliceMeta", "SavedSlice", "SavedTensorSlices",
]


# ------------------------------------------------------------------------------------- messages


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
