"""Tests for graph/ops/control_flow_assert.py: tf.Assert's graph (bare op or AssertGuard) and its messages vs TF."""

import numpy as np
import pytest

from graph import errors
from graph.runtime import session
from tests.graph.graph_oracle import assert_same_graph_v1

# name -> (data items, summarize); int32 and string items give a bare Assert, anything else an AssertGuard.
DATA = {
    "int32_and_string": (lambda tf: ["x is", tf.constant([3, 1, 4, 1, 5], name="digits")], None),
    "float_matrix": (lambda tf: ["m:", tf.constant([[1.5, -2.0, 0.25], [4.0, 5.0, 6.0]], name="m")], None),
    "summarize_all": (lambda tf: [tf.constant([[1.5, -2.0, 0.25], [4.0, 5.0, 6.0]], name="m")], 6),
    "bool_and_int64": (lambda tf: [tf.constant([True, False]), tf.constant(np.array([7, 8], np.int64))], 1),
    "scalar_float64": (lambda tf: [tf.constant(np.float64(0.1))], None),
    "cube_cut_in_a_row": (lambda tf: [tf.constant(np.arange(12, dtype=np.int32).reshape(2, 3, 2), name="cube")], 7),
    "cube_cut_after_a_row": (lambda tf: [tf.constant(np.arange(12, dtype=np.int32).reshape(2, 3, 2))], 4),
    "summarize_negative": (lambda tf: [tf.constant(np.arange(8, dtype=np.int32).reshape(2, 4))], -1),
    "vector_cut": (lambda tf: [tf.constant(np.arange(5, dtype=np.float32))], 2),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(DATA))
def test_assert_graph_and_failure_message_match_tensorflow(tf1, name):
    data, summarize = DATA[name]

    def build(tf):
        ok = tf.placeholder(tf.bool, [], name="ok")
        return ok, tf.Assert(ok, data(tf), summarize=summarize)

    (ours, (our_ok, mine)), (theirs, (their_ok, real)) = assert_same_graph_v1(tf1, build)
    with tf1.Session(graph=theirs) as sess:
        sess.run(real, {their_ok: True})
        with pytest.raises(tf1.errors.InvalidArgumentError) as theirs_error:
            sess.run(real, {their_ok: False})
    sess = session.Session(graph=ours)
    sess.run(mine, {our_ok: True})
    with pytest.raises(errors.InvalidArgumentError) as ours_error:
        sess.run(mine, {our_ok: False})
    message = ours_error.value.message
    assert message.startswith("assertion failed: [")
    assert message in theirs_error.value.message  # TF adds the node's traceback around it
