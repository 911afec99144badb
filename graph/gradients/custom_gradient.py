"""``tf.custom_gradient`` in graph mode, and the functions TensorFlow builds with it (``tf.nn.swish``).

As TF's ``_graph_mode_decorator``: the wrapped function builds its forward ops, an ``Identity``
of each output is added (TF's walk looking for variables in between), then outputs and inputs
pass through one ``IdentityN`` whose gradient is overridden by a fresh ``CustomGradient-<uid>``
registration calling the user's ``grad``.  Variables used inside the function (TF's
``grad(..., variables=...)`` form) are not emulated.
"""

from __future__ import annotations

import functools
import itertools
from typing import Callable

from graph.core import graph as graph_lib
from graph.core.graph import Tensor, control_dependencies, convert_to_tensor
from graph.gradients.registry import RegisterGradient
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import nn_ops
from graph.ops import reduction_ops

__all__ = ["custom_gradient", "swish", "silu"]

_UIDS = itertools.count(1)  # TF's ops.uid(): unique gradient names per process


def _reaches_a_variable(outputs: list, inputs: list) -> bool:
    """True if a variable op lies between ``inputs`` and ``outputs`` (TF would pass it to ``grad``)."""
    stop = {id(t) for t in inputs}
    seen, stack = set(), [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.type in ("VariableV2", "VarHandleOp"):
            return True
        stack.extend(t.op for t in op.inputs if id(t) not in stop)
    return False


def custom_gradient(f: Callable) -> Callable:
    """Decorates ``f(*tensors) -> (outputs, grad)`` so tf.gradients calls ``grad(*output_grads)`` for its inputs.

    Raises:
        NotImplementedError: if ``f`` reads a variable its inputs do not carry (TF's ``variables=`` form).
        TypeError: if ``f`` is given keyword arguments (TF's graph mode refuses them too).
    """
    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise TypeError("The custom_gradient decorator currently supports keywords arguments only when "
                            "eager execution is enabled.")
        name = f"CustomGradient-{next(_UIDS)}"
        args = [convert_to_tensor(arg) for arg in args]
        result, grad_fn = f(*args)
        flat_result = list(result) if isinstance(result, (list, tuple)) else [result]
        for tensor in flat_result:  # TF's _get_dependent_variables walks from an Identity of each output
            constant_ops.identity(tensor)
        if _reaches_a_variable(flat_result, args):
            raise NotImplementedError(f"{f.__name__}: custom_gradient over variables read inside the function "
                                      "(grad's `variables` argument) is not emulated.")
        count = len(flat_result)

        @RegisterGradient(name)
        def _custom_grad(unused_op, *result_grads):
            grads = grad_fn(*result_grads[:count])
            grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
            return [None] * count + grads

        graph = graph_lib.get_graph_from_inputs(flat_result + args)
        with graph.gradient_override_map({"IdentityN": name}):
            all_tensors = array_ops.identity_n(flat_result + args)
        outputs = all_tensors[:count]
        return type(result)(outputs) if isinstance(result, (list, tuple)) else outputs[0]
    return decorated


def swish(features, beta=1.0) -> Tensor:
    """``features * sigmoid(beta * features)`` with TF's recomputing custom gradient (``tf.nn.swish``/``silu``)."""
    features = convert_to_tensor(features, name="features")
    beta = convert_to_tensor(beta, name="beta")
    beta = math_ops.cast(beta, features.dtype)

    @custom_gradient
    def swish_impl(features, beta):
        def grad(dy):
            # Recomputed after dy exists (TF's control dependency): the forward sigmoid need not be kept.
            with control_dependencies([dy]):
                sigmoid_features = nn_ops.sigmoid(beta * features)
            activation_grad = sigmoid_features * (1.0 + (beta * features) * (1.0 - sigmoid_features))
            beta_grad = reduction_ops.reduce_sum(
                dy * math_ops.square(features) * sigmoid_features * (1.0 - sigmoid_features))
            return dy * activation_grad, beta_grad
        return features * nn_ops.sigmoid(beta * features), grad

    return swish_impl(features, beta)


silu = swish
