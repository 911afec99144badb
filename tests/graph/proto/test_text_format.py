"""Tests for graph/proto/text_format.py (and its tokenizer): printing and parsing like protobuf's text_format,
with protobuf as oracle."""

import math
import random

import pytest

from graph.proto.protobuf import BOOL, BYTES, FLOAT, INT32, INT64, STRING, UINT64, Field, MapField, Message
from graph.proto.text_format import MAX_RECURSION_DEPTH, ParseError, merge, parse, to_text
from tests.graph.proto_messages import VERSION, Kitchen, Saverish, Shape

# ------------------------------------------------------------------------------------------ writing


def test_text_format_prints_like_protobuf():
    message = Saverish(filename_tensor_name="save/Const:0", save_tensor_name="save/control_dependency:0",
                       restore_op_name="save/restore_all", max_to_keep=5, keep_checkpoint_every_n_hours=10000.0,
                       version=2)
    assert to_text(message) == (
        'filename_tensor_name: "save/Const:0"\n'
        'save_tensor_name: "save/control_dependency:0"\n'
        'restore_op_name: "save/restore_all"\n'
        'max_to_keep: 5\n'
        'keep_checkpoint_every_n_hours: 10000.0\n'  # protobuf: str(ToShortestFloat(value))
        'version: V2\n')
    assert parse(to_text(message), Saverish) == message


def test_text_round_trip_of_every_kind():
    message = Kitchen(i=-5, u=2**64 - 1, d=0.1, b=b"\x00\xff\"'\\\n\t ok", packed=[1, -2, 3],
                      shapes=[Shape(dim=[Shape.Dim(size=-1), Shape.Dim(size=3, name="x")]), Shape(unknown_rank=True)],
                      aliases={"b": "2", "a": "1"}, sub={"k": Shape()}, f=0.5)
    text = to_text(message)
    assert 'b: "\\000\\377\\"\\\'\\\\\\n\\t ok"' in text
    assert text.index('key: "a"') < text.index('key: "b"')  # map keys sorted
    assert parse(text, Kitchen) == message
    assert Kitchen.from_bytes(message.to_bytes()) == message


def test_string_fields_are_utf8_and_bytes_fields_octal():
    message = Kitchen(s="é\x01\x7f😀", b="é".encode())
    assert to_text(message) == 'b: "\\303\\251"\ns: "é\\001\\177😀"\n'
    assert parse(to_text(message), Kitchen) == message


def test_map_entries_leave_out_zero_keys_and_values_but_not_messages():
    message = Kitchen(aliases={"": "", "k": "v"}, sub={"": Shape()})
    assert to_text(message) == ('aliases {\n}\naliases {\n  key: "k"\n  value: "v"\n}\n'
                                 'sub {\n  value {\n  }\n}\n')
    assert parse(to_text(message), Kitchen) == message


def test_enum_names_and_numbers():
    assert parse("version: 1", Saverish).version == 1
    assert parse("version: V1", Saverish).version == 1
    assert to_text(Saverish(version=7)) == "version: 7\n"  # a number without a name prints as a number


def test_float_text_is_shortest_float32():
    assert to_text(Saverish(keep_checkpoint_every_n_hours=0.1)) == "keep_checkpoint_every_n_hours: 0.1\n"
    assert to_text(Saverish(keep_checkpoint_every_n_hours=1e6)) == "keep_checkpoint_every_n_hours: 1000000.0\n"
    assert to_text(Saverish(keep_checkpoint_every_n_hours=math.inf)) == "keep_checkpoint_every_n_hours: inf\n"


def test_to_text_refuses_unknown_fields():
    message = Shape.from_bytes(b"\x78\x01")  # field 15: not declared
    with pytest.raises(ParseError, match="unknown fields"):
        to_text(message)


# ------------------------------------------------------------------------------------------ parsing


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
    message = parse(text, Kitchen)
    assert message.i == 16 and message.u == 7 and message.d == -math.inf
    assert message.packed == [1, 2, 3]
    assert message.shapes[0].dim[0].size == 2 and message.shapes[1].unknown_rank
    assert message.aliases == {"k": "v"}
    assert message.b == b"singlejoinedAA"
    assert message.s == "\u00e9"


def test_map_entries_in_any_order_and_as_lists():
    message = parse("sub { key: 'a' } sub: [{value {unknown_rank: true} key: 'b'}] aliases {}", Kitchen)
    assert message.sub == {"a": Shape(), "b": Shape(unknown_rank=True)}
    assert message.aliases == {"": ""}


