"""TF1's bidirectional RNNs: bidirectional_dynamic_rnn and static_bidirectional_rnn.

As TensorFlow's rnn.py builds them: inside variable scope ``bidirectional_rnn`` (or ``scope``), a
forward RNN under ``fw`` and a backward RNN under ``bw`` over the time-reversed inputs; its outputs
are reversed back.  With ``sequence_length`` the reversal is ``ReverseSequence`` (each row reversed
over its own length), without it ``ReverseV2`` (dynamic) or a reversed list (static).
"""

from __future__ import annotations

from graph.base import nest
from graph.base.shapes import TensorShape
from graph.layers.rnn import dynamic_rnn, static_rnn
from graph.layers.rnn_cell_impl import assert_like_rnncell
from graph.ops import array_concat_ops
from graph.ops import array_ops
from graph.ops import sequence_ops
from graph.variables import variable_scope as vs

__all__ = ["bidirectional_dynamic_rnn", "static_bidirectional_rnn"]


def _reverse_seq(input_seq, lengths):
    """The list ``input_seq`` reversed in time, per row up to ``lengths`` when given."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(item) for item in input_seq)
    flat_results = [[] for _ in input_seq]
    for sequence in zip(*flat_input_seq):
        input_shape = TensorShape(None) if sequence[0].shape.ndims is None else \
            TensorShape([None] * sequence[0].shape.ndims)
        for item in sequence:
            input_shape.assert_is_compatible_with(item.shape)
            item.set_shape(input_shape)
        reversed_joined = sequence_ops.reverse_sequence(array_concat_ops.stack(sequence), lengths, 0, 1)
        for result, flat_result in zip(array_concat_ops.unstack(reversed_joined), flat_results):
            result.set_shape(input_shape)
            flat_result.append(result)
    return [nest.pack_sequence_as(item, flat) for item, flat in zip(input_seq, flat_results)]



def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory: bool = False,
                              time_major: bool = False, scope=None):
    """``dynamic_rnn`` forward (scope ``fw``) and over the reversed inputs (scope ``bw``), reversed back.

    Returns ``((output_fw, output_bw), (output_state_fw, output_state_bw))``.

    Raises:
        TypeError: a cell is not an RNN cell.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def reverse(value):
        if sequence_length is not None:
            return sequence_ops.reverse_sequence(input=value, seq_lengths=sequence_length, seq_axis=time_axis,
                                                 batch_axis=batch_axis)
        return array_ops.reverse(value, axis=[time_axis])

    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw, inputs=inputs, sequence_length=sequence_length, initial_state=initial_state_fw,
                dtype=dtype, parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(reverse, inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw, inputs=inputs_reverse, sequence_length=sequence_length, initial_state=initial_state_bw,
                dtype=dtype, parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = reverse(tmp)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None, dtype=None,
                             sequence_length=None, scope=None):
    """``static_rnn`` forward and backward; outputs are the two concatenated along depth.

    Returns ``(outputs, output_state_fw, output_state_bw)``.

    Raises:
        TypeError: a cell is not an RNN cell or ``inputs`` is not a sequence.
        ValueError: empty ``inputs``.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length,
                                                    scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length,
                                              scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(array_concat_ops.concat([fw, bw], 1)
                         for fw, bw in zip(nest.flatten(output_fw), nest.flatten(output_bw)))
    return nest.pack_sequence_as(output_fw, list(flat_outputs)), output_state_fw, output_state_bw
