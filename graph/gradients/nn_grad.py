"""Gradients of the neural-network ops (TensorFlow's ``nn_grad.py``): activations, softmax, bias, losses.

The activations differentiate through their ``*Grad`` ops (graph.ops.nn_grad_ops) written in
the forward output where TensorFlow does so (Relu, Relu6, Elu), and those ops have their own
gradients, so second derivatives work as in TensorFlow.  The cross entropies reuse the
backprop their op already computed (output 1); a gradient flowing into that output adds
the softmax Hessian-vector product, unless it is the zeros tf.gradients fills in.
(Sigmoid and Tanh live in math_grad, as in TensorFlow.)
"""

from __future__ import annotations

import numpy as np

from graph.ops import array_concat_ops
from graph.ops import array_fill_ops
from graph.ops import array_index_ops
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import nn_grad_ops
from graph.ops import nn_ops
from graph.ops import linalg_ops
from graph.ops import reduction_ops
from graph.gradients.registry import RegisterGradient

__all__: list[str] = []  # gradient functions register themselves; nothing here is called by name


# ----------------------------------------------------------------- Softmax, LogSoftmax
@RegisterGradient("Softmax")
def _softmax_grad(op, grad_softmax):
    # d softmax = (diag(softmax) - softmax softmax^T) grad, as one sum per row.
    softmax = op.outputs[0]
    sum_channels = reduction_ops.reduce_sum(grad_softmax * softmax, -1, keepdims=True)
    return (grad_softmax - sum_channels) * softmax


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    softmax = math_ops.exp(op.outputs[0])
    return grad - reduction_ops.reduce_sum(grad, -1, keepdims=True) * softmax


# ----------------------------------------------------------------- BiasAdd
def _data_format(op):
    try:
        return op.get_attr("data_format")
    except ValueError:
        return None


@RegisterGradient("BiasAdd")
def _bias_add_grad(op, received_grad):
    return received_grad, nn_grad_ops.bias_add_grad(received_grad, data_format=_data_format(op))


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op, received_grad):
    # Broadcast the bias gradient back over the input: reshape to rank of the input, then tile.
    shape = array_ops.shape(op.inputs[0])
    bias_shape = array_ops.shape(received_grad)
    if _data_format(op) == b"NCHW":
        expanded_shape = array_concat_ops.concat([array_fill_ops.ones_like(shape[:1]), bias_shape,
                                           array_fill_ops.ones_like(shape[2:])], 0)
        tile_mults = array_concat_ops.concat([shape[:1], [1], shape[2:]], 0)
    else:
        expanded_shape = array_concat_ops.concat([array_fill_ops.ones_like(shape[:-1]), bias_shape], 0)
        tile_mults = array_concat_ops.concat([shape[:-1], [1]], 0)
    expanded_grad = array_ops.reshape(received_grad, expanded_shape)
    return array_concat_ops.tile(expanded_grad, tile_mults)


# ----------------------------------------------------------------- activations
@RegisterGradient("Relu")
def _relu_grad(op, grad):
    return nn_grad_ops.relu_grad(grad, op.outputs[0])


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op, grad):
    x = op.inputs[1]
    return nn_grad_ops.relu_grad(grad, x), array_fill_ops.zeros_like(x)


@RegisterGradient("Relu6")
def _relu6_grad(op, grad):
    return nn_grad_ops.relu6_grad(grad, op.outputs[0])


@RegisterGradient("Relu6Grad")
def _relu6_grad_grad(op, grad):
    x = op.inputs[1]
    return nn_grad_ops.relu6_grad(grad, x), array_fill_ops.zeros_like(x)


@RegisterGradient("Elu")
def _elu_grad(op, grad):
    return nn_grad_ops.elu_grad(grad, op.outputs[0])


@RegisterGradient("EluGrad")
def _elu_grad_grad(op, grad):
    elu_x = op.inputs[1]
    return (nn_grad_ops.elu_grad(grad, elu_x),
            array_index_ops.where(elu_x < 0, grad * op.inputs[0], array_fill_ops.zeros_like(elu_x)))


@RegisterGradient("Softplus")
def _softplus_grad(op, grad):
    return grad * nn_ops.sigmoid(op.inputs[0])


@RegisterGradient("SoftplusGrad")
def _softplus_grad_grad(op, grad):
    # With dx = dy / (1 + exp(-x)): d(dx)/d(dy) = SoftplusGrad(ddx, x) and
    # d(dx)/dx = dy / (exp(-x) + 2 + exp(x)).
    dy, x = op.inputs
    with op.graph.control_dependencies([grad]):
        ddy = nn_grad_ops.softplus_grad(grad, x)
        d2x = grad * dy / (math_ops.exp(-x) + 2.0 + math_ops.exp(x))
        return ddy, d2x


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op, grad):
    return nn_grad_ops.leaky_relu_grad(grad, op.inputs[0], alpha=op.get_attr("alpha"))


@RegisterGradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op, grad):
    x = op.inputs[1]
    return nn_grad_ops.leaky_relu_grad(grad, x, alpha=op.get_attr("alpha")), array_fill_ops.zeros_like(x)


@RegisterGradient("Selu")
def _selu_grad(op, grad):
    return nn_grad_ops.selu_grad(grad, op.outputs[0])


@RegisterGradient("SeluGrad")
def _selu_grad_grad(op, grad):
    selu_x = op.inputs[1]
    return (nn_grad_ops.selu_grad(grad, selu_x),
            array_index_ops.where(selu_x < 0.0, grad * op.inputs[0], array_fill_ops.zeros_like(selu_x)))


@RegisterGradient("Softsign")
def _softsign_grad(op, grad):
    # SoftsignGrad has no gradient in TF: second derivatives stop here, as there.
    return nn_grad_ops.softsign_grad(grad, op.inputs[0])


# ----------------------------------------------------------------- L2Loss, cross entropies
@RegisterGradient("L2Loss")
def _l2_loss_grad(op, grad):
    return op.inputs[0] * grad


def _broadcast_mul(vec, mat):
    """``vec[:, None] * mat``: a per-example scalar times its row."""
    return array_ops.expand_dims(vec, -1) * mat


def _is_filled_zeros(tensor) -> bool:
    """True for the zeros tf.gradients fills in for an output nothing depends on (TF tags them)."""
    if getattr(tensor, "_is_zeros_tensor", False):
        return True
    op = tensor.op
    if op.type == "ZerosLike":
        return True
    if op.type in ("Fill", "Const"):
        value = constant_ops.constant_value(op.inputs[1] if op.type == "Fill" else tensor)
        return value is not None and not np.any(value)
    return False


def _xent_logits_grad(op, grad_loss, grad_grad):
    grad = _broadcast_mul(grad_loss, op.outputs[1])
    if grad_grad is not None and not _is_filled_zeros(grad_grad):
        # Second order: the backprop output is softmax - labels, whose derivative is softmax's.
        logits = op.inputs[0]
        softmax = nn_ops.softmax(logits)
        grad += ((grad_grad - array_ops.squeeze(
            linalg_ops.matmul(array_ops.expand_dims(grad_grad, 1), array_ops.expand_dims(softmax, 2)), axis=1))
            * softmax)
    return grad


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_cross_entropy_with_logits_grad(op, grad_loss, grad_grad):
    logits = op.inputs[0]
    return _xent_logits_grad(op, grad_loss, grad_grad), _broadcast_mul(grad_loss, -nn_ops.log_softmax(logits))


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_cross_entropy_with_logits_grad(op, grad_loss, grad_grad):
    return _xent_logits_grad(op, grad_loss, grad_grad), None
