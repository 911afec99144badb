"""Tests for graph/ops/nn_statistics.py: graphs op for op and values against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_same_graph_v1

RNG = np.random.RandomState(5)
X = RNG.randn(3, 4).astype(np.float32)
W = RNG.rand(3, 1).astype(np.float32)


def _build_all(tf):
    """Every builder of the module on a placeholder of static and of unknown shape; returns the fetches."""
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    loose = tf.placeholder(tf.float32, None, name="loose")
    mean, variance = tf.nn.moments(x, [0])
    fetches = {
        "batch_normalization": tf.nn.batch_normalization(x, mean, variance, tf.constant([0.5] * 4),
                                                         tf.constant([2.0] * 4), 1e-3),
        "batch_normalization_bare": tf.nn.batch_normalization(x, mean, variance, None, None, 0.01, name="bn"),
        "sufficient_statistics": tf.nn.sufficient_statistics(x, [0, 1])[:3],
        "sufficient_statistics_shift": tf.nn.sufficient_statistics(x, [1], shift=0.5, keep_dims=True),
        "sufficient_statistics_dynamic": tf.nn.sufficient_statistics(loose, [0, -1])[:3],
        "normalize_moments": tf.nn.normalize_moments(*tf.nn.sufficient_statistics(x, [0], shift=tf.constant(0.25))),
        "normalize_moments_no_shift": tf.nn.normalize_moments(*tf.nn.sufficient_statistics(x, [1])),
        "weighted_moments": tf.nn.weighted_moments(x, [0], W),
        "weighted_moments_keep": tf.nn.weighted_moments(x, [1], W, keep_dims=True),
        "zero_fraction": tf.nn.zero_fraction(tf.nn.relu(x)),
        "math_zero_fraction": tf.math.zero_fraction(tf.constant([0, 1, 0, 2])),
        "count_nonzero": tf.count_nonzero(tf.nn.relu(x)),
        "count_nonzero_axis": tf.count_nonzero(x > 0, axis=1, keepdims=True, dtype=tf.int32),
        "math_count_nonzero": tf.math.count_nonzero(tf.constant([[0.0, 1.5], [2.0, 0.0]]), reduction_indices=0),
        "log_poisson_loss": tf.nn.log_poisson_loss(tf.abs(x), x),
        "log_poisson_loss_full": tf.nn.log_poisson_loss(tf.abs(x) * 3, x, compute_full_loss=True),
    }
    return x, loose, fetches


@pytest.mark.tf
def test_graph_matches_tensorflow(tf1):
    assert_same_graph_v1(tf1, lambda tf: _build_all(tf))


@pytest.mark.tf
def test_values_match_tensorflow(tf_module):
    def run(tf):
        with tf.Graph().as_default():
            x, loose, fetches = _build_all(tf)
            with tf.Session() as sess:
                return sess.run(fetches, {x: X, loose: X})
    ours, theirs = run(ours_tf), run(tf_module)
    assert ours.keys() == theirs.keys()
    for key in ours:
        mine, reference = ours[key], theirs[key]
        for a, b in zip(mine if isinstance(mine, (tuple, list)) else [mine],
                        reference if isinstance(reference, (tuple, list)) else [reference]):
            assert np.asarray(a).dtype == np.asarray(b).dtype, key
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=key)


def test_zero_fraction_of_empty_is_nan_and_counts_exactly():
    with ours_tf.Graph().as_default():
        empty = ours_tf.nn.zero_fraction(ours_tf.zeros([0, 3]))
        half = ours_tf.nn.zero_fraction([[0.0, 1.0], [2.0, 0.0]])
        cond_ops = [op.type for op in ours_tf.get_default_graph().get_operations() if "cond" in op.name]
        with ours_tf.Session() as sess:
            got_empty, got_half = sess.run([empty, half])
    assert np.isnan(got_empty) and got_half == 0.5
    assert "Switch" in cond_ops and "Merge" in cond_ops  # the int32/int64 choice is a real cond, as TF's


def test_argument_checks():
    with ours_tf.Graph().as_default():
        with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
            ours_tf.nn.sufficient_statistics(X, [0], keep_dims=True, keepdims=True)
        with pytest.raises(ValueError, match="must have the same shape"):
            ours_tf.nn.log_poisson_loss(np.ones([2], np.float32), X)


def test_batch_normalization_formula():
    mean, variance = X.mean(0), X.var(0)
    with ours_tf.Graph().as_default():
        y = ours_tf.nn.batch_normalization(X, mean, variance, 0.5, 2.0, 1e-3)
        with ours_tf.Session() as sess:
            got = sess.run(y)
    np.testing.assert_allclose(got, 2.0 * (X - mean) / np.sqrt(variance + 1e-3) + 0.5, rtol=1e-5, atol=1e-6)
