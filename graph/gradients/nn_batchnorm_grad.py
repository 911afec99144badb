"""Gradients of fused batch normalization (TensorFlow's ``nn_grad.py`` and ``nn_fused_batch_norm_grad.py``).

``FusedBatchNormV3`` differentiates through the ``FusedBatchNormGradV3`` op: in training with the
reserve spaces the forward op saved, in inference with the population statistics (NCHW
transposed to NHWC around it, as TF does).  ``FusedBatchNormGradV3`` itself differentiates
as TF does: it rebuilds the batch-norm gradient from ordinary ops and differentiates that
subgraph.  TF records it on a GradientTape; here a small reverse walk over the ops just built
does the same through the registered gradient functions (gradients_impl imports this module,
so it cannot call tf.gradients).
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.core.graph import Tensor
from graph.gradients import registry
from graph.gradients.aggregation import aggregate_gradients
from graph.gradients.registry import RegisterGradient
from graph.ops import array_fill_ops
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import reduction_ops
from graph.ops.nn_batchnorm_ops import fused_batch_norm_grad_v3

__all__: list[str] = []  # gradient functions register themselves; nothing here is called by name

_TO_CHANNELS_LAST = {b"NCHW": [0, 2, 3, 1], b"NCDHW": [0, 2, 3, 4, 1]}
_FROM_CHANNELS_LAST = {b"NCHW": [0, 3, 1, 2], b"NCDHW": [0, 4, 1, 2, 3]}


def _attr(op, name):
    value = op.get_attr(name)
    return value.encode() if isinstance(value, str) else value


@RegisterGradient("FusedBatchNormV3")
def _fused_batch_norm_v3_grad(op, *grad):
    x, scale = op.inputs[0], op.inputs[1]
    grad_y = grad[0]
    epsilon, data_format, is_training = op.get_attr("epsilon"), _attr(op, "data_format"), op.get_attr("is_training")
    if is_training:
        dx, dscale, doffset, _, _ = fused_batch_norm_grad_v3(
            grad_y, x, scale, op.outputs[3], op.outputs[4], op.outputs[5], epsilon=epsilon, data_format=data_format,
            is_training=is_training)
        return dx, dscale, doffset, None, None
    # Inference: the kernel wants channels last; the population statistics stand in for the reserve spaces.
    if data_format in _TO_CHANNELS_LAST:
        x = array_ops.transpose(x, _TO_CHANNELS_LAST[data_format])
        grad_y = array_ops.transpose(grad_y, _TO_CHANNELS_LAST[data_format])
    target = b"NHWC" if data_format in (b"NCHW", b"NHWC") else b"NDHWC"
    dx, dscale, doffset, _, _ = fused_batch_norm_grad_v3(
        grad_y, x, scale, op.inputs[3], op.inputs[4], op.outputs[5], epsilon=epsilon, data_format=target,
        is_training=is_training)
    if data_format in _FROM_CHANNELS_LAST:
        dx = array_ops.transpose(dx, _FROM_CHANNELS_LAST[data_format])
    return dx, dscale, doffset, None, None


def _batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, epsilon, data_format, is_training):
    """(grad_x, grad_scale, grad_offset) of batch norm from ordinary ops (TF's ``_BatchNormGrad``)."""
    x_dtype = x.dtype.base_dtype
    if x_dtype in (dtypes_lib.float16, dtypes_lib.bfloat16):  # too imprecise: compute in float32, as TF
        x = math_ops.cast(x, dtypes_lib.float32)
        grad_y = math_ops.cast(grad_y, dtypes_lib.float32)
    channels_first = data_format in (b"NCHW", b"NCDHW")
    rank = 5 if data_format in (b"NDHWC", b"NCDHW") else 4
    reduce_axis = [0] + list(range(2, rank)) if channels_first else list(range(rank - 1))
    if channels_first:
        shape = [1, array_ops.size(pop_mean if not is_training else scale)] + [1] * (rank - 2)
    if is_training:
        keepdims = channels_first
        if channels_first:
            scale = array_ops.reshape(scale, shape)
        mean_grad_y = reduction_ops.reduce_mean(grad_y, reduce_axis, keepdims=keepdims)
        mean_x = reduction_ops.reduce_mean(x, reduce_axis, keepdims=keepdims)
        var_x = reduction_ops.reduce_mean(math_ops.squared_difference(x, constant_ops.stop_gradient(mean_x)),
                                          reduce_axis, keepdims=keepdims)
        grad_y_offset = grad_y - mean_grad_y
        x_offset = x - mean_x
        mean = reduction_ops.reduce_mean(grad_y * x_offset, axis=reduce_axis, keepdims=keepdims)
        grad_x = scale * math_ops.rsqrt(var_x + epsilon) * (
            grad_y_offset - math_ops.reciprocal(var_x + epsilon) * mean * x_offset)
        grad_scale = math_ops.rsqrt(var_x + epsilon) * reduction_ops.reduce_sum(
            grad_y * x_offset, axis=reduce_axis, keepdims=keepdims)
        if channels_first:
            grad_scale = array_ops.squeeze(grad_scale)
        grad_offset = reduction_ops.reduce_sum(grad_y, axis=reduce_axis)
        return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset
    if channels_first:
        pop_mean = array_ops.reshape(pop_mean, shape)
        pop_var = array_ops.reshape(pop_var, shape)
        scale = array_ops.reshape(scale, shape)
    grad_offset = reduction_ops.reduce_sum(grad_y, axis=reduce_axis)
    var_rsqrt = math_ops.rsqrt(pop_var + epsilon)
    grad_scale = reduction_ops.reduce_sum(grad_y * (x - pop_mean) * var_rsqrt, axis=reduce_axis)
    grad_x = grad_y * scale * var_rsqrt
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


def _backprop_new_ops(graph, first_id: int, targets: list, target_grads: list, sources: list) -> list:
    """Gradients of ``targets`` (weighted by ``target_grads``) w.r.t. ``sources`` through the ops created since
    ``first_id``: the reverse walk TF's GradientTape makes over what it recorded."""
    recorded = [op for op in graph.get_operations() if op._id >= first_id]
    grads: dict = {}

    def add(tensor: Tensor, grad) -> None:
        if grad is not None:
            grads.setdefault(tensor.op, [[] for _ in tensor.op._outputs])[tensor.value_index].append(grad)

    for tensor, grad in zip(targets, target_grads):
        add(tensor, grad)
    recorded_set = set(recorded)
    for op in reversed(recorded):  # creation order is a topological order
        if op not in grads:
            continue
        out_grads = aggregate_gradients(grads, op)
        function = registry.get_gradient_function(op)
        if function is None:
            continue
        out_grads = [array_fill_ops.zeros_like(output) if g is None else g for g, output in zip(out_grads, op.outputs)]
        in_grads = function(op, *out_grads)
        in_grads = in_grads if isinstance(in_grads, (list, tuple)) else [in_grads]
        for tensor, grad in zip(op.inputs, in_grads):
            if tensor.op in recorded_set or any(tensor is source for source in sources):
                add(tensor, grad)
    result = []
    for source in sources:
        terms = grads.get(source.op, [[] for _ in source.op._outputs])[source.value_index]
        result.append(None if not terms else terms[0] if len(terms) == 1 else reduction_ops.add_n(terms))
    return result


@RegisterGradient("FusedBatchNormGradV3")
def _fused_batch_norm_grad_v3_grad(op, *grad):
    grad_y, x, scale, pop_mean, pop_var = op.inputs[:5]
    epsilon, data_format, is_training = op.get_attr("epsilon"), _attr(op, "data_format"), op.get_attr("is_training")
    first_id = op.graph.version + 1
    outputs = _batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, epsilon, data_format, is_training)
    grad_grad_y, grad_x, grad_scale = _backprop_new_ops(op.graph, first_id, list(outputs), list(grad[:3]),
                                                        [grad_y, x, scale])
    return grad_grad_y, grad_x, grad_scale, None, None, None
