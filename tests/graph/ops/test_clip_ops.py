"""graph.ops.clip_ops: each clip function's graph op by op and its values against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.core.indexed_slices import IndexedSlices
from graph.ops import clip_ops
from graph.runtime import session
from tests.graph.graph_oracle import build_both, describe_ours, describe_tf

X = np.array([[3.0, -4.0, 0.5], [0.1, 0.2, -0.3]], np.float32)
Y = np.array([1.0, -2.0], np.float32)


CASES = {
    "value": lambda c, x, y: c.clip_by_value(x, -1.0, 1.0),
    "value_tensor_bounds": lambda c, x, y: c.clip_by_value(x, y[:1] * 0.0 - 0.2, [0.5, 1.0, 2.0]),
    "norm": lambda c, x, y: c.clip_by_norm(x, 2.0),
    "norm_axes": lambda c, x, y: c.clip_by_norm(x, 1.0, axes=[1]),
    "norm_tensor_clip": lambda c, x, y: c.clip_by_norm(x, y[0] * 2.0, name="clipped"),
    "norm_negative": lambda c, x, y: c.clip_by_norm(x, -1.0),
    "global_norm": lambda c, x, y: c.global_norm([x, y]),
    "global_with_none": lambda c, x, y: c.clip_by_global_norm([x, None, y], 2.0),
    "global_use_norm": lambda c, x, y: c.clip_by_global_norm([x, y], 100.0, use_norm=c.global_norm([y])),
    "global_named": lambda c, x, y: c.clip_by_global_norm([x], 1.0, name="gclip"),
    "average_norm": lambda c, x, y: c.clip_by_average_norm(x, 0.1),
}


def _flat(result):
    if isinstance(result, (list, tuple)):
        return [leaf for item in result for leaf in _flat(item)]
    return [result]


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(CASES))
def test_clip_matches_tensorflow(tf1, case):
    def build(tf):
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        y = tf.constant(Y, name="y")
        functions = clip_ops if not hasattr(tf, "clip_by_average_norm") else tf
        return x, CASES[case](functions, x, y)
    (ours, (x, result)), (theirs, (tf_x, tf_result)) = build_both(tf1, build)
    mine, real = describe_ours(ours), describe_tf(theirs)
    for index, (a, b) in enumerate(zip(mine, real)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(mine) == len(real)
    fetches = [t for t in _flat(result) if t is not None]
    tf_fetches = [t for t in _flat(tf_result) if t is not None]
    assert [t.name for t in fetches] == [t.name for t in tf_fetches]
    assert [t is None for t in _flat(result)] == [t is None for t in _flat(tf_result)]
    values = session.Session(graph=ours).run(fetches, {x: X})
    with tf1.Session() as sess:
        tf_values = sess.run(tf_fetches, {tf_x: X})
    for mine_value, tf_value in zip(values, tf_values):
        np.testing.assert_allclose(mine_value, tf_value, rtol=1e-6)


@pytest.mark.tf
def test_indexed_slices_pass_through(tf1):
    values, indices = np.array([[3.0, 4.0], [1.0, 0.0]], np.float32), np.array([0, 2], np.int32)
    with ours_tf.Graph().as_default() as graph:
        slices = IndexedSlices(ours_tf.constant(values), ours_tf.constant(indices), ours_tf.constant([3, 2]))
        clipped = clip_ops.clip_by_norm(slices, 1.0)
        [global_clipped], norm = clip_ops.clip_by_global_norm([slices], 2.0)
        assert isinstance(clipped, IndexedSlices) and clipped.indices is slices.indices
        assert isinstance(global_clipped, IndexedSlices)
        mine = session.Session(graph=graph).run([clipped.values, global_clipped.values, norm])
    tf_slices = tf1.IndexedSlices(tf1.constant(values), tf1.constant(indices), tf1.constant([3, 2]))
    tf_clipped = tf1.clip_by_norm(tf_slices, 1.0)
    [tf_global], tf_norm = tf1.clip_by_global_norm([tf_slices], 2.0)
    with tf1.Session() as sess:
        theirs = sess.run([tf_clipped.values, tf_global.values, tf_norm])
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_non_sequence_is_rejected(g):
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        clip_ops.global_norm(ours_tf.constant(1.0))
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        clip_ops.clip_by_global_norm("abc", 1.0)


def test_clip_by_value_rejects_broadcasting_bounds(g):
    with pytest.raises(ValueError):
        clip_ops.clip_by_value(ours_tf.constant([1.0, 2.0]), [[0.0], [1.0]], 3.0)
