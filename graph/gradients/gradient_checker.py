"""``tf.test.compute_gradient`` / ``compute_gradient_error``: TF1's gradient checker.

The theoretical Jacobian backpropagates one-hot ``dy`` values through the gradient graph (a ``dy``
Const behind an Identity, fed each time, as TF builds it); the numerical one is central differences
``(y(x + delta) - y(x - delta)) / (2 delta)`` per element of ``x``.  Both run in the default session
with ``x`` fed, so ``x`` may be any tensor.  Complex tensors count as twice as many reals, as in TF.
"""

from __future__ import annotations

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.core import default_session
from graph.core.graph import Tensor
from graph.core.indexed_slices import IndexedSlices
from graph.gradients import gradients_impl
from graph.ops import constant_ops
from graph.ops import math_ops

__all__ = ["compute_gradient", "compute_gradient_error"]

_ALLOWED = (dtypes_lib.float16, dtypes_lib.bfloat16, dtypes_lib.float32, dtypes_lib.float64, dtypes_lib.complex64,
            dtypes_lib.complex128)


def _size(shape) -> int:
    return int(shape) if isinstance(shape, int) else int(np.prod([int(d) for d in shape], dtype=np.int64))


def _feeds(extra: dict | None, new: dict) -> dict:
    return {**(extra or {}), **new}


def _session():
    sess = default_session.get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session: run it inside `with tf.Session():`")
    return sess


def _theoretical(x: Tensor, x_shape, x_data, dy: Tensor, dy_shape, dx, extra) -> np.ndarray:
    """The Jacobian from the gradient graph: one column per element of dy (rows: elements of x)."""
    if x.dtype.is_complex:
        x_shape = tuple(x_shape) + (2,)
    x_size, row_size = _size(x_shape), _size(tuple(x_shape)[1:])
    dy_size = _size(dy_shape) * (2 if dy.dtype.is_complex else 1)
    jacobian = np.zeros((x_size, dy_size), dtype=x.dtype.real_dtype.as_numpy_dtype)
    dy_data = np.zeros(dy_shape, dtype=dy.dtype.as_numpy_dtype)
    dy_flat = dy_data.ravel().view(dy.dtype.real_dtype.as_numpy_dtype)
    sess = _session()
    for col in range(dy_size):
        dy_flat[col] = 1
        feed = _feeds(extra, {x: x_data, dy: dy_data})
        if isinstance(dx, IndexedSlices):
            indices, values = sess.run([dx.indices, dx.values], feed_dict=feed)
            for index, value in zip(indices, values):  # repeated indices add up, as the dense gradient does
                jacobian[index * row_size:(index + 1) * row_size, col] += value.flat
        else:
            jacobian[:, col] = np.asarray(sess.run(dx, feed_dict=feed)).ravel().view(jacobian.dtype)
        dy_flat[col] = 0
    if not dy_size:  # an empty y: its gradient must still have x's shape and be zero
        backprop = np.asarray(sess.run(dx, feed_dict=_feeds(extra, {x: x_data, dy: dy_data})))
        if backprop.shape != np.shape(x_data):
            raise ValueError(f"Empty gradient has wrong shape: expected {np.shape(x_data)}, got {backprop.shape}")
        if np.any(backprop):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _numeric(x: Tensor, x_shape, x_data, y: Tensor, y_shape, delta: float, extra) -> np.ndarray:
    """The Jacobian by central differences, one row per element of x."""
    if x.dtype == dtypes_lib.bfloat16:  # too few bits for delta: TF measures in float32
        x = math_ops.cast(x, dtypes_lib.float32)
    if y.dtype == dtypes_lib.bfloat16:
        y = math_ops.cast(y, dtypes_lib.float32)
    if x_data.dtype == dtypes_lib.bfloat16.as_numpy_dtype:
        x_data = x_data.astype(np.float32)
    x_size = _size(x_shape) * (2 if x.dtype.is_complex else 1)
    y_size = _size(y_shape) * (2 if y.dtype.is_complex else 1)
    x_dtype, y_dtype = x.dtype.real_dtype.as_numpy_dtype, y.dtype.real_dtype.as_numpy_dtype
    x_data = np.asarray(x_data, dtype=x.dtype.as_numpy_dtype)
    scale = np.asarray(2 * delta, dtype=y_dtype)[()]
    jacobian = np.zeros((x_size, y_size), dtype=x_dtype)
    sess = _session()
    for row in range(x_size):
        x_pos, x_neg = x_data.copy(), x_data.copy()
        x_pos.ravel().view(x_dtype)[row] += delta
        y_pos = sess.run(y, feed_dict=_feeds(extra, {x: x_pos}))
        x_neg.ravel().view(x_dtype)[row] -= delta
        y_neg = sess.run(y, feed_dict=_feeds(extra, {x: x_neg}))
        jacobian[row, :] = np.asarray((y_pos - y_neg) / scale).ravel().view(y_dtype)
    return jacobian


