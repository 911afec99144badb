"""Shared helpers for the gradient tests: one builder run under this emulator and under TensorFlow, numeric checks.

A case builder is ``build(tf, *xs) -> Tensor`` written against the ``tensorflow.compat.v1``
API; ``OURS`` spells this package that way.  `compare_with_tensorflow` builds
``y = sum(build(tf, *xs) * w)`` for a fixed random ``w`` in both frameworks and compares
``tf.gradients(y, xs)``; `check_numerically` compares ours with central differences in float64.
"""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np

import graph.compat.v1 as compat_v1
from graph.core.indexed_slices import IndexedSlicesValue
from graph.gradients import gradients_impl
import graph.ops


class _Ours:
    """``graph.compat.v1``, falling back to the op modules that define names it may not export yet."""

    def __getattr__(self, name):
        try:
            return getattr(compat_v1, name)
        except AttributeError:
            if name in gradients_impl.__all__:
                return getattr(gradients_impl, name)
            for info in sorted(pkgutil.iter_modules(graph.ops.__path__), key=lambda info: info.name):
                module = importlib.import_module(f"graph.ops.{info.name}")
                if name in getattr(module, "__all__", ()):
                    return getattr(module, name)
            raise


OURS = _Ours()


def dense(value):
    """A fetched gradient as an ndarray: an IndexedSlicesValue is summed into its dense shape."""
    if isinstance(value, IndexedSlicesValue) or type(value).__name__ == "IndexedSlicesValue":
        out = np.zeros(value.dense_shape, dtype=value.values.dtype)
        np.add.at(out, value.indices, value.values)
        return out
    return value


def weights(shape, seed: int = 7) -> np.ndarray:
    """Fixed weights in [0.5, 1.5) with random signs: every output element counts, none cancels."""
    rng = np.random.RandomState(seed)
    return (rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape))


def _weighted_sum(tf, out, dtype):
    shape = out.shape.as_list()
    assert None not in shape, f"case output needs a static shape, got {out.shape}"
    return tf.reduce_sum(out * tf.constant(weights(shape), dtype=dtype))


def _placeholders(tf, values, dtype, shapes):
    shapes = shapes or [np.shape(v) for v in values]
    return [tf.placeholder(dtype, shape, name=f"x{i}") for i, shape in enumerate(shapes)]


def gradients_of(tf, build, values, dtype_name: str = "float32", shapes=None, second_order: bool = False):
    """Fetched ``tf.gradients(sum(build(*xs) * w), xs)`` (or of ``sum(grad * w2)`` again if ``second_order``)."""
    dtype = getattr(tf, dtype_name)
    with tf.Graph().as_default():
        xs = _placeholders(tf, values, dtype, shapes)
        y = _weighted_sum(tf, build(tf, *xs), dtype)
        grads = tf.gradients(y, xs)
        if second_order:
            y2 = tf.add_n([tf.reduce_sum(tf.convert_to_tensor(g) * tf.constant(weights(np.shape(values[i]), 11 + i),
                                                                               dtype=dtype))
                           for i, g in enumerate(grads) if g is not None])
            grads = tf.gradients(y2, xs)
        fetch = [g for g in grads if g is not None]
        feed = {x: np.asarray(v, dtype=dtype_name) for x, v in zip(xs, values)}
        with tf.Session() as sess:
            fetched = iter(sess.run(fetch, feed))
        return [None if g is None else next(fetched) for g in grads]


def assert_same_gradients(ours, theirs, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Equal gradient lists: same None positions, same IndexedSlices components, close values."""
    assert len(ours) == len(theirs)
    for index, (mine, reference) in enumerate(zip(ours, theirs)):
        assert (mine is None) == (reference is None), f"gradient {index}: ours {mine!r}, TensorFlow {reference!r}"
        if mine is None:
            continue
        if type(reference).__name__ == "IndexedSlicesValue":
            assert type(mine).__name__ == "IndexedSlicesValue", f"gradient {index}: TF gives IndexedSlices"
            np.testing.assert_array_equal(mine.indices, reference.indices)
            np.testing.assert_array_equal(mine.dense_shape, reference.dense_shape)
            np.testing.assert_allclose(mine.values, reference.values, rtol=rtol, atol=atol)
        else:
            assert np.shape(mine) == np.shape(reference)
            assert np.asarray(mine).dtype == np.asarray(reference).dtype
            np.testing.assert_allclose(mine, reference, rtol=rtol, atol=atol)


def compare_with_tensorflow(tf1, build, values, shapes=None, second_order: bool = False, rtol: float = 1e-5) -> list:
    """Asserts our gradients of ``build`` equal TensorFlow's (float32); returns ours."""
    ours = gradients_of(OURS, build, values, shapes=shapes, second_order=second_order)
    theirs = gradients_of(tf1, build, values, shapes=shapes, second_order=second_order)
    assert_same_gradients(ours, theirs, rtol=rtol)
    return ours


def check_numerically(build, values, eps: float = 1e-6, rtol: float = 1e-6, atol: float = 1e-7) -> None:
    """Asserts our float64 gradients of ``sum(build(*xs) * w)`` equal central differences."""
    tf = OURS
    values = [np.asarray(v, dtype=np.float64) for v in values]
    with tf.Graph().as_default():
        xs = _placeholders(tf, values, tf.float64, None)
        y = _weighted_sum(tf, build(tf, *xs), tf.float64)
        grads = tf.gradients(y, xs)
        with tf.Session() as sess:
            feed = dict(zip(xs, values))
            for x, value, grad in zip(xs, values, grads):
                analytic = np.zeros_like(value) if grad is None else dense(sess.run(grad, feed))
                numeric = np.zeros_like(value)
                for index in np.ndindex(value.shape):
                    plus, minus = value.copy(), value.copy()
                    plus[index] += eps
                    minus[index] -= eps
                    numeric[index] = (sess.run(y, {**feed, x: plus}) - sess.run(y, {**feed, x: minus})) / (2 * eps)
                np.testing.assert_allclose(analytic, numeric, rtol=rtol, atol=atol)
