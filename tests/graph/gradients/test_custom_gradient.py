"""graph.gradients.custom_gradient: tf.custom_gradient's graph and tf.nn.swish against TensorFlow."""

import re

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.core import graph as graph_lib
from graph.runtime import session
from tests.graph.graph_oracle import describe_ours, describe_tf

X = np.array([[-6.0, -1.5, -0.25, 0.0], [0.5, 1.0, 3.0, 9.0]], np.float32)


def _normalized(rows):
    """Graph rows with the process-wide uid of ``CustomGradient-<uid>`` blanked (TF's counter is not ours)."""
    text = repr(rows)
    return re.sub(r"CustomGradient-\d+", "CustomGradient-N", text)


def _clipped_square(tf):
    @tf.custom_gradient
    def f(x, y):
        def grad(dy):
            return tf.clip_by_value(dy * 2.0 * x, -1.0, 1.0), dy * 3.0
        return x * x + y * 3.0, grad
    return f


BUILDS = {
    "swish": lambda tf, x: tf.nn.swish(x),
    "silu_beta": lambda tf, x: tf.nn.silu(x, beta=0.75),
    "custom": lambda tf, x: _clipped_square(tf)(x, x * 0.5),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(BUILDS))
def test_graph_values_and_gradients_match_tensorflow(tf1, name):
    def build(tf):
        x = tf.placeholder(tf.float32, X.shape, name="x")
        y = BUILDS[name](tf, x)
        return x, y, tf.gradients(tf.reduce_sum(y * X), [x])[0]

    with graph_lib.Graph().as_default() as ours:
        x, y, grad = build(ours_tf)
    tx, ty, tgrad = build(tf1)
    assert _normalized(describe_ours(ours)) == _normalized(describe_tf(tf1.get_default_graph()))
    mine = session.Session(graph=ours).run([y, grad], {x: X})
    with tf1.Session() as sess:
        real = sess.run([ty, tgrad], {tx: X})
    for a, b in zip(mine, real):
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-7)


def test_each_decorated_call_registers_its_own_gradient(g):
    first, second = ours_tf.nn.swish(X), ours_tf.nn.swish(X)
    types = [t.op.get_attr("_gradient_op_type") for t in (first, second)]
    assert all(t.startswith(b"CustomGradient-") for t in types) and types[0] != types[1]


def test_variables_read_inside_are_refused(g):
    v = ours_tf.Variable(2.0)

    @ours_tf.custom_gradient
    def f(x):
        return x * v, lambda dy: dy

    with pytest.raises(NotImplementedError, match="variables"):
        f(ours_tf.constant(1.0))
