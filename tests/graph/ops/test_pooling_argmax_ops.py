"""Tests for graph/ops/pooling_argmax_ops.py: MaxPoolWithArgmax values, indices, errors and gradient against TF."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph import errors
from graph.core import graph as graph_lib
from graph.ops.pooling_argmax_ops import max_pool_grad_with_argmax
from tests.graph.gradients.gradient_checks import check_numerically, compare_with_tensorflow
from tests.graph.graph_oracle import assert_same_graph_v1, fetch_named_result
from tests.graph.ops.test_matrix_diag_ops import tf_message

RNG = np.random.default_rng(5)
# few distinct values: many ties, so the first-maximum rule decides most windows
TIES = RNG.integers(0, 3, (2, 5, 6, 3)).astype(np.float32)
# (ksize, strides, padding) covering overlapping, disjoint, uneven and padded windows
WINDOWS = [([1, 2, 2, 1], [1, 1, 1, 1], "VALID"), ([1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
           ([1, 2, 3, 1], [1, 3, 2, 1], "SAME"), ([1, 3, 2, 1], [1, 2, 3, 1], "VALID"),
           ([1, 1, 1, 3], [1, 1, 1, 3], "SAME")]


def _run(tf, build):
    with tf.Graph().as_default():
        fetches = build(tf)
        with tf.Session() as session:
            return session.run(fetches)


def _run_static(tf, build):
    """``build(tf)`` returns (fetches, static facts): the fetched values and the facts."""
    with tf.Graph().as_default():
        fetches, static = build(tf)
        with tf.Session() as session:
            return session.run(fetches), static


@pytest.mark.tf
@pytest.mark.parametrize("ksize,strides,padding", WINDOWS)
@pytest.mark.parametrize("include_batch_in_index", [False, True])
def test_values_and_indices_match_tensorflow(tf_module, ksize, strides, padding, include_batch_in_index):
    for dtype, targmax in (("float32", "int64"), ("float64", "int32"), ("float16", "int64"), ("int32", "int64")):
        def build(tf):
            output, argmax = tf.nn.max_pool_with_argmax(
                tf.constant(TIES.astype(dtype)), ksize, strides, padding, Targmax=getattr(tf, targmax),
                include_batch_in_index=include_batch_in_index)
            return [output, argmax, tf.shape(output)], (output.shape.as_list(), argmax.dtype.name)

        (theirs, theirs_static), (ours, ours_static) = _run_static(tf_module, build), _run_static(ours_tf, build)
        assert ours_static == theirs_static
        for mine, real in zip(ours, theirs):
            assert mine.dtype == real.dtype
            np.testing.assert_array_equal(mine, real)


@pytest.mark.tf
def test_nan_windows_match_tensorflow(tf_module):
    # a NaN first in its window stays; a NaN after the first tap never wins
    x = np.array([np.nan, 1, 2, 3, 4, np.nan, 0, 7, -np.inf, -np.inf, np.nan, 5], np.float32).reshape(1, 3, 4, 1)
    build = lambda tf: list(tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 1, 1, 1], "SAME"))  # noqa: E731
    for mine, real in zip(_run(ours_tf, build), _run(tf_module, build)):
        np.testing.assert_array_equal(mine, real)


@pytest.mark.tf
def test_graph_matches_tensorflow(tf1):
    def build(tf):
        x = tf.placeholder(tf.float32, [2, 5, 6, 3], name="x")
        output, argmax = tf.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME", output_dtype=tf.int64,
                                                    include_batch_in_index=True, name="pool")
        return tf.gradients(tf.reduce_sum(output * output), x)

    assert_same_graph_v1(tf1, build)


@pytest.mark.tf
@pytest.mark.parametrize("ksize,strides,padding", WINDOWS[:4])
def test_gradient_matches_tensorflow_and_differences(tf1, ksize, strides, padding):
    def build(tf, x):
        return tf.nn.max_pool_with_argmax(x, ksize, strides, padding, include_batch_in_index=True)[0]

    compare_with_tensorflow(tf1, build, [TIES])
    distinct = RNG.permutation(TIES.size).reshape(TIES.shape).astype(np.float64)  # no ties: differentiable
    check_numerically(build, [distinct], rtol=1e-5, atol=1e-6)  # y sums ~100 terms: roundoff over eps


@pytest.mark.tf
def test_grad_with_argmax_values_match_tensorflow(tf_module):
    argmax = _run(tf_module, lambda tf: tf.nn.max_pool_with_argmax(TIES, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")[1])
    grad = RNG.standard_normal(argmax.shape).astype(np.float32)

    for include in (False, True):
        index = argmax + (np.arange(2)[:, None, None, None] * (5 * 6 * 3) if include else 0)
        args = dict(input=TIES, grad=grad, argmax=index, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME",
                    include_batch_in_index=include)
        theirs = _run(tf_module, lambda tf: tf.raw_ops.MaxPoolGradWithArgmax(**args))
        ours = _run(ours_tf, lambda tf: max_pool_grad_with_argmax(**args))
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.tf
def test_build_errors_match_tensorflow(tf_module):
    cases = [lambda tf: tf.nn.max_pool_with_argmax(np.ones((1, 1, 1, 3), np.float32), [1, -2**31, 4, 1],
                                                   [1, 1000, 1, 7], "SAME"),
             lambda tf: tf.nn.max_pool_with_argmax(np.ones((1, 1, 1, 3), np.float32), [1, 2, 2], [1, 1, 1, 1], "SAME"),
             lambda tf: tf.nn.max_pool_with_argmax(np.ones((1, 2, 2, 3), np.float32), [1, 3, 3, 1], [1, 1, 1, 1],
                                                   "VALID"),
             lambda tf: tf.nn.max_pool_with_argmax(np.ones((2, 2, 3), np.float32), [1, 2, 2, 1], [1, 1, 1, 1],
                                                   "VALID"),
             lambda tf: tf.nn.max_pool_with_argmax(np.ones((1, 2, 2, 3), np.float32), [1, 2, 2, 1], [1, 1, 1, 1],
                                                   "SAME", data_format="NCHW"),
             # TF's generated wrappers take only a list or tuple of window sizes and strides.
             lambda tf: tf.nn.max_pool_with_argmax(np.ones((1, 2, 2, 1), np.float32), 2, [1, 2, 2, 1], "VALID"),
             lambda tf: tf.nn.max_pool_with_argmax(np.ones((1, 2, 2, 1), np.float32), [1, 2, 2, 1], "ab", "VALID"),
             lambda tf: (tf.raw_ops.MaxPoolGradWithArgmax if tf is tf_module else max_pool_grad_with_argmax)(
                 input=np.ones((1, 2, 2, 1), np.float32), grad=np.ones((1, 1, 1, 1), np.float32),
                 argmax=np.zeros((1, 1, 1, 1), np.int64), ksize=2, strides=[1, 2, 2, 1], padding="VALID")]
    for build in cases:
        with tf_module.Graph().as_default(), pytest.raises(Exception) as theirs:
            build(tf_module)
        with graph_lib.Graph().as_default(), pytest.raises(Exception) as ours:
            build(ours_tf)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value).split(" for ")[0] == str(theirs.value).split(" for ")[0]


@pytest.mark.tf
def test_run_errors_match_tensorflow(tf_module):
    cases = [([2, 2, 2, 1], [1, 1, 1, 1]), ([1, 2, 2, 2], [1, 1, 1, 2]), ([1, 1, 1, 2], [1, 1, 1, 1]),
             ([1, 1, 1, 4], [1, 1, 1, 4])]
    for ksize, strides in cases:
        build = lambda tf: tf.nn.max_pool_with_argmax(np.ones((2, 3, 3, 6), np.float32), ksize, strides,  # noqa
                                                       "SAME")[0]
        with tf_module.Graph().as_default(), tf_module.Session() as session:
            with pytest.raises(tf_module.errors.OpError) as theirs:
                session.run(build(tf_module))
        with graph_lib.Graph().as_default(), ours_tf.Session() as session:
            with pytest.raises(errors.OpError) as ours:
                session.run(build(ours_tf))
        assert type(ours.value).__name__ == type(theirs.value).__name__
        assert ours.value.message.rstrip(".") == tf_message(theirs.value).rstrip(".")


def test_grad_with_argmax_refuses_bad_indices_and_shapes(g):
    x = np.zeros((1, 2, 2, 1), np.float32)
    with ours_tf.Session() as session:
        with pytest.raises(errors.InvalidArgumentError, match="Invalid output gradient index: 4, 0, 4"):
            session.run(max_pool_grad_with_argmax(x, [[[[1.0]]]], np.array([[[[4]]]], np.int64), [1, 2, 2, 1],
                                                  [1, 2, 2, 1], "VALID"))
        # without include_batch_in_index an index is within its image: 5 in image 1 of two 2x2 images is not
        with pytest.raises(errors.InvalidArgumentError, match="Invalid output gradient index: 9, 4, 8"):
            session.run(max_pool_grad_with_argmax(np.zeros((2, 2, 2, 1), np.float32), np.ones((2, 1, 1, 1), np.float32),
                                                  np.array([3, 5], np.int64).reshape(2, 1, 1, 1), [1, 2, 2, 1],
                                                  [1, 2, 2, 1], "VALID"))
        with pytest.raises(errors.InvalidArgumentError, match=r"Expected grad shape to be \[1,1,1,1\]"):
            session.run(max_pool_grad_with_argmax(x, np.ones((1, 2, 1, 1), np.float32), np.zeros((1, 1, 1, 1),
                                                  np.int64), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
        with pytest.raises(errors.InvalidArgumentError, match="Targmax=int64 only"):
            session.run(max_pool_grad_with_argmax(x, [[[[1.0]]]], np.array([[[[0]]]], np.int32), [1, 2, 2, 1],
                                                  [1, 2, 2, 1], "VALID"))


@pytest.mark.tf
def test_max_pool_with_argmax_result_is_tfs_named_tuple_and_fetches_as_one(tf1):
    image = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    mine, real = fetch_named_result(
        tf1, lambda tf: tf.nn.max_pool_with_argmax(tf.constant(image), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    np.testing.assert_array_equal(mine.output, real.output)
    np.testing.assert_array_equal(mine.argmax, real.argmax)
