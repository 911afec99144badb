"""graph.ops.nn_activation_ops, nn_impl's composed functions, tf.reverse and tf.pad: graphs op by op and values
against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph import errors
from graph.ops import nn_grad_ops
from graph.runtime import session
from tests.graph.graph_oracle import assert_same_graph_v1

# Both signs, zero, large magnitudes (exp overflow / underflow) and values near the kinks.
X = np.array([[-30.0, -2.5, -1e-3, 0.0, 1e-3, 0.75], [3.0, 6.0, 7.5, -100.0, 80.0, -0.5]], np.float32)
LABELS = np.array([[0.0, 1.0, 0.5, 1.0, 0.0, 0.25], [1.0, 0.0, 0.0, 1.0, 1.0, 0.5]], np.float32)

# name -> build(tf, x): tensor(s) to fetch; built in one graph each with placeholder x of X's shape.
BUILDS = {
    "leaky_relu": lambda tf, x: tf.nn.leaky_relu(x),
    "leaky_relu_alpha": lambda tf, x: tf.nn.leaky_relu(x, alpha=np.float32(0.5), name="lrelu"),
    "leaky_relu_alpha_above_1": lambda tf, x: tf.nn.leaky_relu(x, alpha=1.5),
    "leaky_relu_int": lambda tf, x: tf.nn.leaky_relu(tf.constant([[-3, 0, 4]], dtype=tf.int32)),
    "selu": lambda tf, x: tf.nn.selu(x),
    "selu_list": lambda tf, x: tf.nn.selu([[-1.0, 2.0]]),
    "softsign": lambda tf, x: tf.nn.softsign(x, name="soft"),
    "crelu": lambda tf, x: tf.nn.crelu(x),
    "crelu_axis0": lambda tf, x: tf.nn.crelu(x, axis=0, name="cr"),
    "relu6": lambda tf, x: tf.nn.relu6(x),
    "sigmoid_xent": lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=LABELS, logits=x),
    "weighted_xent": lambda tf, x: tf.nn.weighted_cross_entropy_with_logits(labels=LABELS, logits=x, pos_weight=2.5),
    "weighted_xent_targets": lambda tf, x: tf.nn.weighted_cross_entropy_with_logits(
        targets=LABELS, logits=x * 0.1, pos_weight=0.5, name="wxe"),
    "moments": lambda tf, x: list(tf.nn.moments(x, axes=[0])),
    "moments_keep_dims": lambda tf, x: list(tf.nn.moments(x, axes=[0, 1], keep_dims=True, name="stats")),
    "moments_half": lambda tf, x: list(tf.nn.moments(tf.cast(x * 0.01, tf.float16), axes=[1])),
    "l2_normalize": lambda tf, x: tf.nn.l2_normalize(x, axis=1),
    "l2_normalize_dim_all": lambda tf, x: tf.nn.l2_normalize(x * 0.01, dim=[0, 1], epsilon=1e-3, name="unit"),
    "reverse": lambda tf, x: tf.reverse(x, [1]),
    "reverse_both": lambda tf, x: tf.reverse(x, axis=[-1, 0], name="rev"),
    "reverse_none": lambda tf, x: tf.reverse(x, np.zeros([0], np.int64)),
    "pad": lambda tf, x: tf.pad(x, [[1, 0], [2, 1]]),
    "pad_constant": lambda tf, x: tf.pad(x, [[0, 1], [1, 1]], constant_values=-7.0, name="padded"),
    "pad_reflect": lambda tf, x: tf.pad(x, [[1, 1], [2, 0]], mode="reflect"),
    "pad_symmetric": lambda tf, x: tf.pad(x, [[0, 2], [1, 1]], mode="SYMMETRIC"),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(BUILDS))
def test_graph_and_values_match_tensorflow(tf1, name):
    def build(tf):
        x = tf.placeholder(tf.float32, X.shape, name="x")
        return x, BUILDS[name](tf, x)

    (ours, (x, out)), (theirs, (tx, tout)) = assert_same_graph_v1(tf1, build)
    mine = session.Session(graph=ours).run(out, {x: X})
    with tf1.Session(graph=theirs) as sess:
        real = sess.run(tout, {tx: X})
    for a, b in zip(mine if isinstance(mine, list) else [mine], real if isinstance(real, list) else [real]):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=2e-6 if a.dtype != np.float16 else 1e-3, atol=1e-7)


@pytest.mark.tf
@pytest.mark.parametrize("op_type", ["LeakyReluGrad", "SeluGrad", "SoftsignGrad"])
def test_activation_grad_kernels_match_tensorflow(tf1, op_type):
    from tensorflow.python.ops import gen_nn_ops
    gradients = np.linspace(-3.0, 3.0, X.size).reshape(X.shape).astype(np.float32)
    snake = "".join("_" + c.lower() if c.isupper() else c for c in op_type).lstrip("_")
    kwargs = {"alpha": 0.3} if op_type == "LeakyReluGrad" else {}
    with ours_tf.Graph().as_default():
        ours = getattr(nn_grad_ops, snake)(gradients, X, **kwargs)
        assert ours.op.type == op_type and ours.shape.as_list() == list(X.shape)
        mine = ours_tf.Session().run(ours)
    with tf1.Session() as sess:
        theirs = sess.run(getattr(gen_nn_ops, snake)(gradients, X, **kwargs))
    np.testing.assert_allclose(mine, theirs, rtol=1e-6)


@pytest.mark.tf
@pytest.mark.parametrize("axis", [[2], [0, 0], [-3], [[0]]])
def test_reverse_rejects_bad_axes_as_tensorflow(tf1, axis):
    def run(tf, session_class):
        with tf.Graph().as_default():
            x = tf.placeholder_with_default(np.ones((2, 3), np.float32), [None, None])
            axis_t = tf.placeholder_with_default(np.array(axis, np.int32), None)
            with session_class() as sess:
                sess.run(tf.reverse(x, axis_t))

    with pytest.raises(tf1.errors.InvalidArgumentError) as theirs:
        run(tf1, tf1.Session)
    with pytest.raises(errors.InvalidArgumentError) as ours:
        run(ours_tf, ours_tf.Session)
    assert ours.value.message.splitlines()[0] in theirs.value.message


@pytest.mark.tf
def test_argument_errors_match_tensorflow(tf1):
    x = np.ones((2, 3), np.float32)
    calls = [lambda tf: tf.nn.weighted_cross_entropy_with_logits(labels=x, targets=x, logits=x, pos_weight=1.0),
             lambda tf: tf.nn.weighted_cross_entropy_with_logits(labels=x[:1], logits=x, pos_weight=1.0),
             lambda tf: tf.nn.moments(tf.constant(x), [0], keep_dims=True, keepdims=True),
             lambda tf: tf.nn.l2_normalize(x, axis=0, dim=0)]
    for call in calls:
        with pytest.raises(ValueError) as theirs:
            call(tf1)
        with ours_tf.Graph().as_default(), pytest.raises(ValueError) as ours:
            call(ours_tf)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.tf
@pytest.mark.parametrize("name", ["leaky_relu_alpha", "selu", "softsign", "crelu", "weighted_xent", "moments",
                                  "l2_normalize", "reverse_both", "pad_reflect"])
def test_gradient_graph_matches_tensorflow(tf1, name):
    def build(tf):
        x = tf.placeholder(tf.float32, X.shape, name="x")
        out = BUILDS[name](tf, x)
        return tf.gradients(out, [x])

    assert_same_graph_v1(tf1, build)
