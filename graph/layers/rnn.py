"""TF1's RNN drivers: static_rnn, dynamic_rnn, bidirectional_dynamic_rnn, static_bidirectional_rnn.

Built as TensorFlow's ``tensorflow/python/ops/rnn.py`` builds them, so graphs, variable names and
values agree:

- ``static_rnn`` unrolls the cell once per input under variable scope ``rnn`` (reusing it after the
  first step); with ``sequence_length`` each step copies the state through (and emits zeros) for
  finished rows, with ``cond`` on the min/max length.
- ``dynamic_rnn`` transposes batch-major inputs to time-major, unstacks them into TensorArrays
  (``rnn/TensorArray_1``) and runs ``_time_step`` in a ``tf.while_loop`` (``rnn/while/...``)
  bounded by ``min(time_steps, max(1, max(sequence_length)))``, writing each output to a
  TensorArray that is stacked (and transposed back) after the loop; finished rows keep their state
  and emit zeros through ``where`` (``Select``).
- ``static_state_saving_rnn`` starts from the states a state saver holds and saves the final ones
  before its last output is computed.
The bidirectional forms live in rnn_bidirectional.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.base import nest
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor
from graph.layers.rnn_cell_impl import assert_like_rnncell, concat_shape
from graph.ops import array_concat_ops
from graph.ops import array_fill_ops
from graph.ops import array_index_ops
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import control_flow_assert
from graph.ops import control_flow_ops
from graph.ops import control_flow_while
from graph.ops import math_ops
from graph.ops import reduction_ops
from graph.ops import tensor_array_ops
from graph.variables import variable_scope as vs

__all__ = ["static_rnn", "dynamic_rnn", "static_state_saving_rnn"]


def _transpose_batch_time(x: Tensor) -> Tensor:
    """``x`` with its first two axes swapped (batch-major <-> time-major); rank < 2 passes through."""
    static = x.shape
    if static.ndims is not None and static.ndims < 2:
        return x
    rank = array_ops.rank(x)
    transposed = array_ops.transpose(x, array_concat_ops.concat(([1, 0], reduction_ops.range(2, rank)), axis=0))
    if static.ndims is not None:
        transposed.set_shape(TensorShape([static.dims[1].value, static.dims[0].value]).concatenate(static[2:]))
    else:
        transposed.set_shape(TensorShape(None))
    return transposed


def _best_effort_input_batch_size(flat_input):
    """The static batch size (axis 1 of time-major inputs) if any input knows it, else a ``Shape`` slice."""
    for value in flat_input:
        shape = value.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Input tensor should have rank >= 2. Received input={value} of rank {shape.ndims}")
        if shape.dims[1].value is not None:
            return shape.dims[1].value
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    """``explicit_dtype``, else the one dtype every state tensor has."""
    if explicit_dtype is not None:
        return explicit_dtype
    if isinstance(state, (list, tuple, dict)):
        found = [element.dtype for element in nest.flatten(state)]
        if not found:
            raise ValueError(f"Unable to infer dtype from argument state={state}.")
        if any(dtype != found[0] for dtype in found):
            raise ValueError(f"Argument state={state} has tensors of different inferred dtypes. Unable to infer a "
                             f"single representative dtype. Dtypes received: {found}")
        return found[0]
    return state.dtype


def _should_cache() -> bool:
    """TF caches variable reads on their device, except inside a while loop."""
    context = graph_lib.get_default_graph()._control_flow_context
    return context is None or context.GetWhileContext() is None


def _stack_size(size):
    # TF's stack() of a 1-D tensor returns it as it is (its convert_to_tensor shortcut).
    return size if isinstance(size, Tensor) else array_concat_ops.stack(size)


def _initial_state(cell, initial_state, dtype, batch_size):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length, zero_output, state, call_cell,
              skip_conditionals: bool = False):
    """One step with ``sequence_length``: finished rows emit zeros and keep their state (TF's ``_rnn_step``)."""
    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output, new_output):
        if isinstance(output, tensor_array_ops.TensorArray) or output.shape.ndims == 0:
            return new_output
        with graph_lib.colocate_with(new_output):
            return array_index_ops.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output, flat_new_state):
        return ([copy_one_through(zero, new) for zero, new in zip(flat_zero_output, flat_new_output)]
                + [copy_one_through(old, new) for old, new in zip(flat_state, flat_new_state)])

    def call_and_flatten():
        new_output, new_state = call_cell()
        if nest.structure_signature(zero_output) != nest.structure_signature(new_output):
            raise ValueError(f"The cell's output {new_output} does not have the structure of {zero_output}")
        if nest.structure_signature(state) != nest.structure_signature(new_state):
            raise ValueError(f"The cell's new state {new_state} does not have the structure of the state {state}")
        return nest.flatten(new_output), nest.flatten(new_state)

    def maybe_copy_some_through():
        flat_new_output, flat_new_state = call_and_flatten()
        return control_flow_ops.cond(time < min_sequence_length, lambda: flat_new_output + flat_new_state,
                                     lambda: copy_some_through(flat_new_output, flat_new_state))

    if skip_conditionals:
        final = copy_some_through(*call_and_flatten())
    else:
        final = control_flow_ops.cond(time >= max_sequence_length, lambda: flat_zero_output + flat_state,
                                      maybe_copy_some_through)
    final_output, final_state = final[:len(flat_zero_output)], final[len(flat_zero_output):]
    for output, zero in zip(final_output, flat_zero_output):
        output.set_shape(zero.shape)
    for substate, old in zip(final_state, flat_state):
        if not isinstance(substate, tensor_array_ops.TensorArray):
            substate.set_shape(old.shape)
    return nest.pack_sequence_as(zero_output, final_output), nest.pack_sequence_as(state, final_state)


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """The cell unrolled over the list ``inputs`` (each ``[batch, depth]``); returns ``(outputs, state)``.

    Raises:
        TypeError: ``cell`` is not an RNN cell or ``inputs`` is not a sequence.
        ValueError: empty inputs, an unknown input depth, no ``initial_state`` nor ``dtype``, or a
            ``sequence_length`` that is not a vector.
    """
    assert_like_rnncell("cell", cell)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs = []
    with vs.variable_scope(scope or "rnn") as varscope:
        if _should_cache() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        first_input = inputs
        while isinstance(first_input, (list, tuple)):
            first_input = first_input[0]
        if first_input.shape.ndims != 1:
            fixed_batch_size = first_input.shape.with_rank_at_least(2).dims[0]
            for flat_input in nest.flatten(inputs):
                input_shape = flat_input.shape.with_rank_at_least(2)
                fixed_batch_size.assert_is_compatible_with(input_shape.dims[0])
                for index, size in enumerate(input_shape[1:].dims):
                    if size.value is None:
                        raise ValueError(f"Input size (dimension {index} of input {flat_input}) must be accessible "
                                         "via shape inference, but saw value None.")
        else:
            fixed_batch_size = first_input.shape.with_rank_at_least(1).dims[0]
        batch_size = fixed_batch_size.value if fixed_batch_size.value else array_ops.shape(first_input)[0]
        state = _initial_state(cell, initial_state, dtype, batch_size)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(f"Argument `sequence_length` must be a vector of length {batch_size}. Received "
                                 f"sequence_length={sequence_length}.")

            def create_zero_output(output_size):
                output = array_fill_ops.zeros(_stack_size(concat_shape(batch_size, output_size)),
                                              _infer_state_dtype(dtype, state))
                output.set_shape(TensorShape(concat_shape(fixed_batch_size.value, output_size, static=True)))
                return output
            zero_output = nest.map_structure(create_zero_output, cell.output_size)
            sequence_length = math_ops.cast(sequence_length, dtypes_lib.int32)
            min_sequence_length = reduction_ops.reduce_min(sequence_length)
            max_sequence_length = reduction_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()
            call_cell = lambda input_=input_, state=state: cell(input_, state)  # noqa: E731
            if sequence_length is not None:
                output, state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory: bool = False, time_major: bool = False, scope=None):
    """The cell run over ``inputs`` ``[batch, time, depth]`` (``[time, batch, depth]`` if ``time_major``) in a while loop.

    Returns ``(outputs, state)``: outputs shaped like the inputs with the cell's output size as depth
    (zeros past each row's ``sequence_length``) and the state after each row's last step.

    Raises:
        TypeError: ``cell`` is not an RNN cell.
        ValueError: ``sequence_length`` not a vector, no ``initial_state`` nor ``dtype``, inputs of rank < 3 or
            with an unknown depth, or inputs disagreeing in time steps or batch size.
    """
    assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn") as varscope:
        if _should_cache() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = tuple(_transpose_batch_time(convert_to_tensor(x)) for x in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes_lib.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("Argument sequence_length must be a vector of length batch_size. Received "
                                 f"sequence_length={sequence_length} of shape: {sequence_length.shape}")
            sequence_length = constant_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, dtype, batch_size)
        if sequence_length is not None:
            with graph_lib.control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = constant_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(inputs, list(flat_input))
        outputs, final_state = _dynamic_rnn_loop(cell, inputs, state, parallel_iterations, swap_memory,
                                                 sequence_length, dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _assert_has_shape(x: Tensor, shape) -> object:
    x_shape = array_ops.shape(x)
    packed_shape = array_concat_ops.stack(shape)
    return control_flow_assert.Assert(
        reduction_ops.reduce_all(math_ops.equal(x_shape, packed_shape)),
        [f"Expected shape for Tensor {x.name} is ", packed_shape, " but saw shape: ", x_shape])


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations: int, swap_memory: bool,
                      sequence_length=None, dtype=None):
    """The while loop of ``dynamic_rnn`` over time-major ``inputs``; returns (time-major outputs, final state)."""
    state = initial_state
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    time_steps = array_ops.shape(flat_input[0])[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape = tuple(x.shape.with_rank_at_least(3) for x in flat_input)
    const_time_steps, const_batch_size = inputs_got_shape[0].as_list()[:2]
    for x, shape in zip(flat_input, inputs_got_shape):
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape inference, but saw value "
                             f"None for input={x}.")
        if const_time_steps != shape.dims[0].value:
            raise ValueError("Time steps is not the same for all the elements in the input in a batch. Received "
                             f"time steps={shape.dims[0].value} for input={x}.")
        if const_batch_size != shape.dims[1].value:
            raise ValueError("Batch_size is not the same for all the elements in the input. Received batch "
                             f"size={shape.dims[1].value} for input={x}.")
    state_dtype = _infer_state_dtype(dtype, state)
    zero_output = nest.map_structure(
        lambda size: array_fill_ops.zeros(_stack_size(concat_shape(batch_size, size)), state_dtype), cell.output_size)
    if sequence_length is not None:
        min_sequence_length = reduction_ops.reduce_min(sequence_length)
        max_sequence_length = reduction_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = constant_ops.constant(0, dtype=dtypes_lib.int32, name="time")
    with graph_lib.name_scope("dynamic_rnn") as base_name:
        pass  # TF names the TensorArrays after this (otherwise empty) scope

    def create_ta(name, element_shape, ta_dtype):
        return tensor_array_ops.TensorArray(dtype=ta_dtype, size=time_steps, element_shape=element_shape,
                                            tensor_array_name=base_name + name)

    output_ta = tuple(create_ta(f"output_{i}", TensorShape([const_batch_size]).concatenate(_as_shape(size)),
                                state_dtype) for i, size in enumerate(flat_output_size))
    input_ta = tuple(create_ta(f"input_{i}", x.shape[1:], x.dtype) for i, x in enumerate(flat_input))
    input_ta = tuple(ta.unstack(x) for ta, x in zip(input_ta, flat_input))

    def time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for value, shape in zip(input_t, inputs_got_shape):
            value.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(inputs, list(input_t))
        call_cell = lambda: cell(input_t, state)  # noqa: E731
        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell, skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, nest.flatten(output)))
        return time + 1, output_ta_t, new_state

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = control_flow_while.while_loop(
        cond=lambda time, *_: time < loop_bound, body=time_step, loop_vars=(time, output_ta, state),
        parallel_iterations=parallel_iterations, maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, size in zip(final_outputs, flat_output_size):
        output.set_shape(concat_shape([const_time_steps, const_batch_size], size, static=True))
    return nest.pack_sequence_as(cell.output_size, list(final_outputs)), final_state


def _as_shape(size) -> TensorShape:
    """An output size as a TensorShape (a constant tensor gives its value)."""
    if isinstance(size, Tensor):
        return TensorShape(constant_ops.constant_value(size))
    return TensorShape(size)


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None, scope=None):
    """``static_rnn`` from ``state_saver.state(name)``, saving the final state(s) with ``state_saver.save_state``.

    ``state_name`` is a name, or a structure of names like ``cell.state_size``.  The last output (and the
    returned state) depend on the saves.

    Raises:
        ValueError: ``state_name`` and ``cell.state_size`` differ in structure or size.
    """
    state_size = cell.state_size
    state_is_tuple = isinstance(state_size, (list, tuple))
    if state_is_tuple != isinstance(state_name, (list, tuple)):
        raise ValueError("Argument `state_name` should be the same type as `cell.state_size`. Received: "
                         f"state_name={state_name!s}, cell.state_size={state_size!s}.")
    if state_is_tuple:
        names, sizes = nest.flatten(state_name), nest.flatten(state_size)
        if len(names) != len(sizes):
            raise ValueError("Number of elements in argument `state_name` and `cell.state_size` are mismatched. "
                             f"Received state_name={state_name} with {len(names)} elements and "
                             f"cell.state_size={cell.state_size} with {len(sizes)} elements.")
        initial_state = nest.pack_sequence_as(state_size, [state_saver.state(name) for name in names])
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state, sequence_length=sequence_length,
                                scope=scope)
    if state_is_tuple:
        flat_state = nest.flatten(state)
        saves = [state_saver.save_state(name, substate) for name, substate in zip(nest.flatten(state_name), flat_state)]
    else:
        saves = [state_saver.save_state(state_name, state)]
    with graph_lib.control_dependencies(saves):
        last_output = outputs[-1]
        outputs[-1] = nest.pack_sequence_as(last_output, [constant_ops.identity(o) for o in nest.flatten(last_output)])
        if state_is_tuple:
            state = nest.pack_sequence_as(state, [constant_ops.identity(s) for s in flat_state])
        else:
            state = constant_ops.identity(state)
    return outputs, state
