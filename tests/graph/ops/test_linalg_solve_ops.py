"""Tests for graph/ops/linalg_solve_ops.py: inverse, determinants, solves, Cholesky and SVD against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph import errors
from graph.core import graph as graph_lib
from graph.ops import linalg_solve_ops
from tests.graph.graph_oracle import describe_ours, describe_tf, fetch_named_result, run
from tests.graph.ops.test_matrix_diag_ops import tf_message

RNG = np.random.default_rng(11)
A = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
SPD = (A @ A.T + np.eye(3)).astype(np.float32)
BATCH = (RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)
RHS = RNG.standard_normal((2, 3, 2)).astype(np.float32)
WIDE = RNG.standard_normal((2, 4)).astype(np.float32)


def _full_svd_defined_part(tf):
    # The columns of v beyond the rank span the null space, in a basis LAPACK and Eigen choose differently.
    s, u, v = tf.svd(WIDE, full_matrices=True)
    return [s, tf.abs(u), tf.abs(v[:, :2]), tf.shape(v)]


def _build(tf):
    x = tf.placeholder(tf.float32, [2, 3, 3], name="x")
    b = tf.placeholder(tf.float32, [2, 3, 2], name="b")
    s, u, v = tf.svd(x)
    fetches = [
        tf.matrix_inverse(x), tf.linalg.inv(x, adjoint=True), tf.matrix_determinant(x), tf.linalg.det(SPD),
        list(tf.linalg.slogdet(x)), tf.matrix_solve(x, b), tf.linalg.solve(x, b, adjoint=True),
        tf.matrix_triangular_solve(x, b), tf.linalg.triangular_solve(x, b, lower=False, adjoint=True),
        tf.matrix_triangular_solve(x[0], b), tf.cholesky(SPD), tf.linalg.cholesky(x @ tf.linalg.adjoint(x)),
        tf.cholesky_solve(tf.cholesky(SPD), RHS[0]), tf.linalg.logdet(SPD),
        s, tf.abs(u), tf.abs(v), tf.svd(WIDE, compute_uv=False), _full_svd_defined_part(tf),
        tf.linalg.svd(tf.transpose(WIDE), name="tall")[0],
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
    feed = {"x:0": BATCH, "b:0": RHS}
    with tf1.Session() as session:
        expected = session.run(theirs, feed)
    with ours_tf.Session(graph=ours_graph) as session:
        got = session.run(ours, feed)
    for index, (mine_value, real_value) in enumerate(zip(got, expected)):
        for m, r in zip(mine_value if isinstance(mine_value, list) else [mine_value],
                        real_value if isinstance(real_value, list) else [real_value]):
            assert m.dtype == r.dtype and m.shape == r.shape, index
            np.testing.assert_allclose(m, r, rtol=2e-4, atol=2e-5, err_msg=f"fetch #{index}")


def test_svd_reconstructs_and_v_is_not_adjointed(g):
    x = RNG.standard_normal((2, 3, 5))
    s, u, v = run(list(linalg_solve_ops.svd(x)))
    np.testing.assert_allclose(u @ (s[..., None] * np.swapaxes(v, -1, -2)), x, atol=1e-12)
    assert u.shape == (2, 3, 3) and v.shape == (2, 5, 3)


@pytest.mark.tf
def test_run_errors_match_tensorflow(tf_module):
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
    cases = [
        (lambda tf, p: tf.matrix_inverse(p), singular),
        (lambda tf, p: tf.matrix_solve(p, [[1.0], [2.0]]), singular),
        (lambda tf, p: tf.matrix_inverse(p), np.ones((2, 3), np.float32)),
        (lambda tf, p: tf.svd(p)[0], np.ones(3, np.float32)),
        (lambda tf, p: tf.matrix_solve(p, [[1.0], [2.0], [3.0]]), np.eye(2, dtype=np.float32)),
        (lambda tf, p: tf.matrix_solve(p, np.ones((3, 2, 1), np.float32)), np.ones((2, 2, 2), np.float32)),
        (lambda tf, p: tf.matrix_triangular_solve(p, np.ones((3, 1), np.float32)), np.eye(2, dtype=np.float32)),
        (lambda tf, p: tf.matrix_triangular_solve(p, np.ones((3, 2, 1), np.float32)), np.ones((2, 2, 2), np.float32)),
    ]
    for build, value in cases:
        with tf_module.Graph().as_default():
            p = tf_module.placeholder(tf_module.float32, None)
            with tf_module.Session() as session, pytest.raises(tf_module.errors.OpError) as theirs:
                session.run(build(tf_module, p), {p: value})
        with graph_lib.Graph().as_default():
            p = ours_tf.placeholder(ours_tf.float32, None)
            with ours_tf.Session() as session, pytest.raises(errors.OpError) as ours:
                session.run(build(ours_tf, p), {p: value})
        assert type(ours.value).__name__ == type(theirs.value).__name__
        assert ours.value.message == tf_message(theirs.value)


@pytest.mark.tf
def test_build_errors_match_tensorflow(tf_module):
    cases = [lambda tf: tf.matrix_inverse(tf.zeros([2, 3])), lambda tf: tf.matrix_determinant(tf.zeros([2, 3])),
             lambda tf: tf.linalg.slogdet(tf.zeros([2, 3])), lambda tf: tf.svd(tf.zeros([3])),
             lambda tf: tf.cholesky(tf.zeros([3])), lambda tf: tf.matrix_solve(tf.zeros([2, 2]), tf.zeros([3, 1])),
             lambda tf: tf.matrix_inverse(tf.zeros([2, 2], tf.int32)),
             lambda tf: tf.matrix_triangular_solve(tf.zeros([2, 2]), tf.zeros([3, 1]))]
    for build in cases:
        with tf_module.Graph().as_default(), pytest.raises(Exception) as theirs:
            build(tf_module)
        with graph_lib.Graph().as_default(), pytest.raises(Exception) as ours:
            build(ours_tf)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value).split(" for ")[0] == str(theirs.value).split(" for ")[0]


@pytest.mark.tf
def test_degenerate_results_match_tensorflow(tf1):
    # a zero pivot in a triangular solve divides (inf), a failed Cholesky factor is NaN: no error in TF
    lower = np.array([[0.0, 0.0], [1.0, 1.0]])
    not_positive = np.array([[-1.0, 0.0], [0.0, 1.0]])
    theirs = tf1.Session().run([tf1.matrix_triangular_solve(lower, [[1.0], [2.0]]), tf1.cholesky(not_positive)])
    with graph_lib.Graph().as_default():
        ours = run([ours_tf.matrix_triangular_solve(lower, [[1.0], [2.0]]), ours_tf.cholesky(not_positive)])
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert np.isnan(ours[1]).all() and np.isnan(theirs[1][np.tril_indices(2)]).all()


@pytest.mark.tf
def test_slogdet_result_is_tfs_named_tuple_and_fetches_as_one(tf1):
    mine, real = fetch_named_result(tf1, lambda tf: tf.linalg.slogdet(tf.constant([[1., 2.], [3., 4.]])))
    assert mine.sign == real.sign
    np.testing.assert_allclose(mine.log_abs_determinant, real.log_abs_determinant, rtol=1e-6)
