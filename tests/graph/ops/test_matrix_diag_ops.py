"""Tests for graph/ops/matrix_diag_ops.py: diag, matrix_diag, matrix_set_diag, matrix_band_part, eye, trace vs TF."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph import errors
from graph.base import dtypes
from graph.core import graph as graph_lib
from graph.ops import constant_ops as ops
from graph.ops import matrix_diag_ops
from tests.graph.graph_oracle import describe_ours, describe_tf, run



def tf_message(error) -> str:
    """The kernel's own message inside a TF graph-execution error (between ``Node: 'name'`` and ``[[{{node``)."""
    return error.message.split("\n\t [[")[0].split("Node: ")[-1].split("\n", 1)[1]


D23 = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
M34 = np.arange(12.0, dtype=np.float32).reshape(3, 4)


def _build(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    rows = tf.placeholder(tf.int32, [], name="rows")
    fetches = [
        tf.diag(D23), tf.linalg.tensor_diag([1.0, 2.0, 3.0]),
        tf.matrix_diag(D23), tf.linalg.diag(D23, k=1), tf.linalg.diag(D23, k=-1, num_rows=4, padding_value=7.0),
        tf.linalg.diag(D23, k=(-1, 0)), tf.linalg.diag(D23, k=(0, 1), align="LEFT_RIGHT", name="left"),
        tf.linalg.diag(D23[0], num_rows=3, num_cols=5), tf.linalg.diag(tf.constant([True, False])),
        tf.matrix_set_diag(x, tf.ones([2, 3])), tf.linalg.set_diag(M34, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], k=(0, 1)),
        tf.linalg.set_diag(M34, [9.0, 9.0], k=-1, align="LEFT_LEFT"),
        tf.matrix_band_part(x, 1, 0), tf.linalg.band_part(x, -1, 1), tf.linalg.band_part(M34, tf.constant(0, tf.int64),
                                                                                         tf.constant(-1, tf.int64)),
        tf.eye(3), tf.eye(2, 3), tf.eye(3, batch_shape=[2], dtype=tf.float64), tf.linalg.eye(2, 2, [2, 1]),
        tf.eye(rows), tf.trace(x), tf.linalg.trace(M34, name="tr"),
    ]
    return fetches


@pytest.mark.tf
def test_graph_and_values_match_tensorflow(tf1):
    theirs = _build(tf1)
    ours_graph = graph_lib.Graph()
    with ours_graph.as_default():
        ours = _build(ours_tf)
    mine, real = describe_ours(ours_graph), describe_tf(tf1.get_default_graph())
    for index, (a, b) in enumerate(zip(mine, real)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(mine) == len(real)
    x = np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float32)
    with tf1.Session() as session:
        expected = session.run(theirs, {"x:0": x, "rows:0": 4})
    with ours_tf.Session(graph=ours_graph) as session:
        got = session.run(ours, {"x:0": x, "rows:0": 4})
    for index, (mine_value, real_value) in enumerate(zip(got, expected)):
        assert mine_value.dtype == real_value.dtype, index
        np.testing.assert_array_equal(mine_value, real_value, err_msg=f"fetch #{index}")


@pytest.mark.tf
def test_run_errors_match_tensorflow(tf_module):
    cases = [
        lambda tf, p: tf.matrix_set_diag(p, [1.0, 2.0, 3.0]),
        lambda tf, p: tf.matrix_band_part(p, 5, 0),
        lambda tf, p: tf.matrix_band_part(p, 0, 4),
    ]
    feed = np.ones((2, 3), np.float32)
    for build in cases:
        with tf_module.Graph().as_default():
            p = tf_module.placeholder(tf_module.float32, None)
            with tf_module.Session() as session, pytest.raises(tf_module.errors.OpError) as theirs:
                session.run(build(tf_module, p), {p: feed})
        with graph_lib.Graph().as_default():
            p = ours_tf.placeholder(ours_tf.float32, None)
            with ours_tf.Session() as session, pytest.raises(errors.OpError) as ours:
                session.run(build(ours_tf, p), {p: feed})
        assert type(ours.value).__name__ == type(theirs.value).__name__
        assert ours.value.message == tf_message(theirs.value)


def test_diag_of_a_scalar_fails(g):
    with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        matrix_diag_ops.diag(1.0)
    p = ops.placeholder(dtypes.float32, None)
    with pytest.raises(errors.InvalidArgumentError, match="Input must be at least rank 1, got 0"):
        run(matrix_diag_ops.diag(p), {p: 1.0})


def test_matrix_diag_rejects_bad_align_and_eye_bad_sizes(g):
    with pytest.raises(ValueError, match="Value for attr 'align'"):
        matrix_diag_ops.matrix_diag([1.0], align="UP")
    with pytest.raises(TypeError, match="must be positive integer values"):
        matrix_diag_ops.eye(2.5)
