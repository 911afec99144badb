"""Gradients of TF1 conditional control flow (TensorFlow's ``control_flow_grad.py``): Switch and Merge.

Backprop through ``cond`` mirrors its forward graph.  A ``Merge`` that joins two branches
sends its gradient through a ``Switch`` on the cond's predicate (``cond_grad``), so only the
taken branch's gradient ops are live in a Session.  A ``Switch`` that carried a value into a
branch merges the gradients of its two outputs back (``cond_grad``); tf.gradients gives the
output of the untaken branch zeros from `zeros_like_output`, built behind a Switch of their
own so that they are live exactly when that branch was not taken: the untaken branch
contributes zeros, as in TensorFlow.  IndexedSlices gradients (a gather inside a branch)
are switched and merged component by component, as TensorFlow's ``switch``/``merge`` do.
In a while loop (TF1's frames), the Switch, Merge, Enter, Exit, NextIteration and LoopCond
gradients build the gradient loop that graph.gradients.while_state sets up: a loop variable's
gradient enters at its Exit (``b_exit``), loops through a ``b_switch`` Merge and leaves at its
Enter; a loop invariant's gradient is summed by an accumulator loop.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.core.indexed_slices import IndexedSlices
from graph.gradients.registry import NotDifferentiable, RegisterGradient
from graph.ops import array_fill_ops
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import control_flow_ops
from graph.ops.control_flow_frame_ops import enter, exit, is_loop_exit, next_iteration
from graph.ops.control_flow_while import WhileContext
from graph.ops import math_ops
from graph.ops import reduction_ops

__all__ = ["zeros_like_output"]

_SWITCH_TYPES = ("Switch", "RefSwitch")


def zeros_like_output(op, index: int):
    """The zero gradient of output ``index`` of ``op``, which nothing downstream used (TF's control_flow_state.ZerosLike).

    For a Switch inside a cond branch the zeros hang off a new Switch of the same data on the
    cond's predicate, taking the branch the op does not: they are live exactly when the op's
    own output is dead.  Everything else gets ``zeros_like`` of the output.
    """
    value = op.outputs[index]
    context = control_flow_ops.get_control_flow_context(op) if op.type in _SWITCH_TYPES else None
    if context is None:
        return array_fill_ops.zeros_like(value, optimize=False)
    switch_value = control_flow_ops.switch(op.inputs[0], context.pred)[1 - context.branch]
    # A control dependency acts on the whole op, so it needs an op on the live side: an Identity.
    pivot = constant_ops.identity(switch_value)
    zeros_shape = array_ops.shape_internal(switch_value, optimize=False)
    with op.graph.control_dependencies([pivot]):
        return array_fill_ops.zeros(zeros_shape, dtype=value.dtype.base_dtype)


# ----------------------------------------------------------------- Switch and Merge of Tensors or IndexedSlices
def _switch(data, pred, name: str = "Switch"):
    """(false output, true output) of ``data``; an IndexedSlices is switched component by component."""
    if not isinstance(data, IndexedSlices):
        return control_flow_ops.switch_ref_or_tensor(data, pred, name=name)
    with name_scope(name, "Switch", [data.values, data.indices, pred]) as scope:
        values = control_flow_ops.switch_ref_or_tensor(data.values, pred, name=scope)
        indices = control_flow_ops.switch(data.indices, pred, name="indices")
        if data.dense_shape is None:
            return IndexedSlices(values[0], indices[0]), IndexedSlices(values[1], indices[1])
        dense_shape = control_flow_ops.switch(data.dense_shape, pred, name="dense_shape")
        return (IndexedSlices(values[0], indices[0], dense_shape[0]),
                IndexedSlices(values[1], indices[1], dense_shape[1]))


def _as_indexed_slices_list(inputs) -> list:
    """``inputs`` as IndexedSlices (a dense tensor: all its rows), int32 indices widened if any are int64."""
    slices = []
    for value in inputs:
        if not isinstance(value, IndexedSlices):
            shape = array_ops.shape_internal(value, optimize=False)
            value = IndexedSlices(value, reduction_ops.range(0, shape[0]), shape)
        slices.append(value)
    narrow = [s for s in slices if s.indices.dtype == dtypes_lib.int32]
    if not narrow or len(narrow) == len(slices):
        return slices
    return [IndexedSlices(s.values, math_ops.cast(s.indices, dtypes_lib.int64), s.dense_shape)
            if s.indices.dtype == dtypes_lib.int32 else s for s in slices]


def _merge(inputs, name: str):
    """The live one of ``inputs``; IndexedSlices (and dense tensors beside them) merge per component."""
    if not any(isinstance(value, IndexedSlices) for value in inputs):
        return control_flow_ops.merge(inputs, name=name)[0]
    with name_scope(name, "Merge", []):
        slices = _as_indexed_slices_list(inputs)
        values = control_flow_ops.merge([s.values for s in slices])[0]
        indices = control_flow_ops.merge([s.indices for s in slices])[0]
        if any(s.dense_shape is None for s in slices):
            return IndexedSlices(values, indices)
        dense_shape = control_flow_ops.merge([s.dense_shape for s in slices])[0]
        return IndexedSlices(values, indices, dense_shape)


# ----------------------------------------------------------------- gradient functions
def _grad_context(op):
    return op.graph._control_flow_context


def _switch_grad(op, *grad):
    context = control_flow_ops.get_control_flow_context(op)
    if isinstance(context, WhileContext):
        return _loop_switch_grad(op, grad)
    if isinstance(context, control_flow_ops.CondContext):
        # grad[1 - branch] is the zeros of the untaken side (see zeros_like_output); None means the
        # data is not trainable (an int, say), and then no gradient flows.
        if grad[1 - context.branch] is None:
            return None, None
        return _merge(list(grad), name="cond_grad"), None
    false_grad = _switch(grad[0], op.inputs[1])[0]
    true_grad = _switch(grad[1], op.inputs[1])[1]
    return _merge([false_grad, true_grad], name="Merge"), None


def _loop_switch_grad(op, grad):
    """A loop variable's Switch, visited twice: first from its Exit (the gradient enters the gradient loop
    through a ``b_switch`` Merge), then from the body (that Merge's back edge: the next iteration's gradient)."""
    grad_state = _grad_context(op).grad_state
    merge_grad = grad_state.switch_map.get(op)
    if merge_grad is not None:
        if grad[1] is not None:
            next_grad = next_iteration(_dense(grad[1]))
            merge_grad.op._update_input(1, next_grad)
        return None, None
    if grad[0] is not None:
        first = _dense(grad[0])
        merge_grad = control_flow_ops.merge([first, first], name="b_switch")[0]
        grad_state.switch_map[op] = merge_grad
        return merge_grad, None
    return None, None  # reached from the body first: the Exit's output is not differentiable


def _dense(grad):
    # The gradient loop carries one dense tensor per loop variable.
    return convert_to_tensor(grad) if isinstance(grad, IndexedSlices) else grad


RegisterGradient("Switch")(_switch_grad)
RegisterGradient("RefSwitch")(_switch_grad)


@RegisterGradient("Merge")
def _merge_grad(op, grad, _):
    input_context = control_flow_ops.get_control_flow_context(op.inputs[0].op)
    if input_context is not None and is_loop_exit(op.inputs[0].op):
        input_context = input_context.outer_context
    if isinstance(input_context, WhileContext):
        # The loop variable's Merge: the gradient goes to its Enter once the gradient loop ends, else back.
        return control_flow_ops.switch_ref_or_tensor(grad, _grad_context(op).pivot)
    if isinstance(input_context, control_flow_ops.CondContext):
        pred = input_context.pred
        grad_context = _grad_context(op)
        if grad_context is not None and grad_context.grad_state is not None:
            pred = _predicate_history(grad_context.grad_state, pred)
        # Inputs are [false branch, true branch]: exactly the outputs of a Switch on pred.
        return _switch(grad, pred, name="cond_grad")
    # A Merge outside any cond: route the gradient to whichever input was live.
    conditions = [math_ops.equal(op.outputs[1], i) for i in range(len(op.inputs))]
    return [_switch(grad, condition)[1] for condition in conditions]


def _predicate_history(grad_state, pred):
    """A cond's predicate inside a loop, as the gradient loop sees it in each iteration (popped from a stack)."""
    real_pred = grad_state.history_map.get(pred.name)
    if real_pred is None:
        grad_context = grad_state.grad_context
        grad_context.Exit()
        history_pred = grad_state.AddForwardAccumulator(pred)
        grad_context.Enter()
        real_pred = grad_state.AddBackpropAccumulatedValue(history_pred, pred)
        grad_state.history_map[pred.name] = real_pred
    return real_pred


