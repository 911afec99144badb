"""Clipping ops: clip_by_value, clip_by_norm, global_norm, clip_by_global_norm, clip_by_average_norm.

Built from TensorFlow's ops under TensorFlow's scopes (``clip_by_norm/Select``, ``global_norm/L2Loss``,
``clip_by_global_norm/clip_by_global_norm/_0`` ...).  An IndexedSlices is clipped through its
``values`` and comes back as an IndexedSlices with the same indices; ``None`` entries of a gradient
list pass through ``clip_by_global_norm`` as ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.core.graph import Tensor, colocate_with, convert_to_tensor, name_scope
from graph.core.indexed_slices import IndexedSlices
from graph.ops import array_ops, constant_ops, math_ops, nn_ops
from graph.ops.array_concat_ops import stack
from graph.ops.array_fill_ops import ones_like
from graph.ops.array_index_ops import where
from graph.ops.reduction_ops import range as reduction_range, reduce_sum

__all__ = ["clip_by_value", "clip_by_norm", "global_norm", "clip_by_global_norm", "clip_by_average_norm"]


def _values_of(t, name: str) -> Tensor:
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=name)


def _like_input(t, clipped: Tensor):
    """``clipped`` as an IndexedSlices with ``t``'s indices when ``t`` is one."""
    return IndexedSlices(clipped, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else clipped


def clip_by_value(t, clip_value_min, clip_value_max, name: str | None = None):
    """``t`` clipped elementwise to [``clip_value_min``, ``clip_value_max``] (``Minimum`` then ``Maximum``).

    Raises:
        ValueError: if the bounds would broadcast ``t`` to another shape.
    """
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = _values_of(t, "t")
        t_min = math_ops.minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = math_ops.maximum(t_min, clip_value_min, name=scope)
        values.shape.assert_is_compatible_with(t_max.shape)
    return _like_input(t, t_max)


def clip_by_norm(t, clip_norm, axes=None, name: str | None = None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: rescaled so its L2 norm is at most ``clip_norm``."""
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = _values_of(t, "t")
        if np.isscalar(clip_norm):
            clip_norm = max(clip_norm, 0)
        else:
            clip_norm = math_ops.cast(math_ops.maximum(clip_norm, 0), dtype=values.dtype)
        l2sum = reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # Select, not a bare sqrt: the gradient of sqrt at 0 would be NaN
        l2sum_safe = where(pred, l2sum, ones_like(l2sum))
        l2norm = where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        values_clip = constant_ops.identity(intermediate / math_ops.maximum(l2norm, clip_norm), name=scope)
    return _like_input(t, values_clip)


def _check_sequence(t_list) -> list:
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def global_norm(t_list, name: str | None = None) -> Tensor:
    """``sqrt(sum(l2norm(t) ** 2 for t in t_list))``, skipping ``None`` entries.

    Raises:
        TypeError: if ``t_list`` is not a sequence.
    """
    t_list = _check_sequence(t_list)
    with name_scope(name, "global_norm", t_list):
        values = [_values_of(t, "t_%d" % i) if t is not None else None for i, t in enumerate(t_list)]
        half_squared_norms = []
        for value in values:
            if value is not None:
                with colocate_with(value):
                    half_squared_norms.append(nn_ops.l2_loss(value))
        half_squared_norm = reduce_sum(stack(half_squared_norms))
        return math_ops.sqrt(half_squared_norm * constant_ops.constant(2.0, dtype=half_squared_norm.dtype),
                             name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name: str | None = None) -> tuple[list, Tensor]:
    """Each tensor scaled by ``clip_norm / max(global_norm, clip_norm)``; returns (clipped list, global norm).

    A NaN or infinite global norm makes every clipped value NaN, as in TensorFlow.

    Raises:
        TypeError: if ``t_list`` is not a sequence.
    """
    t_list = _check_sequence(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as scope:
        scale_for_finite = clip_norm * math_ops.minimum(
            1.0 / use_norm, constant_ops.constant(1.0, dtype=use_norm.dtype) / clip_norm)
        scale = scale_for_finite + (use_norm - use_norm)  # NaN when the norm is not finite
        values = [_values_of(t, "t_%d" % i) if t is not None else None for i, t in enumerate(t_list)]
        clipped = []
        for i, value in enumerate(values):
            if value is None:
                clipped.append(None)
                continue
            with colocate_with(value):
                clipped.append(constant_ops.identity(value * math_ops.cast(scale, value.dtype),
                                                     name="%s_%d" % (scope, i)))
    return [_like_input(t, c) if c is not None else None for c, t in zip(clipped, t_list)], use_norm


def clip_by_average_norm(t, clip_norm, name: str | None = None) -> Tensor:
    """``t * clip_norm * min(size(t) / l2norm(t), 1 / clip_norm)``: the norm per element at most ``clip_norm``."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t, name="t")
        n_element = math_ops.cast(array_ops.size(t), dtypes_lib.float32)
        l2norm_inv = math_ops.rsqrt(reduce_sum(t * t, reduction_range(array_ops.rank(t))))
        return constant_ops.identity(
            t * clip_norm * math_ops.minimum(l2norm_inv * n_element, constant_ops.constant(1.0) / clip_norm),
            name=scope)
