"""Gradients of the TensorArray ops (TensorFlow's ``tensor_array_grad.py``): through a gradient TensorArray.

A TensorArray's gradient lives in a second array, its gradient array for one tf.gradients
call (``TensorArrayGradV3`` keyed by the call's name scope, ``gradients``, ``gradients_1``...):
the gradient of a read (gather, concat) writes (scatters, splits) the incoming gradient into
it, and the gradient of a write (scatter, split) reads (gathers, concatenates) it back.
Several reads of one element each write there and the writes add up.  The flow tensors
order these ops: a write's gradient waits for the forward write (``flow_out``) before it
reads (``write_barrier``).
"""

from __future__ import annotations

from graph.core.graph import control_dependencies
from graph.gradients.registry import NotDifferentiable, RegisterGradient
from graph.ops import constant_ops
from graph.ops.tensor_array_ops import TensorArray

__all__ = ["gradient_source"]

# TF's tensor_array_grad declares these (the handle, its size, closing it, the gradient array itself).
for _op_type in ("TensorArrayV3", "TensorArrayGradV3", "TensorArrayGradWithShape", "TensorArraySizeV3",
                 "TensorArrayCloseV3"):
    NotDifferentiable(_op_type)


def gradient_source(op_or_tensor) -> str:
    """The name scope of the tf.gradients call that made ``op_or_tensor`` (TF's _GetGradSource).

    Raises:
        ValueError: if its name has no part starting with ``gradients``.
    """
    tokens = op_or_tensor.name.split("/")
    positions = [i for i, token in enumerate(tokens) if token.startswith("gradients")]
    if not positions:
        raise ValueError("Expected op/tensor name to start with gradients (excluding scope), got: "
                         f"{op_or_tensor.name}. This means that a tf.gradients op with this op in its dependency "
                         "path has a custom name that does not start with 'gradients'. Please make sure all calls "
                         "to tf.gradients that have non-empty `name` arguments use names that start with "
                         "'gradients'.")
    return "/".join(tokens[:positions[-1] + 1])


def _gradient_array(handle, flow, dtype, source: str) -> TensorArray:
    forward = TensorArray(dtype=dtype, handle=handle, flow=flow, colocate_with_first_write_call=False)
    return forward.grad(source=source, flow=flow)


def _after_forward_write(op, flow):
    """``flow`` once the forward write ``op`` has happened (its gradient must read after it)."""
    flow_out = constant_ops.identity(op.outputs[0], "flow_out")
    with control_dependencies([flow_out]):
        return constant_ops.identity(flow, "write_barrier")


@RegisterGradient("TensorArrayReadV3")
def _tensor_array_read_grad(op, grad):
    handle, index, flow = op.inputs
    g = _gradient_array(handle, flow, op.get_attr("dtype"), gradient_source(grad))
    return [None, None, g.write(index, grad).flow]


@RegisterGradient("TensorArrayWriteV3")
def _tensor_array_write_grad(op, flow):
    handle, index = op.inputs[0], op.inputs[1]
    source = gradient_source(flow)
    flow = _after_forward_write(op, flow)
    g = _gradient_array(handle, flow, op.get_attr("T"), source)
    return [None, None, g.read(index), flow]


@RegisterGradient("TensorArrayGatherV3")
def _tensor_array_gather_grad(op, grad):
    handle, indices, flow = op.inputs
    g = _gradient_array(handle, flow, op.get_attr("dtype"), gradient_source(grad))
    return [None, None, g.scatter(indices, grad).flow]


@RegisterGradient("TensorArrayScatterV3")
def _tensor_array_scatter_grad(op, flow):
    handle, indices = op.inputs[0], op.inputs[1]
    source = gradient_source(flow)
    flow = _after_forward_write(op, flow)
    g = _gradient_array(handle, flow, op.get_attr("T"), source)
    return [None, None, g.gather(indices), flow]


@RegisterGradient("TensorArrayConcatV3")
def _tensor_array_concat_grad(op, grad, unused_lengths_grad):
    handle, flow = op.inputs
    g = _gradient_array(handle, flow, op.get_attr("dtype"), gradient_source(grad))
    return [None, g.split(grad, lengths=op.outputs[1]).flow]


@RegisterGradient("TensorArraySplitV3")
def _tensor_array_split_grad(op, flow):
    handle = op.inputs[0]
    source = gradient_source(flow)
    flow = _after_forward_write(op, flow)
    g = _gradient_array(handle, flow, op.get_attr("T"), source)
    return [None, g.concat(), None, flow]