@RegisterGradient("RefMerge")
def _ref_merge_grad(op, grad, _):
    return _merge_grad(op, grad, _)


def _exit_grad(op, grad):
    """The gradient of a loop's result enters the gradient loop (``b_exit``)."""
    grad_context = _grad_context(op)
    if not grad_context.back_prop:
        return None  # back_prop=False: the loop passes no gradient
    if control_flow_ops.get_control_flow_context(op).grad_state is not None:
        raise TypeError("Second-order gradient for while loops not supported.")
    if isinstance(grad, Tensor):
        grad_context.AddName(grad.name)
    else:
        if not isinstance(grad, IndexedSlices):
            raise TypeError(f"Type {type(grad)} not supported, must be either`indexed_slices.IndexedSlices` or "
                            "`SparseTensor`.")
        grad_context.AddName(grad.values.name)
        grad_context.AddName(grad.indices.name)
        if grad.dense_shape is not None:
            grad_context.AddName(grad.dense_shape.name)
        grad = convert_to_tensor(grad)  # the gradient loop carries dense tensors
        grad_context.AddName(grad.name)
    grad_context.Enter()
    try:
        result = enter(grad, grad_context.name, is_constant=False,
                       parallel_iterations=grad_context.parallel_iterations, name="b_exit")
    finally:
        grad_context.Exit()
    grad_context.loop_enters.append(result)
    return result


