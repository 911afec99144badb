"""Tests for graph/ops/intra_op.py: BLAS pinned during a run, split products equal to numpy's bit for bit, and
the convolution and pooling kernels that split their work giving the same bits on one core as on all."""

import threading

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph.ops import intra_op

RNG = np.random.default_rng(12)
needs_blas = pytest.mark.skipif(intra_op.blas_threads() is None, reason="numpy's BLAS is not a bundled OpenBLAS")


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@needs_blas
def test_blas_pinned_restores_the_count_when_the_last_user_leaves():
    before = intra_op.blas_threads()
    entered, leave = threading.Event(), threading.Event()

    def other_user():
        with intra_op.blas_pinned():
            entered.set()
            leave.wait(10)

    with intra_op.blas_pinned():
        assert intra_op.blas_threads() == 1
        thread = threading.Thread(target=other_user)
        thread.start()
        assert entered.wait(10)
    assert intra_op.blas_threads() == 1  # the other thread still runs: still pinned
    leave.set()
    thread.join()
    assert intra_op.blas_threads() == before


@needs_blas
def test_session_run_pins_blas_while_kernels_run():
    before = intra_op.blas_threads()
    with ours.Graph().as_default():
        seen = ours.py_func(lambda: np.int32(intra_op.blas_threads()), [], ours.int32)
        with ours.Session() as sess:
            assert sess.run(seen) == 1
    assert intra_op.blas_threads() == before


@pytest.mark.parametrize("shape_a, shape_b, transpose_a", [
    ((50, 3136), (3136, 256), False),  # rows < cols: split by columns
    ((1200, 800), (800, 64), False),  # split by rows
    ((300, 700), (300, 64), True),  # a transposed view (a weight gradient)
    ((3, 5), (5, 4), False),  # too small to split
])
def test_matmul_equals_numpy_bit_for_bit(shape_a, shape_b, transpose_a):
    a, b = _f32(*shape_a), _f32(*shape_b)
    a = a.T if transpose_a else a
    with intra_op.blas_pinned():  # numpy's own product on one BLAS thread: the reference
        expected = np.matmul(a, b)
        got = intra_op.matmul(a, b)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_matmul_of_stacks_splits_by_layer_and_equals_numpy_bit_for_bit(dtype):
    a = (_f32(144, 50, 32) + (1j * _f32(144, 50, 32) if dtype == np.complex64 else 0)).astype(dtype)
    b = (_f32(144, 32, 64) + (1j * _f32(144, 32, 64) if dtype == np.complex64 else 0)).astype(dtype)
    with intra_op.blas_pinned():
        expected = np.matmul(a, b)
        got = intra_op.matmul(a, b)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_matmul_of_integers_and_mixed_dtypes_is_numpys():
    a, b = RNG.integers(-9, 9, (64, 300)), RNG.integers(-9, 9, (300, 64))
    np.testing.assert_array_equal(intra_op.matmul(a, b), a @ b)
    c = _f32(300, 64).astype(np.float64)
    assert intra_op.matmul(a.astype(np.float32), c).dtype == np.float64


def _conv_step(in_depth: int, batch: int):
    """Conv2D, its two gradients and a max-pool's (forward and gradient) on a batch of 14x14 images."""
    graph = ours.Graph()
    with graph.as_default():
        image = ours.constant(_f32(batch, 14, 14, in_depth))
        filters = ours.constant(_f32(5, 5, in_depth, 32))
        conv = ours.nn.conv2d(image, filters, [1, 1, 1, 1], "SAME")
        pooled = ours.nn.max_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        loss = ours.reduce_sum(pooled * pooled)
        fetches = [conv, pooled] + ours.gradients(loss, [image, filters, conv])
    with ours.Session(graph=graph) as sess:
        return sess.run(fetches)


# The tap-major planes (few channels: one chunk of columns, then several) and the banded im2col.
@pytest.mark.parametrize("in_depth, batch", [(1, 12), (1, 230), (32, 12)])
def test_conv_and_pool_kernels_give_the_same_bits_on_one_core(monkeypatch, in_depth, batch):
    if intra_op.workers() == 1:
        pytest.skip("one core: nothing is split")
    state = RNG.bit_generator.state
    split = _conv_step(in_depth, batch)
    RNG.bit_generator.state = state
    monkeypatch.setattr(intra_op, "_CORES", 1)  # one piece each: the kernels as one thread runs them
    serial = _conv_step(in_depth, batch)
    for got, expected in zip(split, serial):
        np.testing.assert_array_equal(got, expected)
