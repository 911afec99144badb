"""The loops a while loop's gradient adds: iteration counters and gradient accumulators (TF's WhileContext methods).

TensorFlow 1.x differentiates a ``while_loop`` with a second loop that runs the forward
iterations backwards.  These builders add its bookkeeping, with TF's op names:

- `add_forward_loop_counter`: ``n = 0; while (pivot) n++`` in the forward loop (``f_count``);
  its NextIteration orders the stack pushes of one iteration before the next;
- `add_backprop_loop_counter`: ``n = count; while (n >= 1) n--`` driving the gradient loop
  (``b_count``: its LoopCond is the gradient loop's pivot);
- `add_backprop_accumulator`: ``acc = 0; while (pivot) acc += grad`` summing the gradient of a
  loop invariant over the iterations (``b_acc``); `add_backprop_indexed_slices_accumulator`
  concatenates IndexedSlices gradients instead.

They are functions of the `WhileContext` (graph.ops.control_flow_while re-exports them as its
methods); graph.gradients.while_state calls them when it builds a gradient loop.
"""

from __future__ import annotations

from graph.base.shapes import TensorShape
from graph.core.indexed_slices import IndexedSlices
from graph.ops import array_concat_ops
from graph.ops import array_fill_ops
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import control_flow_ops
from graph.ops import math_ops
from graph.ops.control_flow_frame_ops import enter, exit, next_iteration, loop_cond

__all__ = ["add_forward_loop_counter", "add_backprop_loop_counter", "add_backprop_accumulator",
           "add_backprop_indexed_slices_accumulator"]


def _enter(context, value, name: str, use_input_shape: bool = True):
    return enter(value, context.name, is_constant=False, parallel_iterations=context.parallel_iterations,
                 use_input_shape=use_input_shape, name=name)


def add_forward_loop_counter(context, outer_grad_state):
    """Counts the forward loop's iterations; returns ``(total iterations, the counter's NextIteration)``.

    Called in the context enclosing ``context`` while a gradient loop is being built.
    """
    count = constant_ops.constant(0, name="f_count")
    if outer_grad_state is not None:
        # The pushes of the i-th run of an inner loop come before those of the (i+1)-th.
        count.op._add_control_input(outer_grad_state.forward_index.op.inputs[0].op)
    context.Enter()
    context.AddName(count.name)
    enter_count = _enter(context, count, "f_count")
    context.loop_enters.append(enter_count)
    merge_count = control_flow_ops.merge([enter_count, enter_count])[0]
    switch_count = control_flow_ops.switch(merge_count, context.pivot)
    index = math_ops.add(switch_count[1], 1)
    next_count = next_iteration(index)
    merge_count.op._update_input(1, next_count)
    total_iterations = exit(switch_count[0], name="f_count")
    context.loop_exits.append(total_iterations)
    context.ExitResult([total_iterations])
    context.Exit()
    return total_iterations, next_count


def add_backprop_loop_counter(context, count, outer_grad_state):
    """Makes ``context`` (a gradient loop) run ``count`` iterations; returns its counter's NextIteration."""
    one = constant_ops.constant(1, name="b_count")
    context.Enter()
    context.AddName(count.name)
    enter_count = _enter(context, count, "b_count")
    context.loop_enters.append(enter_count)
    merge_count = control_flow_ops.merge([enter_count, enter_count])[0]
    context._pivot_for_pred = merge_count
    context._pivot = loop_cond(math_ops.greater_equal(merge_count, one), name="b_count")
    switch_count = control_flow_ops.switch(merge_count, context.pivot)
    index = math_ops.subtract(switch_count[1], one)
    context._pivot_for_body = index
    next_count = next_iteration(index)
    merge_count.op._update_input(1, next_count)
    final_zero = exit(switch_count[0], name="b_count")
    context.loop_exits.append(final_zero)
    if outer_grad_state is not None:
        # The pops of the i-th run of an inner gradient loop come before those of the (i+1)-th.
        outer_grad_state.grad_sync._add_control_input(final_zero.op)
    context.ExitResult([final_zero])
    context.Exit()
    return next_count


def _in_outer(context, build):
    """``build()`` in the context enclosing ``context`` (the gradient loop must be exited first)."""
    outer = context.outer_context
    if outer is not None:
        outer.Enter()
    try:
        return build()
    finally:
        if outer is not None:
            outer.Exit()


