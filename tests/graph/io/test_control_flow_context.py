"""Tests for graph/io/control_flow_context.py: CondContextDef/WhileContextDef messages and contexts both ways."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.core import graph as graph_lib
from graph.io import control_flow_context as cfc
from graph.ops.control_flow_while import WhileContext


def sample() -> cfc.CondContextDef:
    loop = cfc.WhileContextDef(context_name="while/while_context", parallel_iterations=10, back_prop=True,
                               pivot_name="while/LoopCond:0", loop_exit_names=["while/Exit:0"],
                               loop_enter_names=["while/Enter:0"],
                               values_def=cfc.ValuesDef(values=["v:0"], external_values={"v:0": "while/Enter:0"}))
    return cfc.CondContextDef(
        context_name="cond/cond_text", pred_name="cond/pred_id:0", pivot_name="cond/switch_t:0", branch=1,
        values_def=cfc.ValuesDef(values=["a:0", "cond/pred_id:0"],
                                 external_values={"cond/pred_id:0": "cond/pred_id:0", "a:0": "cond/Switch:1"}),
        nested_contexts=[cfc.ControlFlowContextDef(while_ctxt=loop)])


def test_context_built_here_round_trips_through_its_proto():
    with graph_lib.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [], name="x")
        tf.cond(x > 0, lambda: x + 1.0, lambda: x - 1.0)
        true_branch = g.get_collection("cond_context")[0]
        proto = cfc.cond_context_to_proto(true_branch)
        assert proto.values_def.external_values == {"cond/pred_id:0": "cond/pred_id:0", "x:0": "cond/add/Switch:1"}
        assert cfc.cond_context_to_proto(true_branch, export_scope="elsewhere") is None
        data = cfc.context_bytes(true_branch)
        assert data == proto.to_bytes(deterministic=True)
        rebuilt = cfc.context_from_bytes("cond_context", data)
        assert (rebuilt.pred, rebuilt.pivot, rebuilt.branch) == (true_branch.pred, true_branch.pivot, 1)
        assert cfc.context_bytes(rebuilt) == data
        with pytest.raises(TypeError, match="CondContext"):
            cfc.context_bytes(object())


def test_contexts_naming_what_is_not_in_the_graph_are_refused():
    data = sample().to_bytes()
    with graph_lib.Graph().as_default():
        with pytest.raises(ValueError, match="not in the graph"):
            cfc.context_from_bytes("cond_context", data)
        with pytest.raises(ValueError, match="not in the graph"):
            cfc.context_from_bytes("while_context", sample().nested_contexts[0].while_ctxt.to_bytes())
        with pytest.raises(ValueError, match="not in the graph"):
            cfc.cond_context_from_proto(cfc.CondContextDef(context_name="c", pred_name="nothing:0"))
        assert cfc.context_from_bytes("other", b"\n\x05while") == b"\n\x05while"


@pytest.mark.tf
def test_encoding_matches_real_protobuf(tf1):
    from tensorflow.core.protobuf import control_flow_pb2
    data = sample().to_bytes(deterministic=True)
    real = control_flow_pb2.CondContextDef.FromString(data)
    assert real.SerializeToString(deterministic=True) == data
    assert real.nested_contexts[0].while_ctxt.loop_enter_names == ["while/Enter:0"]
    assert cfc.CondContextDef.from_bytes(real.SerializeToString()) == sample()


def _loops(tf):
    """A while loop holding a cond and a nested loop, a map_fn and a scan, all reading ``x``; a scalar loss."""
    x = tf.placeholder(tf.float32, [3], name="x")

    def body(i, acc):
        inner = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t * 0.9 + tf.sin(x)), [0, acc])[1]
        return i + 1, tf.cond(i < 2, lambda: inner * x, lambda: inner + x)
    _, looped = tf.while_loop(lambda i, acc: i < 4, body, [tf.constant(0), tf.ones([3])])
    mapped = tf.map_fn(lambda v: v * v * x[0], x)
    scanned = tf.scan(lambda a, v: a * v + 1.0, x, reverse=True)
    return tf.identity(tf.reduce_sum(looped * mapped) + tf.reduce_sum(scanned), name="loss")


@pytest.mark.tf
def test_gradients_through_while_loops_imported_from_a_tensorflow_meta_file_match_tensorflow(tf1, tmp_path):
    from tests.graph.graph_oracle import describe_ours, describe_tf
    value = np.array([0.3, -0.7, 1.1], np.float32)
    _loops(tf1)
    tf1.train.export_meta_graph(str(tmp_path / "loops.meta"))
    with tf1.Graph().as_default() as theirs:
        tf1.train.import_meta_graph(str(tmp_path / "loops.meta"))
        grad = tf1.gradients(theirs.get_tensor_by_name("loss:0"), theirs.get_tensor_by_name("x:0"))[0]
        with tf1.Session() as sess:
            expected = sess.run(grad, {"x:0": value})
    with graph_lib.Graph().as_default() as ours:
        tf.train.import_meta_graph(str(tmp_path / "loops.meta"))
        contexts = ours.get_collection("while_context")
        assert all(isinstance(c, WhileContext) for c in contexts) and len(contexts) == 3
        assert [c.name for c in contexts] == [c.name for c in theirs.get_collection("while_context")]
        mine = tf.gradients(ours.get_tensor_by_name("loss:0"), ours.get_tensor_by_name("x:0"))[0]
        got = tf.Session().run(mine, {"x:0": value})
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    # the gradient graph is TF's, op by op (the imported part included)
    real, built = describe_tf(theirs), describe_ours(ours)
    for index, (a, b) in enumerate(zip(built, real)):
        assert a[:4] == b[:4], f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(built) == len(real)


@pytest.mark.tf
def test_imported_while_contexts_are_written_back_and_tensorflow_differentiates_them(tf1, tmp_path):
    value = np.array([0.5, 0.25, -1.5], np.float32)
    with tf1.Graph().as_default() as source:
        _loops(tf1)
        tf1.train.export_meta_graph(str(tmp_path / "tf.meta"))
        original = [bytes(c.to_proto().SerializeToString()) for c in source.get_collection("while_context")]
    with graph_lib.Graph().as_default() as ours:
        tf.train.import_meta_graph(str(tmp_path / "tf.meta"))
        assert [cfc.context_bytes(c) for c in ours.get_collection("while_context")] == [
            c.__dict__["_imported_bytes"] for c in ours.get_collection("while_context")]
        tf.train.export_meta_graph(str(tmp_path / "ours.meta"))
    for path in ("tf.meta", "ours.meta"):
        with tf1.Graph().as_default() as theirs:
            tf1.train.import_meta_graph(str(tmp_path / path))
            assert len(theirs.get_collection("while_context")) == len(original)
            grad = tf1.gradients(theirs.get_tensor_by_name("loss:0"), theirs.get_tensor_by_name("x:0"))[0]
            with tf1.Session() as sess:
                if path == "tf.meta":
                    expected = sess.run(grad, {"x:0": value})
                else:
                    np.testing.assert_allclose(sess.run(grad, {"x:0": value}), expected, rtol=1e-6)


@pytest.mark.tf
def test_a_while_loop_imported_under_a_scope_renames_its_frame_and_differentiates(tf1, tmp_path):
    _loops(tf1)
    tf1.train.export_meta_graph(str(tmp_path / "loops.meta"))
    value = np.array([1.0, 2.0, 0.5], np.float32)
    with tf1.Graph().as_default() as theirs:
        tf1.train.import_meta_graph(str(tmp_path / "loops.meta"), import_scope="imported")
        grad = tf1.gradients(theirs.get_tensor_by_name("imported/loss:0"), theirs.get_tensor_by_name("imported/x:0"))
        frames = sorted({op.get_attr("frame_name") for op in theirs.get_operations() if op.type == "Enter"})
        with tf1.Session() as sess:
            expected = sess.run(grad, {"imported/x:0": value})
    with graph_lib.Graph().as_default() as ours:
        tf.train.import_meta_graph(str(tmp_path / "loops.meta"), import_scope="imported")
        mine = tf.gradients(ours.get_tensor_by_name("imported/loss:0"), ours.get_tensor_by_name("imported/x:0"))
        assert sorted({op.get_attr("frame_name") for op in ours.get_operations() if op.type == "Enter"}) == frames
        np.testing.assert_allclose(tf.Session().run(mine, {"imported/x:0": value}), expected, rtol=1e-5)
