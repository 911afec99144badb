"""TF1 spellings kept for old scripts: tf.to_double / to_complex64 / to_complex128 / to_bfloat16, tf.realdiv,
tf.reverse_v2, tf.shape_n, tf.tables_initializer / initialize_all_tables, built and run as TensorFlow does."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_same_graph_v1, fetch_named_result


def _build(tf):
    x = tf.placeholder(tf.int32, [2], name="x")
    return [tf.to_double(x), tf.to_complex64(tf.to_float(x)), tf.to_complex128(tf.to_double(x)),
            tf.to_bfloat16(tf.to_float(x)), tf.realdiv(tf.to_float(x), 4.0), tf.reverse_v2(x, [0]),
            tf.shape_n([x, tf.zeros([3, 1], tf.int32)])[1], tf.tables_initializer()]


@pytest.mark.tf
def test_graph_and_values_match_tensorflow(tf1):
    (ours, mine), (theirs, real) = assert_same_graph_v1(tf1, _build)
    with ours_tf.Session(graph=ours) as session:
        got = session.run(mine, {"x:0": [3, 6]})
    with tf1.Session(graph=theirs) as session:
        expected = session.run(real, {"x:0": [3, 6]})
    for a, b in zip(got[:-1], expected[:-1]):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert got[-1] is None and expected[-1] is None  # the NoOp of a graph without lookup tables


def test_initialize_all_tables_is_the_deprecated_spelling():
    with ours_tf.Graph().as_default():
        assert ours_tf.initialize_all_tables().name == "init_all_tables"


@pytest.mark.tf
def test_setdiff1d_and_the_other_top_level_spellings_match_tensorflow(tf1):
    def build(tf):
        tf.set_random_seed(7)
        out, idx = tf.setdiff1d(tf.constant([1, 2, 3, 4, 2]), [2, 4], index_dtype=tf.int64)
        batched = tf.space_to_batch_nd(tf.reshape(tf.range(16.0), [1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]])
        back = tf.batch_to_space_nd(batched, [2, 2], [[0, 0], [0, 0]])
        shape = tf.broadcast_dynamic_shape(tf.constant([3, 1]), tf.constant([1, 5]))
        return [out, idx, batched, back, shape], tf.get_seed(None), tf.get_seed(3)

    (ours, (ours_out, *ours_seeds)), (theirs, (their_out, *their_seeds)) = assert_same_graph_v1(tf1, build)
    assert ours_seeds == their_seeds
    with ours_tf.Session(graph=ours) as sess:
        mine = sess.run(ours_out)
    with tf1.Session(graph=theirs) as sess:
        expected = sess.run(their_out)
    for got, want in zip(mine, expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert ours_tf.OpError is ours_tf.errors.OpError and ours_tf.NodeDef().__class__.__name__ == "NodeDef"


@pytest.mark.tf
def test_setdiff1d_result_is_tfs_named_tuple_and_fetches_as_one(tf1):
    mine, real = fetch_named_result(tf1, lambda tf: tf.setdiff1d(tf.constant([1, 2, 3, 4, 2]), [2, 4]))
    np.testing.assert_array_equal(mine.out, real.out)
    np.testing.assert_array_equal(mine.idx, real.idx)
