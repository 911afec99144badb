"""The state of a gradient through TF1 while loops (TensorFlow's ``control_flow_state``): one gradient loop per loop.

For every forward ``while_loop`` between the xs and the ys, tf.gradients builds a gradient loop
that runs the forward iterations in reverse (`GradLoopState`):

- the forward loop gets an iteration counter (``f_count``); the gradient loop counts it down
  (``b_count``), its LoopCond the gradient loop's pivot;
- a forward value the gradient needs (an op input of the body, say) is pushed onto a stack
  (``f_acc``: ``StackV2`` + ``StackPushV2`` in the forward loop) and popped in the gradient
  loop (``StackPopV2``), so iteration k of the gradient sees iteration n-1-k's value; a
  loop invariant or a constant needs no stack;
- the gradient of a loop variable enters the gradient loop at the forward loop's Exit and
  leaves it at the forward Enter; a loop invariant's per-iteration gradients are summed by an
  accumulator loop (graph.ops.while_accumulators).

`ControlFlowState` maps each forward loop to its state and holds what tf.gradients' walk
needs: which context to build each op's gradient in, exits nothing downstream used, zeros for
unused outputs inside loops, and the patch for loop variables that do not feed themselves.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.core import graph as graph_lib
from graph.gradients.while_util import (context_of as _context, get_while_context, is_loop_switch,
                                        loop_constant_enter as _loop_constant_enter,
                                        output_context as _output_context)
from graph.ops import array_fill_ops
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import control_flow_ops
from graph.ops.control_flow_frame_ops import control_trigger, is_loop_exit, next_iteration
from graph.ops.control_flow_while import WhileContext
from graph.ops.stack_ops import stack_pop_v2, stack_push_v2, stack_v2

__all__ = ["GradLoopState", "ControlFlowState", "maybe_create_control_flow_state"]

_SWITCH_TYPES = frozenset(("Switch", "RefSwitch"))


# ----------------------------------------------------------------- one loop
class GradLoopState:
    """The forward loop, its gradient loop, and the values the gradient pops from the forward history."""

    def __init__(self, forward_context: WhileContext, outer_grad_state: GradLoopState | None):
        self._outer_grad_state = outer_grad_state
        self._forward_sync = None
        self._grad_sync = None
        self._history_map: dict = {}
        self._switch_map: dict = {}
        self._unused_exits: list = []
        self._deferred_exits: list = []
        self._forward_loop_exits = list(forward_context.loop_exits)
        self._pending_exits_count = len(forward_context.loop_exits)
        outer_forward = outer_grad_state.forward_context if outer_grad_state else forward_context.outer_context

        if outer_forward is not None:
            outer_forward.Enter()
        count, forward_index = forward_context.AddForwardLoopCounter(outer_grad_state)
        if outer_forward is not None:
            outer_forward.Exit()
        self._forward_context = forward_context
        self._forward_index = forward_index

        loop_args = {"maximum_iterations": forward_context.maximum_iterations,
                     "parallel_iterations": forward_context.parallel_iterations,
                     "back_prop": forward_context.back_prop, "swap_memory": forward_context.swap_memory,
                     "name": forward_context.name, "grad_state": self}
        if outer_grad_state is not None:
            # A nested loop: the inner loop ran a different number of times in each outer iteration.
            outer_forward.AddName(count.name)
            history_count = outer_grad_state.AddForwardAccumulator(count)
            outer_grad_context = outer_grad_state.grad_context
            outer_grad_context.Enter()
            self._grad_context = WhileContext(**loop_args)
            real_count = outer_grad_state.AddBackpropAccumulatedValue(history_count, count)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(real_count, outer_grad_state)
            outer_grad_context.Exit()
        else:
            if outer_forward is not None:
                outer_forward.Enter()
            self._grad_context = WhileContext(**loop_args)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(count, outer_grad_state)
            if outer_forward is not None:
                outer_forward.Exit()

    outer_grad_state = property(lambda self: self._outer_grad_state, doc="The state of the enclosing loop.")
    forward_context = property(lambda self: self._forward_context, doc="The forward loop's WhileContext.")
    forward_index = property(lambda self: self._forward_index, doc="The forward counter's NextIteration.")
    grad_context = property(lambda self: self._grad_context, doc="The gradient loop's WhileContext.")
    grad_index = property(lambda self: self._grad_index, doc="The gradient counter's NextIteration.")
    history_map = property(lambda self: self._history_map, doc="Forward tensor name -> its value in the gradient.")
    switch_map = property(lambda self: self._switch_map, doc="Forward loop Switch -> its gradient Merge.")
    unused_exits = property(lambda self: self._unused_exits, doc="Exits nothing downstream used.")
    deferred_exits = property(lambda self: self._deferred_exits, doc="Exits waiting for the loop's others.")
    forward_loop_exits = property(lambda self: self._forward_loop_exits, doc="The forward loop's Exits.")

    @property
    def pending_exits_count(self) -> int:
        """The number of the loop's Exits not yet ready for backprop."""
        return self._pending_exits_count

    @pending_exits_count.setter
    def pending_exits_count(self, count: int) -> None:
        self._pending_exits_count = count

    @property
    def forward_sync(self):
        """A ControlTrigger in the forward loop ordering pushes inside a cond before the next iteration."""
        if self._forward_sync is None:
            with graph_lib.control_dependencies(None):
                self._forward_sync = control_trigger(name="f_sync")
            control_flow_ops.set_control_flow_context(self._forward_sync, self._forward_context)
            self._forward_index.op._add_control_input(self._forward_sync)
        return self._forward_sync

    @property
    def grad_sync(self):
        """A ControlTrigger in the gradient loop ordering the pops of an iteration before the next."""
        if self._grad_sync is None:
            with graph_lib.control_dependencies(None):
                self._grad_sync = control_trigger(name="b_sync")
            control_flow_ops.set_control_flow_context(self._grad_sync, self._grad_context)
            self._grad_index.op._add_control_input(self._grad_sync)
            if self._grad_context.outer_context is not None:
                self._grad_context.outer_context.AddInnerOp(self._grad_sync)
        return self._grad_sync

    def AddForwardAccumulator(self, value, dead_branch: bool = False):
        """A stack the forward loop pushes ``value`` onto in every iteration; returns the stack's handle.

        Called in the context tf.gradients was called in.
        """
        graph = value.graph
        current = graph._control_flow_context
        with graph_lib.control_dependencies(None):
            if current is not None:
                current.Enter()
            with graph_lib.colocate_with(value):
                max_size = constant_ops.constant(-1, dtypes_lib.int32)
                acc = stack_v2(max_size=max_size, elem_type=value.dtype.base_dtype, name="f_acc")
            if current is not None:
                current.Exit()
            enter_acc = self._forward_context.AddValue(acc)
            swap = self._forward_context.swap_memory
            value_context = _output_context(value.op)
            if value_context is self._forward_context:
                self._forward_context.Enter()
                push = stack_push_v2(enter_acc, value, swap_memory=swap)
                self._forward_context.Exit()
                self._forward_index.op._add_control_input(push.op)  # pushed before the next iteration
            else:
                if not isinstance(value_context, control_flow_ops.CondContext):
                    raise TypeError(f"value_ctxt is not a CondContext: {value_context}")
                if dead_branch:
                    # zeros for the untaken branch of a cond's Switch: pushed from outside the branch
                    value_context.outer_context.Enter()
                    push = stack_push_v2(enter_acc, value, swap_memory=swap)
                    value_context.outer_context.Exit()
                    control_flow_ops.set_control_flow_context(push.op, value_context)
                else:
                    value_context.Enter()
                    push = stack_push_v2(enter_acc, value, swap_memory=swap)
                    value_context.Exit()
                self.forward_sync._add_control_input(push.op)
            push.op._add_control_input(self._forward_index.op.inputs[0].op)
            return acc

    def AddBackpropAccumulatedValue(self, history_value, value, dead_branch: bool = False):
        """The top of the stack ``history_value`` popped in the gradient loop (guarded by its cond, if any)."""
        history_context = _context(history_value.op)
        cond_context = None
        value_context = _context(value.op)
        while value_context is not None and value_context is not history_context:
            if isinstance(value_context, control_flow_ops.CondContext):
                cond_context = value_context
                break
            value_context = value_context.outer_context
        with graph_lib.control_dependencies(None):
            self._grad_context.Enter()
            if cond_context is not None:
                # Pop only in the iterations that pushed: behind a Switch on the cond's recorded predicate.
                grad_state, pred = self, None
                while pred is None and grad_state is not None:
                    pred = grad_state.history_map.get(cond_context.pred.name)
                    grad_state = grad_state.outer_grad_state
                if pred is None:
                    pred = cond_context.pred
                branch = (1 - cond_context.branch) if dead_branch else cond_context.branch
                history_value = control_flow_ops.switch_ref_or_tensor(history_value, pred)[branch]
            pop = stack_pop_v2(history_value, value.dtype.base_dtype)
            pop.set_shape(value.shape)
            self._grad_context.Exit()
        if self._grad_context.parallel_iterations > 1:
            self.grad_sync._add_control_input(pop.op)  # pops come before the next gradient iteration
        return pop

    def GetRealValue(self, value):
        """``value`` (a forward loop tensor) as the gradient loop sees it in the matching iteration."""
        assert value.op.type not in ("Variable", "VariableV2")
        real_value = self._history_map.get(value.name)
        if real_value is not None:
            return real_value
        current_value, current_state, history_value = value, self, None
        while True:
            enter_op = _loop_constant_enter(current_value)
            if enter_op is not None:
                current_value = enter_op.inputs[0]
                current_state = current_state.outer_grad_state
                if current_state is None:
                    # Outside every loop of this gradient: a loop invariant, entered as it is.
                    real_value = self._grad_context.AddValue(current_value)
                    break
            elif current_value.op.type == "Const":
                # A constant is cloned in the gradient loop rather than stacked.
                real_value = constant_ops.constant(constant_ops.constant_value(current_value),
                                                   dtype=current_value.dtype)
                break
            else:
                self._grad_context.Exit()
                history_value = current_state.AddForwardAccumulator(current_value)
                self._grad_context.Enter()
                break
        if real_value is None:
            real_value = current_state.AddBackpropAccumulatedValue(history_value, current_value)
            if current_state is not self:
                real_value = self._grad_context.AddValue(real_value)
        self._history_map[value.name] = real_value
        return real_value

    def __repr__(self) -> str:
        return f"<GradLoopState {self._forward_context.name} -> {self._grad_context.name}>"