def _dx_and_dy(x: Tensor, y: Tensor, y_shape):
    """The gradient of y with respect to x given a fed dy (a Const behind an Identity, so dx is never dy)."""
    with x.graph.as_default():
        dy_orig = constant_ops.constant(1.0, shape=y_shape, dtype=y.dtype)
        dy = constant_ops.identity(dy_orig)
    grads = gradients_impl.gradients(y, x, dy)
    if len(grads) != 1:
        raise ValueError(f"expected one gradient of {y.name} with respect to {x.name}, got {len(grads)}")
    return grads[0], dy_orig


def _one(x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra):
    for tensor, what in ((x, "x"), (y, "y")):
        if tensor.dtype.base_dtype not in _ALLOWED:
            raise TypeError(f"Don't support type {tensor.dtype.name} for {what}")
    dtype = x.dtype.base_dtype
    if x_init_value is not None:
        if list(x_shape) != list(np.shape(x_init_value)):
            raise ValueError(f"x_shape = {x_shape}, init_data shape = {list(np.shape(x_init_value))}")
        x_data = x_init_value
    else:
        x_data = np.random.random_sample(x_shape).astype(dtype.as_numpy_dtype)
        if dtype.is_complex:
            x_data.imag = np.random.random_sample(x_shape)
    return (_theoretical(x, x_shape, x_data, dy, y_shape, dx, extra),
            _numeric(x, x_shape, x_data, y, y_shape, delta, extra))


def _run_inits(init_targets) -> None:
    if init_targets is not None:
        if not isinstance(init_targets, (list, tuple)):
            raise TypeError(f"init_targets must be a list or tuple, got {type(init_targets).__name__}")
        for init in init_targets:
            init.run()


def compute_gradient(x, x_shape, y: Tensor, y_shape, x_init_value=None, delta: float = 1e-3, init_targets=None,
                     extra_feed_dict: dict | None = None):
    """The theoretical and numerical Jacobians of y with respect to x (a pair, or a list of pairs for a list x)."""
    if isinstance(x, list):
        pairs = [_dx_and_dy(xi, y, y_shape) for xi in x]
        _run_inits(init_targets)
        inits = [None] * len(x) if x_init_value is None else x_init_value
        return [_one(xi, shape, dx, y, y_shape, dy, init, delta, extra_feed_dict)
                for xi, shape, (dx, dy), init in zip(x, x_shape, pairs, inits)]
    _run_inits(init_targets)
    dx, dy = _dx_and_dy(x, y, y_shape)
    return _one(x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra_feed_dict)


def compute_gradient_error(x, x_shape, y: Tensor, y_shape, x_init_value=None, delta: float = 1e-3,
                           init_targets=None, extra_feed_dict: dict | None = None):
    """The largest absolute difference between the theoretical and numerical Jacobians of y with respect to x."""
    grad = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    error = 0
    for theoretical, numerical in ([grad] if isinstance(grad, tuple) else grad):
        if theoretical.size or numerical.size:
            error = np.maximum(error, np.fabs(theoretical - numerical).max())
    return error
