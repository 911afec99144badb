"""graph.train.learning_rate_decay: each schedule's graph op by op and its values against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.core import graph as graph_lib
from graph.runtime import session
from graph.train import learning_rate_decay as decay
from tests.graph.graph_oracle import describe_ours, describe_tf

STEPS = [0, 1, 37, 99, 100, 101, 250, 1000]

# name -> build(train_namespace, global_step); each runs with our module and with tf.train.
SCHEDULES = {
    "exponential": lambda t, s: t.exponential_decay(0.1, s, 100, 0.96),
    "exponential_staircase": lambda t, s: t.exponential_decay(0.1, s, 100, 0.96, staircase=True),
    "exponential_named": lambda t, s: t.exponential_decay(0.5, s, 70, 0.5, name="lr"),
    "piecewise": lambda t, s: t.piecewise_constant(s, [10, 100, 200], [1.0, 0.5, 0.1, 0.01]),
    "piecewise_two": lambda t, s: t.piecewise_constant(s, [100], [1.0, 0.5]),
    "polynomial": lambda t, s: t.polynomial_decay(0.1, s, 100),
    "polynomial_cycle": lambda t, s: t.polynomial_decay(0.1, s, 100, 0.01, power=0.5, cycle=True),
    "polynomial_power": lambda t, s: t.polynomial_decay(0.1, s, 300, 0.001, power=2.0),
    "natural_exp": lambda t, s: t.natural_exp_decay(0.1, s, 100, 0.5),
    "natural_exp_staircase": lambda t, s: t.natural_exp_decay(0.1, s, 100, 0.5, staircase=True),
    "inverse_time": lambda t, s: t.inverse_time_decay(0.1, s, 100, 0.5),
    "inverse_time_staircase": lambda t, s: t.inverse_time_decay(0.1, s, 100, 0.5, staircase=True),
    "cosine": lambda t, s: t.cosine_decay(0.1, s, 200),
    "cosine_alpha": lambda t, s: t.cosine_decay(0.1, s, 200, alpha=0.1),
    "cosine_restarts": lambda t, s: t.cosine_decay_restarts(0.1, s, 50),
    "cosine_restarts_flat": lambda t, s: t.cosine_decay_restarts(0.1, s, 50, t_mul=1.0, m_mul=0.5, alpha=0.01),
    "linear_cosine": lambda t, s: t.linear_cosine_decay(0.1, s, 300),
    "linear_cosine_periods": lambda t, s: t.linear_cosine_decay(0.1, s, 300, num_periods=2.0, alpha=0.1, beta=0.01),
    "noisy_linear_cosine": lambda t, s: t.noisy_linear_cosine_decay(0.1, s, 300),
    "float64_rate": lambda t, s: t.exponential_decay(np.float64(0.1), s, 100, 0.9),
}


def _ours(build, step_dtype="int64"):
    graph = graph_lib.Graph()
    with graph.as_default():
        ours_tf.set_random_seed(7)
        step = ours_tf.placeholder(step_dtype, [], name="global_step")
        rate = build(decay, step)
        sess = session.Session(graph=graph)  # one session: the noisy schedule's generator advances per run
        values = [sess.run(rate, {step: s}) for s in STEPS]
    return graph, rate, values


def _theirs(tf1, build, step_dtype="int64"):
    tf1.set_random_seed(7)
    step = tf1.placeholder(step_dtype, [], name="global_step")
    rate = build(tf1.train, step)
    with tf1.Session() as sess:
        values = [sess.run(rate, {step: s}) for s in STEPS]
    return tf1.get_default_graph(), rate, values


@pytest.mark.tf
@pytest.mark.parametrize("schedule", sorted(SCHEDULES))
def test_schedule_matches_tensorflow(tf1, schedule):
    graph, rate, values = _ours(SCHEDULES[schedule])
    tf_graph, tf_rate, tf_values = _theirs(tf1, SCHEDULES[schedule])
    mine, real = describe_ours(graph), describe_tf(tf_graph)
    for index, (a, b) in enumerate(zip(mine, real)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(mine) == len(real)
    assert rate.name == tf_rate.name and rate.dtype.name == tf_rate.dtype.name
    for step, mine_value, tf_value in zip(STEPS, values, tf_values):
        np.testing.assert_allclose(mine_value, tf_value, rtol=1e-5, err_msg=f"step {step}")


@pytest.mark.tf
def test_int32_global_step_and_variable_step(tf1):
    build = SCHEDULES["piecewise"]
    *_, values = _ours(lambda t, s: t.piecewise_constant(s, [10, 100, 200], [1.0, 0.5, 0.1, 0.01]), "int32")
    *_, tf_values = _theirs(tf1, build, "int32")
    assert values == tf_values


def test_piecewise_constant_rejects_mixed_dtypes(g):
    step = ours_tf.placeholder(ours_tf.int32, [])
    with pytest.raises(ValueError, match=r"Boundaries \(<dtype: 'float32'>\) must have the same dtype as x"):
        decay.piecewise_constant(step, [1.5], [1.0, 2.0])
    with pytest.raises(ValueError, match="Values must have elements all with the same dtype"):
        decay.piecewise_constant(step, [1], [1.0, 2])
