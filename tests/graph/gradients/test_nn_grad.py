"""Tests for graph/gradients/nn_grad.py and graph/ops/nn_grad_ops.py: against TensorFlow and central differences."""

import numpy as np
import pytest

from graph import errors
from graph.gradients import registry
from graph.ops import nn_grad_ops
from tests.graph.gradients.gradient_checks import OURS, check_numerically, compare_with_tensorflow

# Values kept away from the kinks of relu (0) and relu6 (0, 6), where the derivative jumps.
X = np.array([[1.25, -2.0, 3.5, 0.5, -0.75], [7.0, -0.25, 5.5, -3.0, 6.5]])
IMAGES = np.linspace(-2.0, 2.0, 2 * 3 * 2 * 4).reshape(2, 3, 2, 4)
PROBS_AXIS1 = np.abs(IMAGES) / np.abs(IMAGES).sum(axis=1, keepdims=True)  # the backprop assumes distributions
LABELS = np.array([[0.1, 0.2, 0.3, 0.25, 0.15], [0.0, 1.0, 0.0, 0.0, 0.0]])

CASES = {
    "relu": (lambda tf, x: tf.nn.relu(x), [X]),
    "relu6": (lambda tf, x: tf.nn.relu6(x), [X]),
    "elu": (lambda tf, x: tf.nn.elu(x), [X]),
    "softplus": (lambda tf, x: tf.nn.softplus(x), [X]),
    "softmax": (lambda tf, x: tf.nn.softmax(x), [X]),
    "softmax_axis0": (lambda tf, x: tf.nn.softmax(x, axis=0), [X]),
    "log_softmax": (lambda tf, x: tf.nn.log_softmax(x), [X]),
    "bias_add": (lambda tf, x, b: tf.nn.bias_add(x, b), [X, X[0] / 3]),
    "bias_add_nchw": (lambda tf, x, b: tf.nn.bias_add(x, b, data_format="NCHW"), [IMAGES, np.array([0.5, -1.0, 2.0])]),
    "bias_add_nhwc_rank4": (lambda tf, x, b: tf.nn.bias_add(x, b), [IMAGES, np.array([0.5, -1.0, 2.0, 1.0])]),
    "l2_loss": (lambda tf, x: tf.nn.l2_loss(x), [X]),
    "leaky_relu": (lambda tf, x: tf.nn.leaky_relu(x), [X]),
    "leaky_relu_alpha": (lambda tf, x: tf.nn.leaky_relu(x, alpha=1.5), [X]),
    "selu": (lambda tf, x: tf.nn.selu(x), [X]),
    "swish": (lambda tf, x: tf.nn.swish(x), [X]),
    "silu_beta": (lambda tf, x: tf.nn.silu(x, beta=1.75), [X]),
    "softsign": (lambda tf, x: tf.nn.softsign(x), [X]),
    "crelu": (lambda tf, x: tf.nn.crelu(x, axis=0), [X]),
    "moments": (lambda tf, x: tf.add_n(list(tf.nn.moments(x, axes=[1]))), [X]),
    "moments_keep_dims": (lambda tf, x: tf.nn.moments(x, axes=[0, 1], keep_dims=True)[1], [X]),
    "l2_normalize": (lambda tf, x: tf.nn.l2_normalize(x, axis=1), [X]),
    "sigmoid_xent": (lambda tf, x, labels: tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=x),
                     [X, LABELS]),
    "weighted_xent": (lambda tf, x, labels: tf.nn.weighted_cross_entropy_with_logits(labels=labels, logits=x,
                                                                                      pos_weight=2.5), [X, LABELS]),
    "reverse": (lambda tf, x: tf.reverse(x, [1]) * X, [X]),
    "reverse_both": (lambda tf, x: tf.reverse(x, [0, -1]) * X, [X]),
    "softmax_xent_rank3_axis1": (lambda tf, x, labels: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=labels, logits=x, axis=1), [IMAGES, PROBS_AXIS1]),
    "sparse_softmax_xent_rank3": (lambda tf, x: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=[[0, 1], [2, 3], [1, 1]], logits=x), [IMAGES[0]]),
    "softmax_xent_v2": (lambda tf, x, labels: tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=x),
                        [X, LABELS]),
    "softmax_xent_v1": (lambda tf, x, labels: tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x),
                        [X, LABELS]),
    "sparse_softmax_xent": (lambda tf, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[3, 0], logits=x),
                            [X]),
}


def _numeric_cases():
    # The v1 cross entropy stops the labels' gradient: central differences would see it.
    return sorted(name for name in CASES if name != "softmax_xent_v1")


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_tensorflow(tf1, name):
    build, values = CASES[name]
    compare_with_tensorflow(tf1, build, values)


@pytest.mark.parametrize("name", _numeric_cases())
def test_gradient_matches_central_differences(name):
    build, values = CASES[name]
    check_numerically(build, values)


SECOND_ORDER = {
    # Each first gradient is built from a *Grad op (or the cross entropy's backprop output), so the
    # second goes through that op's registered gradient.
    "relu": (lambda tf, x: tf.nn.relu(x) * x, [X]),
    "relu6": (lambda tf, x: tf.nn.relu6(x) * x, [X]),
    "elu": (lambda tf, x: tf.nn.elu(x), [X]),
    "softplus": (lambda tf, x: tf.nn.softplus(x), [X]),
    "softmax": (lambda tf, x: tf.nn.softmax(x), [X]),
    "log_softmax": (lambda tf, x: tf.nn.log_softmax(x), [X]),
    "bias_add": (lambda tf, x, b: tf.square(tf.nn.bias_add(x, b)), [X, X[1] / 4]),
    "softmax_xent": (lambda tf, x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=LABELS, logits=x), [X]),
    "leaky_relu": (lambda tf, x: tf.nn.leaky_relu(x, alpha=0.3) * x, [X]),
    "selu": (lambda tf, x: tf.nn.selu(x), [X]),
    "sparse_softmax_xent": (lambda tf, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 4], logits=x),
                            [X]),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_matches_tensorflow(tf1, name):
    build, values = SECOND_ORDER[name]
    compare_with_tensorflow(tf1, build, values, second_order=True, rtol=1e-4)


