"""RNN graphs written once against the ``tensorflow.compat.v1`` API, built under this emulator and under TF.

Each case is ``build(tf) -> fetches`` (a nested structure of tensors) over the placeholder ``x``
(batch-major ``[3, 4, 5]`` unless the case says otherwise); `run_case` builds it in a fresh graph
with graph seed 42, initializes the variables and returns the graph, the variable names and the
fetched values for the fixed input ``X``.
"""

from __future__ import annotations

import numpy as np

X = np.random.RandomState(0).uniform(-1, 1, (3, 4, 5)).astype(np.float32)
LENGTHS = [4, 2, 3]


def _x(tf, time_major: bool = False):
    return tf.placeholder(tf.float32, [4, 3, 5] if time_major else [3, 4, 5], name="x")


def _steps(tf, x):
    return tf.unstack(x, axis=1)


def dynamic_basic_lstm(tf):
    return tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(6), _x(tf), dtype=tf.float32)


def dynamic_basic_lstm_lengths(tf):
    return tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(6, forget_bias=0.5), _x(tf), dtype=tf.float32,
                             sequence_length=LENGTHS)


def dynamic_gru_time_major(tf):
    x = _x(tf, time_major=True)
    return tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), x, dtype=tf.float32, time_major=True,
                             sequence_length=tf.constant(LENGTHS, tf.int64))


def dynamic_lstm_peephole_projection(tf):
    cell = tf.nn.rnn_cell.LSTMCell(6, use_peepholes=True, num_proj=3, cell_clip=0.4, proj_clip=0.25)
    x = _x(tf)
    state = cell.zero_state(3, tf.float32)
    return tf.nn.dynamic_rnn(cell, x, initial_state=state, sequence_length=LENGTHS, swap_memory=True,
                             parallel_iterations=4)


def dynamic_lstm_concatenated_state(tf):
    cell = tf.nn.rnn_cell.LSTMCell(3, state_is_tuple=False, initializer=tf.random_normal_initializer(seed=5))
    return tf.nn.dynamic_rnn(cell, _x(tf), dtype=tf.float32)


def dynamic_multi_lstm(tf):
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(4), tf.nn.rnn_cell.BasicLSTMCell(3)])
    return tf.nn.dynamic_rnn(cell, _x(tf), dtype=tf.float32, sequence_length=LENGTHS)


def dynamic_wrapped_cells(tf):
    cells = [tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(5), input_keep_prob=0.8,
                                           output_keep_prob=0.6, state_keep_prob=0.9, seed=3),
             tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.GRUCell(5)),
             tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.BasicLSTMCell(2, activation=tf.nn.relu), "/cpu:0")]
    # TF runs loop iterations concurrently: random ops inside the loop draw in scheduling order unless
    # parallel_iterations=1 (this emulator always runs them in order, as TF does with 1).
    return tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell(cells), _x(tf), dtype=tf.float32, parallel_iterations=1)


def dynamic_variational_dropout(tf):
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(4), input_keep_prob=0.7,
                                         output_keep_prob=0.5, state_keep_prob=0.6, variational_recurrent=True,
                                         input_size=5, dtype=tf.float32, seed=11)
    return tf.nn.dynamic_rnn(cell, _x(tf), dtype=tf.float32)


def bidirectional_dynamic(tf):
    return tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.GRUCell(2), _x(tf),
                                           sequence_length=LENGTHS, dtype=tf.float32)


def bidirectional_dynamic_no_lengths(tf):
    return tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(3), tf.nn.rnn_cell.BasicRNNCell(3), _x(tf),
                                           dtype=tf.float32, scope="birnn")


def static_basic_lstm(tf):
    return tf.nn.static_rnn(tf.nn.rnn_cell.BasicLSTMCell(6), _steps(tf, _x(tf)), dtype=tf.float32)


def static_gru_lengths(tf):
    return tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(4), _steps(tf, _x(tf)), dtype=tf.float32,
                            sequence_length=LENGTHS)