# ----------------------------------------------------------------- all loops of one tf.gradients call
class ControlFlowState:
    """Forward WhileContext -> its GradLoopState, for one tf.gradients call."""

    def __init__(self):
        self._map: dict = {}

    def GetGradState(self, op, before: bool):
        """The state of the loop whose gradient ``op``'s gradient belongs to (an Exit's: its outer loop before)."""
        if before and is_loop_exit(op):
            forward_context = _context(op).outer_context
            forward_context = forward_context.GetWhileContext() if forward_context is not None else None
        else:
            forward_context = get_while_context(op)
        return self._map.get(forward_context) if forward_context is not None else None

    def ProcessUnusedLoopExits(self, pending_count: dict, to_ops_set: set) -> list:
        """Exits with nothing to wait for; returns those to backprop now (all of a loop's Exits are in)."""
        loop_exits = []
        for grad_state in self._map.values():
            for exit_tensor in grad_state.forward_loop_exits:
                if pending_count[exit_tensor.op] == 0:
                    grad_state.pending_exits_count -= 1
                    if exit_tensor.op not in to_ops_set:
                        grad_state.unused_exits.append(exit_tensor)
                    if grad_state.pending_exits_count == 0:
                        loop_exits.extend(grad_state.unused_exits)
            for enter_tensor in grad_state.forward_context.loop_enters:
                if pending_count[enter_tensor.op] == 0:
                    pending_count[enter_tensor.op] = 1
        return loop_exits

    def EnterGradWhileContext(self, op, before: bool) -> None:
        """Enters the gradient loop ``op``'s gradient is built in."""
        grad_state = self.GetGradState(op, before)
        if grad_state is not None:
            grad_state.grad_context.Enter()

    def ExitGradWhileContext(self, op, before: bool) -> None:
        """Leaves the gradient loop entered by `EnterGradWhileContext`."""
        grad_state = self.GetGradState(op, before)
        if grad_state is not None:
            grad_state.grad_context.Exit()

    def AddWhileContext(self, op, between_op_list: list, between_ops: set) -> None:
        """Creates the state of ``op``'s loop (``op``: an Exit) and adds all the loop's Exits to the between ops."""
        forward_context = get_while_context(op)
        if forward_context in self._map:
            return
        outer_forward = forward_context.outer_context
        outer_forward = outer_forward.GetWhileContext() if outer_forward is not None else None
        outer_grad_state = self._map.get(outer_forward) if outer_forward is not None else None
        grad_state = GradLoopState(forward_context, outer_grad_state)
        self._map[forward_context] = grad_state
        for loop_exit in grad_state.forward_loop_exits:
            if loop_exit.op not in between_ops:
                between_ops.add(loop_exit.op)
                between_op_list.append(loop_exit.op)

    def ZerosLikeForExit(self, val):
        """Zeros as the gradient of an Exit nothing downstream used (built where tf.gradients was called)."""
        forward_context = _context(val.op)
        outer_forward = forward_context.outer_context
        outer_forward = outer_forward.GetWhileContext() if outer_forward is not None else None
        outer_grad_state = self._map.get(outer_forward) if outer_forward is not None else None
        shape = val.shape
        if outer_grad_state is None:
            if shape.is_fully_defined():
                return array_fill_ops.zeros(shape.as_list(), val.dtype)
            return array_fill_ops.zeros_like(val, optimize=False)
        if shape.is_fully_defined():
            outer_grad_state.grad_context.Enter()
            result = array_fill_ops.zeros(shape.as_list(), val.dtype)
            outer_grad_state.grad_context.Exit()
            return result
        forward_context.outer_context.Enter()
        zeros_shape = array_ops.shape_internal(val, optimize=False)
        forward_context.outer_context.Exit()
        history_shape = outer_grad_state.AddForwardAccumulator(zeros_shape)
        outer_grad_state.grad_context.Enter()
        real_shape = outer_grad_state.AddBackpropAccumulatedValue(history_shape, zeros_shape)
        result = array_fill_ops.zeros(real_shape, val.dtype)
        outer_grad_state.grad_context.Exit()
        return result

    def ZerosLike(self, op, index: int, zeros_like_outside):
        """Zeros for output ``index`` of ``op`` (unused downstream), built in its gradient loop; None for a loop
        Switch.  ``zeros_like_outside(op, index)`` makes them for ops outside this gradient's loops."""
        if is_loop_switch(op):
            return None
        dead_branch = op.type in _SWITCH_TYPES
        grad_state = self._map.get(get_while_context(op))
        if grad_state is None:
            return zeros_like_outside(op, index)
        op_context = _context(op)
        val = op.outputs[index]
        shape = val.shape
        if shape.is_fully_defined():
            result = constant_ops.constant(0, shape=shape.as_list(), dtype=val.dtype.base_dtype)
            if dead_branch:
                pred = grad_state.history_map.get(op_context.pred.name)
                result = control_flow_ops.switch_ref_or_tensor(result, pred)[1 - op_context.branch]
            return result
        if dead_branch:
            # The shape of the input on the branch not taken, recorded in every iteration.
            op_context.outer_context.Enter()
            val = control_flow_ops.switch_ref_or_tensor(op.inputs[0], op_context.pred)[1 - op_context.branch]
            zeros_shape = array_ops.shape_internal(val, optimize=False)
            op_context.outer_context.Exit()
            control_flow_ops.set_control_flow_context(val.op, op_context)
            control_flow_ops.set_control_flow_context(zeros_shape.op, op_context)
        else:
            op_context.Enter()
            zeros_shape = array_ops.shape_internal(val, optimize=False)
            op_context.Exit()
        grad_state.grad_context.Exit()
        history_shape = grad_state.AddForwardAccumulator(zeros_shape, dead_branch=dead_branch)
        grad_state.grad_context.Enter()
        real_shape = grad_state.AddBackpropAccumulatedValue(history_shape, zeros_shape, dead_branch)
        return array_fill_ops.zeros(real_shape, val.dtype.base_dtype)

    def PostProcessing(self) -> None:
        """Feeds zeros back where a loop variable's next value does not depend on it (its b_switch Merge
        would otherwise take the same gradient in every iteration)."""
        for grad_state in self._map.values():
            for b_merge in grad_state.switch_map.values():
                if b_merge.op.inputs[0] is not b_merge.op.inputs[1]:
                    continue
                dtype, shape = b_merge.op.inputs[0].dtype, b_merge.op.inputs[0].shape
                if shape.is_fully_defined():
                    grad_state.grad_context.Enter()
                    grad_val = constant_ops.constant(0, dtype=dtype, shape=shape.as_list())
                    next_grad_val = next_iteration(grad_val)
                    grad_state.grad_context.Exit()
                else:
                    outer = grad_state.grad_context.outer_context
                    if outer is not None:
                        outer.Enter()
                    enter_grad = b_merge.op.inputs[0].op.inputs[0]
                    grad_val = array_fill_ops.zeros(array_ops.shape_internal(enter_grad, optimize=False))
                    if outer is not None:
                        outer.Exit()
                    grad_state.grad_context.Enter()
                    next_grad_val = next_iteration(grad_val)
                    grad_state.grad_context.Exit()
                b_merge.op._update_input(1, next_grad_val)


def maybe_create_control_flow_state(between_op_list: list, between_ops: set, colocate: bool):
    """A ControlFlowState when while loops lie between the xs and ys (their Exits are among ``between_ops``),
    else None; adds every Exit of those loops to ``between_op_list``/``between_ops``."""
    loop_state = None
    for op in list(between_op_list):
        if is_loop_exit(op):
            if loop_state is None:
                loop_state = ControlFlowState()
            if colocate:
                with graph_lib.colocate_with(op):
                    loop_state.AddWhileContext(op, between_op_list, between_ops)
            else:
                loop_state.AddWhileContext(op, between_op_list, between_ops)
    return loop_state
