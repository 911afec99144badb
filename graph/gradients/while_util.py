"""TF's ``control_flow_util`` for while-loop gradients: which loop or cond an op belongs to, loop Switches.

Also the check tf.gradients makes inside a loop body: a gradient may not flow back through a loop
variable's initial value (`raise_if_through_loop_variable`).
"""

from __future__ import annotations

import collections

from graph.ops import control_flow_ops
from graph.ops.control_flow_frame_ops import is_loop_constant_enter, is_loop_exit
from graph.ops.control_flow_while import WhileContext

__all__ = ["context_of", "get_while_context", "output_context", "is_loop_switch", "loop_constant_enter",
           "raise_if_through_loop_variable"]

_SWITCH_TYPES = frozenset(("Switch", "RefSwitch"))
_IDENTITY_LIKE = frozenset(("Switch", "RefSwitch", "Identity", "RefIdentity"))


def context_of(op):
    """The control-flow context ``op`` was built in (a WhileContext or CondContext), or None."""
    return control_flow_ops.get_control_flow_context(op)


def get_while_context(op):
    """The innermost while loop ``op`` was built in, or None (TF's util.GetWhileContext)."""
    context = context_of(op)
    return context.GetWhileContext() if context is not None else None


def output_context(op):
    """The context ``op``'s outputs live in: an Exit's is outside its loop (TF's util.GetOutputContext)."""
    context = context_of(op)
    if context is not None and is_loop_exit(op):
        context = context.outer_context
    return context


def _is_cond_switch(op) -> bool:
    """A Switch all of whose consumers are in cond branches (TF's util.IsCondSwitch)."""
    if op.type not in _SWITCH_TYPES or not op.outputs:
        return False
    for output in op.outputs:
        for consumer in output.consumers():
            context = context_of(consumer)
            if consumer.type in ("Enter", "RefEnter") and context is not None:
                context = context.outer_context
            if not isinstance(context, control_flow_ops.CondContext):
                return False
    return True


def is_loop_switch(op) -> bool:
    """Whether ``op`` is a while loop's Switch (TF's util.IsLoopSwitch)."""
    if op.type not in _SWITCH_TYPES:
        return False
    return isinstance(context_of(op), WhileContext) and not _is_cond_switch(op)


def loop_constant_enter(value):
    """The loop-invariant Enter ``value`` forwards (through Identity/Switch), or None (TF's GetLoopConstantEnter)."""
    op = value.op
    while op.type in _IDENTITY_LIKE:
        op = op.inputs[0].op
    return op if is_loop_constant_enter(op) else None


def raise_if_through_loop_variable(op, from_ops, graph) -> None:
    """Raises TF's ValueError when tf.gradients, called inside a loop's body, reaches that loop's Switch:
    the gradient would flow back through a loop variable's initial value.

    Raises:
        ValueError: naming the x nearest to ``op`` (TF's _RaiseNoGradWrtInitialLoopValError).
    """
    context = context_of(op)
    if op.type not in _SWITCH_TYPES or not isinstance(context, WhileContext) or \
            context is not graph._control_flow_context:
        return
    target, queue, visited = None, collections.deque([op]), set()
    while queue:
        current = queue.popleft()
        if current in visited:
            continue
        visited.add(current)
        if current in from_ops:
            target = current
            break
        queue.extend(tensor.op for tensor in current.inputs)
    assert target is not None
    raise ValueError(f"Cannot compute gradient inside while loop with respect to op '{target.name}'. We do not "
                     "support taking the gradient wrt or through the initial value of a loop variable. Gradients "
                     "can be computed through loop invariants or wrt the input parameters to the loop body.")
