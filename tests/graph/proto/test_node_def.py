"""Tests for graph/proto/node_def.py: the hand-built NodeDef/GraphDef bytes equal the messages' own encoding."""

import numpy as np
import pytest

from graph.base import dtypes
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.proto.framework import GRAPH_DEF_VERSION, GraphDef, NodeDef, VersionDef
from graph.proto.node_def import OUTPUT_SHAPES, EncodedGraphDef, encode_graph_def, encode_node_def
from graph.proto.values import attr_value_of

ATTRS = {
    "T": dtypes.float32, "shape": TensorShape([None, 3, 0]), "unknown": TensorShape(None), "scalar": TensorShape([]),
    "flag": True, "off": False, "count": 7, "negative": -2, "rate": 0.25, "padding": "VALID", "raw": b"\xff",
    "_class": [b"loc:@a", b"loc:@b"], "dtypes": [dtypes.int32, dtypes.string], "ints": [1, 2], "empty": [],
    "shapes": [TensorShape([2]), TensorShape(None)], "value": np.arange(6, dtype=np.int64).reshape(2, 3),
    "names": np.array([b"a", b"bc"], object), "big": np.zeros(1000, np.float32),
}


def _expected(name, op_type, inputs, device, attrs) -> bytes:
    """The same NodeDef built as a message: TensorFlow writes attr entries sorted by key (deterministic)."""
    message = NodeDef(name=name, op=op_type, input=list(inputs), device=device,
                      attr={key: attr_value_of(value) for key, value in attrs.items()})
    return message.to_bytes(deterministic=True)


@pytest.mark.parametrize("repeat", [1, 2])  # the second time every entry comes from the cache
def test_encoding_equals_the_message_encoding(repeat):
    for _ in range(repeat):
        data = encode_node_def("scope/node", "NoKernelHere", ["x", "y:1", "^init"], "/job:ps/task:0", ATTRS)
    assert data == _expected("scope/node", "NoKernelHere", ["x", "y:1", "^init"], "/job:ps/task:0", ATTRS)
    for name, value in ATTRS.items():  # each kind alone, so one wrong entry names itself
        assert encode_node_def("n", "NoKernelHere", [], "", {name: value}) == \
            _expected("n", "NoKernelHere", [], "", {name: value}), name


def test_names_and_values_beyond_one_byte_lengths():
    name = "n" * 200
    attrs = {"s": "é" * 100, "list": [b"x" * 300]}
    assert encode_node_def(name, "Op", [name + ":12"], "", attrs) == _expected(name, "Op", [name + ":12"], "", attrs)


def test_output_shapes_are_written_when_given():
    shapes = [TensorShape([None, 2]), TensorShape(None), TensorShape([])]
    data = encode_node_def("y", "NoKernelHere", ["x"], "", {"T": dtypes.float32}, output_shapes=shapes)
    assert data == _expected("y", "NoKernelHere", ["x"], "", {"T": dtypes.float32, OUTPUT_SHAPES: shapes})
    assert encode_node_def("y", "NoKernelHere", [], "", {}, output_shapes=[]) == \
        encode_node_def("y", "NoKernelHere", [], "", {})  # an op without outputs gets no _output_shapes


def test_kernel_defaults_fill_unset_attrs_and_none_is_left_out():
    try:
        kernels.register("EncoderDefaultsOp", default_attrs={"a": 1, "b": None, "c": "x"})
        data = encode_node_def("n", "EncoderDefaultsOp", [], "", {"c": "y", "d": None})
        assert data == _expected("n", "EncoderDefaultsOp", [], "", {"a": 1, "c": "y"})
    finally:
        kernels._REGISTRY.pop("EncoderDefaultsOp", None)
    assert encode_node_def("n", "EncoderDefaultsOp", [], "", {"c": "y"}) == _expected(
        "n", "EncoderDefaultsOp", [], "", {"c": "y"})  # the layout follows the kernel registered now


def test_unwritable_attrs_name_the_op_unless_private():
    with pytest.raises(TypeError, match="Op 'bad' \\(NoOp\\): attr 'weird'"):
        encode_node_def("bad", "NoOp", [], "", {"weird": {1: 2}})
    assert encode_node_def("ok", "NoOp", [], "", {"_python_object": {1: 2}}) == _expected("ok", "NoOp", [], "", {})


def test_graph_def_bytes_and_lazy_graph_def():
    nodes = [encode_node_def("a", "NoKernelHere", [], "", {}), encode_node_def("b", "NoKernelHere", ["a"], "", {})]
    data = encode_graph_def(nodes)
    expected = GraphDef(node=[NodeDef.from_bytes(node) for node in nodes],
                        versions=VersionDef(producer=GRAPH_DEF_VERSION))
    assert data == expected.to_bytes()
    lazy = EncodedGraphDef(data)
    assert lazy.to_bytes() is data  # untouched: the bytes as encoded
    assert [node.name for node in lazy.node] == ["a", "b"]
    assert GraphDef.from_bytes(lazy.to_bytes()) == expected
    lazy.node[1].device = "/cpu:0"  # a change made through the decoded message is written back
    assert GraphDef.from_bytes(lazy.to_bytes()).node[1].device == "/cpu:0"
