"""Tests for graph/protobuf.py: wire codec golden bytes, text format both ways, and real protobuf as oracle."""

import math

import pytest

from graph.errors import DataLossError
from graph.protobuf import (BOOL, BYTES, DOUBLE, FLOAT, INT32, INT64, STRING, UINT64, Field, MapField, Message,
                            TextFormatError, decode_varint64, encode_varint, enum)

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


def test_varint_golden_bytes():
    assert encode_varint(0) == b"\x00"
    assert encode_varint(300) == b"\xac\x02"
    assert encode_varint(-1) == b"\xff" * 9 + b"\x01"
    assert decode_varint64(b"\xac\x02", 0) == (300, 2)
    with pytest.raises(DataLossError):
        decode_varint64(b"\x80\x80", 0)


def test_wire_golden_bytes_and_round_trip():
    message = Saverish(filename_tensor_name="save/Const:0", max_to_keep=5, keep_checkpoint_every_n_hours=10000.0,
                       version=2)
    data = message.to_bytes()
    assert data == b"\x0a\x0csave/Const:0\x20\x05\x35\x00\x40\x1c\x46\x38\x02"
    assert Saverish.from_bytes(data) == message


def test_text_format_prints_like_protobuf():
    message = Saverish(filename_tensor_name="save/Const:0", save_tensor_name="save/control_dependency:0",
                       restore_op_name="save/restore_all", max_to_keep=5, keep_checkpoint_every_n_hours=10000.0,
                       version=2)
    assert message.to_text() == (
        'filename_tensor_name: "save/Const:0"\n'
        'save_tensor_name: "save/control_dependency:0"\n'
        'restore_op_name: "save/restore_all"\n'
        'max_to_keep: 5\n'
        'keep_checkpoint_every_n_hours: 10000\n'
        'version: V2\n')
    assert Saverish.from_text(message.to_text()) == message


def test_text_round_trip_of_every_kind():
    message = Kitchen(i=-5, u=2**64 - 1, d=0.1, b=b"\x00\xff\"'\\\n\t ok", packed=[1, -2, 3],
                      shapes=[Shape(dim=[Shape.Dim(size=-1), Shape.Dim(size=3, name="x")]), Shape(unknown_rank=True)],
                      aliases={"b": "2", "a": "1"}, sub={"k": Shape()}, f=0.5)
    text = message.to_text()
    assert 'b: "\\000\\377\\"\\\'\\\\\\n\\t ok"' in text
    assert text.index('key: "a"') < text.index('key: "b"')  # map keys sorted
    assert Kitchen.from_text(text) == message
    assert Kitchen.from_bytes(message.to_bytes()) == message


def test_text_parser_accepts_protobuf_syntax_variants():
    text = """
      # comment
      i: 0x10  u: 7; d: -inf
      packed: [1, 2 ,3]
      shapes < dim { size: 2 } >
      shapes: { unknown_rank: true }
      aliases { key: "k" value: "v" }
      b: 'single' "joined\\x41\\101"
      s: "\\u00e9"
    """
    message = Kitchen.from_text(text)
    assert message.i == 16 and message.u == 7 and message.d == -math.inf
    assert message.packed == [1, 2, 3]
    assert message.shapes[0].dim[0].size == 2 and message.shapes[1].unknown_rank
    assert message.aliases == {"k": "v"}
    assert message.b == b"singlejoinedAA"
    assert message.s == "\u00e9"


def test_oneof_last_one_wins_in_text():
    message = Kitchen.from_text('s: "x" f: 1.5')
    assert message.which_oneof("choice") == "f" and message.s is None


@pytest.mark.parametrize("text, where", [
    ("i: 1\nnope: 2", "line 2 column 1"),
    ("i: \"x\"", "line 1 column 4"),
    ("shapes { dim { size: 1 }", "end of text"),
    ("version: V9", "line 1"),
    ("i: 1.5", "line 1"),
])
def test_text_errors_name_the_place(text, where):
    cls = Saverish if text.startswith("version") else Kitchen
    with pytest.raises(TextFormatError, match=where):
        cls.from_text(text)


def test_unknown_text_fields_can_be_skipped():
    text = 'i: 3 other { deep { x: [1, 2] } } more: "a" "b" scalar: -5 u: 4'
    with pytest.raises(TextFormatError, match="no field named 'other'"):
        Kitchen.from_text(text)
    message = Kitchen.from_text(text, allow_unknown_field=True)
    assert (message.i, message.u) == (3, 4)


def test_enum_names_and_numbers():
    assert Saverish.from_text("version: 1").version == 1
    assert Saverish.from_text("version: V1").version == 1
    assert Saverish(version=7).to_text() == "version: 7\n"  # a number without a name prints as a number


def test_float_text_is_shortest_float32():
    assert Saverish(keep_checkpoint_every_n_hours=0.1).to_text() == "keep_checkpoint_every_n_hours: 0.1\n"
    assert Saverish(keep_checkpoint_every_n_hours=math.inf).to_text() == "keep_checkpoint_every_n_hours: inf\n"


@pytest.mark.tf
def test_matches_real_protobuf_both_ways(tf1):
    from google.protobuf import text_format
    from tensorflow.core.framework import tensor_shape_pb2
    from tensorflow.core.protobuf import meta_graph_pb2, saver_pb2
    ours = Saverish(filename_tensor_name="a", sharded=True, keep_checkpoint_every_n_hours=1.5, version=1,
                    max_to_keep=-3)
    real = saver_pb2.SaverDef()
    real.ParseFromString(ours.to_bytes())
    assert real.SerializeToString() == ours.to_bytes()
    assert text_format.Parse(ours.to_text(), saver_pb2.SaverDef()) == real
    assert Saverish.from_text(text_format.MessageToString(real)) == ours
    shape = Shape(dim=[Shape.Dim(size=-1, name="batch"), Shape.Dim(size=7)])
    real_shape = text_format.Parse(shape.to_text(), tensor_shape_pb2.TensorShapeProto())
    assert real_shape.SerializeToString() == shape.to_bytes()
    info = meta_graph_pb2.MetaGraphDef.MetaInfoDef(function_aliases={"z": "1", "a": "2"}, tags=["t\x01"])

    class Info(Message):
        tags = Field(4, STRING, repeated=True)
        function_aliases = MapField(8, STRING, STRING)

    ours_info = Info.from_text(text_format.MessageToString(info))
    assert ours_info.function_aliases == {"z": "1", "a": "2"} and ours_info.tags == ["t\x01"]
    assert meta_graph_pb2.MetaGraphDef.MetaInfoDef.FromString(ours_info.to_bytes(deterministic=True)) == info