def static_multi_lstm_scope(tf):
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True) for _ in range(2)])
    return tf.nn.static_rnn(cell, _steps(tf, _x(tf)), dtype=tf.float32, scope="stacked")


def static_bidirectional_lengths(tf):
    return tf.nn.static_bidirectional_rnn(tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.BasicLSTMCell(3),
                                          _steps(tf, _x(tf)), dtype=tf.float32, sequence_length=LENGTHS)


def two_dynamic_rnns_share_scope_names(tf):
    x = _x(tf)
    first = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(2), x, dtype=tf.float32)
    with tf.variable_scope("second"):
        second = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(2), x, dtype=tf.float32)
    return first, second


def dynamic_unknown_batch_and_time(tf):
    x = tf.placeholder_with_default(_x(tf), [None, None, 5])
    lengths = tf.placeholder_with_default(tf.constant(LENGTHS), [None])
    cell = tf.nn.rnn_cell.GRUCell(3)
    return tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, initial_state=cell.zero_state(tf.shape(x)[0],
                                                                                             tf.float32))


def static_dropout_with_fed_keep_prob(tf):
    keep_prob = tf.placeholder_with_default(0.75, [], name="keep_prob")
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(4), output_keep_prob=keep_prob, seed=2)
    return tf.nn.static_rnn(cell, _steps(tf, _x(tf)), dtype=tf.float32)


def raw_rnn_time_major_lstm(tf):
    return raw_rnn_time_major_lstm_on(tf, _x(tf, time_major=True))


def raw_rnn_time_major_lstm_on(tf, inputs):
    """``tf.nn.raw_rnn`` over time-major ``inputs`` [4, 3, 5]: (stacked outputs, final state, final loop state)."""
    lengths = tf.constant(LENGTHS)
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=4).unstack(inputs)
    cell = tf.nn.rnn_cell.LSTMCell(3, num_proj=2)

    def loop_fn(time, cell_output, cell_state, loop_state):  # the loop_fn of TF's raw_rnn docstring
        next_state = cell.zero_state(3, tf.float32) if cell_output is None else cell_state
        elements_finished = time >= lengths
        next_input = tf.cond(tf.reduce_all(elements_finished), lambda: tf.zeros([3, 5], dtype=tf.float32),
                             lambda: inputs_ta.read(time))
        loop_state = tf.constant(0.0) if cell_output is None else loop_state + tf.reduce_sum(cell_output)
        return elements_finished, next_input, next_state, cell_output, loop_state

    outputs_ta, final_state, final_loop_state = tf.nn.raw_rnn(cell, loop_fn)
    return outputs_ta.stack(), final_state, final_loop_state


CASES = {case.__name__: case for case in (
    dynamic_basic_lstm, dynamic_basic_lstm_lengths, dynamic_gru_time_major, dynamic_lstm_peephole_projection,
    dynamic_lstm_concatenated_state, dynamic_multi_lstm, dynamic_wrapped_cells, dynamic_variational_dropout,
    bidirectional_dynamic, bidirectional_dynamic_no_lengths, static_basic_lstm, static_gru_lengths,
    static_multi_lstm_scope, static_bidirectional_lengths, two_dynamic_rnns_share_scope_names,
    dynamic_unknown_batch_and_time, static_dropout_with_fed_keep_prob, raw_rnn_time_major_lstm)}


def feed_value(case_name: str) -> np.ndarray:
    """The value fed to ``x`` for a case (time-major cases get ``X`` transposed)."""
    return X.transpose(1, 0, 2) if "time_major" in case_name else X


def run_case(tf, name: str):
    """(graph, variable names, fetched values) of case ``name`` built with ``tf`` (ours or TF's)."""
    with tf.Graph().as_default() as graph:
        tf.set_random_seed(42)
        fetches = CASES[name](tf)
        names = [v.name for v in tf.global_variables()]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(fetches, {graph.get_tensor_by_name("x:0"): feed_value(name)})
    return graph, names, values
