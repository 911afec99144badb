"""Tests for graph/layers/rnn.py: static/dynamic/bidirectional RNN graphs, variable names and values vs TF."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.base import nest
from tests.graph.graph_oracle import describe_ours, describe_tf
from tests.graph.layers import rnn_cases


def _attr(value):
    """Shape attrs as dim lists: ours hold TensorShapes, TF's op.get_attr gives TensorShapeProtos."""
    if hasattr(value, "unknown_rank") and hasattr(value, "dim"):
        return None if value.unknown_rank else [None if d.size < 0 else d.size for d in value.dim]
    if hasattr(value, "as_list") and hasattr(value, "ndims"):
        return None if value.ndims is None else value.as_list()
    return value


def _rows(description):
    # Control inputs as a set: TF orders those of a group (the init op) by hash.
    return [(name, op_type, inputs, sorted(controls), {k: _attr(v) for k, v in attrs.items()}, outputs)
            for name, op_type, inputs, controls, attrs, outputs in description]


def assert_same_graphs(ours, theirs) -> None:
    """Every op of ``ours`` equals TF's ``theirs`` in name, type, inputs, control inputs, attrs and outputs."""
    mine, real = _rows(describe_ours(ours)), _rows(describe_tf(theirs))
    for index, (a, b) in enumerate(zip(mine, real)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(mine) == len(real), [row[0] for row in mine[len(real):]] + [row[0] for row in real[len(mine):]]


def _assert_same_values(ours, theirs, rtol=2e-5, atol=2e-6):
    mine, real = nest.flatten(ours), nest.flatten(theirs)
    assert len(mine) == len(real)
    for index, (a, b) in enumerate(zip(mine, real)):
        assert np.shape(a) == np.shape(b), index
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"fetch {index}")


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(rnn_cases.CASES))
def test_case_matches_tensorflow(tf_module, name):
    our_graph, our_names, our_values = rnn_cases.run_case(tf, name)
    their_graph, their_names, their_values = rnn_cases.run_case(tf_module, name)
    assert our_names == their_names
    assert_same_graphs(our_graph, their_graph)
    _assert_same_values(our_values, their_values)
