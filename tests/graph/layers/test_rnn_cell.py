"""Tests for graph/layers/rnn_cell_*.py: cell names, scopes, sizes, zero states, weights, initial values and
errors, each compared with TensorFlow's tf.nn.rnn_cell (TF 2.21 with tf-keras' legacy cells)."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.layers import rnn_cell_wrappers

X = np.random.RandomState(3).uniform(-1, 1, (2, 3)).astype(np.float32)


def _describe(value) -> str:
    return f"{type(value).__name__}: {value}" if isinstance(value, Exception) else repr(value)


def _attempt(function) -> str:
    try:
        return _describe(function())
    except (TypeError, ValueError) as error:
        return _describe(error)


def _cell_transcript(tf_module) -> list:
    """Names, sizes, scopes and weights of cells called directly, as text lines."""
    tf = tf_module
    lines = []
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        cell = tf.nn.rnn_cell.BasicLSTMCell(4)
        lines.append((cell.name, cell.state_size, cell.output_size))
        zero = cell.zero_state(2, tf.float32)
        lines.append((zero.c.name, zero.h.name, zero.c.shape.as_list(), zero.dtype.name))
        output, state = cell(x, zero)
        output_again, _ = cell(x, state)  # a second call reuses the weights
        lines.append((output.name, state.c.name, output_again.name, cell.scope_name, cell.built,
                      [v.name for v in cell.trainable_weights], [v.name for v in cell.variables]))
        lines.append(_attempt(lambda: cell(tf.placeholder(tf.float32, [2, 3, 1]), zero)))
        with tf.variable_scope("explicit"):
            gru = tf.nn.rnn_cell.GRUCell(3, name="mygru")
            gru_out, _ = gru(x, tf.zeros([2, 3]), scope="inner")
        lines.append((gru.name, gru_out.name, [v.name for v in gru.variables]))
        stacked = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicRNNCell(2), tf.nn.rnn_cell.BasicRNNCell(3)],
                                              state_is_tuple=False)
        zero = stacked.zero_state(2, tf.float32)
        stacked_out, stacked_state = stacked(x, zero)
        lines.append((stacked.state_size, stacked.output_size, stacked.name, zero.name, zero.shape.as_list(),
                      stacked_out.name, stacked_state.name, [v.name for v in stacked.trainable_weights],
                      [v.name for v in stacked.weights]))
        peephole = tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True, num_proj=2, state_is_tuple=False)
        lines.append((peephole.state_size, peephole.output_size))
        peephole_out, peephole_state = peephole(x, peephole.zero_state(2, tf.float32))
        lines.append((peephole_out.name, peephole_out.shape.as_list(), peephole_state.shape.as_list(),
                      [(v.name, v.shape.as_list()) for v in peephole.variables]))
        wrapped = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.GRUCell(3)),
                                                output_keep_prob=0.5, seed=1)
        wrapped_zero = wrapped.zero_state(2, tf.float32)
        wrapped_out, _ = wrapped(x, wrapped_zero)
        lines.append((wrapped.state_size, wrapped.output_size, wrapped_zero.name, wrapped_out.name,
                      [v.name for v in wrapped.variables], wrapped.wrapped_cell.cell.name))
        initial = tf.nn.rnn_cell.GRUCell(2).get_initial_state(inputs=x)
        lines.append((initial.name, initial.shape.as_list()))
    return lines


def _error_transcript(tf_module) -> list:
    """The errors TF raises for misuse, as text lines."""
    tf = tf_module
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        cell = tf.nn.rnn_cell.BasicLSTMCell(4)
        cases = (
            lambda: tf.nn.rnn_cell.MultiRNNCell([]),
            lambda: tf.nn.rnn_cell.MultiRNNCell("not a list"),
            lambda: tf.nn.rnn_cell.MultiRNNCell([cell], state_is_tuple=False),
            lambda: tf.nn.rnn_cell.BasicLSTMCell(3, dtype=tf.int32),
            lambda: tf.nn.rnn_cell.BasicRNNCell(2)(tf.placeholder(tf.int32, [2, 3]), tf.zeros([2, 2])),
            lambda: tf.nn.rnn_cell.GRUCell(2)(tf.placeholder(tf.float32, [2, None]), tf.zeros([2, 2])),
            lambda: tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=1.5),
            lambda: tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=-0.1),
            lambda: tf.nn.rnn_cell.DropoutWrapper(cell, variational_recurrent=True),
            lambda: tf.nn.rnn_cell.DropoutWrapper(cell, variational_recurrent=True, dtype=tf.float32,
                                                  input_keep_prob=0.5),
            lambda: tf.nn.rnn_cell.DropoutWrapper(cell, dropout_state_filter_visitor=3),
            lambda: tf.nn.rnn_cell.DropoutWrapper("notacell"),
            lambda: tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([1]), tf.zeros([1], tf.float64)).dtype,
            lambda: tf.nn.rnn_cell.GRUCell(2).get_initial_state(),
            lambda: tf.nn.rnn_cell.GRUCell(2).get_initial_state(inputs=x, batch_size=5),
            lambda: tf.nn.rnn_cell.GRUCell(2).get_initial_state(inputs=x, dtype=tf.float64),
        )
        return [_attempt(case) for case in cases]


@pytest.mark.tf
def test_cells_match_tensorflow(tf_module):
    assert _cell_transcript(tf) == _cell_transcript(tf_module)


@pytest.mark.tf
def test_errors_match_tensorflow(tf_module):
    assert _error_transcript(tf) == _error_transcript(tf_module)


CELLS = {
    "basic_rnn": lambda tf: tf.nn.rnn_cell.BasicRNNCell(4, activation=tf.nn.relu),
    "basic_lstm": lambda tf: tf.nn.rnn_cell.BasicLSTMCell(4, state_is_tuple=False),
    "gru": lambda tf: tf.nn.rnn_cell.GRUCell(4),
    "gru_initializers": lambda tf: tf.nn.rnn_cell.GRUCell(
        4, kernel_initializer=tf.random_normal_initializer(seed=2), bias_initializer=tf.constant_initializer(0.3)),
    "lstm_full": lambda tf: tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True, cell_clip=0.3, num_proj=3,
                                                    proj_clip=0.2, forget_bias=0.7, activation="sigmoid"),
    "lstm_initializer": lambda tf: tf.nn.rnn_cell.LSTMCell(4, initializer=tf.truncated_normal_initializer(seed=9)),
    "lstm_scope_initializer": lambda tf: tf.nn.rnn_cell.LSTMCell(3),
}


def _run_cell(tf_module, name):
    tf = tf_module
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        cell = CELLS[name](tf)
        with tf.variable_scope("scoped", initializer=tf.random_uniform_initializer(-0.5, 0.5, seed=4)
                               if name == "lstm_scope_initializer" else None):
            state = cell.zero_state(2, tf.float32)
            first_out, first_state = cell(X, state)
            second_out, second_state = cell(X * 2, first_state)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return ([v.name for v in cell.variables],
                    sess.run([cell.variables, first_out, first_state, second_out, second_state]))


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(CELLS))
def test_initial_weights_and_two_steps_match_tensorflow(tf_module, name):
    our_names, ours = _run_cell(tf, name)
    their_names, theirs = _run_cell(tf_module, name)
    assert our_names == their_names
    for mine, real in zip(ours[0], theirs[0]):
        np.testing.assert_array_equal(mine, real)  # same seeds: the same initial values, bit for bit
    flat_ours = [np.asarray(v) for part in ours[1:] for v in (part if isinstance(part, (tuple, list)) else [part])]
    flat_theirs = [np.asarray(v) for part in theirs[1:] for v in (part if isinstance(part, (tuple, list)) else [part])]
    for mine, real in zip(flat_ours, flat_theirs):
        np.testing.assert_allclose(mine, real, rtol=1e-5, atol=1e-6)


def test_gru_gates_bias_starts_at_one_and_biases_at_zero(g):
    cell = tf.nn.rnn_cell.GRUCell(3)
    cell(X, tf.zeros([2, 3]))
    lstm = tf.nn.rnn_cell.LSTMCell(2)
    lstm(X, lstm.zero_state(2, tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = dict(zip([v.op.name for v in tf.global_variables()], sess.run(tf.global_variables())))
    np.testing.assert_array_equal(values["gru_cell/gates/bias"], np.ones(6, np.float32))
    np.testing.assert_array_equal(values["gru_cell/candidate/bias"], np.zeros(3, np.float32))
    np.testing.assert_array_equal(values["lstm_cell/bias"], np.zeros(8, np.float32))
    limit = np.sqrt(6 / (5 + 8))  # glorot_uniform on [inputs + h, 4 * units]
    assert np.abs(values["lstm_cell/kernel"]).max() <= limit and values["lstm_cell/kernel"].std() > limit / 4


@pytest.mark.tf
def test_dropout_seeds_are_tensorflows_md5_salts(tf1):
    ours = rnn_cell_wrappers.DropoutWrapper(tf.nn.rnn_cell.GRUCell(2), output_keep_prob=0.5, seed=3)
    theirs = tf1.nn.rnn_cell.DropoutWrapper(tf1.nn.rnn_cell.GRUCell(2), output_keep_prob=0.5, seed=3)
    for salt, index in (("input", 0), ("state", 1), ("output", 0), ("output", 7)):
        assert ours._gen_seed(salt, index) == theirs._gen_seed(salt, index)
    assert rnn_cell_wrappers.DropoutWrapper(tf.nn.rnn_cell.GRUCell(2))._gen_seed("state", 1) is None


def test_dropout_state_filter_keeps_lstm_c():
    state = tf.nn.rnn_cell.LSTMStateTuple("c", "h")
    shallow = rnn_cell_wrappers._filter_structure(rnn_cell_wrappers._default_dropout_state_filter_visitor,
                                                  ((state, "plain"),))
    assert shallow == ((tf.nn.rnn_cell.LSTMStateTuple(False, True), True),)
    assert isinstance(shallow[0][0], tf.nn.rnn_cell.LSTMStateTuple)


@pytest.mark.tf
def test_public_names_are_tensorflows(tf_module):
    theirs = [name for name in dir(tf_module.nn.rnn_cell) if not name.startswith("_")]
    assert dir(tf.nn.rnn_cell) == theirs
    for name in ("static_rnn", "dynamic_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn",
                 "static_state_saving_rnn", "raw_rnn"):
        assert name in dir(tf.nn) and hasattr(tf_module.nn, name)
