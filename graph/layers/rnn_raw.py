"""TF1's ``tf.nn.raw_rnn``: an RNN whose inputs, stopping and emitted values come from a user's ``loop_fn``.

As TensorFlow's rnn.py builds it: ``loop_fn(time, cell_output, cell_state, loop_state)`` is called once
before the loop (``cell_output`` None) for the first input, the initial state and the emit structure,
then after every cell step for ``(finished, next_input, next_state, emit_output, next_loop_state)``.  A
``tf.while_loop`` (``rnn/while/...``) runs until every batch entry is finished; finished entries emit
zeros and keep their state (``where``), and each step's emit is written to a dynamically sized
TensorArray (``rnn_output_<i>``) that the caller stacks.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.base import nest
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import convert_to_tensor
from graph.layers.rnn import _should_cache
from graph.layers.rnn_cell_impl import assert_like_rnncell, concat_shape
from graph.ops import array_fill_ops
from graph.ops import array_index_ops
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import control_flow_while
from graph.ops import math_ops
from graph.ops import reduction_ops
from graph.ops import tensor_array_ops
from graph.variables import variable_scope as vs

__all__ = ["raw_rnn"]


def _check_structure(first, second) -> None:
    if nest.structure_signature(first) != nest.structure_signature(second):
        raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst structure: {first}"
                         f"\n\nSecond structure: {second}")


def _as_shape(size) -> TensorShape:
    if isinstance(size, TensorShape):
        return size
    if isinstance(size, graph_lib.Tensor):
        return TensorShape(constant_ops.constant_value(size))
    return TensorShape(size)


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory: bool = False, scope=None):
    """Runs ``cell`` in a while loop driven by ``loop_fn``; returns ``(emit_ta, final_state, final_loop_state)``.

    Raises:
        TypeError: ``cell`` is not an RNN cell or ``loop_fn`` is not callable.
        ValueError: the structures ``loop_fn`` returns disagree with the cell's state or the first input.
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    parallel_iterations = parallel_iterations or 32
    with vs.variable_scope(scope or "rnn") as varscope:
        if _should_cache() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        time = constant_ops.constant(0, dtype=dtypes_lib.int32)
        elements_finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(time, None, None, None)
        flat_input = nest.flatten(next_input)
        loop_state = init_loop_state if init_loop_state is not None else constant_ops.constant(
            0, dtype=dtypes_lib.int32)
        input_shapes = [x.shape for x in flat_input]
        static_batch_size = input_shapes[0].with_rank_at_least(1).dims[0]
        for shape in input_shapes:
            static_batch_size.assert_is_compatible_with(shape.with_rank_at_least(1).dims[0])
        const_batch_size = static_batch_size.value
        batch_size = const_batch_size if const_batch_size is not None else array_ops.shape(flat_input[0])[0]
        _check_structure(initial_state, cell.state_size)
        state = nest.map_structure(convert_to_tensor, initial_state)
        flat_state = nest.flatten(state)
        if emit_structure is not None:
            flat_emit_structure = nest.flatten(emit_structure)
            flat_emit_size = [emit.shape if emit.shape.is_fully_defined() else array_ops.shape(emit)
                              for emit in flat_emit_structure]
            flat_emit_dtypes = [emit.dtype for emit in flat_emit_structure]
        else:
            emit_structure = cell.output_size
            flat_emit_size = nest.flatten(emit_structure)
            flat_emit_dtypes = [flat_state[0].dtype] * len(flat_emit_size)
        flat_emit_ta = [
            tensor_array_ops.TensorArray(
                dtype=dtype, dynamic_size=True, size=0, name=f"rnn_output_{i}",
                element_shape=TensorShape([const_batch_size]).concatenate(_as_shape(size)))
            for i, (dtype, size) in enumerate(zip(flat_emit_dtypes, flat_emit_size))]
        emit_ta = nest.pack_sequence_as(emit_structure, flat_emit_ta)
        zero_emit = nest.pack_sequence_as(emit_structure, [
            array_fill_ops.zeros(concat_shape(batch_size, size), dtype)
            for size, dtype in zip(flat_emit_size, flat_emit_dtypes)])

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(reduction_ops.reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            _check_structure(state, cell_state)
            _check_structure(cell.output_size, next_output)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, next_output, cell_state, loop_state)
            _check_structure(state, next_state)
            _check_structure(current_input, next_input)
            _check_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def copy_some_through(current, candidate):
                # Finished entries keep their current value (zeros for the emit).
                def copy_one(current_i, candidate_i):
                    if isinstance(current_i, tensor_array_ops.TensorArray) or current_i.shape.ndims == 0:
                        return candidate_i
                    with graph_lib.colocate_with(candidate_i):
                        return array_index_ops.where(elements_finished, current_i, candidate_i)
                flat = [copy_one(c, n) for c, n in zip(nest.flatten(current), nest.flatten(candidate))]
                return nest.pack_sequence_as(current, flat)

            emit_output = copy_some_through(zero_emit, emit_output)
            next_state = copy_some_through(state, next_state)
            emit_ta = nest.pack_sequence_as(emit_ta, [
                ta.write(time, emit) for ta, emit in zip(nest.flatten(emit_ta), nest.flatten(emit_output))])
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return next_time, elements_finished, next_input, emit_ta, next_state, loop_state

        returned = control_flow_while.while_loop(
            condition, body, loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations, swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state