@pytest.mark.tf
def test_bias_add_grad_gradient_matches_tensorflow(tf1):
    # d(BiasAddGrad(u))/du: the bias gradient differentiated with respect to the upstream gradient u.
    def build(tf, u):
        x = tf.constant(IMAGES, dtype=tf.float32)
        b = tf.constant([0.5, -1.0, 2.0], dtype=tf.float32)
        y = tf.reduce_sum(tf.nn.bias_add(x, b, data_format="NCHW") * u)
        return tf.gradients(y, b)[0]
    compare_with_tensorflow(tf1, build, [np.cos(IMAGES)])


@pytest.mark.tf
def test_dropout_gradient_matches_tensorflow(tf1):
    # The random mask is bit-exact with TF's for a fixed seed: the gradient is mask / keep_prob in both.
    def build(tf, x):
        tf.set_random_seed(5)
        return tf.nn.dropout(x, rate=0.4, seed=3)
    values = [np.linspace(-1.0, 1.0, 60).reshape(6, 10)]
    (grad,) = compare_with_tensorflow(tf1, build, values)
    assert np.count_nonzero(grad) not in (0, grad.size)


def test_declarations_match_tensorflow():
    tf_registry = pytest.importorskip("tensorflow.python.framework.ops")._gradient_registry
    for op_type in ("Relu", "ReluGrad", "Relu6", "Relu6Grad", "Elu", "EluGrad", "Softplus", "SoftplusGrad",
                    "Softmax", "LogSoftmax", "BiasAdd", "BiasAddGrad", "L2Loss", "SoftmaxCrossEntropyWithLogits",
                    "SparseSoftmaxCrossEntropyWithLogits", "LeakyRelu", "LeakyReluGrad", "Selu", "SeluGrad",
                    "Softsign", "ReverseV2", "IdentityN"):
        assert registry.lookup(op_type) is not None and tf_registry.lookup(op_type) is not None, op_type


@pytest.mark.tf
@pytest.mark.parametrize("op_type", ["ReluGrad", "Relu6Grad", "EluGrad", "SoftplusGrad"])
def test_activation_grad_kernels_match_tensorflow(tf1, op_type):
    from tensorflow.python.ops import gen_nn_ops
    gradients = np.linspace(-3.0, 3.0, 10).reshape(2, 5).astype(np.float32)
    features = np.array([[-1.0, 0.0, 0.5, 6.0, 7.0], [-20.0, 3.0, 5.9, 1e-3, -1e-3]], np.float32)
    snake = "".join("_" + c.lower() if c.isupper() else c for c in op_type).lstrip("_")
    with OURS.Graph().as_default():
        ours = getattr(nn_grad_ops, snake)(gradients, features)
        assert ours.op.type == op_type
        with OURS.Session() as sess:
            mine = sess.run(ours)
    with tf1.Session() as sess:
        theirs = sess.run(getattr(gen_nn_ops, snake)(gradients, features))
    np.testing.assert_allclose(mine, theirs, rtol=1e-6)


@pytest.mark.tf
@pytest.mark.parametrize("data_format,shape", [("NHWC", (2, 3)), ("NCHW", (2, 3, 4)), ("NCHW", (2, 3, 4, 5)),
                                               ("NHWC", (2, 3, 4, 5))])
def test_bias_add_grad_kernel_matches_tensorflow(tf1, data_format, shape):
    from tensorflow.python.ops import gen_nn_ops
    backprop = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    with OURS.Graph().as_default():
        ours = nn_grad_ops.bias_add_grad(backprop, data_format=data_format)
        assert ours.shape.as_list() == [shape[1] if data_format == "NCHW" else shape[-1]]
        with OURS.Session() as sess:
            mine = sess.run(ours)
    with tf1.Session() as sess:
        theirs = sess.run(gen_nn_ops.bias_add_grad(backprop, data_format=data_format))
    np.testing.assert_array_equal(mine, theirs)


@pytest.mark.tf
def test_bias_add_grad_nchw_needs_rank_3_as_in_tensorflow(tf1):
    from tensorflow.python.ops import gen_nn_ops
    with pytest.raises(ValueError, match="at least rank 3 but is rank 2"):
        gen_nn_ops.bias_add_grad(np.ones((2, 3), np.float32), data_format="NCHW")
    with OURS.Graph().as_default(), pytest.raises(ValueError, match="at least rank 3 but is rank 2 .*BiasAddGrad"):
        nn_grad_ops.bias_add_grad(np.ones((2, 3), np.float32), data_format="NCHW")


def test_activation_grad_rejects_mismatched_shapes():
    with OURS.Graph().as_default():
        grad = nn_grad_ops.relu_grad(OURS.placeholder(OURS.float32), [1.0, 2.0])
        with OURS.Session() as sess, pytest.raises(errors.InvalidArgumentError, match="ReluGrad"):
            sess.run(grad, {grad.op.inputs[0]: [1.0, 2.0, 3.0]})
