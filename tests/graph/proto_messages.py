"""Messages declared for the protobuf codec tests (wire format and text format share them)."""

from graph.proto.protobuf import BOOL, BYTES, DOUBLE, FLOAT, INT32, INT64, STRING, UINT64, Field, MapField, Message, enum

VERSION = enum("CheckpointFormatVersion", {"LEGACY": 0, "V1": 1, "V2": 2})


class Shape(Message):
    class Dim(Message):
        size = Field(1, INT64)
        name = Field(2, STRING)

    dim = Field(2, Dim, repeated=True)
    unknown_rank = Field(3, BOOL)


class Saverish(Message):
    """Mirrors tensorflow/core/protobuf/saver.proto SaverDef."""
    filename_tensor_name = Field(1, STRING)
    save_tensor_name = Field(2, STRING)
    restore_op_name = Field(3, STRING)
    max_to_keep = Field(4, INT32)
    sharded = Field(5, BOOL)
    keep_checkpoint_every_n_hours = Field(6, FLOAT)
    version = Field(7, VERSION)


class Kitchen(Message):
    i = Field(1, INT64)
    u = Field(2, UINT64)
    d = Field(3, DOUBLE)
    b = Field(4, BYTES)
    packed = Field(5, INT32, repeated=True)
    shapes = Field(6, Shape, repeated=True)
    aliases = MapField(7, STRING, STRING)
    sub = MapField(8, STRING, Shape)
    s = Field(9, STRING, oneof="choice")
    f = Field(10, FLOAT, oneof="choice")