def add_backprop_accumulator(context, op, grad):
    """The sum over all iterations of ``grad``, the per-iteration gradient of the loop invariant ``op`` (an Enter).

    Called inside the gradient loop ``context``; returns the accumulator's Exit.
    """
    context.Exit()
    shape = grad.shape
    if shape.is_fully_defined():
        acc = _in_outer(context, lambda: constant_ops.constant(0, grad.dtype, shape=shape, name="b_acc"))
    else:
        value = op.inputs[0]
        outer = context.outer_context
        if getattr(outer, "grad_state", None) is not None:
            # A nested gradient loop: the shape of the invariant may differ per outer iteration.
            forward_context = context.grad_state.forward_context
            forward_context.outer_context.Enter()
            zeros_shape = array_ops.shape_internal(value, optimize=False)
            forward_context.outer_context.Exit()
            outer_grad_state = context.grad_state.outer_grad_state
            history_zeros_shape = outer_grad_state.AddForwardAccumulator(zeros_shape)
            outer.Enter()
            real_shape = outer_grad_state.AddBackpropAccumulatedValue(history_zeros_shape, zeros_shape)
            acc = array_fill_ops.zeros(real_shape, grad.dtype)
            outer.Exit()
        else:
            acc = _in_outer(context, lambda: array_fill_ops.zeros(
                array_ops.shape_internal(value, optimize=False), grad.dtype))
    context.Enter()
    context.AddName(acc.name)
    enter_acc = _enter(context, acc, "b_acc")
    context.loop_enters.append(enter_acc)
    merge_acc = control_flow_ops.merge([enter_acc, enter_acc], name="b_acc")[0]
    switch_false, switch_true = control_flow_ops.switch(merge_acc, context.pivot)
    add_acc = math_ops.add(switch_true, grad)
    next_acc = next_iteration(add_acc)
    merge_acc.op._update_input(1, next_acc)
    result = exit(switch_false, name="b_acc")
    context.loop_exits.append(result)
    context.ExitResult([result])
    return result


def add_backprop_indexed_slices_accumulator(context, op, grad: IndexedSlices) -> IndexedSlices:
    """The IndexedSlices gradient of the loop invariant ``op`` over all iterations: values and indices concatenated."""
    values, indices, dense_shape = grad.values, grad.indices, grad.dense_shape
    context.Exit()

    def initial_values():
        if values.shape.is_fully_defined():
            values_shape = TensorShape([1] + values.shape.as_list()[1:])
            return constant_ops.constant(0, values.dtype, shape=values_shape, name="b_acc")
        rows_shape = array_ops.shape_internal(op.inputs[0], optimize=False)[1:]
        return array_fill_ops.zeros(array_concat_ops.concat([[1], rows_shape], 0), dtype=values.dtype)

    def initial_shape():
        if dense_shape is None:
            return None
        if dense_shape.shape.is_fully_defined():
            return constant_ops.constant(0, dense_shape.dtype, shape=dense_shape.shape)
        return array_fill_ops.zeros_like(array_ops.shape_internal(op.inputs[0], optimize=False,
                                                                  out_type=dense_shape.dtype), optimize=False)

    values_acc = _in_outer(context, initial_values)
    indices_acc = _in_outer(context, lambda: constant_ops.constant([0], indices.dtype))
    shape_acc = _in_outer(context, initial_shape)
    context.Enter()
    init_acc = [indices_acc, values_acc] + ([shape_acc] if shape_acc is not None else [])
    for tensor in init_acc:
        context.AddName(tensor.name)
    # The accumulators grow: their Enters take no shape from the initial values.
    enter_acc = [_enter(context, x, "b_acc", use_input_shape=False) for x in init_acc]
    enter_acc[0].set_shape([None])
    if values_acc.shape.ndims is not None:
        enter_acc[1].set_shape([None] + values_acc.shape.as_list()[1:])
    context.loop_enters.extend(enter_acc)
    merge_acc = [control_flow_ops.merge([x, x], name="b_acc")[0] for x in enter_acc]
    switch_acc = [control_flow_ops.switch(x, context.pivot) for x in merge_acc]
    accumulated = [array_concat_ops.concat([switched[1], part], 0)
                   for switched, part in zip(switch_acc[:2], [indices, values])]
    if shape_acc is not None:
        accumulated.append(math_ops.maximum(dense_shape, switch_acc[2][1]))
    for merge_var, value in zip(merge_acc, accumulated):
        merge_var.op._update_input(1, next_iteration(value))
    exit_acc = [exit(x[0], name="b_acc") for x in switch_acc]
    context.loop_exits.extend(exit_acc)
    context.ExitResult(exit_acc)
    return IndexedSlices(exit_acc[1], exit_acc[0], exit_acc[2] if shape_acc is not None else None)