RegisterGradient("Exit")(_exit_grad)
RegisterGradient("RefExit")(_exit_grad)


def _next_iteration_grad(_, grad):
    return grad


RegisterGradient("NextIteration")(_next_iteration_grad)
RegisterGradient("RefNextIteration")(_next_iteration_grad)


def _enter_grad(op, grad):
    """A loop variable's gradient leaves the gradient loop; a loop invariant's is summed over the iterations."""
    grad_context = _grad_context(op)
    if grad_context is None or not grad_context.back_prop or grad_context.grad_state is None:
        return grad
    if op.get_attr("is_constant"):
        if isinstance(grad, Tensor):
            return grad_context.AddBackpropAccumulator(op, grad)
        if isinstance(grad, IndexedSlices):
            return grad_context.AddBackpropIndexedSlicesAccumulator(op, grad)
        raise TypeError(f"Type {type(grad)} not supported,must be Tensor or Indexed Slices")
    result = exit(grad)
    grad_context.loop_exits.append(result)
    grad_context.ExitResult([result])
    return result


RegisterGradient("Enter")(_enter_grad)
RegisterGradient("RefEnter")(_enter_grad)


@RegisterGradient("LoopCond")
def _loop_cond_grad(_):
    return None


NotDifferentiable("Assert")  # as TF's control_flow_ops declares it

# The stacks of while-loop gradients (TF's data_flow_grad declares them).
for _op_type in ("StackV2", "StackPushV2", "StackPopV2", "StackCloseV2"):
    NotDifferentiable(_op_type)
