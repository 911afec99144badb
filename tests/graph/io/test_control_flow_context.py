"""Tests for graph/io/control_flow_context.py: CondContextDef messages and CondContexts both ways."""

import pytest

import graph.compat.v1 as tf
from graph.core import graph as graph_lib
from graph.io import control_flow_context as cfc


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


def test_what_cannot_be_rebuilt_stays_bytes():
    data = sample().to_bytes()
    with graph_lib.Graph().as_default():
        assert cfc.context_from_bytes("cond_context", data) == data  # holds a while loop
        assert cfc.context_from_bytes("while_context", b"\n\x05while") == b"\n\x05while"
        with pytest.raises(ValueError, match="not in the graph"):
            cfc.cond_context_from_proto(cfc.CondContextDef(context_name="c", pred_name="nothing:0"))


@pytest.mark.tf
def test_encoding_matches_real_protobuf(tf1):
    from tensorflow.core.protobuf import control_flow_pb2
    data = sample().to_bytes(deterministic=True)
    real = control_flow_pb2.CondContextDef.FromString(data)
    assert real.SerializeToString(deterministic=True) == data
    assert real.nested_contexts[0].while_ctxt.loop_enter_names == ["while/Enter:0"]
    assert cfc.CondContextDef.from_bytes(real.SerializeToString()) == sample()