def test_oneof_last_one_wins_in_text():
    message = parse('s: "x" f: 1.5', Kitchen)
    assert message.which_oneof("choice") == "f" and message.s is None


def test_singular_scalars_last_wins_and_sub_messages_merge():
    assert parse("max_to_keep: 1 max_to_keep: 2", Saverish).max_to_keep == 2
    shape = parse("dim { size: 1 } unknown_rank: true", Shape)
    assert shape.unknown_rank and shape.dim[0].size == 1


def test_integers_like_protobuf():
    assert parse("i: 010 u: 0x10", Kitchen).i == 8
    assert parse("i: -0x10", Kitchen).i == -16
    assert parse("u: 18446744073709551615", Kitchen).u == 2**64 - 1
    with pytest.raises(ParseError, match="Value out of range"):
        parse("i: 9223372036854775808", Kitchen)
    with pytest.raises(ParseError, match="Couldn't parse integer: 019"):
        parse("i: 019", Kitchen)


@pytest.mark.parametrize("text, where", [
    ("i: 1\nnope: 2", '^2:1 : Message type "Kitchen" has no field named "nope"'),
    ('i: "x"', "^1:4 : .*Couldn't parse integer"),
    ("shapes { dim { size: 1 }", '^1:24 : Expected "}"'),
    ("version: V9", '^1:10 : .*Enum type "CheckpointFormatVersion" has no value named V9'),
    ("i: 1.5", "^1:4 : .*Couldn't parse integer: 1.5"),
    ("u: -1", "Value out of range: -1"),
    ("packed: [2147483648]", "Value out of range"),
])
def test_text_errors_name_the_place(text, where):
    cls = Saverish if text.startswith("version") else Kitchen
    with pytest.raises(ParseError, match=where):
        parse(text, cls)


def test_parse_error_is_protobufs():
    with pytest.raises(ParseError) as info:
        parse("i: 1\n  bogus: 2", Kitchen)
    assert (info.value.GetLine(), info.value.GetColumn()) == (2, 3)
    assert isinstance(info.value, ValueError)  # as protobuf's text_format.ParseError
    with pytest.raises(ParseError, match="does not have extensions"):
        parse("[a.b]: 1", Kitchen)
    with pytest.raises(ParseError, match="Couldn't parse string"):
        merge(b"s: '\\xff'", Kitchen())


def test_unknown_text_fields_can_be_skipped():
    text = 'i: 3 other { deep { x: [1, 2] } } more: "a" "b" scalar: -5 listed: [{a: 1}, 2] u: 4'
    with pytest.raises(ParseError, match='has no field named "other"'):
        parse(text, Kitchen)
    message = parse(text, Kitchen, allow_unknown_field=True)
    assert (message.i, message.u) == (3, 4)


def test_nesting_deeper_than_protobuf_allows_is_a_parse_error():
    class Deep(Message):
        child = Field(1, lambda: Deep)

    depth = MAX_RECURSION_DEPTH - 1  # the top-level message counts as one level
    assert parse("child { " * depth + "}" * depth, Deep).child is not None
    with pytest.raises(ParseError, match="Message too deep"):
        parse("child { " * (depth + 1) + "}" * (depth + 1), Deep)
    with pytest.raises(ParseError, match="Message too deep"):
        parse("other { " * 5000 + "}" * 5000, Kitchen, allow_unknown_field=True)


# ------------------------------------------------------------------------------------ protobuf as oracle


def _protobuf_pantry_class():
    """Pantry built from a descriptor at runtime: protobuf's own text_format, without TensorFlow."""
    descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
    from google.protobuf import descriptor_pool, message_factory
    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="test_pantry.proto", package="t", syntax="proto3")
    enum_proto = fdp.enum_type.add(name="CheckpointFormatVersion")
    for label, number in (("LEGACY", 0), ("V1", 1), ("V2", 2)):
        enum_proto.value.add(name=label, number=number)
    dim = fdp.message_type.add(name="Dim")
    dim.field.add(name="size", number=1, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    pantry = fdp.message_type.add(name="Pantry")
    entry = pantry.nested_type.add(name="AliasesEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    for name, number, kind, label, type_name in [
            ("i", 1, F.TYPE_INT32, F.LABEL_OPTIONAL, None), ("u", 2, F.TYPE_UINT64, F.LABEL_OPTIONAL, None),
            ("b", 3, F.TYPE_BOOL, F.LABEL_OPTIONAL, None), ("f", 4, F.TYPE_FLOAT, F.LABEL_OPTIONAL, None),
            ("s", 5, F.TYPE_STRING, F.LABEL_REPEATED, None), ("y", 6, F.TYPE_BYTES, F.LABEL_OPTIONAL, None),
            ("v", 7, F.TYPE_ENUM, F.LABEL_OPTIONAL, ".t.CheckpointFormatVersion"),
            ("dim", 8, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".t.Dim"),
            ("aliases", 9, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".t.Pantry.AliasesEntry")]:
        field = pantry.field.add(name=name, number=number, type=kind, label=label)
        if type_name:
            field.type_name = type_name
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("t.Pantry"))


