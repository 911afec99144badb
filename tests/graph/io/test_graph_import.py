"""Tests for graph/io/graph_import.py: import_graph_def prefixes, input maps, kernel-less ops, loops, TF's GraphDefs."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.base import dtypes
from graph import errors
from graph.core import graph as graph_lib
from graph.proto.framework import AttrValue, GraphDef, NodeDef, OpDef, OpList
from graph.proto.values import attr_value_of
from graph.io.graph_import import import_graph_def
from graph.base.shapes import TensorShape
from tests.graph.graph_oracle import small_graph


def test_import_graph_def_prefix_return_elements_and_run():
    g, *_ = small_graph()
    graph_def = g.as_graph_def()
    target = graph_lib.Graph()
    with target.as_default():
        y, init = import_graph_def(graph_def, return_elements=["y:0", "init"])
        second = import_graph_def(graph_def, return_elements=["y:0"])[0]
        assert y.name == "import/y:0" and second.name == "import_1/y:0"
        assert y.shape.as_list() == [None, 2] and y.device == "/device:CPU:0"
        assert target.get_operation_by_name("import/v/Assign").get_attr("_class") == [b"loc:@import/v"]
        assert target.get_operation_by_name("import/done").control_inputs == [y.op]
        with tf.Session() as sess:
            sess.run(init)
            assert sess.run(y, {"import/x:0": [[2.0, 3.0]]}).tolist() == [[2.0, 6.0]]


def test_import_without_prefix_uniquifies_and_marks_names_used():
    g, *_ = small_graph()
    target = graph_lib.Graph()
    with target.as_default():
        tf.constant(1.0, name="y")
        (y,) = import_graph_def(g.as_graph_def(), name="", return_elements=["y:0"])
        assert y.name == "y_1:0" and target.get_operation_by_name("v").type == "VariableV2"
        assert tf.constant(0.0, name="v").op.name == "v_1"  # imported names count as used


def test_import_input_map_and_errors():
    g, *_ = small_graph()
    graph_def = g.as_graph_def()
    target = graph_lib.Graph()
    with target.as_default():
        feed = tf.constant([[1.0, 1.0]], name="feed")
        (y,) = import_graph_def(graph_def, input_map={"x:0": feed}, return_elements=["y:0"], name="m")
        assert y.op.inputs[0].op.inputs[0] is feed
        with pytest.raises(ValueError, match="not found in graph_def: \\[nope:0\\]"):
            import_graph_def(graph_def, input_map={"nope:0": feed})
        with pytest.raises(ValueError, match="return_element 'zz' not found"):
            import_graph_def(graph_def, return_elements=["zz"])
        broken = GraphDef(node=[NodeDef(name="a", op="Identity", input=["ghost"])])
        with pytest.raises(ValueError, match="Node 'a': Unknown input node 'ghost'"):
            import_graph_def(broken)


def test_op_without_kernel_imports_and_fails_only_when_run():
    graph_def = GraphDef(node=[
        NodeDef(name="x", op="Const", attr={"dtype": attr_value_of(dtypes.float32),
                                            "value": attr_value_of(np.array([1.0, 4.0], np.float32))}),
        NodeDef(name="weird", op="FancyUnknownOp", input=["x"],
                attr={"T": attr_value_of(dtypes.float32), "_output_shapes": attr_value_of([TensorShape([2])] * 2)}),
        NodeDef(name="out", op="Identity", input=["weird:1"], attr={"T": attr_value_of(dtypes.float32)}),
    ])
    target = graph_lib.Graph()
    with target.as_default():
        weird, x = import_graph_def(graph_def, name="", return_elements=["weird", "x:0"])
        assert [t.dtype for t in weird.outputs] == [dtypes.float32] * 2
        assert weird.outputs[1].shape.as_list() == [2]
        assert weird.node_def.op == "FancyUnknownOp"  # it can be saved back
        with tf.Session() as sess:
            assert sess.run(x).tolist() == [1.0, 4.0]
            with pytest.raises(errors.UnimplementedError, match="FancyUnknownOp"):
                sess.run("out:0")


def test_op_def_from_producer_list_types_outputs_and_fills_defaults():
    op_def = OpDef(name="MyRefOp", output_arg=[OpDef.ArgDef(name="out", type_attr="T", is_ref=True),
                                               OpDef.ArgDef(name="n", type=dtypes.int64.as_datatype_enum,
                                                            number_attr="N")],
                   attr=[OpDef.AttrDef(name="T", type="type"),
                         OpDef.AttrDef(name="N", type="int", default_value=AttrValue(i=3))])
    graph_def = GraphDef(node=[NodeDef(name="r", op="MyRefOp", attr={"T": attr_value_of(dtypes.int32)})])
    target = graph_lib.Graph()
    with target.as_default():
        (op,) = import_graph_def(graph_def, name="", return_elements=["r"], producer_op_list=OpList(op=[op_def]))
    assert [t.dtype for t in op.outputs] == [dtypes.int32_ref] + [dtypes.int64] * 3
    assert op.get_attr("N") == 3


def test_while_loop_back_edge_and_bad_cycles():
    def node(name, op, *inputs, **attrs):
        return NodeDef(name=name, op=op, input=list(inputs), attr={k: attr_value_of(v) for k, v in attrs.items()})
    f32 = dtypes.float32
    loop = GraphDef(node=[
        node("merge", "Merge", "enter", "next", T=f32, N=2),
        node("enter", "Const", dtype=f32, value=np.array(1.0, np.float32)),
        node("next", "NextIteration", "merge", T=f32),
    ])
    target = graph_lib.Graph()
    with target.as_default():
        (merge,) = import_graph_def(loop, name="", return_elements=["merge"])
        assert [t.op.name for t in merge.inputs] == ["enter", "next"]
        assert merge in target.get_operation_by_name("next").outputs[0].consumers()
        cycle = GraphDef(node=[node("a", "Identity", "b", T=f32), node("b", "Identity", "a", T=f32)])
        with pytest.raises(ValueError, match="cycle.*a, b"):
            import_graph_def(cycle)


# ------------------------------------------------------------------------------------- TensorFlow as oracle


@pytest.mark.tf
def test_tensorflow_graph_def_imports_here_and_computes_the_same(tf1):
    x = tf1.placeholder(tf1.float32, [None, 3], name="x")
    w = tf1.constant(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    y = tf1.nn.softmax(tf1.matmul(x, w) - tf1.reduce_mean(x), name="y")
    feed = np.array([[1.0, -1.0, 0.5]], np.float32)
    with tf1.Session() as sess:
        expected = sess.run(y, {x: feed})
    data = tf1.get_default_graph().as_graph_def(add_shapes=True).SerializeToString()
    target = graph_lib.Graph()
    with target.as_default():
        (ours,) = import_graph_def(GraphDef.from_bytes(data), name="tf", return_elements=["y:0"])
        assert ours.shape.as_list() == [None, 2]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(ours, {"tf/x:0": feed}), expected, rtol=1e-6)
