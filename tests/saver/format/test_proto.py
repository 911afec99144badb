"""Tests for saver/proto.py: golden bytes, round trips, and byte-identity with real protobuf."""

import pytest

from graph.errors import DataLossError
from saver.format import proto as P
from saver.format.proto import INT32, INT64, STRING, Field, MapField, Message


def test_golden_header_and_entry():
    header = P.BundleHeaderProto(num_shards=1, version=P.VersionDef(producer=1))
    assert header.to_bytes().hex(" ") == "08 01 1a 02 08 01"
    entry = P.BundleEntryProto(dtype=1, shape=P.TensorShapeProto.from_shape([2]), size=8, crc32c=0x35E53C59)
    assert entry.to_bytes().hex(" ") == "08 01 12 04 12 02 08 02 28 08 35 59 3c e5 35"
    assert P.BundleEntryProto.from_bytes(entry.to_bytes()) == entry
    assert P.BundleEntryProto(shape=P.TensorShapeProto()).to_bytes() == b"\x12\x00"  # scalar shape is written
    assert P.TensorShapeProto.from_shape([0]).to_bytes() == b"\x12\x00"


def test_extent_length_presence():
    whole, explicit = P.TensorSliceProto.Extent(), P.TensorSliceProto.Extent(start=0, length=2)
    assert P.TensorSliceProto(extent=[whole, explicit]).to_bytes().hex(" ") == "0a 00 0a 02 10 02"
    assert P.TensorSliceProto.Extent(length=0).to_bytes() == b"\x10\x00"
    parsed = P.TensorSliceProto.from_bytes(bytes.fromhex("0a000a021002"))
    assert parsed.extent[0].length is None and parsed.extent[1].length == 2
    assert parsed.extent[1].which_oneof("has_length") == "length"


def test_has_checkpoint_values_false_is_written():
    node = P.TrackableObjectGraph.TrackableObject(has_checkpoint_values=P.BoolValue(value=False))
    assert node.to_bytes() == b"\x2a\x00"
    node.has_checkpoint_values = P.BoolValue(value=True)
    assert node.to_bytes() == b"\x2a\x02\x08\x01"


def test_negative_ints_packed_unknown_fields_and_errors():
    tensor = P.TensorProto(int_val=[-1, 3], float_val=[1.0, -0.0], half_val=[0])
    assert tensor.to_bytes().hex(" ") == ("2a 08 00 00 80 3f 00 00 00 80 3a 0b ff ff ff ff ff ff ff ff ff 01 03 "
                                          "6a 01 00")
    assert P.TensorProto.from_bytes(tensor.to_bytes()) == tensor
    unpacked = b"\x38\x05\x38\x06"  # int_val written unpacked is accepted
    assert P.TensorProto.from_bytes(unpacked).int_val == [5, 6]
    with_unknown = P.VersionDef(producer=3).to_bytes() + b"\xa0\x06\x07"  # field 100 = 7
    assert P.VersionDef.from_bytes(with_unknown).to_bytes() == with_unknown
    for bad in (b"\x0a\x05ab", b"\x08", b"\x0f", b"\x00\x01"):
        with pytest.raises(DataLossError):
            P.VersionDef.from_bytes(bad)
    with pytest.raises(TypeError):
        P.VersionDef(nope=1)


class _Attr(Message):
    i = Field(3, INT64, oneof="value")
    s = Field(2, STRING, oneof="value")
    nested = Field(4, lambda: _Node, oneof="value")


class _Node(Message):
    name = Field(1, STRING)
    attr = MapField(5, STRING, _Attr)
    ints = Field(6, INT32, repeated=True, packed=False)


def test_declaring_messages_outside_proto():
    node = _Node(name="n", attr={"b": _Attr(i=0), "a": _Attr()}, ints=[1, 2])
    assert node.to_bytes() == b"\x0a\x01n" + b"\x2a\x07\x0a\x01b\x12\x02\x18\x00" + \
        b"\x2a\x05\x0a\x01a\x12\x00" + b"\x30\x01\x30\x02"
    assert node.to_bytes(deterministic=True).index(b"\x0a\x01a") < node.to_bytes(deterministic=True).index(b"\x0a\x01b")
    again = _Node.from_bytes(node.to_bytes())
    assert again == node and again.attr["b"].which_oneof("value") == "i"
    attr = _Attr(i=5)
    attr.s = "x"
    assert attr.which_oneof("value") == "s" and attr.i is None


# ------------------------------------------------------------------------------ real protobuf
@pytest.fixture(scope="module")
def pb():
    """The real protobuf modules shipped with tensorflow (tests only)."""
    tb = pytest.importorskip("tensorflow.core.protobuf.tensor_bundle_pb2")
    from tensorflow.core.framework import tensor_pb2
    from tensorflow.core.protobuf import trackable_object_graph_pb2
    from tensorflow.core.util import saved_tensor_slice_pb2
    return tb, tensor_pb2, trackable_object_graph_pb2, saved_tensor_slice_pb2