class Dim(Message, full_name="t.Dim"):
    size = Field(1, INT64)


class Pantry(Message, full_name="t.Pantry"):
    i = Field(1, INT32)
    u = Field(2, UINT64)
    b = Field(3, BOOL)
    f = Field(4, FLOAT)
    s = Field(5, STRING, repeated=True)
    y = Field(6, BYTES)
    v = Field(7, VERSION)
    dim = Field(8, Dim, repeated=True)
    aliases = MapField(9, STRING, INT32)


@pytest.mark.tf
def test_differential_against_protobuf_text_format():
    text_format = pytest.importorskip("google.protobuf.text_format")
    proto_class = _protobuf_pantry_class()
    rng = random.Random(1)
    values = ["1", "-1", "0x1F", "010", "019", "1.5", "1e3", "1e6", "0.1", "3.4e38", "1e-45", "inf", "-nan", "1.5f",
              "2147483648", "18446744073709551616", "true", "t", "False", "V2", "V7", "7", '"a"', "'é'", '"\\001"',
              '"\\xff"', '"\\u00e9"', '"\\303\\251"', '"x\\"', '""', "[1, 2]", '["a", "b"]', "[]"]
    fields = ["i: %s", "u: %s", "b: %s", "f: %s", "s: %s", "y: %s", "v: %s", "dim { size: %s }", "dim: <size: %s>",
              "aliases { key: %s value: %s }", "aliases { value: %s }", "nope: %s"]
    noise = ["{", "}", "[", "]", ",", ";", ":", "\n", "#c\n", " "]

    def piece():
        if rng.random() < 0.1:
            return rng.choice(noise)
        field = rng.choice(fields)
        return field % tuple(rng.choice(values) for _ in range(field.count("%s"))) + rng.choice([" ", ",", ";\n"])

    agreed = 0
    for _ in range(2000):
        text = "".join(piece() for _ in range(rng.randint(1, 4)))
        reference = proto_class()
        try:
            text_format.Merge(text, reference)
        except (text_format.ParseError, ValueError):  # ValueError: an open enum's number beyond int32, on assignment
            reference = None
        try:
            ours = parse(text, Pantry)
        except ParseError:
            ours = None
        assert (reference is None) == (ours is None), text
        if ours is not None:
            agreed += 1
            assert to_text(ours) == text_format.MessageToString(reference), text
            assert ours.to_bytes(deterministic=True) == reference.SerializeToString(deterministic=True), text
    assert agreed > 100


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
    assert text_format.Parse(to_text(ours), saver_pb2.SaverDef()) == real
    assert to_text(ours) == text_format.MessageToString(real)
    assert parse(text_format.MessageToString(real), Saverish) == ours
    shape = Shape(dim=[Shape.Dim(size=-1, name="batch"), Shape.Dim(size=7)])
    real_shape = text_format.Parse(to_text(shape), tensor_shape_pb2.TensorShapeProto())
    assert real_shape.SerializeToString() == shape.to_bytes()
    assert to_text(shape) == text_format.MessageToString(real_shape)
    info = meta_graph_pb2.MetaGraphDef.MetaInfoDef(function_aliases={"z": "1", "a": "2"}, tags=["t\x01"])

    class Info(Message):
        tags = Field(4, STRING, repeated=True)
        function_aliases = MapField(8, STRING, STRING)

    ours_info = parse(text_format.MessageToString(info), Info)
    assert ours_info.function_aliases == {"z": "1", "a": "2"} and ours_info.tags == ["t\x01"]
    assert meta_graph_pb2.MetaGraphDef.MetaInfoDef.FromString(ours_info.to_bytes(deterministic=True)) == info
    assert to_text(ours_info) == text_format.MessageToString(info)
