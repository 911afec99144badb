"""tf.conj (Conj) and complex adjoints in tf.matmul: TF's graph (Conj before MatMul / BatchMatMulV2) and values."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_same_graph_v1

A = (np.arange(6).reshape(2, 3) + 1j * np.arange(6, 0, -1).reshape(2, 3)).astype(np.complex64)
B = (np.arange(12).reshape(2, 2, 3) - 2j).astype(np.complex128)


def _build(tf):
    a, b = tf.constant(A), tf.constant(B)
    return [tf.matmul(a, a, adjoint_b=True), tf.matmul(a, a, adjoint_a=True, name="adj_a"),
            tf.matmul(b, b, transpose_b=True), tf.matmul(b, b, adjoint_a=True), tf.conj(a), tf.math.conj(b),
            tf.conj(tf.constant([1.0, 2.0])), tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), adjoint_b=True)]


def _values(tf):
    with tf.Graph().as_default():
        a = tf.constant(A)
        grad = tf.gradients(tf.conj(a) * tf.constant(np.full((2, 3), 1 + 2j, np.complex64)), a,
                            grad_ys=tf.constant(np.full((2, 3), 0.5 - 1j, np.complex64)))[0]
        with tf.Session() as sess:
            return sess.run(_build(tf) + [grad])


@pytest.mark.tf
def test_graph_matches_tensorflow(tf1):
    assert_same_graph_v1(tf1, _build)


@pytest.mark.tf
def test_values_match_tensorflow(tf_module):
    ours, theirs = _values(ours_tf), _values(tf_module)
    expected = [A @ A.conj().T, A.conj().T @ A, B @ np.swapaxes(B, -1, -2), np.swapaxes(B.conj(), -1, -2) @ B]
    for mine, real in zip(ours[:4], expected):
        np.testing.assert_allclose(mine, real, rtol=1e-6)
    assert len(ours) == len(theirs)
    for mine, real in zip(ours, theirs):
        assert mine.dtype == real.dtype
        np.testing.assert_allclose(mine, real, rtol=1e-6)


def test_conj_refuses_strings():
    with ours_tf.Graph().as_default():
        with pytest.raises(TypeError, match="Expected numeric"):
            ours_tf.conj(ours_tf.constant("a"))