@pytest.mark.tf
def test_byte_identical_with_real_protobuf(pb):
    tb, tensor_pb2, tog_pb2, sts_pb2 = pb
    real = tb.BundleEntryProto(dtype=7, shard_id=2, offset=2 ** 40, size=11, crc32c=693988756)
    real.shape.dim.add(size=3)
    real.shape.dim.add(size=0, name="d")
    real.slices.add().extent.add()
    ext = real.slices.add().extent.add(start=0, length=2)
    ours = P.BundleEntryProto(dtype=7, shard_id=2, offset=2 ** 40, size=11, crc32c=693988756,
                              shape=P.TensorShapeProto(dim=[P.TensorShapeProto.Dim(size=3),
                                                            P.TensorShapeProto.Dim(size=0, name="d")]),
                              slices=[P.TensorSliceProto(extent=[P.TensorSliceProto.Extent()]),
                                      P.TensorSliceProto(extent=[P.TensorSliceProto.Extent(start=0, length=2)])])
    assert ext.HasField("length")
    assert ours.to_bytes() == real.SerializeToString()
    assert P.BundleEntryProto.from_bytes(real.SerializeToString()) == ours

    header = tb.BundleHeaderProto(num_shards=3, endianness=1)
    header.version.producer = 1
    header.version.bad_consumers.extend([2, -5])
    assert P.BundleHeaderProto(num_shards=3, endianness=1, version=P.VersionDef(
        producer=1, bad_consumers=[2, -5])).to_bytes() == header.SerializeToString()

    tensor = tensor_pb2.TensorProto(dtype=1, version_number=0, tensor_content=b"\x00\x01",
                                    half_val=[1, 65535], float_val=[1.5, -0.0], double_val=[2.5],
                                    int_val=[-7, 0, 2 ** 31 - 1], string_val=[b"", b"ab"], scomplex_val=[1, 2],
                                    int64_val=[-2 ** 63], bool_val=[True, False], dcomplex_val=[3, 4],
                                    uint32_val=[2 ** 32 - 1], uint64_val=[2 ** 64 - 1])
    tensor.tensor_shape.SetInParent()
    mine = P.TensorProto(dtype=1, tensor_shape=P.TensorShapeProto(), tensor_content=b"\x00\x01",
                         half_val=[1, 65535], float_val=[1.5, -0.0], double_val=[2.5], int_val=[-7, 0, 2 ** 31 - 1],
                         string_val=[b"", b"ab"], scomplex_val=[1, 2], int64_val=[-2 ** 63], bool_val=[True, False],
                         dcomplex_val=[3, 4], uint32_val=[2 ** 32 - 1], uint64_val=[2 ** 64 - 1])
    assert mine.to_bytes() == tensor.SerializeToString()
    assert P.TensorProto.from_bytes(tensor.SerializeToString()) == mine

    graph = tog_pb2.TrackableObjectGraph()
    root = graph.nodes.add()
    root.children.add(node_id=1, local_name="net")
    root.has_checkpoint_values.value = False
    leaf = graph.nodes.add()
    leaf.attributes.add(name="VARIABLE_VALUE", full_name="net/kernel", checkpoint_key="net/.ATTRIBUTES/VARIABLE_VALUE")
    leaf.slot_variables.add(original_variable_node_id=1, slot_name="m", slot_variable_node_id=2)
    leaf.registered_saver.name = "Test.PartSaver"
    leaf.registered_saver.object_name = "p"
    leaf.has_checkpoint_values.value = True
    T = P.TrackableObjectGraph.TrackableObject
    ours_graph = P.TrackableObjectGraph(nodes=[
        T(children=[T.ObjectReference(node_id=1, local_name="net")], has_checkpoint_values=P.BoolValue()),
        T(attributes=[T.SerializedTensor(name="VARIABLE_VALUE", full_name="net/kernel",
                                         checkpoint_key="net/.ATTRIBUTES/VARIABLE_VALUE")],
          slot_variables=[T.SlotVariableReference(original_variable_node_id=1, slot_name="m", slot_variable_node_id=2)],
          registered_saver=P.RegisteredSaver(name="Test.PartSaver", object_name="p"),
          has_checkpoint_values=P.BoolValue(value=True))])
    assert ours_graph.to_bytes() == graph.SerializeToString()
    assert P.TrackableObjectGraph.from_bytes(graph.SerializeToString()) == ours_graph

    sts = sts_pb2.SavedTensorSlices()
    meta = sts.meta.tensor.add(name="a", type=1)
    meta.shape.dim.add(size=2)
    meta.slice.add().extent.add()
    sts.meta.versions.producer = 1
    sts.data.name = "a"
    sts.data.slice.extent.add()
    sts.data.data.float_val.extend([1, 2])
    ours_sts = P.SavedTensorSlices(
        meta=P.SavedTensorSliceMeta(tensor=[P.SavedSliceMeta(
            name="a", type=1, shape=P.TensorShapeProto.from_shape([2]),
            slice=[P.TensorSliceProto(extent=[P.TensorSliceProto.Extent()])])],
                                    versions=P.VersionDef(producer=1)),
        data=P.SavedSlice(name="a", slice=P.TensorSliceProto(extent=[P.TensorSliceProto.Extent()]),
                          data=P.TensorProto(float_val=[1.0, 2.0])))
    assert ours_sts.to_bytes() == sts.SerializeToString()
    assert P.SavedTensorSlices.from_bytes(sts.SerializeToString()) == ours_sts


@pytest.mark.tf
def test_map_fields_match_real_protobuf():
    node_def_pb2 = pytest.importorskip("tensorflow.core.framework.node_def_pb2")
    real = node_def_pb2.NodeDef(name="n")
    real.attr["b"].i = 0
    real.attr["a"].SetInParent()
    ours = _Node(name="n", attr={"b": _Attr(i=0), "a": _Attr()})
    # upb's default map order is hash order; deterministic output sorts keys, as ours does.
    assert _Node.from_bytes(real.SerializeToString()) == ours
    assert ours.to_bytes(deterministic=True) == real.SerializeToString(deterministic=True)
